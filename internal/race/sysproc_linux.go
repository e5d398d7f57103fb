package race

import "syscall"

// sysProcAttr puts a worker in a process group of its own, so that a
// terminal's Ctrl-C reaches the harness alone (which then kills its workers
// and removes their database), and has the kernel SIGKILL it if the harness
// dies, even by SIGKILL, which no handler sees. The parent-death signal is
// tied to the forking thread: workers are started by a spawner.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
