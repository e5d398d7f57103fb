// Package replicates declares once each the kinds of run whose work is replicates of runs
// (fleet, graph, workers); it runs nothing of its own.
package replicates

import (
	"context"
	"fmt"
	"slices"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/render"
)

// Kind is a kind of run of runs C, a replicate P, a result R. Its work is items: item k is
// replicate k%replicates of every run of point k/replicates, runs perPoint a point.
type Kind[C, P, R any] struct {
	// run runs opts.Replicates replicates of each of runs from fleetrun.Fleet().First.
	run        func(ctx context.Context, runs []C, opts fleet.Options) ([]R, error)
	replicates func(R) []P
	result     func(C, []P) R
	// CheckReplicate refuses a replicate that run c does not make.
	CheckReplicate func(c *C, p *P) error
	// Name is a run's name; Keys are the figures of a row Rows gives.
	Name func(C) string
	Keys []string
	Rows func([]R) []render.Figures
	// Sweep is a sweep's output of the results, perPoint a point.
	Sweep func(h render.SweepHead, points [][]string, perPoint int, res []R) render.Runs
}

// Fleet is retrysim fleet's kind: many clients, one server.
func Fleet() Kind[fleet.Config, fleetdata.Replicate, fleet.Result] {
	return withRows(Kind[fleet.Config, fleetdata.Replicate, fleet.Result]{run: fleet.Run, replicates: fleetrun.Fleet().Replicates,
		result: fleetrun.Fleet().Result, CheckReplicate: fleetrun.Fleet().CheckReplicate, Name: func(c fleet.Config) string { return c.Name }},
		render.FleetTable(), func(r fleet.Result) []fleetdata.RunRow { return []fleetdata.RunRow{fleetrun.Fleet().Summary(r)} })
}

// Graph is retrysim graph's kind: a row a service of a graph.
func Graph() Kind[fleet.Graph, fleetdata.GraphReplicate, fleet.GraphResult] {
	return withRows(graphRuns(), render.GraphTable(), fleetrun.Fleet().Rows)
}

// Workers is retrysim workers' kind: a row a run.
func Workers() Kind[fleet.Graph, fleetdata.GraphReplicate, fleet.GraphResult] {
	return withRows(graphRuns(), render.WorkersTable(), fleetrun.Fleet().WorkersRows)
}

// graphRuns is the kind of graphs' runs, its rows not yet said (withRows).
func graphRuns() Kind[fleet.Graph, fleetdata.GraphReplicate, fleet.GraphResult] {
	return Kind[fleet.Graph, fleetdata.GraphReplicate, fleet.GraphResult]{run: fleet.RunGraph, replicates: fleetrun.Fleet().GraphReplicates,
		result: fleetrun.Fleet().GraphResult, CheckReplicate: fleetrun.Fleet().CheckGraphReplicate, Name: func(g fleet.Graph) string { return g.Name }}
}

// withRows is k with its rows from of, written by t.
func withRows[C, P, R, T any](k Kind[C, P, R], t render.Table[T], of func(R) []T) Kind[C, P, R] {
	k.Keys = t.FigureKeys()
	k.Rows = func(res []R) []render.Figures { return t.Figures(slices.Concat(byPoint(res, 1, of)...)) }
	k.Sweep = func(h render.SweepHead, points [][]string, perPoint int, res []R) render.Runs {
		return t.Sweep(h, points, byPoint(res, perPoint, of))
	}
	return k
}

// Run runs items lo to hi-1 of runs, in as few runs as the slice allows.
func (k Kind[C, P, R]) Run(ctx context.Context, runs []C, perPoint int, opts fleet.Options, lo, hi int) ([][]P, error) {
	reps := opts.Replicates
	out := make([][]P, 0, hi-lo)
	for i := lo; i < hi; {
		p, r := i/reps, i%reps
		last, n := p+1, min(reps-r, hi-i) // points p to last-1, replicates r to r+n-1 of each
		if r == 0 && n == reps {
			last = min(hi/reps, len(runs)/perPoint)
		}
		o := opts
		*fleetrun.Fleet().First(&o), o.Replicates = r, n
		res, err := k.run(ctx, runs[p*perPoint:last*perPoint], o)
		if err != nil {
			return nil, err
		}
		for q := p; q < last; q++ {
			for j := range n {
				item := make([]P, perPoint)
				for m := range item {
					item[m] = k.replicates(res[(q-p)*perPoint+m])[j]
				}
				out = append(out, item)
			}
		}
		i += (last - p) * n
	}
	return out, nil
}

// Fold folds every item of runs, in order, into each run's result.
func (k Kind[C, P, R]) Fold(runs []C, perPoint int, items [][]P) []R {
	out := make([]R, len(runs))
	reps := len(items) / (len(runs) / perPoint)
	for i, c := range runs {
		p, j := i/perPoint, i%perPoint
		mine := make([]P, reps)
		for r := range mine {
			mine[r] = items[p*reps+r][j]
		}
		out[i] = k.result(c, mine)
	}
	return out
}

// Check refuses item k of runs unless it holds a replicate of each run of its point; a
// wrong length is "N runs; " and want, of perPoint.
func (k Kind[C, P, R]) Check(runs []C, perPoint, replicates, item int, reps []P, want string) error {
	if len(reps) != perPoint {
		return fmt.Errorf("%d runs; "+want, len(reps), perPoint)
	}
	for j := range reps {
		if err := k.CheckReplicate(&runs[item/replicates*perPoint+j], &reps[j]); err != nil {
			return fmt.Errorf("run %d: %w", j, err)
		}
	}
	return nil
}

// byPoint groups res, perPoint results a point, into each point's rows.
func byPoint[R, T any](res []R, perPoint int, of func(R) []T) [][]T {
	out := make([][]T, len(res)/perPoint)
	for i, r := range res {
		out[i/perPoint] = append(out[i/perPoint], of(r)...)
	}
	return out
}
