// Command retrysim-race is retrysim's race command: the SQLite idempotency
// check, run for real. It is a command of its own so that retrysim builds
// without the SQLite driver (most of the modules and of the first build's
// time); retrysim race runs it, from beside retrysim or from PATH, with the
// same arguments. See README.md, or run retrysim race -help.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
