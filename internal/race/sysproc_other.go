//go:build unix && !linux

package race

import "syscall"

// sysProcAttr puts a worker in a process group of its own, so that a
// terminal's Ctrl-C reaches the harness alone, which kills its workers. There
// is no parent-death signal here: a worker whose harness was killed with
// SIGKILL exits at its start gate (its standard input closes) or at its next
// report (its standard output is a broken pipe).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
