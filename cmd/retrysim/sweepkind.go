package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/schema"
)

// sweepSetUsage is -set's usage in retrysim sweep KIND.
const sweepSetUsage = "vary the setting at `path=values` (graph.services[NAME].server.capacity=5,10,20 for a graph or workers, client.timeout=1s:3s:3 for a fleet run): values " + sweep.TextForms + "; repeat for a grid, at most 8"

// sweeping reports whether r's command is a sweep of its kind's runs.
func (r *runFlags) sweeping() bool { return strings.HasPrefix(r.kind, "sweep ") }

// grid is the paths -set varies and the grid's points, a value each.
func (r *runFlags) grid() ([]string, [][]string, error) {
	if len(r.sets) == 0 {
		return nil, nil, flagval.Usage(fmt.Errorf("-set: want PATH=VALUES, the setting a sweep of %s varies", strings.TrimPrefix(r.kind, "sweep ")))
	}
	points, err := sweep.SetGrid(r.sets)
	if err != nil {
		return nil, nil, flagval.Usage(fmt.Errorf("-set: %w", err))
	}
	return each(r.sets, func(s sweep.Set) string { return s.Path }), points, nil
}

// head is what ran r's sweep of name's runs over paths, for its output.
func (r *runFlags) head(name string, paths []string) render.SweepHead {
	return render.SweepHead{Title: fmt.Sprintf("retrysim %s: %s, %s, seed %d, by %s", r.kind, name, human.Count(int64(r.replicates.V), "replicate"), uint64(r.seed), strings.Join(paths, ", ")),
		Paths: paths, Replicates: r.replicates.V, Seed: uint64(r.seed), Scenario: r.scenario}
}

// family is a fleet-family kind's runs as its flags made them, and what
// the kind prints of them: the run, or with -set a sweep of it.
type family[C, P, R any] struct {
	kind    replicates.Kind[C, P, R]
	runs    []C
	name    string // what ran, in a sweep's title
	echo    any
	refused func(error) error
	// grid makes and checks a sweep's runs, a point's after another's;
	// outputs are a run's document, series and picture (by the files'
	// extensions).
	grid    func(paths []string, points [][]string) ([]C, error)
	outputs func(rr render.Renderer, res []R, seriesExt, plotExt string) (main, ser, pic []byte, err error)
}

// work is f's work for r's flags: its run, or with -set a sweep of it, the
// replicates (of the points) its items.
func (f family[C, P, R]) work(r *runFlags, stdout io.Writer, opts fleet.Options) (*shardrun.Work, error) {
	if err := r.require(f.kind.Keys, each(f.runs, f.kind.Name)); err != nil {
		return nil, err
	}
	if !r.sweeping() {
		return kindItems(f.kind, r.work("replicates", r.replicates.V, f.echo), f.runs, len(f.runs), opts, f.refused, func(ctx context.Context, res []R) error {
			main, ser, pic, err := f.outputs(r.o.Renderer(stdout), res, filepath.Ext(r.series.Path), filepath.Ext(r.plot.Path))
			if err != nil {
				return err
			}
			return r.write(ctx, stdout, main, ser, pic, f.kind.Rows(res))
		}), nil
	}
	paths, points, err := r.grid()
	if err != nil {
		return nil, err
	}
	runs, err := f.grid(paths, points)
	if err != nil {
		return nil, setRefused(err)
	}
	return kindItems(f.kind, r.work("replicates of points", len(points)*r.replicates.V, f.echo), runs, len(f.runs), opts, f.refused, func(ctx context.Context, res []R) error {
		return r.writeRuns(ctx, stdout, f.kind.Sweep(r.head(f.name, paths), points, len(f.runs), res), nil, nil)
	}), nil
}

// graphGrid is the grid of a sweep of graphs with opts, kindCheck, when not
// nil, refusing a point's graph the kind does not run.
func graphGrid(graphs []fleet.Graph, opts fleet.Options, kindCheck func(fleet.Graph) error) func([]string, [][]string) ([]fleet.Graph, error) {
	return func(paths []string, points [][]string) ([]fleet.Graph, error) {
		runs, err := fleetrun.SweepGraphs(graphs, paths, points)
		for i := 0; err == nil && kindCheck != nil && i < len(runs); i++ {
			err = kindCheck(runs[i])
		}
		if err == nil {
			err = fleetrun.CheckGraphCost(runs, opts)
		}
		return runs, err
	}
}

// setRefused is a refusal of a sweep's settings, a usage error naming
// -set, and the path of a setting refused.
func setRefused(err error) error {
	var ue flagval.UsageError
	if errors.As(err, &ue) {
		return err
	}
	if _, ok := err.(*schema.FieldError); ok {
		return flagval.Usage(fmt.Errorf("-set %w", err))
	}
	return flagval.Usage(fmt.Errorf("-set: %w", err))
}
