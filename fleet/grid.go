package fleet

import (
	"context"
	"fmt"

	"github.com/retrysim/retrysim/internal/pathtext"
)

// A sweep of a kind's runs is a grid of points, each a value for every one
// of a list of settings by path (Config.Set's, Graph.Set's): at every
// point, each of the base runs with the point's settings applied, point
// after point. Its work is points x replicates items, item k replicate
// k % replicates of point k / replicates, every run of the point, so that
// a shard runs any slice of it and the items fold into the whole run's
// results.

// SweepConfigs are the runs of the sweep of base over points (a value for
// each of paths, in order), point after point. A setting a run refuses
// is returned as its *schema.FieldError, naming the path.
// A setting the run does not read at a point (UnreadWhy) is refused too.
func SweepConfigs(base []Config, paths []string, points [][]string) ([]Config, error) {
	return sweepRuns(base, paths, points, (*Config).Set, func(c *Config) error {
		unread := c.unreadWhy()
		for _, path := range paths {
			p, _ := lookupSetting(path)
			if why, ok := unread[p.Path]; ok {
				return pathtext.Errorf(path, "the run does not read it: %s", why)
			}
		}
		return c.Check()
	})
}

// SweepGraphs are the runs of the sweep of base over points, as
// SweepConfigs's, by Graph.Set.
func SweepGraphs(base []Graph, paths []string, points [][]string) ([]Graph, error) {
	return sweepRuns(base, paths, points, (*Graph).Set, (*Graph).Check)
}

// sweepRuns are base's runs at every point, each set by set and checked
// by check; a refusal names the point's settings when the base's run
// takes its path but not with the others.
func sweepRuns[R any](base []R, paths []string, points [][]string, set func(*R, string, string) error, check func(*R) error) ([]R, error) {
	out := make([]R, 0, len(base)*len(points))
	for _, p := range points {
		for _, r := range base {
			for i, path := range paths {
				if err := set(&r, path, p[i]); err != nil {
					return nil, err
				}
			}
			if err := check(&r); err != nil {
				return nil, fmt.Errorf("at %s: %w", pointText(paths, p), err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// pointText is a point's settings, PATH=VALUE each.
func pointText(paths, values []string) string {
	s := ""
	for i, p := range paths {
		if i > 0 {
			s += ", "
		}
		s += p + "=" + values[i]
	}
	return s
}

// RunSweep runs items lo to hi-1 of the sweep whose runs are cfgs,
// perPoint runs a point, opt.Replicates replicates each (opt.First is
// ignored): an item is a replicate of every run of its point, as Run makes
// it, whichever slice it is run in.
func RunSweep(ctx context.Context, cfgs []Config, perPoint int, opt Options, lo, hi int) ([][]Replicate, error) {
	return sweepItems(ctx, cfgs, perPoint, opt, lo, hi, func(ctx context.Context, cfgs []Config, opt Options) ([][]Replicate, error) {
		res, err := Run(ctx, cfgs, opt)
		byRun := make([][]Replicate, len(res))
		for i, r := range res {
			byRun[i] = r.Replicates
		}
		return byRun, err
	})
}

// RunGraphSweep runs items lo to hi-1 of the sweep whose runs are graphs,
// as RunSweep does.
func RunGraphSweep(ctx context.Context, graphs []Graph, perPoint int, opt Options, lo, hi int) ([][]GraphReplicate, error) {
	return sweepItems(ctx, graphs, perPoint, opt, lo, hi, func(ctx context.Context, graphs []Graph, opt Options) ([][]GraphReplicate, error) {
		res, err := RunGraph(ctx, graphs, opt)
		byRun := make([][]GraphReplicate, len(res))
		for i, r := range res {
			byRun[i] = r.Replicates
		}
		return byRun, err
	})
}

// sweepItems runs items lo to hi-1 of a sweep by run (the replicates of
// each run given, by run), in as few calls as the slice allows: a point
// cut by the slice's ends alone, the points between together.
func sweepItems[R, P any](ctx context.Context, runs []R, perPoint int, opt Options, lo, hi int, run func(context.Context, []R, Options) ([][]P, error)) ([][]P, error) {
	reps := opt.withDefaults().Replicates
	out := make([][]P, 0, hi-lo)
	for k := lo; k < hi; {
		p, r := k/reps, k%reps
		last, n := p+1, min(reps-r, hi-k) // points p to last-1, replicates r to r+n-1 of each
		if r == 0 && n == reps {
			last = min(hi/reps, len(runs)/perPoint)
		}
		o := opt
		o.First, o.Replicates = r, n
		byRun, err := run(ctx, runs[p*perPoint:last*perPoint], o)
		if err != nil {
			return nil, err
		}
		for q := p; q < last; q++ {
			for i := range n {
				item := make([]P, perPoint)
				for j := range item {
					item[j] = byRun[(q-p)*perPoint+j][i]
				}
				out = append(out, item)
			}
		}
		k += (last - p) * n
	}
	return out, nil
}

// SweepResults fold a sweep's items, every one of them in order, into the
// results of its runs (cfgs, perPoint a point).
func SweepResults(cfgs []Config, perPoint int, items [][]Replicate) []Result {
	out := make([]Result, len(cfgs))
	for i, c := range cfgs {
		out[i] = Result{Config: c, Replicates: sweepReplicates(i, perPoint, len(cfgs), items)}
	}
	return out
}

// GraphSweepResults fold a sweep's items into the results of its runs, as
// SweepResults does.
func GraphSweepResults(graphs []Graph, perPoint int, items [][]GraphReplicate) []GraphResult {
	out := make([]GraphResult, len(graphs))
	for i, g := range graphs {
		out[i] = GraphResult{Graph: g, Replicates: sweepReplicates(i, perPoint, len(graphs), items)}
	}
	return out
}

// sweepReplicates are run i's replicates among items, runs runs in all.
func sweepReplicates[P any](i, perPoint, runs int, items [][]P) []P {
	reps := len(items) / (runs / perPoint)
	p, j := i/perPoint, i%perPoint
	out := make([]P, reps)
	for r := range out {
		out[r] = items[p*reps+r][j]
	}
	return out
}
