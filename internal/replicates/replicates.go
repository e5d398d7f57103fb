// Package replicates declares, once each, the kinds of run whose work is
// replicates of runs (fleet, graph, workers), as the command's runs, sweeps
// and shards and tune's searches take them; it runs nothing of its own.
package replicates

import (
	"context"
	"fmt"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/render"
)

// Kind is a kind of run of runs C, a replicate of one being P, its result
// R. Its work is items: runs come perPoint to a point, and item k is
// replicate k%Replicates of every run of point k/Replicates.
type Kind[C, P, R any] struct {
	// Run runs items lo to hi-1 of runs, opts.Replicates a point.
	Run func(ctx context.Context, runs []C, perPoint int, opts fleet.Options, lo, hi int) ([][]P, error)
	// CheckReplicate refuses a replicate that run c does not make.
	CheckReplicate func(c *C, p *P) error
	// Fold folds every item, in order, into each run's result.
	Fold func(runs []C, perPoint int, items [][]P) []R
	// Name is a run's name; Keys are the figures of a row, which Rows
	// gives of results.
	Name func(C) string
	Keys []string
	Rows func([]R) []render.Figures
	// Sweep is a sweep's output: the results, perPoint a point, of the
	// points, the values of the settings swept.
	Sweep func(h render.SweepHead, points [][]string, perPoint int, res []R) render.Runs
}

var (
	// Fleet is retrysim fleet's kind: many clients, one server.
	Fleet = Kind[fleet.Config, fleet.Replicate, fleet.Result]{fleet.RunSweep, (*fleet.Config).CheckReplicate, fleet.SweepResults,
		func(c fleet.Config) string { return c.Name }, render.FleetFigureKeys(),
		func(res []fleet.Result) []render.Figures {
			return render.FleetFigures(rows(res, summary))
		},
		func(h render.SweepHead, points [][]string, perPoint int, res []fleet.Result) render.Runs {
			return render.FleetSweep(h, points, byPoint(res, perPoint, summary))
		}}
	// Graph is retrysim graph's kind: a row a service of a graph.
	Graph = Kind[fleet.Graph, fleet.GraphReplicate, fleet.GraphResult]{fleet.RunGraphSweep, (*fleet.Graph).CheckReplicate, fleet.GraphSweepResults,
		graphName, render.GraphFigureKeys(),
		func(res []fleet.GraphResult) []render.Figures {
			return render.GraphFigures(rows(res, fleet.GraphResult.Rows))
		},
		func(h render.SweepHead, points [][]string, perPoint int, res []fleet.GraphResult) render.Runs {
			return render.GraphSweep(h, points, byPoint(res, perPoint, fleet.GraphResult.Rows))
		}}
	// Workers is retrysim workers' kind: graphs whose first entry is a
	// queue, a row a run.
	Workers = Kind[fleet.Graph, fleet.GraphReplicate, fleet.GraphResult]{fleet.RunGraphSweep, (*fleet.Graph).CheckReplicate, fleet.GraphSweepResults,
		graphName, render.WorkersFigureKeys(),
		func(res []fleet.GraphResult) []render.Figures {
			return render.WorkersFigures(rows(res, fleet.GraphResult.WorkersRows))
		},
		func(h render.SweepHead, points [][]string, perPoint int, res []fleet.GraphResult) render.Runs {
			return render.WorkersSweep(h, points, byPoint(res, perPoint, fleet.GraphResult.WorkersRows))
		}}
)

// summary is a fleet run's one row.
func summary(r fleet.Result) []fleet.Summary { return []fleet.Summary{r.Summary()} }

// graphName is a graph's name.
func graphName(g fleet.Graph) string { return g.Name }

// Check refuses item k of runs, perPoint a point and replicates a point
// (a shard's), unless it holds a replicate of each run of its point; its
// refusal of the item's length is "N runs; " and want, of perPoint.
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

// rows are the rows of each of res, in turn.
func rows[R, T any](res []R, of func(R) []T) []T {
	var out []T
	for _, r := range res {
		out = append(out, of(r)...)
	}
	return out
}

// byPoint groups res, perPoint results a point, into each point's rows.
func byPoint[R, T any](res []R, perPoint int, of func(R) []T) [][]T {
	out := make([][]T, len(res)/perPoint)
	for i, r := range res {
		out[i/perPoint] = append(out[i/perPoint], of(r)...)
	}
	return out
}
