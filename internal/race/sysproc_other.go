//go:build unix && !linux

package race

import "syscall"

// sysProcAttr puts a worker in a process group of its own, so Ctrl-C reaches
// the harness alone; with no parent-death signal, an orphan exits at its
// start gate or its next report.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
