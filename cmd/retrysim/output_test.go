package main

import (
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// writer is one command that writes a file flag, with the run's arguments
// but the output path.
type writer struct {
	name string
	args func(path string) []string
}

// writers are every command and file flag that writes output. merge's
// shards are written once for the whole test.
func writers(t *testing.T) []writer {
	shards := writeShards(t, t.TempDir(), 2, "-jobs", "1000")
	return []writer{
		{"table -o", func(p string) []string { return []string{"-jobs", "1000", "-o", p} }},
		{"preset -o", func(p string) []string { return []string{"-preset", "sqlite-check", "-jobs", "100", "-o", p} }},
		{"shard -o", func(p string) []string { return []string{"-jobs", "1000", "-shard", "0/2", "-o", p} }},
		{"sweep -o", func(p string) []string { return []string{"sweep", "-jobs", "1000", "-p-fail", "0,0.1", "-o", p} }},
		{"sweep -plot", func(p string) []string {
			return []string{"sweep", "-jobs", "1000", "-p-fail", "0,0.1", "-plot", p + ".svg"}
		}},
		{"merge -o", func(p string) []string { return append([]string{"merge", "-o", p}, shards...) }},
	}
}

// plotted is the path a writer writes for p: -plot adds its extension.
func (w writer) plotted(p string) string {
	if strings.HasSuffix(w.name, "-plot") {
		return p + ".svg"
	}
	return p
}

// A device is written in place and stays a device; as root, the test makes
// its own /dev/null (1, 3) rather than risk the system's.
func TestOutputToDevice(t *testing.T) {
	for _, w := range writers(t) {
		t.Run(w.name, func(t *testing.T) {
			dev := w.plotted(filepath.Join(t.TempDir(), "null"))
			if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(unixDev(1, 3))); err != nil {
				t.Skipf("mknod needs root: %v", err)
			}
			_, errOut, code := retrysim(t, w.args(strings.TrimSuffix(dev, ".svg"))...)
			fi, err := os.Lstat(dev)
			if code != 0 || err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
				t.Errorf("exit %d (%s), %v: %s is %v after the run; want exit 0 and a char device", code, errOut, err, dev, fi.Mode())
			}
		})
	}
}

// unixDev is Linux's makedev for small major and minor numbers.
func unixDev(major, minor uint64) uint64 { return major<<8 | minor }

// A FIFO is written in place, its reader gets every byte, and it stays a FIFO.
func TestOutputToFIFO(t *testing.T) {
	for _, w := range writers(t) {
		t.Run(w.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := w.plotted(filepath.Join(dir, "fifo"))
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			got := make(chan []byte)
			go func() {
				f, err := os.Open(fifo) // waits for the writer
				if err != nil {
					got <- nil
					return
				}
				b, _ := io.ReadAll(f)
				f.Close()
				got <- b
			}()
			_, errOut, code := retrysim(t, w.args(strings.TrimSuffix(fifo, ".svg"))...)
			fi, err := os.Lstat(fifo)
			if code != 0 || err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
				// The reader may wait on a FIFO that is no longer there: leave it.
				t.Fatalf("exit %d (%s), %v: %s is %v after the run; want exit 0 and a FIFO", code, errOut, err, fifo, fi.Mode())
			}
			// Had nothing opened the FIFO, this releases the reader, with no bytes.
			if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			data := <-got
			want := w.plotted(filepath.Join(dir, "file"))
			if _, _, code := retrysim(t, w.args(strings.TrimSuffix(want, ".svg"))...); code != 0 {
				t.Fatalf("exit %d writing %s", code, want)
			}
			if b, _ := os.ReadFile(want); len(data) == 0 || string(data) != string(b) {
				t.Errorf("the FIFO's reader got %d bytes; want the %d a file gets", len(data), len(b))
			}
		})
	}
}

