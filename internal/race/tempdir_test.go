package race

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// removeAbandoned removes a harness directory whose lock file is free (its
// owner died), and leaves one whose lock is held, one with no lock file
// (kept, or being made) and anything not named as the harness names them.
func TestRemoveAbandoned(t *testing.T) {
	tmp := t.TempDir()
	dir := func(name string, lock bool) string {
		d := filepath.Join(tmp, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "race-claim.db"), []byte("x"), 0o644)
		if lock {
			os.WriteFile(filepath.Join(d, lockName), nil, 0o644)
		}
		return d
	}
	abandoned := dir(tempPattern+"1", true)
	held := dir(tempPattern+"2", true)
	kept := dir(tempPattern+"3", false)
	other := dir("other-4", true)
	f, err := os.Open(filepath.Join(held, lockName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	removeAbandoned(tmp)
	for d, want := range map[string]bool{abandoned: false, held: true, kept: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s there after removeAbandoned: %v; want %v", filepath.Base(d), err == nil, want)
		}
	}
}

// A temporary directory is locked while in use, so that a harness starting
// meanwhile leaves it; removed, it is gone, and kept, it stays with no lock
// file, so that no later harness removes it.
func TestTempDirOwned(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	a, err := newTempDir()
	if err != nil {
		t.Fatal(err)
	}
	b, err := newTempDir() // removes what is abandoned, which a is not
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.path); err != nil {
		t.Fatalf("a directory in use was removed by a second harness: %v", err)
	}
	a.keep()
	b.remove()
	c, err := newTempDir()
	if err != nil {
		t.Fatal(err)
	}
	defer c.remove()
	if _, err := os.Stat(b.path); !os.IsNotExist(err) {
		t.Errorf("removed directory: %v; want it gone", err)
	}
	if _, err := os.Stat(a.path); err != nil {
		t.Errorf("kept directory: %v; want it there", err)
	}
	if _, err := os.Stat(filepath.Join(a.path, lockName)); !os.IsNotExist(err) {
		t.Errorf("kept directory's lock file: %v; want none", err)
	}
}
