package retrysim_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoBuiltBinaryTracked keeps executables and large files out of git: a
// 16 MB build of cmd/retrysim was once committed. It reads the index, so it
// runs only in a git checkout with git installed.
func TestNoBuiltBinaryTracked(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	magics := [][]byte{{0x7f, 'E', 'L', 'F'}, {'M', 'Z'}, {0xcf, 0xfa, 0xed, 0xfe}, {0xfe, 0xed, 0xfa, 0xcf}}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		st, err := os.Stat(name)
		if err != nil {
			continue // deleted in the work tree
		}
		if st.Size() > 1<<20 {
			t.Errorf("%s is tracked and %d bytes; built or generated files over 1 MiB stay out of git", name, st.Size())
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for _, m := range magics {
			if n >= len(m) && bytes.Equal(head[:len(m)], m) {
				t.Errorf("%s is a tracked executable; remove it and let .gitignore keep it out", name)
			}
		}
	}
}

// TestBuiltBinaryIgnored checks that go build's default output names, at the
// root and beside the command, are ignored.
func TestBuiltBinaryIgnored(t *testing.T) {
	for _, path := range []string{"retrysim", "cmd/retrysim/retrysim", "cmd/retrysim/retrysim.test"} {
		if err := exec.Command("git", "check-ignore", "-q", path).Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Skipf("git not available: %v", err)
			}
			t.Errorf("git check-ignore %s: not ignored; a built binary there would be committed", path)
		}
	}
	if err := exec.Command("git", "check-ignore", "-q", "cmd/retrysim/main.go").Run(); err == nil {
		t.Errorf("cmd/retrysim/main.go is ignored; the ignore rule for binaries is too wide")
	}
}
