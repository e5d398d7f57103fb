package tty

import (
	"os"
	"testing"
)

// A pipe and a regular file are not terminals and have no width (a
// terminal's width is held by flagval's TestWidthOfATerminal, on a
// pseudo-terminal).
func TestNotATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.CreateTemp(t.TempDir(), "file")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, f := range []*os.File{r, w, f} {
		if IsTerminal(int(f.Fd())) {
			t.Errorf("%s is a terminal", f.Name())
		}
		if n, err := Width(int(f.Fd())); err == nil {
			t.Errorf("%s: width %d; want an error", f.Name(), n)
		}
	}
}
