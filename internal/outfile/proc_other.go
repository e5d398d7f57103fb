//go:build !linux

package outfile

// onProc reports whether dir is on Linux's procfs: never, elsewhere.
func onProc(string) bool { return false }

// ownFD is the descriptor a path on procfs stands for: none, elsewhere.
func ownFD(string) int { return -1 }
