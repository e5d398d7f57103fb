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
	"github.com/retrysim/retrysim/internal/render"
)

// graphIntro is the graph command's -help above its flags, built when the
// command runs: its lists of presets and limits are no cost of another's.
func graphIntro() string {
	return `retrysim graph simulates a call graph in virtual time: requests enter at a
service, which calls others, each call with its own client (timeout, attempts,
backoff, policy), so that retries at every layer multiply: with every call at
the bottom failing, a attempts at each of d layers make a^d calls there for one
request at the top. The fleet model's servers, clients and policies are the
graph's, and a graph of one call is the fleet model's run.

It prints a row a run a service (depth, requests, calls per request that
entered the graph, success, goodput, timeouts, retries, refusals, calls in
progress, latency; means over replicates with 95% Student t intervals) and a
row a run an entry from end to end; -format json holds each service's series
a second and each graph's settings; -plot draws a panel a service.

A graph comes from the graph section of a scenario file (retrysim help
scenario lists its keys) or from a preset. It is a command of its own, not
retrysim fleet -scenario, because every model flag of retrysim fleet says
what its one server or its one client does, and in a graph each service has
its own server and each call its own client: the file says them, and this
command takes only the flags that run and print it.

Usage: retrysim graph -scenario FILE [flags]
       retrysim graph -preset NAME [flags]

Example: retrysim graph -preset sre-three-layers

Presets:
` + graphPresetsHelp() + `
Limits (checked before any work, each refusal naming the file's line):
` + render.FleetLimits(graphLimits()) + `
Flags:
`
}

// graphPresetsHelp lists the presets for -help, as the fleet command's.
func graphPresetsHelp() string { return render.KindPresets(fleet.GraphPresets()) }

// graphLimits are the graph's limits, from the constants fleet.Graph.Check
// and fleet.Check enforce.
func graphLimits() []render.Limit {
	return []render.Limit{
		{What: "services", Bound: fmt.Sprintf("1 to %d, each reached from an entry, names unique; entries 1 to %d", fleet.MaxServices, fleet.MaxEntries)},
		{What: "calls", Bound: fmt.Sprintf("up to %d a service (fan-out), %d in the graph; no cycle; a chain of at most %d services from an entry (depth)", fleet.MaxFanout, fleet.MaxCalls, fleet.MaxDepth)},
		{What: "settings", Bound: "each server, outage, load and client within retrysim fleet's bounds for the same flag (retrysim help scenario lists them)"},
		{What: "-duration", Bound: fmt.Sprintf("1 s to %d s (the series holds a row a service a second)", fleet.MaxDuration)},
		{What: "-replicates", Bound: fmt.Sprintf("1 to %d; replicates x duration up to %d s", fleet.MaxReplicates, fleet.MaxSeriesSeconds)},
		{What: "events", Bound: fmt.Sprintf("up to %.0e over every run and replicate: a request makes up to the product of attempts x (1 + hedges) along each chain of calls", float64(fleet.MaxEvents))},
	}
}

// graphCommand runs service graphs: a scenario file's or a preset's, then
// fleet.RunGraph, then a renderer.
func graphCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	w, err := parseGraph(args, stdout, stderr)
	if err != nil {
		return err
	}
	return w.do(ctx, stdout)
}

// parseGraph parses the graph command's flags into its run, a replicate an
// item.
func parseGraph(args []string, stdout, stderr io.Writer) (*work, error) {
	return parseGraphAs("graph", args, stdout, stderr)
}

// parseGraphAs is parseGraph as kind: graph, or its sweep.
func parseGraphAs(kind string, args []string, stdout, stderr io.Writer) (*work, error) {
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
	}, 10, presetNames(fleet.GraphPresets(), func(p fleet.GraphPreset) string { return p.Name }),
		func(s string) error { _, err := fleet.LookupGraphPreset(s); return err })
	if err := r.parse(args, graphIntro(), nil, stdout); err != nil {
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
	if err := r.checkOutputs(); err != nil {
		return nil, err
	}
	if err := r.require(render.GraphFigureKeys(), runNames(graphs, graphName)); err != nil {
		return nil, err
	}
	echo, err := scenarioDigest(r.scenario)
	if err != nil {
		return nil, err
	}
	refused := func(err error) error {
		return graphError(err, loaded, func(err error) error {
			return flagval.Usage(fmt.Errorf("-preset: %s", strings.TrimSpace(err.Error())))
		})
	}
	if r.sweeping() {
		return sweepGraphs(r, stdout, echo, graphs, r.options(stderr), refused, nil, func(h render.SweepHead, points [][]string, res []fleet.GraphResult) render.Runs {
			return render.GraphSweep(h, points, byPoint(res, len(graphs), fleet.GraphResult.Rows))
		}, or(render.Escaped(r.scenario), p.Name))
	}
	return graphItems(r.work("replicates", r.replicates.V, echo), graphs, r.options(stderr), refused, func(ctx context.Context, res []fleet.GraphResult) error {
		run := render.GraphRun{Preset: p, Replicates: r.replicates.V, Seed: uint64(r.seed), Results: res, ScenarioFile: r.scenario}
		main, ser, pic, err := r.o.Renderer(stdout).GraphOutputs(run, filepath.Ext(r.series), filepath.Ext(r.plot))
		if err != nil {
			return err
		}
		var rows []fleet.GraphRow
		for _, x := range res {
			rows = append(rows, x.Rows()...)
		}
		return r.write(ctx, stdout, main, ser, pic, render.GraphFigures(rows))
	}), nil
}

// graphName is g's name, its rows' run.
func graphName(g fleet.Graph) string { return g.Name }
