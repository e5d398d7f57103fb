package cli

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/schema"
)

// GraphFamily is a kind of graphs' runs: graph's, workers', or a sweep of either.
type GraphFamily = Family[fleet.Graph, fleetdata.GraphReplicate, fleet.GraphResult]

// Graph parses the flags of kind (graph or workers, or a sweep of either)
// into its run (as Graphs does), a replicate (of a point) an item.
func Graph(kind string, args []string, help string, stdout, stderr io.Writer) (*shardrun.Work, error) {
	r, f, err := Graphs(kind, args, help, stdout, stderr)
	if err != nil {
		return nil, err
	}
	return f.Work(r, stdout, stderr)
}

// Graphs parses the flags of kind (graph or workers, or a sweep of either),
// -help printing help, into its flags and its graphs' runs, the scenario
// file's digest their echo.
func Graphs(kind string, args []string, help string, stdout, stderr io.Writer) (*Run, GraphFamily, error) {
	build, u := graphs, Usages{
		Preset:            "run the graphs of the preset `name` (listed above)",
		Scenario:          "run the graph of the graph section of this scenario `file`",
		Duration:          "a preset's requests arrive for this `duration` of virtual time, 1s to 1h, instead of the preset's own, or of a file's that sets no graph.duration",
		Replicates:        "a graph is simulated with `r` independent seeds, 1 to 1000",
		ReplicatesDefault: "a preset's own, else 10",
		Series:            "also write the series, a row a run a service a second, to `file` (.csv or .json)",
		Plot:              "also draw the series to `file` (.png or .svg), a panel a service",
		Doc:               render.GraphDoc,
		Formats:           " (json also holds each graph's settings and each service's series; html is one page with the series drawn)",
	}
	if strings.TrimPrefix(kind, "sweep ") == "workers" {
		build, u = workers, Usages{
			Preset:            "run the worker fleets of the preset `name` (listed above)",
			Scenario:          "run the fleet of the graph section of this scenario `file`: its first entry the queue, the service it sends to the workers",
			Duration:          "jobs arrive for this `duration` of virtual time, 1s to 1h, instead of the preset's own, or of a file's that sets no graph.duration",
			Replicates:        "a run is simulated with `r` independent seeds, 1 to 1000",
			ReplicatesDefault: "a preset's own, else 10",
			Workers:           "parallel `workers` (goroutines, not the model's: those are -worker-count), each simulating replicates, %d to %d; the output does not depend on it",
			Plot:              "also draw the series to `file` (.png or .svg): jobs a second, jobs waiting, the oldest's age, a panel a dependency",
			Doc:               render.WorkersDoc,
			Formats:           " (json also holds each run's series a second; html is one page with the series drawn)",
		}
	}
	r := New(kind, u, 10)
	f, err := build(r, args, help, stdout, stderr)
	return r, f, err
}

// graphs parses args (-help printing help, filled with the presets and
// limits) into the graph kind's runs: -scenario's graph, or -preset's.
func graphs(r *Run, args []string, help string, stdout, stderr io.Writer) (GraphFamily, error) {
	choosePresets(r, fleetpreset.GraphPresets(), fleetpreset.LookupGraphPreset)
	intro := fmt.Sprintf(help, render.Presets(fleetpreset.GraphPresets()), limits.GraphServices, limits.GraphEntries, limits.GraphFanout, limits.GraphCalls, limits.GraphDepth, limits.FleetDuration, limits.FleetReplicates, limits.FleetSeriesSeconds, float64(limits.FleetEvents))
	loaded, err := r.loadGraph(args, intro, "graphs", "want -scenario FILE (a graph section) or -preset NAME", stdout)
	if err != nil {
		return GraphFamily{}, err
	}
	var (
		graphs []fleet.Graph
		p      fleetpreset.Preset[fleet.Graph]
	)
	switch {
	case loaded != nil:
		graphs = []fleet.Graph{loaded.Graph}
	default:
		p, _ = fleetpreset.LookupGraphPreset(r.Preset.V)
		graphs = p.Runs(r.fromPreset(p.Duration, p.Replicates))
	}
	return graphRuns(r, graphs, loaded, nil, stderr, GraphFamily{Kind: replicates.Graph(), Name: cmp.Or(render.Escaped(r.Scenario), p.Name),
		Outputs: func(rr render.Renderer, res []fleet.GraphResult, seriesExt, plotExt string) ([]byte, []byte, []byte, error) {
			return rr.GraphOutputs(render.GraphRun{Preset: p, Replicates: r.Replicates.V, Seed: uint64(r.Seed), Results: res, ScenarioFile: r.Scenario}, seriesExt, plotExt)
		}})
}

