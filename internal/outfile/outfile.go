// Package outfile writes a command's outputs (-o and the like, and a
// progress bar on a terminal), checked before a run and written after it,
// atomically for a regular file. Nothing here draws or counts.
package outfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/google/renameio/v2"
)

// maxLinks bounds a chain of symbolic links, as the kernel's ELOOP does.
const maxLinks = 40

// File is a file flag's destination (-o, -plot): a regular file is replaced
// whole and atomically, anything else (/dev/null, a FIFO, /dev/stdout) is
// written in place as the shell's > would.
type File struct {
	Flag string // the flag's name, for errors
	Path string // as given; empty for stdout
}

// dest is where a File's bytes go once its path is resolved.
type dest struct {
	path    string // the given path with every link followed, so a link's target is replaced
	inPlace bool   // opened and written rather than replaced
}

// resolve follows path's symbolic links to what a write should reach; a link
// under /proc names an open file, so it is written in place.
func resolve(path string) (dest, error) {
	if strings.HasSuffix(path, "/") {
		return dest{}, fmt.Errorf("%s is a directory", path)
	}
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return dest{path: p}, nil // a new file
		case err != nil:
			return dest{}, err
		case fi.Mode().IsRegular():
			return dest{path: p}, nil
		case fi.IsDir():
			return dest{}, fmt.Errorf("%s is a directory", path)
		case fi.Mode()&fs.ModeSocket != 0:
			return dest{}, fmt.Errorf("%s is a socket, which cannot be opened for writing", path)
		case fi.Mode()&fs.ModeSymlink == 0: // a device or a FIFO
			return dest{path: p, inPlace: true}, nil
		case onProc(filepath.Dir(p)):
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return dest{}, fmt.Errorf("%s is a directory", path)
			}
			return dest{path: p, inPlace: true}, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return dest{}, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return dest{}, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// check refuses, before the run, an output that could not be written; a
// directory is tried by creating (and removing) a file in it.
func (o File) check() (dest, error) {
	if o.Path == "" {
		return dest{}, nil
	}
	d, err := resolve(o.Path)
	if err != nil {
		return d, fmt.Errorf("-%s: %w", o.Flag, err)
	}
	if d.inPlace {
		return d, nil
	}
	dir := filepath.Dir(d.path)
	switch st, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return d, fmt.Errorf("-%s: directory %s does not exist", o.Flag, dir)
	case err != nil:
		return d, fmt.Errorf("-%s: %w", o.Flag, err)
	case !st.IsDir():
		return d, fmt.Errorf("-%s: %s is not a directory", o.Flag, dir)
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(d.path)+".*.check")
	if err != nil {
		return d, fmt.Errorf("-%s: cannot write in directory %s: %w", o.Flag, dir, UnwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return d, nil
}

// UnwrapPath is a PathError's reason, without its operation and path.
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Kind names what a file of mode m that is not a regular one is: a
// directory, a FIFO, a socket or a device; "" for anything else.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return ""
}

// sameFile reports whether two checked destinations are one file, under any
// name or link.
func sameFile(a, b dest) bool {
	if a.path == "" || b.path == "" {
		return false
	}
	sa, errA := os.Stat(a.path)
	sb, errB := os.Stat(b.path)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	return canonical(a.path) == canonical(b.path)
}

// canonical is path made absolute with its directory's links followed.
func canonical(path string) string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		dir = filepath.Dir(path)
	}
	abs, err := filepath.Abs(filepath.Join(dir, filepath.Base(path)))
	if err != nil {
		return path
	}
	return abs
}

// Check checks each output before any work and refuses two that name one file.
func Check(outs ...File) error { return CheckReading("", nil, outs...) }

