package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/race"
)

// run is the whole program: a worker process when started with the worker
// command, the harness otherwise; its errors are one line on stderr, named
// retrysim as the command the user typed.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == workerCommand {
		// A race worker process: it keeps the default signal actions, so
		// that SIGINT, SIGTERM and SIGHUP end it; the harness handles them.
		if err := race.Worker(args[1:], os.Stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "retrysim: %v\n", err)
			return flagval.ExitFailure
		}
		return flagval.ExitOK
	}
	// A closed terminal (SIGHUP) stops a run as Ctrl-C does, so that race
	// still removes its databases. The first signal cancels ctx, and the
	// run stops within a second, writing nothing; stop then hands the
	// signals back to their default action, so a second one ends the
	// process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	context.AfterFunc(ctx, stop)
	err := raceCommand(ctx, args, stdout, stderr)
	return flagval.ExitStatus(ctx, err, stderr)
}
