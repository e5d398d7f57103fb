package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/sweep"
)

// sweepKinds are the kinds retrysim sweep KIND sweeps: each command's
// parse, given its kind as a sweep's ("sweep workers").
var sweepKinds = map[string]func(kind string, args []string, stdout, stderr io.Writer) (*work, error){
	"fleet": parseFleetAs, "graph": parseGraphAs,
	"workers": func(kind string, args []string, stdout, stderr io.Writer) (*work, error) {
		return parseWorkersAs(kind, args, stdout, stderr, nil)
	},
}

// addSweepKinds adds the sweeps of sweepKinds to shardKinds.
func addSweepKinds() {
	for name, parse := range sweepKinds {
		shardKinds["sweep "+name] = shardKind{func(args []string, stdout, stderr io.Writer) (*work, error) {
			return parse("sweep "+name, args, stdout, stderr)
		}, []string{"o", "format", "width"}}
	}
}

// sweepKindIntro heads the -help of retrysim sweep KIND, before the
// kind's own.
const sweepKindIntro = `retrysim sweep %[1]s runs what retrysim %[1]s runs (below) at every point of
a grid: each -set PATH=VALUES varies one setting by the path a scenario file
names it (` + "graph.services[workers].server.capacity=5,10,20" + `; VALUES ` + sweep.TextForms + `),
repeat -set for a grid, at most 8 of them and 10,000 points. It prints a
row a point and %[1]s's row, the point's settings first, then %[1]s's
columns (table, markdown, csv or json); every point uses the same seed, so
its row is the one retrysim %[1]s prints with those settings. -shard cuts the
points' replicates; retrysim merge prints what the whole sweep prints.

`

// sweepSetUsage is -set's usage in retrysim sweep KIND.
const sweepSetUsage = "vary the setting at `path=values` (graph.services[NAME].server.capacity=5,10,20 for a graph or workers, client.timeout=1s:3s:3 for a fleet run): values " + sweep.TextForms + "; repeat for a grid, at most 8"

// sweeping reports whether r's command is a sweep of its kind's runs.
func (r *runFlags) sweeping() bool { return strings.HasPrefix(r.kind, "sweep ") }

// registerSet registers -set, whose settings r's sweep varies.
func (r *runFlags) registerSet() {
	r.fs.Var(flagval.Repeated(func(s string) error {
		set, err := sweep.ParseSet(s)
		r.sets = append(r.sets, set)
		return err
	}), "set", sweepSetUsage)
}

// grid is the paths -set varies and the grid's points, a value each.
func (r *runFlags) grid() ([]string, [][]string, error) {
	if len(r.sets) == 0 {
		return nil, nil, flagval.Usage(fmt.Errorf("-set: want PATH=VALUES, the setting a sweep of %s varies", strings.TrimPrefix(r.kind, "sweep ")))
	}
	points, err := sweep.SetGrid(r.sets)
	if err != nil {
		return nil, nil, flagval.Usage(fmt.Errorf("-set: %w", err))
	}
	paths := make([]string, len(r.sets))
	for i, s := range r.sets {
		paths[i] = s.Path
	}
	return paths, points, nil
}

// head is what ran r's sweep of name's runs over paths, for its output.
func (r *runFlags) head(name string, paths []string) render.SweepHead {
	return render.SweepHead{Title: fmt.Sprintf("retrysim %s: %s, %s, seed %d, by %s", r.kind, name, human.Count(int64(r.replicates.V), "replicate"), uint64(r.seed), strings.Join(paths, ", ")),
		Paths: paths, Replicates: r.replicates.V, Seed: uint64(r.seed), Scenario: r.scenario}
}

// sweepWork is r's sweep of base (perPoint runs a point) over its grid,
// the points' replicates its items: grid sets the points' runs and
// checks them, run runs a slice of items, check refuses a run's replicate
// no run makes, rows are a point's rows from its runs' replicates.
func sweepWork[C, P any](r *runFlags, stdout io.Writer, echo any, base []C, opts fleet.Options,
	grid func(paths []string, points [][]string) ([]C, error),
	run func(ctx context.Context, runs []C, perPoint int, opts fleet.Options, lo, hi int) ([][]P, error),
	check func(c *C, p *P) error,
	doc func(paths []string, points [][]string, runs []C, items [][]P) render.Runs) (*work, error) {
	paths, points, err := r.grid()
	if err != nil {
		return nil, err
	}
	runs, err := grid(paths, points)
	if err != nil {
		return nil, err
	}
	per, reps := len(base), opts.Replicates
	return items(r.work("replicates of points", len(points)*reps, echo), func(ctx context.Context, lo, hi int) ([][]P, error) {
		return run(ctx, runs, per, opts, lo, hi)
	}, func(k int, item *[]P) error {
		if len(*item) != per {
			return fmt.Errorf("%d runs; the settings make %d a point", len(*item), per)
		}
		for j := range *item {
			if err := check(&runs[k/reps*per+j], &(*item)[j]); err != nil {
				return fmt.Errorf("run %d: %w", j, err)
			}
		}
		return nil
	}, func(ctx context.Context, all [][]P) error {
		var out bytes.Buffer
		if err := r.o.Renderer(stdout).Runs(&out, doc(paths, points, runs, all)); err != nil {
			return err
		}
		return r.write(ctx, stdout, out.Bytes(), nil, nil, nil)
	}), nil
}

