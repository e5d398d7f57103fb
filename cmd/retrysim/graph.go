package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/scenario"
)

var graphIntro = `retrysim graph simulates a call graph in virtual time: requests enter at a
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

// graphPresetsHelp lists the presets for -help, as the fleet command's.
func graphPresetsHelp() string { return render.GraphPresets(fleet.GraphPresets()) }

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
	fs := flagval.NewFlagSet("retrysim graph")
	var (
		preset       flagval.Choice
		scenPath     string
		duration     flagval.Duration
		seed         flagval.Seed = 1
		workers                   = flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096}
		replicates                = flagval.Bounded{V: 10, Lo: 1, Hi: fleet.MaxReplicates}
		o            flagval.Output
		series, plot string
		shard        flagval.Shard
	)
	preset.Valid = func(s string) error { _, err := fleet.LookupGraphPreset(s); return err }
	preset.Names = presetNames(fleet.GraphPresets(), func(p fleet.GraphPreset) string { return p.Name })
	fs.StringVar(&scenPath, "scenario", "", "run the graph of the graph section of this scenario `file`")
	fs.Var(&preset, "preset", "run the graphs of the preset `name` (listed above)")
	fs.Var(&duration, "duration", "a preset's requests arrive for this `duration` of virtual time, 1s to 1h, instead of the preset's own, or of a file's that sets no graph.duration")
	fs.Var(&replicates, "replicates", "a graph is simulated with `r` independent seeds, 1 to 1000")
	fs.Lookup("replicates").DefValue = "a preset's own, else 10"
	fs.Var(&seed, "seed", "random `seed`; the same flags and seed print the same bytes")
	o.Register(fs, render.GraphDoc, " (json also holds each graph's settings and each service's series; html is one page with the series drawn)", "")
	fs.Var(&workers, "workers", fmt.Sprintf("parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it", workers.Lo, workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS"
	fs.StringVar(&series, "series", "", "also write the series, a row a run a service a second, to `file` (.csv or .json)")
	fs.StringVar(&plot, "plot", "", "also draw the series to `file` (.png or .svg), a panel a service")
	fs.Var(&shard, "shard", shardUsage)
	if err := flagval.Parse(fs, args, graphIntro, stdout); err != nil {
		return nil, err
	}
	given := flagval.Given(fs)
	var (
		graphs []fleet.Graph
		p      fleet.GraphPreset
		loaded *scenario.Graph
	)
	switch {
	case preset.V != "" && scenPath != "":
		return nil, flagval.Usage(errors.New("-preset: a preset is its own graphs; drop -preset or -scenario"))
	case preset.V != "":
		p, _ = fleet.LookupGraphPreset(preset.V)
		d := p.Duration
		if given["duration"] {
			d = duration.V
		}
		if !given["replicates"] {
			replicates.V = p.Replicates
		}
		graphs = p.Graphs(d)
	case scenPath != "":
		l, err := scenario.LoadGraph(scenPath)
		if err != nil {
			return nil, flagval.Usage(fmt.Errorf("-scenario %w", err))
		}
		loaded = l.Graph
		if given["duration"] {
			if err := scenarioDuration(loaded, scenPath, duration.V); err != nil {
				return nil, err
			}
		}
		graphs = []fleet.Graph{loaded.Graph}
	default:
		return nil, flagval.Usage(errors.New("want -scenario FILE (a graph section) or -preset NAME"))
	}
	if err := render.CheckFleetFiles(series, plot); err != nil {
		return nil, flagval.Usage(err)
	}
	seriesF, plotF := outfile.File{Flag: "series", Path: series}, outfile.File{Flag: "plot", Path: plot}
	if err := outfile.CheckReading("scenario file", scenPath, o.Out, seriesF, plotF); err != nil {
		return nil, flagval.Usage(err)
	}
	if shard.Count > 0 {
		if err := refuseShardOutputs(fs, series, plot); err != nil {
			return nil, err
		}
	}
	echo, err := scenarioDigest(scenPath)
	if err != nil {
		return nil, err
	}
	opts := fleet.Options{Replicates: replicates.V, Seed: uint64(seed), Workers: workers.V, Progress: outfile.Progress(stderr, "graph")}
	w := &work{kind: "graph", noun: "replicates", n: replicates.V, echo: echo, shard: shard, settings: shardSettings(fs, args), out: o.Out}
	finish := func(ctx context.Context, res []fleet.GraphResult) error {
		run := render.GraphRun{Preset: p, Replicates: replicates.V, Seed: uint64(seed), Results: res, ScenarioFile: scenPath}
		main, ser, pic, err := o.Renderer(stdout).GraphOutputs(run, filepath.Ext(series), filepath.Ext(plot))
		if err != nil {
			return err
		}
		outs := []outfile.Output{{File: o.Out, Data: main}}
		if series != "" {
			outs = append(outs, outfile.Output{File: seriesF, Data: ser})
		}
		if plot != "" {
			outs = append(outs, outfile.Output{File: plotF, Data: pic})
		}
		return outfile.WriteAll(ctx, stdout, outs...)
	}
	return graphItems(w, graphs, opts, func(err error) error { return graphError(err, loaded, scenPath) }, finish), nil
}

// graphItems makes w the run of graphs' replicates, each an item, whose
// refusal is said by refused; finish writes the outputs of the results.
func graphItems(w *work, graphs []fleet.Graph, opts fleet.Options, refused func(error) error, finish func(context.Context, []fleet.GraphResult) error) *work {
	run := func(ctx context.Context, lo, hi int) ([][]fleet.GraphReplicate, error) {
		opts := opts
		opts.First, opts.Replicates = lo, hi-lo
		res, err := fleet.RunGraph(ctx, graphs, opts)
		if err != nil {
			return nil, refused(err)
		}
		reps := make([][]fleet.GraphReplicate, hi-lo)
		for k := range reps {
			for _, r := range res {
				reps[k] = append(reps[k], r.Replicates[k])
			}
		}
		return reps, nil
	}
	check := func(_ int, reps *[]fleet.GraphReplicate) error {
		if len(*reps) != len(graphs) {
			return fmt.Errorf("%d graphs; the settings make %d", len(*reps), len(graphs))
		}
		for i := range graphs {
			if err := graphs[i].CheckReplicate(&(*reps)[i]); err != nil {
				return fmt.Errorf("graph %d: %w", i, err)
			}
		}
		return nil
	}
	return items(w, run, check, func(ctx context.Context, reps [][]fleet.GraphReplicate) error {
		res := make([]fleet.GraphResult, len(graphs))
		for i, g := range graphs {
			res[i].Graph = g
			for _, r := range reps {
				res[i].Replicates = append(res[i].Replicates, r[i])
			}
		}
		return finish(ctx, res)
	})
}

// scenarioDuration sets the duration of the graph a scenario file at path
// gave, from -duration, when the file leaves graph.duration out: a flag
// may not be given with the key that sets it, as retrysim fleet's may not.
func scenarioDuration(g *scenario.Graph, path string, d time.Duration) error {
	if line := g.Line("graph.duration"); line > 0 {
		return flagval.Usage(fmt.Errorf("-duration: %s:%d: graph.duration sets it; give one or the other", path, line))
	}
	g.Graph.Duration = d
	if err := g.Graph.Check(); err != nil {
		return flagval.Usage(fmt.Errorf("-duration %s: %w", human.Duration(d), g.Located(err)))
	}
	return nil
}

// graphError is RunGraph's refusal in the command's words, a usage error:
// of the options as their flags; of a file's graph at the file's line; of
// a preset's graph (its cost) as it is. Any other error (an interrupt) is
// returned as it is.
func graphError(err error, loaded *scenario.Graph, path string) error {
	var fe *fleet.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	if fe.Field == "replicates" || fe.Field == "workers" || fe.Field == "duration" && loaded == nil {
		return flagval.Usage(fmt.Errorf("-%s: %s", fe.Field, fe.Msg))
	}
	if loaded != nil {
		return flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(err)))
	}
	return flagval.Usage(fmt.Errorf("-preset: %s", strings.TrimSpace(err.Error())))
}
