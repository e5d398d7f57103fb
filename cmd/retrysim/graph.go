package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/scenario"
)

// parseGraphAs parses the flags of kind (graph, or its sweep) into its
// run, a replicate (of a point) an item.
func parseGraphAs(kind string, args []string, stdout, stderr io.Writer) (*work, error) {
	return parseGraphTake(kind, args, stdout, stderr, nil)
}

// parseGraphTake is parseGraphAs or, with take, hands take the flags and
// the graphs instead (retrysim tune graph) and makes no run.
func parseGraphTake(kind string, args []string, stdout, stderr io.Writer, take func(*runFlags, []fleet.Graph) error) (*work, error) {
	r := newRunFlags(kind, usages{
		preset:            "run the graphs of the preset `name` (listed above)",
		scenario:          "run the graph of the graph section of this scenario `file`",
		duration:          "a preset's requests arrive for this `duration` of virtual time, 1s to 1h, instead of the preset's own, or of a file's that sets no graph.duration",
		replicates:        "a graph is simulated with `r` independent seeds, 1 to 1000",
		replicatesDefault: "a preset's own, else 10",
		series:            "also write the series, a row a run a service a second, to `file` (.csv or .json)",
		plot:              "also draw the series to `file` (.png or .svg), a panel a service",
		doc:               render.GraphDoc,
		formats:           " (json also holds each graph's settings and each service's series; html is one page with the series drawn)",
	}, 10, each(fleet.GraphPresets(), func(p fleet.GraphPreset) string { return p.Name }),
		func(s string) error { _, err := fleet.LookupGraphPreset(s); return err })
	if err := r.parse(args, fmt.Sprintf(helpText("graph"), render.KindPresets(fleet.GraphPresets()), limits.GraphServices, limits.GraphEntries, limits.GraphFanout, limits.GraphCalls, limits.GraphDepth, limits.FleetDuration, limits.FleetReplicates, limits.FleetSeriesSeconds, float64(limits.FleetEvents)), nil, stdout); err != nil {
		return nil, err
	}
	loaded, err := r.loadGraph("graphs")
	if err != nil {
		return nil, err
	}
	var (
		graphs []fleet.Graph
		p      fleet.GraphPreset
	)
	switch {
	case loaded != nil:
		graphs = []fleet.Graph{loaded.Graph}
	case r.preset.V != "":
		p, _ = fleet.LookupGraphPreset(r.preset.V)
		graphs = p.Runs(r.fromPreset(p.Duration, p.Replicates))
	default:
		return nil, flagval.Usage(errors.New("want -scenario FILE (a graph section) or -preset NAME"))
	}
	return graphWork(r, graphs, loaded, nil, take, stdout, stderr, family[fleet.Graph, fleet.GraphReplicate, fleet.GraphResult]{name: or(render.Escaped(r.scenario), p.Name),
		keys: render.GraphFigureKeys(),
		sweep: func(h render.SweepHead, points [][]string, res []fleet.GraphResult) render.Runs {
			return render.GraphSweep(h, points, byPoint(res, len(graphs), fleet.GraphResult.Rows))
		},
		write: func(ctx context.Context, res []fleet.GraphResult) error {
			run := render.GraphRun{Preset: p, Replicates: r.replicates.V, Seed: uint64(r.seed), Results: res, ScenarioFile: r.scenario}
			main, ser, pic, err := r.o.Renderer(stdout).GraphOutputs(run, filepath.Ext(r.series.Path), filepath.Ext(r.plot.Path))
			if err != nil {
				return err
			}
			return r.write(ctx, stdout, main, ser, pic, render.GraphFigures(slices.Concat(each(res, fleet.GraphResult.Rows)...)))
		}})
}

// graphWork is f, a kind of graphs' runs, for r's flags: graphs, from the
// file loaded (nil: a preset), kindCheck (nil: none) refusing a sweep's
// graph the kind does not run; or with take, handing take the flags and
// the graphs instead (retrysim tune), no run.
func graphWork(r *runFlags, graphs []fleet.Graph, loaded *scenario.Graph, kindCheck func(fleet.Graph) error, take func(*runFlags, []fleet.Graph) error, stdout, stderr io.Writer, f family[fleet.Graph, fleet.GraphReplicate, fleet.GraphResult]) (*work, error) {
	if err := r.checkOutputs(); err != nil {
		return nil, err
	}
	if take != nil {
		return nil, take(r, graphs)
	}
	echo, err := scenarioDigest(r.scenario)
	if err != nil {
		return nil, err
	}
	opts := r.options(stderr)
	f.engine, f.runs, f.echo, f.grid = graphEngine, graphs, echo, graphGrid(graphs, opts, kindCheck)
	f.runName = func(g fleet.Graph) string { return g.Name }
	f.refused = func(err error) error { return graphError(err, loaded) }
	return f.work(r, stdout, opts)
}
