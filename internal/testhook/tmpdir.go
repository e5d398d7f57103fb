package testhook

import "os"

// MemoryTempDir makes TMPDIR, for this process and every process it
// starts, a new directory on /dev/shm, a memory file system on Linux, and
// returns the function that removes it; where there is no /dev/shm it
// changes nothing. The race harness's tests wait mostly on SQLite's fsyncs,
// which memory makes free (a 20-round comparison of the four modes took 18 s
// on a disk, 6 s in memory), while the processes, locks and kills they check
// are the same.
func MemoryTempDir() (undo func()) {
	dir, err := os.MkdirTemp("/dev/shm", "retrysim-test-")
	if err != nil {
		return func() {}
	}
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	return func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
		os.RemoveAll(dir)
	}
}
