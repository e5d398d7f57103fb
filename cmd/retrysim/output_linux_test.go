package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// -o /dev/stdout writes to whatever stdout is, here a pipe put on
// descriptor 1 for the length of the run, as `retrysim -o /dev/stdout | less`
// would have it. The test's own link to /proc/self/fd/1 stands in for
// /dev/stdout, which is the same link: code that renamed over links would
// then replace a file of the test's, not the machine's /dev/stdout.
func TestOutputToDevStdout(t *testing.T) {
	want, _, _ := retrysim(t, "-jobs", "1000")
	stdout := filepath.Join(t.TempDir(), "stdout")
	if err := os.Symlink("/proc/self/fd/1", stdout); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := syscall.Dup(1)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	if err := syscall.Dup3(int(w.Fd()), 1, 0); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := retrysim(t, "-jobs", "1000", "-o", stdout)
	syscall.Dup3(saved, 1, 0)
	syscall.Close(saved)
	w.Close()
	if data := <-got; code != 0 || out != "" || string(data) != want {
		t.Errorf("exit %d (%s), stdout writer %q; descriptor 1 got %q; want %q", code, errOut, out, data, want)
	}
}
