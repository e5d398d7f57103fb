package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/race"
)

// Exit statuses, as retrysim's.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
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
			return exitFailure
		}
		return exitOK
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
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "retrysim: interrupted; nothing was written")
		return exitFailure
	case errors.As(err, new(flagval.UsageError)):
		fmt.Fprintf(stderr, "retrysim: %v\n", err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "retrysim: %v\n", err)
		return exitFailure
	}
}
