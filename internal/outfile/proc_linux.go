package outfile

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
)

// procSuperMagic is procfs's f_type in statfs(2).
const procSuperMagic = 0x9fa0

// onProc reports whether dir is on procfs, whose links (/proc/self/fd/1)
// are handles to open files rather than names.
func onProc(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Type == procSuperMagic
}

// procFD matches a process's (or one of its threads') descriptor directory.
var procFD = regexp.MustCompile(`^/proc/([0-9]+)(/task/[0-9]+)?/fd$`)

// ownFD is the descriptor of this process that path (on procfs: /dev/stdout,
// /dev/fd/N, /proc/self/fd/N) stands for, or -1 if it stands for none.
func ownFD(path string) int {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return -1
	}
	m := procFD.FindStringSubmatch(dir)
	if m == nil || m[1] != strconv.Itoa(os.Getpid()) {
		return -1
	}
	fd, err := strconv.Atoi(filepath.Base(path))
	if err != nil {
		return -1
	}
	return fd
}
