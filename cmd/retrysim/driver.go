package main

import (
	"io"

	"github.com/retrysim/retrysim/internal/cli"
)

// writeJudged is cli.WriteJudged, which the table's sweep writes through.
var writeJudged = cli.WriteJudged

// runWork is r's run of n items, noun, with echo.
func runWork(r *cli.Run, noun string, n int, echo any) *work {
	return &work{kind: r.Kind, noun: noun, n: n, echo: echo, shard: r.Shard, settings: shardSettings(r.FS, r.Args), out: r.O.Out}
}

// familyWork is f's work for r's flags: its run, or with -set a sweep of
// it, the replicates (of the points) its items.
func familyWork[C, P, R any](f cli.Family[C, P, R], r *cli.Run, stdout, stderr io.Writer) (*work, error) {
	noun, it, err := f.Plan(r, stdout, stderr)
	if err != nil {
		return nil, err
	}
	return items(runWork(r, noun, it.N, f.Echo), it.Run, it.Check, it.Finish), nil
}