// /dev/fd/N (and so /dev/stdout) is an open file: a pipe is written, and a
// regular file is written in place, the same inode, not renamed over, through
// the descriptor as a write to stdout would be: from its offset, or at the
// end when it was opened to append (a shell's >>).
func TestOutputToOpenDescriptor(t *testing.T) {
	want, _, _ := retrysim(t, "-jobs", "1000")
	t.Run("pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte)
		go func() { b, _ := io.ReadAll(r); got <- b }()
		_, errOut, code := retrysim(t, "-jobs", "1000", "-o", "/dev/fd/"+strconv.Itoa(int(w.Fd())))
		w.Close()
		if data := <-got; code != 0 || string(data) != want {
			t.Errorf("exit %d (%s); the pipe got %q; want %q", code, errOut, data, want)
		}
	})
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "held")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.WriteString(strings.Repeat("old ", 10_000))
		before, _ := f.Stat()
		_, errOut, code := retrysim(t, "-jobs", "1000", "-o", "/proc/self/fd/"+strconv.Itoa(int(f.Fd())))
		after, err := os.Stat(path)
		data, _ := os.ReadFile(path)
		if code != 0 || err != nil || !os.SameFile(before, after) || string(data) != strings.Repeat("old ", 10_000)+want {
			t.Errorf("exit %d (%s): same file %v, content %q; want the same inode holding the old bytes, then %q", code, errOut, err == nil && os.SameFile(before, after), data, want)
		}
	})
	t.Run("appended", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "log")
		if err := os.WriteFile(path, []byte("the log so far\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		_, errOut, code := retrysim(t, "-jobs", "1000", "-o", "/dev/fd/"+strconv.Itoa(int(f.Fd())))
		if data, _ := os.ReadFile(path); code != 0 || string(data) != "the log so far\n"+want {
			t.Errorf("exit %d (%s): the log holds %q; want the old line, then %q", code, errOut, data, want)
		}
	})
}

// A symbolic link is kept and its target replaced, a dangling one's target
// created; a chain of links is followed to its end.
func TestOutputThroughSymlink(t *testing.T) {
	want, _, _ := retrysim(t, "-jobs", "1000")
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "target.txt"), []byte("old"), 0o644)
	os.Symlink("sub/target.txt", filepath.Join(dir, "rel"))
	os.Symlink(filepath.Join(dir, "rel"), filepath.Join(dir, "chain"))
	os.Symlink("new.txt", filepath.Join(sub, "dangling"))
	tests := []struct{ link, target string }{
		{"rel", "sub/target.txt"},
		{"chain", "sub/target.txt"},
		{"sub/dangling", "sub/new.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.link, func(t *testing.T) {
			link := filepath.Join(dir, tt.link)
			_, errOut, code := retrysim(t, "-jobs", "1000", "-o", link)
			fi, err := os.Lstat(link)
			data, _ := os.ReadFile(filepath.Join(dir, tt.target))
			if code != 0 || err != nil || fi.Mode()&fs.ModeSymlink == 0 || string(data) != want {
				t.Errorf("exit %d (%s): %s is %v, %s holds %q; want a link still, and its target the output", code, errOut, link, fi.Mode(), tt.target, data)
			}
		})
	}
}

// Each command refuses, with exit 2 before the run, an output it could not
// write: a directory, a socket, a missing or unwritable directory.
func TestOutputRefused(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{"", ".svg"} { // -plot adds .svg
		os.Mkdir(filepath.Join(dir, "d"+ext), 0o755)
		os.Symlink(filepath.Join(dir, "d"+ext), filepath.Join(dir, "to-dir"+ext))
		l, err := net.Listen("unix", filepath.Join(dir, "s"+ext))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
	}
	unwritable := "/sys" // root may write anywhere but in sysfs
	if os.Geteuid() != 0 {
		unwritable = filepath.Join(dir, "ro")
		os.Mkdir(unwritable, 0o500)
	}
	if f, err := os.CreateTemp(unwritable, "probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Fatalf("%s is writable; the test needs a directory that is not", unwritable)
	}
	race := writer{"race -o", func(p string) []string { return []string{"race", "-jobs", "1", "-rounds", "1", "-o", p} }}
	for _, w := range append(writers(t), race) {
		flag := w.name[strings.Index(w.name, " ")+1:]
		tests := []struct{ path, want string }{
			{filepath.Join(dir, "d"), flag + ": " + w.plotted(filepath.Join(dir, "d")) + " is a directory"},
			{filepath.Join(dir, "to-dir"), flag + ": " + w.plotted(filepath.Join(dir, "to-dir")) + " is a directory"},
			{filepath.Join(dir, "s"), flag + ": " + w.plotted(filepath.Join(dir, "s")) + " is a socket"},
			{filepath.Join(dir, "missing", "x"), flag + ": directory " + filepath.Join(dir, "missing") + " does not exist"},
			{filepath.Join(unwritable, "x"), flag + ": cannot write in directory " + unwritable},
		}
		for _, tt := range tests {
			t.Run(w.name+" "+tt.path, func(t *testing.T) {
				out, errOut, code := retrysim(t, w.args(tt.path)...)
				if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
					t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line containing %q", code, out, errOut, tt.want)
				}
			})
		}
	}
}

