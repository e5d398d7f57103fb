package main

import (
	"context"
	"io"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/replicates"
)

// writeJudged is cli.WriteJudged, which the table's sweep writes through.
var writeJudged = cli.WriteJudged

// runWork is r's run of n items, noun, with echo.
func runWork(r *cli.Run, noun string, n int, echo any) *work {
	return &work{kind: r.Kind, noun: noun, n: n, echo: echo, shard: r.Shard, settings: shardSettings(r.FS, r.Args), out: r.O.Out}
}

// kindItems makes w the run of runs' replicates of kind k with opts,
// perPoint runs a point, an item a replicate of every run of a point:
// refused, when not nil, says the engine's refusal, and finish writes the
// outputs of the results.
func kindItems[C, P, R any](k replicates.Kind[C, P, R], w *work, runs []C, perPoint int, opts fleet.Options, refused func(error) error, finish func(context.Context, []R) error) *work {
	want := "the settings make %d"
	if strings.HasPrefix(w.kind, "sweep ") {
		want += " a point"
	}
	return items(w, func(ctx context.Context, lo, hi int) ([][]P, error) {
		out, err := k.Run(ctx, runs, perPoint, opts, lo, hi)
		if err != nil && refused != nil {
			err = refused(err)
		}
		return out, err
	}, func(i int, item *[]P) error {
		return k.Check(runs, perPoint, opts.Replicates, i, *item, want)
	}, func(ctx context.Context, all [][]P) error {
		return finish(ctx, k.Fold(runs, perPoint, all))
	})
}

// familyWork is f's work for r's flags: its run, or with -set a sweep of
// it, the replicates (of the points) its items.
func familyWork[C, P, R any](f cli.Family[C, P, R], r *cli.Run, stdout, stderr io.Writer) (*work, error) {
	noun, n, runs, finish, err := f.Plan(r, stdout)
	if err != nil {
		return nil, err
	}
	return kindItems(f.Kind, runWork(r, noun, n, f.Echo), runs, len(f.Runs), r.Options(stderr), f.Refused, finish), nil
}
