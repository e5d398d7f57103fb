package main

import (
	"io"

	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// runWork is r's run of n items, noun, with echo.
func runWork(r *cli.Run, noun string, n int, echo any) *shardrun.Work {
	return &shardrun.Work{Kind: r.Kind, Noun: noun, N: n, Echo: echo, Shard: r.Shard, Settings: shardrun.Settings(r.FS, r.Args), Out: r.O.Out}
}

// familyWork is f's work for r's flags: its run, or with -set a sweep of
// it, the replicates (of the points) its items.
func familyWork[C, P, R any](f cli.Family[C, P, R], r *cli.Run, stdout, stderr io.Writer) (*shardrun.Work, error) {
	noun, it, err := f.Plan(r, stdout, stderr)
	if err != nil {
		return nil, err
	}
	return shardrun.Items(runWork(r, noun, it.N, f.Echo), it.Run, it.Check, it.Finish), nil
}