// CheckReading checks outs as Check does and refuses any that names one of
// inputs ("" for none), the command's inputs of kind ("scenario file"),
// under any name.
func CheckReading(kind string, inputs []string, outs ...File) error {
	dests := make([]dest, len(outs))
	for i, o := range outs {
		d, err := o.check()
		if err != nil {
			return err
		}
		dests[i] = d
		for j := range i {
			if sameFile(dests[j], d) {
				return fmt.Errorf("-%s: %s is also -%s's file; give each its own", o.Flag, o.Path, outs[j].Flag)
			}
		}
		for _, f := range inputs {
			if sameFile(d, dest{path: f}) {
				return fmt.Errorf("-%s: %s is the %s %s; writing the output there would destroy it", o.Flag, o.Path, kind, f)
			}
		}
	}
	return nil
}

// Output is one file of a command's outputs and the bytes it gets.
type Output struct {
	File File
	Data []byte
}

// WriteAll writes each output, all or none: regular files are staged beside
// their targets, in-place outputs written, and only then the stages renamed;
// a failure or ctx done before the renames leaves every file as it was.
func WriteAll(ctx context.Context, stdout io.Writer, outs ...Output) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	type staged struct {
		flag string
		file *renameio.PendingFile
	}
	var temps []staged
	defer func() {
		for _, t := range temps {
			t.file.Cleanup() // a no-op once renamed
		}
	}()
	inPlace := make([]string, len(outs)) // the path each in-place output is written to
	for i, o := range outs {
		if o.File.Path == "" {
			continue
		}
		d, err := resolve(o.File.Path)
		if err != nil {
			return fmt.Errorf("-%s: %w", o.File.Flag, err)
		}
		if d.inPlace {
			inPlace[i] = d.path
			continue
		}
		f, err := stage(d.path, o.Data)
		if err != nil {
			return fmt.Errorf("-%s: %w", o.File.Flag, err)
		}
		temps = append(temps, staged{o.File.Flag, f})
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, o := range outs {
		var err error
		switch {
		case o.File.Path == "":
			_, err = stdout.Write(o.Data)
		case inPlace[i] != "":
			err = writeInPlace(ctx, inPlace[i], o.Data)
		}
		if err != nil {
			return fmt.Errorf("-%s: %w", o.File.Flag, err)
		}
	}
	for _, t := range temps {
		if err := t.file.CloseAtomicallyReplace(); err != nil {
			return fmt.Errorf("-%s: %w", t.flag, err)
		}
	}
	return nil
}

// stage writes data to a synced temporary file in path's directory, to be
// renamed over path with the old mode (0666 less the umask for a new file).
func stage(path string, data []byte) (*renameio.PendingFile, error) {
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o666), renameio.WithExistingPermissions(),
		renameio.WithTempDir(filepath.Dir(path)))
	if err != nil {
		return nil, fmt.Errorf("cannot write in directory %s: %w", filepath.Dir(path), UnwrapPath(err))
	}
	if _, err := f.Write(data); err != nil {
		f.Cleanup()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Cleanup()
		return nil, err
	}
	return f, nil
}

// Render writes what render writes, as WriteAll does, once render has succeeded.
func (o File) Render(ctx context.Context, stdout io.Writer, render func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	return WriteAll(ctx, stdout, Output{o, buf.Bytes()})
}

// writeInPlace opens path as the shell's > does, without creating it, and
// writes data, giving way to an interrupt while a FIFO waits for a reader;
// one of this process's descriptors (/dev/stdout) is written through, keeping
// its offset and append mode.
func writeInPlace(ctx context.Context, path string, data []byte) error {
	if fd := ownFD(path); fd >= 0 { // written through a duplicate
		dup, err := syscall.Dup(fd)
		if err != nil {
			return err
		}
		return writeClose(os.NewFile(uintptr(dup), "/dev/fd/"+strconv.Itoa(fd)), data)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		ch <- opened{f, err}
	}()
	select {
	case <-ctx.Done():
		return ctx.Err() // the process is about to exit; the open goes with it
	case o := <-ch:
		if o.err != nil {
			return o.err
		}
		return writeClose(o.f, data)
	}
}

// writeClose writes data to f and closes it, the write's error first.
func writeClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