// sweepGraphs is r's sweep of graphs (a graph's or a worker fleet's runs,
// named name), rows a point's rows from its results; refused says
// RunGraph's refusal, and kindCheck, when not nil, refuses a point's graph
// the kind does not run.
func sweepGraphs(r *runFlags, stdout io.Writer, echo any, graphs []fleet.Graph, opts fleet.Options, refused func(error) error, kindCheck func(fleet.Graph) error,
	rows func(render.SweepHead, [][]string, []fleet.GraphResult) render.Runs, name string) (*work, error) {
	return sweepWork(r, stdout, echo, graphs, opts, func(paths []string, points [][]string) ([]fleet.Graph, error) {
		runs, err := fleet.SweepGraphs(graphs, paths, points)
		for i := 0; err == nil && kindCheck != nil && i < len(runs); i++ {
			err = kindCheck(runs[i])
		}
		if err == nil {
			err = fleet.CheckGraphCost(runs, opts)
		}
		if err != nil {
			return nil, setRefused(err)
		}
		return runs, nil
	}, func(ctx context.Context, runs []fleet.Graph, per int, opts fleet.Options, lo, hi int) ([][]fleet.GraphReplicate, error) {
		items, err := fleet.RunGraphSweep(ctx, runs, per, opts, lo, hi)
		if err != nil {
			return nil, refused(err)
		}
		return items, nil
	}, (*fleet.Graph).CheckReplicate, func(paths []string, points [][]string, runs []fleet.Graph, items [][]fleet.GraphReplicate) render.Runs {
		return rows(r.head(name, paths), points, fleet.GraphSweepResults(runs, len(graphs), items))
	})
}

// sweepConfigs is r's sweep of fleet runs cfgs, named name.
func sweepConfigs(r *runFlags, stdout io.Writer, echo any, cfgs []fleet.Config, opts fleet.Options, name string) (*work, error) {
	return sweepWork(r, stdout, echo, cfgs, opts, func(paths []string, points [][]string) ([]fleet.Config, error) {
		for _, path := range paths {
			p, ok := fleet.LookupParam(path)
			if !ok {
				p, ok = fleet.LookupKey(strings.ReplaceAll(path, "_", "-"))
			}
			if ok && r.given[p.Key] {
				return nil, flagval.Usage(fmt.Errorf("-%s: -set %s varies it; give one of the two", p.Key, path))
			}
		}
		runs, err := fleet.SweepConfigs(cfgs, paths, points)
		if err == nil {
			err = fleet.Check(runs, opts)
		}
		if err != nil {
			return nil, setRefused(err)
		}
		return runs, nil
	}, fleet.RunSweep, (*fleet.Config).CheckReplicate, func(paths []string, points [][]string, runs []fleet.Config, items [][]fleet.Replicate) render.Runs {
		res := fleet.SweepResults(runs, len(cfgs), items)
		rows := make([][]fleet.Summary, len(points))
		for i, x := range res {
			rows[i/len(cfgs)] = append(rows[i/len(cfgs)], x.Summary())
		}
		return render.FleetSweep(r.head(name, paths), points, rows)
	})
}

// setRefused is a refusal of a sweep's settings, a usage error naming
// -set, and the path of a setting refused.
func setRefused(err error) error {
	if _, ok := err.(*fleet.FieldError); ok {
		return flagval.Usage(fmt.Errorf("-set %w", err))
	}
	return flagval.Usage(fmt.Errorf("-set: %w", err))
}

// byPoint groups res, perPoint results a point, into each point's rows.
func byPoint[R any](res []fleet.GraphResult, perPoint int, rows func(fleet.GraphResult) []R) [][]R {
	out := make([][]R, len(res)/perPoint)
	for i, x := range res {
		out[i/perPoint] = append(out[i/perPoint], rows(x)...)
	}
	return out
}
