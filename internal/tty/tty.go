// Package tty tells whether a file descriptor is a terminal and how wide its window is,
// by the standard library's system calls rather than golang.org/x/term's.
package tty
