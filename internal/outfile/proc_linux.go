package outfile

import "syscall"

// procSuperMagic is procfs's f_type in statfs(2).
const procSuperMagic = 0x9fa0

// onProc reports whether dir is on procfs, whose links (/proc/self/fd/1)
// are handles to open files rather than names.
func onProc(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Type == procSuperMagic
}
