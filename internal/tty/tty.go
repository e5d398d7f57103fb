// Package tty tells whether a file descriptor is a terminal and how wide its window is,
// by the standard library's system calls rather than golang.org/x/term's.
package tty

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool { return isTerminal(fd) }

// Width is the columns of the window of terminal fd.
func Width(fd int) (int, error) { return width(fd) }
