package flagval

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/retrysim/retrysim/internal/tty"
)

// Exit statuses of every command.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
	// ExitUnmet is a run that wrote its outputs and whose -require a
	// result does not meet (an error with an ExitStatus method says so).
	ExitUnmet = 3
)

// ExitStatus reports a command's err on stderr and returns the process's
// exit status, an error's own when it has an ExitStatus method.
func ExitStatus(ctx context.Context, err error, stderr io.Writer) int {
	var own interface{ ExitStatus() int }
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitOK
	case ctx.Err() != nil:
		if f, ok := stderr.(*os.File); ok && tty.IsTerminal(int(f.Fd())) {
			io.WriteString(stderr, "\r\x1b[K") // clear a progress line the run left
		}
		fmt.Fprintln(stderr, "retrysim: interrupted; nothing was written")
		return ExitFailure
	case errors.As(err, &own):
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "retrysim: %s\n", line)
		}
		return own.ExitStatus()
	case errors.As(err, new(UsageError)):
		fmt.Fprintf(stderr, "retrysim: %v\n", err)
		return ExitUsage
	default:
		fmt.Fprintf(stderr, "retrysim: %v\n", err)
		return ExitFailure
	}
}
