// Command retrysim compares retry and idempotency-key strategies for multi-step
// background jobs by seeded Monte Carlo simulation. See README.md, or run
// retrysim -help.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
