// Package outfile writes a command's outputs (-o and the like, and a
// progress bar on a terminal): checked before a run, so that a long run does
// not end with nowhere to write, and written after it atomically when the
// output is a regular file. It is the command's, not the simulator's:
// nothing here draws or counts.
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

// File is a file flag's destination (-o, -plot), checked before the run
// and written after it. A regular file, new or existing, is replaced whole
// and atomically, so an interrupted or failed run never leaves half a file;
// anything else that takes writes (a device such as /dev/null, a FIFO, an
// open descriptor such as /dev/stdout) is opened and written in place, as
// the shell's > would, and is never renamed over.
type File struct {
	Flag string // the flag's name, for errors
	Path string // as given; empty for stdout
}

// dest is where a File's bytes go once its path is resolved.
type dest struct {
	// path is the file to write: the given path with every symbolic link
	// followed, so the link is kept and its target replaced.
	path string
	// inPlace is set for what is opened and written rather than replaced.
	inPlace bool
}

// resolve follows path's symbolic links to what a write should reach. A
// link under /proc (/dev/stdout and /dev/fd/N lead there) names an open
// file, not a path, so it is written in place whatever it leads to.
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

// check refuses, before the run, an output that could not be written: a
// directory, a socket, or a file whose directory is missing or not writable.
// A directory is tried by creating (and removing) a file in it, which asks
// the file system itself, read-only mounts and root included.
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
		return d, fmt.Errorf("-%s: cannot write in directory %s: %w", o.Flag, dir, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return d, nil
}

// unwrapPath drops a PathError's operation and temporary name, which say
// nothing to the user, and keeps its reason.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// sameFile reports whether two checked destinations are one file: the same
// existing file (hard links, and links to it, included) or the same new name
// once the directories' links are followed.
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

// Check checks each output, before any work, and refuses two that name one
// file. Every error it returns is the user's to fix, naming the flag.
func Check(outs ...File) error {
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
	}
	return nil
}

// CheckReading checks outs as Check does and refuses any that names input,
// the file the command reads as kind ("scenario file"), under any name;
// an empty input is none.
func CheckReading(kind, input string, outs ...File) error {
	if err := Check(outs...); err != nil {
		return err
	}
	if input == "" {
		return nil
	}
	for _, o := range outs {
		if err := NotInput(o, kind, []string{input}); err != nil {
			return err
		}
	}
	return nil
}

// Write writes data to stdout, or to the file, as WriteAll writes a set of
// one.
func (o File) Write(ctx context.Context, stdout io.Writer, data []byte) error {
	return WriteAll(ctx, stdout, Output{o, data})
}

// Output is one file of a command's outputs and the bytes it gets.
type Output struct {
	File File
	Data []byte
}

// WriteAll writes each output, all or none: every regular file's bytes go
// to a temporary file beside it (synced), then what is written in place
// (stdout, a device, a FIFO) is written, and only then is each temporary
// renamed over its file. A failure before the renames, or ctx done, leaves
// every file as it was and no temporary behind; what was written in place
// before the failure stays written, as it cannot be taken back. Paths are
// resolved again: what they name may have changed during a long run.
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
// renamed over path. Mode 0666 less the umask for a new file, the old mode
// for a replaced one, as renameio.WriteFile gives.
func stage(path string, data []byte) (*renameio.PendingFile, error) {
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o666), renameio.WithExistingPermissions(),
		renameio.WithTempDir(filepath.Dir(path)))
	if err != nil {
		return nil, fmt.Errorf("cannot write in directory %s: %w", filepath.Dir(path), unwrapPath(err))
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

// Render writes what render writes, as Write does, in one piece once render
// has finished: a renderer that fails leaves the file as it was.
func (o File) Render(ctx context.Context, stdout io.Writer, render func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	return o.Write(ctx, stdout, buf.Bytes())
}

// writeInPlace opens path as the shell's > does, without creating it, and
// writes data. Opening a FIFO waits for a reader, so the wait gives way to
// an interrupt. A name of one of this process's descriptors (/dev/stdout)
// is written through that descriptor, not opened again, so that its offset
// and its append mode (a shell's >>) are kept.
func writeInPlace(ctx context.Context, path string, data []byte) error {
	if fd := ownFD(path); fd >= 0 {
		return writeFD(fd, data)
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
	var f *os.File
	select {
	case <-ctx.Done():
		return ctx.Err() // the process is about to exit; the open goes with it
	case o := <-ch:
		if o.err != nil {
			return o.err
		}
		f = o.f
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeFD writes data through a duplicate of the open descriptor fd.
func writeFD(fd int, data []byte) error {
	dup, err := syscall.Dup(fd)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(dup), "/dev/fd/"+strconv.Itoa(fd))
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// NotInput refuses an out that is one of the files the command reads (each
// a kind, "shard file"), by name or as the same file under another name (a
// link, another spelling): writing the output would destroy that input.
func NotInput(out File, kind string, files []string) error {
	d, err := out.check()
	if err != nil {
		return err
	}
	for _, f := range files {
		if sameFile(d, dest{path: f}) {
			return fmt.Errorf("-%s: %s is the %s %s; writing the output there would destroy it", out.Flag, out.Path, kind, f)
		}
	}
	return nil
}
