//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 10 item 6: a FIFO given to merge is refused at once; opening it to
// read would wait for a writer for ever.
func TestMergeRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "shard.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	_, errOut, code := retrysim(t, "merge", fifo)
	if want := fifo + ": not a regular file (a FIFO)"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
}
