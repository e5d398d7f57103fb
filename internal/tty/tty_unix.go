//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package tty

import (
	"syscall"
	"unsafe"
)

// winsize is the kernel's struct winsize.
type winsize struct{ row, col, xpixel, ypixel uint16 }

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	var t syscall.Termios
	return ioctl(fd, readTermios, unsafe.Pointer(&t)) == nil
}

// Width is the columns of the window of terminal fd.
func Width(fd int) (int, error) {
	var ws winsize
	if err := ioctl(fd, syscall.TIOCGWINSZ, unsafe.Pointer(&ws)); err != nil {
		return 0, err
	}
	return int(ws.col), nil
}
