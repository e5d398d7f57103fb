package main

import (
	"context"
	"fmt"
	"io"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardfile"
	"github.com/retrysim/retrysim/stats"
)

const mergeIntro = `retrysim merge adds up the shards of one run, written by retrysim -shard i/n,
and prints exactly what the run would have printed in one piece. Every shard
0/n to n-1/n must be given once, all with the same parameters and seed.

Usage: retrysim merge [flags] FILES... [flags]

Every number in a shard is checked against what one run can produce, and a
file that is not a regular file, or is larger than %d MiB (the table's shards;
%d MiB the other kinds'), is refused.

Example: for i in 0 1 2 3; do retrysim -jobs 1e9 -shard $i/4 -o shard-$i.json & done; wait
         retrysim merge shard-*.json -ci

Shards of retrysim sweep, fleet, graph, workers, fleet-map and chain merge
the same way, into what the whole run prints: a shard carries the run's
settings only, and merge's own -format, -width, -o, -plot FILE, (fleet,
graph) -series FILE and (sweep) -metric, -ci say how and where.

Flags:
`

// mergeCommand reads shard files, checks that they make one whole run, and
// prints the run's report.
func mergeCommand(ctx context.Context, args []string, stdout, _ io.Writer) error {
	if handled, err := mergeShards(ctx, args, stdout); handled {
		return err
	}
	var ci, expect bool
	var o flagval.Output
	fs := flagval.NewFlagSet("retrysim merge")
	o.Register(fs, render.ReportDoc, "", "; not one of the shard files")
	fs.BoolVar(&ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	fs.BoolVar(&expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	if err := flagval.ParseFlags(fs, flagval.Interspersed(fs, args), fmt.Sprintf(mergeIntro, stats.MaxShardBytes>>20, shardfile.MaxBytes>>20), stdout); err != nil {
		return err
	}
	if err := outfile.Check(o.Out); err != nil {
		return flagval.Usage(err)
	}
	files := fs.Args()
	if len(files) == 0 {
		return flagval.Usage(fmt.Errorf("merge: no shard files given (want retrysim merge FILES...)"))
	}
	if err := outfile.NotInput(o.Out, "shard file", files); err != nil {
		return flagval.Usage(err)
	}
	rep, err := api.MergeFiles(files...)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	if err := api.CheckExpect(expect, rep.Params.Delivery != nil); err != nil {
		return flagval.LibraryError(err)
	}
	return o.Out.Render(ctx, stdout, func(w io.Writer) error { return o.Renderer(stdout).Report(w, rep.Results(ci, expect)) })
}