// workers declares -preset's presets and -worker-count on r, and parses
// args (-help printing help, filled with the presets and limits) into the
// workers kind's runs: -scenario's graph (its first entry the queue), or
// -preset's.
func workers(r *Run, args []string, help string, stdout, stderr io.Writer) (GraphFamily, error) {
	choosePresets(r, fleetpreset.WorkersPresets(), fleetpreset.LookupWorkersPreset)
	workerCount := flagval.Bounded{Lo: 1, Hi: limits.FleetWorkers}
	r.FS.Var(&workerCount, "worker-count", fmt.Sprintf("the model's workers taking jobs, `n` from 1 to %d, in every run instead of its own (not -workers)", limits.FleetWorkers))
	r.FS.Lookup("worker-count").DefValue = "the preset's or the file's own"
	intro := fmt.Sprintf(help, render.Presets(fleetpreset.WorkersPresets()), limits.GraphFanout, limits.FleetWorkers, limits.FleetAttempts, limits.FleetDuration, limits.FleetReplicates, limits.FleetSeriesSeconds, limits.FleetSeconds, limits.DeliveryCrashes, float64(limits.FleetBytes)/(1<<30), float64(limits.FleetEvents))
	loaded, err := r.loadGraph(args, intro, "fleets", "want -preset NAME or -scenario FILE (a graph section whose first entry is the queue)", stdout)
	if err != nil {
		return GraphFamily{}, err
	}
	var (
		chosen fleetpreset.Preset[fleet.Workers]
		graphs []fleet.Graph
		name   string
	)
	switch {
	case loaded != nil:
		g := loaded.Graph
		g.Services = slices.Clone(g.Services)
		w := slices.IndexFunc(g.Services, func(n fleet.Node) bool { return n.Name == g.Entries[0].To })
		if g.Services[w].Server.Kind != fleet.QueueServer {
			return GraphFamily{}, flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(&schema.FieldError{Field: fmt.Sprintf("services[%s].server.kind", g.Services[w].Name),
				Msg: fmt.Sprintf("the workers (%s, where the first entry sends its jobs) are %s server; want a queue server, whose workers take the jobs", g.Services[w].Name, human.Article(g.Services[w].Server.Kind.String()))})))
		}
		for k := 1; k < len(g.Entries); k++ {
			if g.Entries[k].To == g.Entries[0].To { // its jobs would be delivered, but counted in no row's jobs
				return GraphFamily{}, flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(&schema.FieldError{Field: fmt.Sprintf("entries[%d].to", k),
					Msg: fmt.Sprintf("%s is the first entry's queue, whose jobs a workers run counts; send this entry to a queue of its own, or run retrysim graph", g.Entries[k].To)})))
			}
		}
		if r.Given["worker-count"] {
			g.Services[w].Server.Workers = workerCount.V
		}
		name = render.Escaped(r.Scenario)
		graphs = []fleet.Graph{g}
	default:
		chosen, _ = fleetpreset.LookupWorkersPreset(r.Preset.V)
		name = chosen.Name
		runs := chosen.Runs(r.fromPreset(chosen.Duration, chosen.Replicates))
		for i := range runs {
			if r.Given["worker-count"] {
				runs[i].WorkerCount = workerCount.V
			}
			if err := runs[i].Check(); err != nil {
				return GraphFamily{}, graphError(err, nil)
			}
			graphs = append(graphs, runs[i].Graph())
		}
	}
	queue := func(g fleet.Graph) error { // the workers stay a queue server
		if w := slices.IndexFunc(g.Services, func(n fleet.Node) bool { return n.Name == g.Entries[0].To }); g.Services[w].Server.Kind != fleet.QueueServer {
			return fmt.Errorf("the workers (%s) are %s server at a point; a worker fleet's take the jobs from a queue", g.Services[w].Name, human.Article(g.Services[w].Server.Kind.String()))
		}
		return nil
	}
	return graphRuns(r, graphs, loaded, queue, stderr, GraphFamily{Kind: replicates.Workers(), Name: name,
		Outputs: func(rr render.Renderer, res []fleet.GraphResult, _, plotExt string) ([]byte, []byte, []byte, error) {
			main, pic, err := rr.WorkersOutputs(render.WorkersReport{Replicates: r.Replicates.V, Seed: uint64(r.Seed), Scenario: r.Scenario, Preset: chosen}, res, plotExt)
			return main, nil, pic, err
		}})
}

// graphRuns is f, a kind of graphs' runs, for r's flags, outputs checked:
// graphs, from the file loaded (nil: a preset), kindCheck (nil: none)
// refusing a sweep's graph the kind does not run, the file's digest its echo.
func graphRuns(r *Run, graphs []fleet.Graph, loaded *scenario.Graph, kindCheck func(fleet.Graph) error, stderr io.Writer, f GraphFamily) (GraphFamily, error) {
	if err := r.checkOutputs(); err != nil {
		return f, err
	}
	opts := r.Options(stderr)
	f.Runs = graphs
	f.Grid = func(paths []string, points [][]string) ([]fleet.Graph, error) {
		runs, err := fleetrun.SweepGraphs(graphs, paths, points)
		for i := 0; err == nil && kindCheck != nil && i < len(runs); i++ {
			err = kindCheck(runs[i])
		}
		if err == nil {
			err = fleetrun.Fleet().CheckGraphCost(runs, opts)
		}
		return runs, err
	}
	f.Refused = func(err error) error { return graphError(err, loaded) }
	var err error
	f.Echo, err = shardrun.ScenarioDigest(r.Scenario)
	return f, err
}
