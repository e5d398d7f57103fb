//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package tty

import "syscall"

const readTermios = syscall.TIOCGETA
