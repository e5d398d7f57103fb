package race

import "syscall"

// sysProcAttr puts a worker in a process group of its own, so Ctrl-C reaches
// the harness alone, and has the kernel SIGKILL it if the harness dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