// A new file gets 0666 less the umask; a replaced one keeps its mode; no
// temporary file is left beside it.
func TestOutputMode(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := t.TempDir()
	tests := []struct {
		name  string
		umask int
		had   os.FileMode // 0: no file before
		want  os.FileMode
	}{
		{"new, umask 022", 0o022, 0, 0o644},
		{"new, umask 027", 0o027, 0, 0o640},
		{"new, umask 0", 0, 0, 0o666},
		{"replaced 0640", 0o022, 0o640, 0o640},
		{"replaced 0755", 0o022, 0o755, 0o755},
		{"replaced 0666 under umask 077", 0o077, 0o666, 0o666},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := filepath.Join(dir, strconv.Itoa(i))
			os.Mkdir(sub, 0o755)
			path := filepath.Join(sub, "out.txt")
			if tt.had != 0 {
				os.WriteFile(path, []byte("old"), 0o600)
				os.Chmod(path, tt.had)
			}
			syscall.Umask(tt.umask)
			_, errOut, code := retrysim(t, "-jobs", "1000", "-o", path)
			syscall.Umask(0o022)
			fi, err := os.Stat(path)
			if code != 0 || err != nil || fi.Mode().Perm() != tt.want {
				t.Fatalf("exit %d (%s), %v: mode %v; want %v", code, errOut, err, fi.Mode().Perm(), tt.want)
			}
			if entries, _ := os.ReadDir(sub); len(entries) != 1 {
				t.Errorf("%d files in the directory; want only out.txt", len(entries))
			}
		})
	}
}

// -o and -plot naming one file, by the same name, through a link or as two
// hard links, are refused before the run; nothing is written.
func TestOutputAndPlotSameFile(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "a.svg")
	os.WriteFile(existing, []byte("old"), 0o644)
	os.Link(existing, filepath.Join(dir, "hard.svg"))
	os.Symlink("a.svg", filepath.Join(dir, "soft.svg"))
	os.Symlink(".", filepath.Join(dir, "here"))
	tests := []struct{ o, plot string }{
		{"new.svg", "new.svg"},
		{"new.svg", "here/new.svg"},
		{"a.svg", "a.svg"},
		{"a.svg", "hard.svg"},
		{"soft.svg", "a.svg"},
	}
	for _, tt := range tests {
		t.Run(tt.o+" "+tt.plot, func(t *testing.T) {
			o, plot := filepath.Join(dir, tt.o), filepath.Join(dir, tt.plot)
			out, errOut, code := retrysim(t, "sweep", "-jobs", "1000", "-p-fail", "0,0.1", "-o", o, "-plot", plot)
			want := "-plot: " + plot + " is also -o's file"
			if code != 2 || out != "" || !strings.Contains(errOut, want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errOut, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.svg")); err == nil {
				t.Errorf("new.svg was written")
			}
			if b, _ := os.ReadFile(existing); string(b) != "old" {
				t.Errorf("a.svg was rewritten")
			}
		})
	}
}

