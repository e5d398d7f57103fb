package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// graphFamily is a kind of graphs' runs: graph's, workers', or a sweep of either.
type graphFamily = family[fleet.Graph, fleetdata.GraphReplicate, fleet.GraphResult]

// parseGraphs parses the flags of kind (graph or workers, or a sweep of
// either) into its run, a replicate (of a point) an item.
func parseGraphs(kind string, args []string, stdout, stderr io.Writer) (*shardrun.Work, error) {
	r, f, err := parseGraphKind(kind, args, stdout, stderr)
	if err != nil {
		return nil, err
	}
	return f.work(r, stdout, r.options(stderr))
}

// parseGraphKind parses the flags of kind (graph or workers, or a sweep of
// either) into its flags and its graphs' runs.
func parseGraphKind(kind string, args []string, stdout, stderr io.Writer) (*runFlags, graphFamily, error) {
	if strings.TrimPrefix(kind, "sweep ") == "workers" {
		return parseWorkers(kind, args, stdout, stderr)
	}
	return parseGraph(kind, args, stdout, stderr)
}

// parseGraph parses the flags of kind (graph, or its sweep) into its flags
// and its graphs' runs.
func parseGraph(kind string, args []string, stdout, stderr io.Writer) (*runFlags, graphFamily, error) {
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
	}, 10, each(fleetpreset.GraphPresets(), func(p fleetpreset.Preset[fleet.Graph]) string { return p.Name }),
		func(s string) error { _, err := fleetpreset.LookupGraphPreset(s); return err })
	if err := r.parse(args, fmt.Sprintf(helpText("graph"), render.Presets(fleetpreset.GraphPresets()), limits.GraphServices, limits.GraphEntries, limits.GraphFanout, limits.GraphCalls, limits.GraphDepth, limits.FleetDuration, limits.FleetReplicates, limits.FleetSeriesSeconds, float64(limits.FleetEvents)), nil, stdout); err != nil {
		return nil, graphFamily{}, err
	}
	loaded, err := r.loadGraph("graphs")
	if err != nil {
		return nil, graphFamily{}, err
	}
	var (
		graphs []fleet.Graph
		p      fleetpreset.Preset[fleet.Graph]
	)
	switch {
	case loaded != nil:
		graphs = []fleet.Graph{loaded.Graph}
	case r.preset.V != "":
		p, _ = fleetpreset.LookupGraphPreset(r.preset.V)
		graphs = p.Runs(r.fromPreset(p.Duration, p.Replicates))
	default:
		return nil, graphFamily{}, flagval.Usage(errors.New("want -scenario FILE (a graph section) or -preset NAME"))
	}
	return graphRuns(r, graphs, loaded, nil, stderr, graphFamily{kind: replicates.Graph(), name: cmp.Or(render.Escaped(r.scenario), p.Name),
		outputs: func(rr render.Renderer, res []fleet.GraphResult, seriesExt, plotExt string) ([]byte, []byte, []byte, error) {
			return rr.GraphOutputs(render.GraphRun{Preset: p, Replicates: r.replicates.V, Seed: uint64(r.seed), Results: res, ScenarioFile: r.scenario}, seriesExt, plotExt)
		}})
}

// graphRuns is f, a kind of graphs' runs, for r's flags: graphs, from the
// file loaded (nil: a preset), kindCheck (nil: none) refusing a sweep's
// graph the kind does not run.
func graphRuns(r *runFlags, graphs []fleet.Graph, loaded *scenario.Graph, kindCheck func(fleet.Graph) error, stderr io.Writer, f graphFamily) (*runFlags, graphFamily, error) {
	if err := r.checkOutputs(); err != nil {
		return nil, f, err
	}
	echo, err := shardrun.ScenarioDigest(r.scenario)
	if err != nil {
		return nil, f, err
	}
	f.runs, f.echo, f.grid = graphs, echo, graphGrid(graphs, r.options(stderr), kindCheck)
	f.refused = func(err error) error { return graphError(err, loaded) }
	return r, f, nil
}
