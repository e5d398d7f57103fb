package outfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write writes data to stdout, or to the file, as WriteAll does.
func (o File) Write(ctx context.Context, stdout io.Writer, data []byte) error {
	return WriteAll(ctx, stdout, Output{o, data})
}

// write writes data to path as -o does, failing the test on an error.
func write(t *testing.T, path string, data string) {
	t.Helper()
	if err := (File{Flag: "o", Path: path}).Write(context.Background(), nil, []byte(data)); err != nil {
		t.Fatalf("Write(%s) = %v; want nil", path, err)
	}
}

// readFile is path's content, failing the test if it cannot be read.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// onlyFiles fails the test unless dir holds exactly names: a replacement
// leaves no temporary file behind.
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v; want only %v", dir, got, names)
	}
}

// A regular file is replaced whole by a new file renamed over it (another
// inode: a reader that had the old one open keeps the old bytes, and an
// interrupted write never leaves half a file), keeping the old file's mode.
func TestWriteReplacesARegularFileKeepingItsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("the old output, longer than the new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil { // past any umask
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, "new")
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "new" {
		t.Errorf("content = %q; want %q", got, "new")
	}
	if after.Mode() != before.Mode() {
		t.Errorf("mode = %v; want the old file's %v", after.Mode(), before.Mode())
	}
	if os.SameFile(before, after) {
		t.Errorf("the file was rewritten in place; want a new file renamed over it")
	}
	onlyFiles(t, dir, "out.json")

	// A new file is created, and nothing else is left.
	write(t, filepath.Join(dir, "new.json"), "x")
	if got := readFile(t, filepath.Join(dir, "new.json")); got != "x" {
		t.Errorf("new file's content = %q; want %q", got, "x")
	}
	onlyFiles(t, dir, "new.json", "out.json")
}

// A symbolic link is kept and its target replaced, through a chain of
// links and to a target that does not exist yet.
func TestWriteThroughASymbolicLinkReplacesItsTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link, chain := filepath.Join(dir, "link.json"), filepath.Join(dir, "chain.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink(link, chain); err != nil {
		t.Fatal(err)
	}
	for _, via := range []string{link, chain} {
		write(t, via, "through "+filepath.Base(via))
		if got, want := readFile(t, target), "through "+filepath.Base(via); got != want {
			t.Errorf("via %s: target holds %q; want %q", filepath.Base(via), got, want)
		}
		if fi, err := os.Lstat(via); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("via %s: the link is gone (%v, %v); want it kept", filepath.Base(via), fi.Mode(), err)
		}
	}
	if dest, err := os.Readlink(link); err != nil || dest != "target.json" {
		t.Errorf("link points to %q (%v); want target.json", dest, err)
	}

	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink("later.json", dangling); err != nil {
		t.Fatal(err)
	}
	write(t, dangling, "created")
	if got := readFile(t, filepath.Join(dir, "later.json")); got != "created" {
		t.Errorf("a dangling link's target holds %q; want it created with %q", got, "created")
	}
	onlyFiles(t, dir, "chain.json", "dangling.json", "later.json", "link.json", "target.json")
}

// A device is opened and written in place, as the shell's > does, never
// renamed over.
func TestWriteToADeviceInPlace(t *testing.T) {
	const null = "/dev/null"
	fi, err := os.Stat(null)
	if err != nil || fi.Mode()&fs.ModeDevice == 0 {
		t.Skipf("no %s device here", null)
	}
	// Checked before writing: a device taken for a regular file would be
	// renamed over, which must not happen to the real /dev/null.
	if d, err := resolve(null); err != nil || !d.inPlace {
		t.Fatalf("resolve(%s) = %+v, %v; want it written in place", null, d, err)
	}
	if err := Check(File{Flag: "o", Path: null}); err != nil {
		t.Errorf("Check(%s) = %v; want nil", null, err)
	}
	write(t, null, "discarded")
	if after, err := os.Lstat(null); err != nil || after.Mode()&fs.ModeDevice == 0 {
		t.Errorf("%s is %v (%v) after the write; want the device still", null, after.Mode(), err)
	}
}

// A directory is refused by name, before the run (Check) and after it
// (Write), and is left as it was; so is a file in a directory that does
// not exist, and two flags that name one file.
func TestCheckRefusesWhatCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		outs []File
		want string
	}{
		{[]File{{Flag: "o", Path: sub}}, "-o: " + sub + " is a directory"},
		{[]File{{Flag: "o", Path: sub + "/"}}, "-o: " + sub + "/ is a directory"},
		{[]File{{Flag: "plot", Path: filepath.Join(dir, "missing", "p.png")}}, "-plot: directory " + filepath.Join(dir, "missing") + " does not exist"},
		{[]File{{Flag: "o", Path: filepath.Join(dir, "a.json")}, {Flag: "plot", Path: filepath.Join(sub, "..", "a.json")}},
			"-plot: " + filepath.Join(sub, "..", "a.json") + " is also -o's file; give each its own"},
	} {
		if err := Check(tt.outs...); err == nil || err.Error() != tt.want {
			t.Errorf("Check(%+v) = %v; want %q", tt.outs, err, tt.want)
		}
	}
	err := File{Flag: "o", Path: sub}.Write(context.Background(), nil, []byte("x"))
	if want := "-o: " + sub + " is a directory"; err == nil || err.Error() != want {
		t.Errorf("Write(directory) = %v; want %q", err, want)
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Errorf("%s after the refused write: %v, %v; want the directory as it was", sub, fi, err)
	}
	onlyFiles(t, sub)
	onlyFiles(t, dir, "sub") // the checks' probe files are gone
}

