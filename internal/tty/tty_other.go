//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package tty

import "errors"

// isTerminal is false where the ioctls are not known: no progress line,
// and tables and help at their default widths.
func isTerminal(int) bool { return false }

func width(int) (int, error) { return 0, errors.New("tty: no terminal size on this system") }
