package race

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// tempPattern names the temporary directories the harness keeps its
// databases in, so that a later harness can find those an earlier one left.
const tempPattern = "retrysim-race-"

// lockName is the lock file of a temporary directory in use; it is
// flock(2)ed by its owner, and the kernel drops the lock when the owner
// dies, however it dies (SIGKILL, which no handler sees, included).
const lockName = ".lock"

// tempDir is a temporary directory that this process owns while its lock
// file is open and locked.
type tempDir struct {
	path string
	lock *os.File
}

// newTempDir makes a temporary directory for databases, owned by this
// process, after removing each directory an earlier harness left: one whose
// lock file is there and free, since its owner died without removing it (a
// harness killed by SIGKILL left 4.6 MB). A directory with no lock file
// (one kept on purpose, or one being made) is left alone.
func newTempDir() (*tempDir, error) {
	removeAbandoned(os.TempDir())
	path, err := os.MkdirTemp("", tempPattern)
	if err != nil {
		return nil, err
	}
	// Locked under another name first, then renamed: the lock file is
	// never seen at its name unlocked while its owner lives.
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

// remove removes the directory and all it holds.
func (d *tempDir) remove() {
	os.RemoveAll(d.path)
	d.lock.Close()
}

// keep leaves the directory and its databases, no longer owned: its lock
// file is removed before the lock is dropped, so no later harness takes it
// for an abandoned one.
func (d *tempDir) keep() {
	os.Remove(filepath.Join(d.path, lockName))
	d.lock.Close()
}

// removeAbandoned removes each harness directory in tmp whose lock file can
// be locked: its owner is gone. The lock file must still be the one at its
// name once locked, since a harness that keeps its directory removes the
// name and then drops the lock.
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