// A command's files are written all or none: an -o that fails when written
// (/dev/full passes the check before the run, then refuses every byte with
// ENOSPC) leaves the -series and -plot files of an earlier run as they were.
func TestFailedOutputWritesNoOtherFile(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	tests := []struct {
		name  string
		files []string // the other files, each with its flag
		args  []string
	}{
		{"fleet", []string{"-series", "s.csv", "-plot", "p.svg"}, []string{"fleet", "-duration", "2s", "-replicates", "1"}},
		{"sweep", []string{"-plot", "p.svg"}, []string{"sweep", "-jobs", "1000", "-p-fail", "0,0.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{}, tt.args...)
			for i := 0; i < len(tt.files); i += 2 {
				p := filepath.Join(dir, tt.files[i+1])
				if err := os.WriteFile(p, []byte("earlier"), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, tt.files[i], p)
			}
			_, errOut, code := retrysim(t, append(args, "-o", "/dev/full")...)
			if code != 1 || !strings.Contains(errOut, "-o: ") || !strings.Contains(errOut, "no space left") {
				t.Errorf("exit %d, stderr %q; want 1 and -o's write error", code, errOut)
			}
			for i := 0; i < len(tt.files); i += 2 {
				if b, _ := os.ReadFile(filepath.Join(dir, tt.files[i+1])); string(b) != "earlier" {
					t.Errorf("%s %s was rewritten (%d bytes) by a run whose -o failed", tt.files[i], tt.files[i+1], len(b))
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) != len(tt.files)/2 {
				t.Errorf("%d files left in the directory; want the %d earlier ones, no temporary", len(ents), len(tt.files)/2)
			}
		})
	}
}

// No output file names the scenario the command reads, under any name: the
// same path, a symbolic link or a hard link to it. Each is refused before
// the run, exit 2, and the scenario is left as it was.
func TestOutputNeverTheScenario(t *testing.T) {
	tests := []struct {
		cmd, example, flag string
		extra              []string
	}{
		{"", "signup.yaml", "-o", nil},
		{"sweep", "signup.yaml", "-o", []string{"-jobs", "100", "-p-fail", "0.1,0.2"}},
		{"sweep", "signup.yaml", "-plot", []string{"-jobs", "100", "-p-fail", "0.1,0.2"}},
		{"fleet", "fleet-budget.yaml", "-o", []string{"-duration", "2s", "-replicates", "1"}},
		{"fleet", "fleet-budget.yaml", "-series", []string{"-duration", "2s", "-replicates", "1"}},
		{"graph", "graph-checkout.yaml", "-o", []string{"-replicates", "1"}},
		{"graph", "graph-checkout.yaml", "-plot", []string{"-replicates", "1"}},
		{"workers", "workers-signup.yaml", "-o", []string{"-replicates", "1"}},
		{"workers", "workers-signup.yaml", "-plot", []string{"-replicates", "1"}},
		{"tune", "signup.yaml", "-o", []string{"-search", "attempts=2:3:2", "-minimize", "attempts"}},
		{"tune fleet", "fleet-budget.yaml", "-o", []string{"-duration", "2s", "-search", "client.timeout=1s,2s", "-minimize", "client.timeout"}},
		{"tune workers", "workers-signup.yaml", "-o", []string{"-search", "graph.services[workers].server.capacity=5,10", "-minimize", "graph.services[workers].server.capacity"}},
	}
	for _, tt := range tests {
		src, err := os.ReadFile(filepath.Join("..", "..", "examples", tt.example))
		if err != nil {
			t.Fatal(err)
		}
		for _, how := range []string{"itself", "symbolic link", "hard link"} {
			t.Run(tt.cmd+" "+tt.flag+" "+how, func(t *testing.T) {
				dir := t.TempDir()
				ext := map[string]string{"-o": ".yaml", "-plot": ".svg", "-series": ".csv"}[tt.flag] // as the flag wants
				scen := filepath.Join(dir, "scenario"+ext)
				if err := os.WriteFile(scen, src, 0o644); err != nil {
					t.Fatal(err)
				}
				out := scen
				switch how {
				case "symbolic link":
					out = filepath.Join(dir, "link"+ext)
					err = os.Symlink(scen, out)
				case "hard link":
					out = filepath.Join(dir, "hard"+ext)
					err = os.Link(scen, out)
				}
				if err != nil {
					t.Skip(err)
				}
				args := append(append(strings.Fields(tt.cmd), "-scenario", scen, tt.flag, out), tt.extra...)
				_, errOut, code := retrysim(t, args...)
				want := tt.flag + ": " + out + " is the scenario file " + scen + "; writing the output there would destroy it\n"
				if code != 2 || !strings.HasSuffix(errOut, want) {
					t.Errorf("retrysim %v: exit %d, stderr %q; want 2 and %q", args, code, errOut, want)
				}
				if got, _ := os.ReadFile(scen); string(got) != string(src) {
					t.Errorf("the scenario holds %.60q after the run; want it untouched", got)
				}
			})
		}
	}
}