// -o may not name a file the command reads, under any name: the same path,
// another spelling, a symbolic link or a hard link to it. Another file, or
// a new one, is fine.
func TestCheckReadingRefusesAnInputUnderAnyName(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "shard-0.json")
	other := filepath.Join(dir, "shard-1.json")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := map[string]string{"itself": in, "another spelling": filepath.Join(dir, ".", "sub", "..", "shard-0.json")}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(in, filepath.Join(dir, "link.json")); err == nil {
		names["symbolic link"] = filepath.Join(dir, "link.json")
	}
	if err := os.Link(in, filepath.Join(dir, "hard.json")); err == nil {
		names["hard link"] = filepath.Join(dir, "hard.json")
	}
	for name, out := range names {
		err := CheckReading("shard file", []string{other, in}, File{Flag: "o", Path: out})
		want := "-o: " + out + " is the shard file " + in + "; writing the output there would destroy it"
		if err == nil || err.Error() != want {
			t.Errorf("%s: CheckReading = %v; want %q", name, err, want)
		}
	}
	for _, out := range []string{filepath.Join(dir, "merged.json"), ""} {
		if err := CheckReading("shard file", []string{in, other}, File{Flag: "o", Path: out}); err != nil {
			t.Errorf("CheckReading(%q) = %v; want nil", out, err)
		}
	}
	if got := readFile(t, in); got != "{}" {
		t.Errorf("the input holds %q after the checks; want it untouched", got)
	}
}

// Once the command is interrupted, Write writes nothing, to stdout, a new
// file or an existing one, and says why.
func TestWriteAfterAnInterruptWritesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	for _, path := range []string{"", filepath.Join(dir, "new.json"), existing} {
		if err := (File{Flag: "o", Path: path}).Write(ctx, &stdout, []byte("new")); !errors.Is(err, context.Canceled) {
			t.Errorf("Write(%q) after the interrupt = %v; want context.Canceled", path, err)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout got %q after the interrupt; want nothing", stdout.String())
	}
	if got := readFile(t, existing); got != "old" {
		t.Errorf("the existing file holds %q; want it untouched", got)
	}
	onlyFiles(t, dir, "old.json")
}

// WriteAll writes a set of files all or none: when one output cannot be
// written (its directory gone, a directory in its place, a device that
// refuses the bytes, the run interrupted), every other keeps its earlier
// content and no temporary file is left; when all can, each gets its bytes.
func TestWriteAllOrNone(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name, bad string // bad is the failing output's path, under the test's directory
		ctx       context.Context
		want      string // in the error
	}{
		{"missing directory", "gone/out.txt", context.Background(), "-o: cannot write in directory %s/gone: no such file or directory"},
		{"a directory", "sub", context.Background(), "-o: " + "%s/sub is a directory"},
		{"interrupted", "out.txt", canceled, "context canceled"},
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		tests = append(tests, struct {
			name, bad string
			ctx       context.Context
			want      string
		}{"full device", "/dev/full", context.Background(), "no space left"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			series, plot := filepath.Join(dir, "s.csv"), filepath.Join(dir, "p.svg")
			write(t, series, "earlier series")
			write(t, plot, "earlier plot")
			bad := tt.bad
			if !filepath.IsAbs(bad) {
				bad = filepath.Join(dir, bad)
			}
			err := WriteAll(tt.ctx, nil,
				Output{File{Flag: "series", Path: series}, []byte("new series")},
				Output{File{Flag: "plot", Path: plot}, []byte("new plot")},
				Output{File{Flag: "o", Path: bad}, []byte("new output")})
			want := strings.ReplaceAll(tt.want, "%s", dir)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("WriteAll = %v; want an error containing %q", err, want)
			}
			if got := readFile(t, series); got != "earlier series" {
				t.Errorf("-series holds %q after a failed set; want the earlier %q", got, "earlier series")
			}
			if got := readFile(t, plot); got != "earlier plot" {
				t.Errorf("-plot holds %q after a failed set; want the earlier %q", got, "earlier plot")
			}
			onlyFiles(t, dir, "p.svg", "s.csv", "sub")
		})
	}
	t.Run("all written", func(t *testing.T) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		write(t, a, "earlier")
		var stdout bytes.Buffer
		err := WriteAll(context.Background(), &stdout, Output{File{Flag: "o"}, []byte("to stdout")},
			Output{File{Flag: "series", Path: a}, []byte("new a")}, Output{File{Flag: "plot", Path: b}, []byte("new b")})
		if err != nil || stdout.String() != "to stdout" || readFile(t, a) != "new a" || readFile(t, b) != "new b" {
			t.Errorf("WriteAll = %v, stdout %q, a %q, b %q; want nil, %q, %q, %q", err, stdout.String(),
				readFile(t, a), readFile(t, b), "to stdout", "new a", "new b")
		}
		onlyFiles(t, dir, "a", "b")
	})
}
