//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package tty

import "errors"

// IsTerminal is false where the ioctls are not known.
func IsTerminal(int) bool { return false }

// Width is an error where the ioctls are not known.
func Width(int) (int, error) { return 0, errors.New("tty: no terminal size on this system") }
