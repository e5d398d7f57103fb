package race

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// tempPattern names the harness's temporary directories, so a later harness finds those left.
const tempPattern = "retrysim-race-"

// lockName is the flock(2)ed lock file of a directory in use; the kernel
// drops the lock when its owner dies, by SIGKILL too.
const lockName = ".lock"

// tempDir is a temporary directory this process owns while it holds its lock.
type tempDir struct {
	path string
	lock *os.File
}

// newTempDir makes a temporary directory for databases, after removing those
// earlier harnesses left whose lock file is free (a directory with none, kept
// or being made, is left alone).
func newTempDir() (*tempDir, error) {
	removeAbandoned(os.TempDir())
	path, err := os.MkdirTemp("", tempPattern)
	if err != nil {
		return nil, err
	}
	// Locked under another name, then renamed: never seen unlocked at its name.
	lock, err := os.CreateTemp(path, lockName+"-*")
	if err == nil {
		if err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			err = os.Rename(lock.Name(), filepath.Join(path, lockName))
		}
		if err != nil {
			lock.Close()
		}
	}
	if err != nil {
		os.RemoveAll(path)
		return nil, err
	}
	return &tempDir{path: path, lock: lock}, nil
}

// inDir runs f in *dir, a new temporary directory when *dir is empty: kept,
// no longer owned, when keep and f succeeds, else removed.
func inDir(dir *string, keep bool, f func() error) error {
	if *dir != "" {
		return f()
	}
	tmp, err := newTempDir()
	if err != nil {
		return err
	}
	*dir = tmp.path
	if err = f(); keep && err == nil {
		tmp.keep()
	} else {
		tmp.remove()
	}
	return err
}

// remove removes the directory and all it holds.
func (d *tempDir) remove() {
	os.RemoveAll(d.path)
	d.lock.Close()
}

// keep leaves the directory, no longer owned: its lock file is removed
// before the lock is dropped, so no harness takes it for abandoned.
func (d *tempDir) keep() {
	os.Remove(filepath.Join(d.path, lockName))
	d.lock.Close()
}

// removeAbandoned removes each harness directory in tmp whose lock file,
// still the one at its name, can be locked: its owner is gone.
func removeAbandoned(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, tempPattern+"*"))
	for _, dir := range dirs {
		name := filepath.Join(dir, lockName)
		f, err := os.Open(name)
		if err != nil {
			continue // no lock file: kept, or being made
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close() // in use (EWOULDBLOCK), or not ours to judge
			continue
		}
		held, err1 := f.Stat()
		named, err2 := os.Stat(name)
		if errors.Join(err1, err2) == nil && os.SameFile(held, named) {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}
