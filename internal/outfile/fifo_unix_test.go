//go:build unix

package outfile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mkfifo makes a FIFO in a fresh directory.
func mkfifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	return path
}

// A FIFO is opened and written in place, as the shell's > does: the reader
// at its other end gets the bytes, and the FIFO stays a FIFO.
func TestWriteToAFIFOInPlace(t *testing.T) {
	path := mkfifo(t)
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path) // waits for the writer
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	write(t, path, "through the pipe")
	if s := <-got; s != "through the pipe" {
		t.Errorf("the reader got %q; want %q", s, "through the pipe")
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s after the write: %v, %v; want the FIFO still", path, fi.Mode(), err)
	}
}

// Opening a FIFO that no one reads waits; an interrupt ends the wait, with
// nothing written: a reader that comes later finds the pipe empty.
func TestWriteToAFIFOGivesWayToAnInterrupt(t *testing.T) {
	path := mkfifo(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- File{Flag: "o", Path: path}.Write(ctx, nil, []byte("never")) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Write to a FIFO with no reader, interrupted = %v; want context.Canceled", err)
	}
	// A reader now lets the abandoned open finish; it must find nothing.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 16)
	if n, _ := f.Read(buf); n != 0 {
		t.Errorf("the reader got %q; want nothing", buf[:n])
	}
}
