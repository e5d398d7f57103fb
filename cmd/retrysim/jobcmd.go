package main

import (
	"context"
	"fmt"
	"io"

	"github.com/retrysim/retrysim/internal/jobcmd"
	"github.com/retrysim/retrysim/internal/shardfile"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/internal/sweep"
)

// mergeCommand reads shard files, checks that they make one whole run, and
// prints the run's report.
func mergeCommand(ctx context.Context, args []string, stdout, _ io.Writer) error {
	if handled, err := shardrun.Merge(ctx, args, stdout, shardKinds); handled {
		return err
	}
	return jobcmd.Merge(ctx, args, fmt.Sprintf(helpText("merge"), stats.MaxShardBytes>>20, shardfile.MaxBytes>>20), stdout)
}

// tableCommand simulates one point of the parameters and prints the table,
// or with -shard one slice of it as json for merge.
func tableCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return jobcmd.Table(ctx, args, fmt.Sprintf(helpText("table"), commandUsage()), stdout, stderr)
}

// sweepCommand runs the grid and writes the long-format rows, a pivot or a
// plot, or with -shard a slice of its points for retrysim merge.
func sweepCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && commands[args[0]].sweeps { // retrysim sweep KIND
		return commands[args[0]].Do(ctx, "sweep "+args[0], args[1:], stdout, stderr)
	}
	return commands["sweep"].Do(ctx, "sweep", args, stdout, stderr)
}

// parseSweep parses the table sweep's flags into its run.
func parseSweep(_ string, args []string, stdout, stderr io.Writer) (*shardrun.Work, error) {
	return jobcmd.Sweep(args, fmt.Sprintf(helpText("sweep"), sweep.Forms), stdout, stderr)
}
