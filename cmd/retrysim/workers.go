package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/schema"
)

// parseWorkers parses the flags of kind (workers, or its sweep) into its
// flags and its worker fleets' runs.
func parseWorkers(kind string, args []string, stdout, stderr io.Writer) (*runFlags, graphFamily, error) {
	r := newRunFlags(kind, usages{
		preset:            "run the worker fleets of the preset `name` (listed above)",
		scenario:          "run the fleet of the graph section of this scenario `file`: its first entry the queue, the service it sends to the workers",
		duration:          "jobs arrive for this `duration` of virtual time, 1s to 1h, instead of the preset's own, or of a file's that sets no graph.duration",
		replicates:        "a run is simulated with `r` independent seeds, 1 to 1000",
		replicatesDefault: "a preset's own, else 10",
		workers:           "parallel `workers` (goroutines, not the model's: those are -worker-count), each simulating replicates, %d to %d; the output does not depend on it",
		plot:              "also draw the series to `file` (.png or .svg): jobs a second, jobs waiting, the oldest's age, a panel a dependency",
		doc:               render.WorkersDoc,
		formats:           " (json also holds each run's series a second; html is one page with the series drawn)",
	}, 10, each(fleetpreset.WorkersPresets(), func(p fleetpreset.Preset[fleet.Workers]) string { return p.Name }),
		func(s string) error { _, err := fleetpreset.LookupWorkersPreset(s); return err })
	workerCount := flagval.Bounded{Lo: 1, Hi: limits.FleetWorkers}
	r.fs.Var(&workerCount, "worker-count", fmt.Sprintf("the model's workers taking jobs, `n` from 1 to %d, in every run instead of its own (not -workers)", limits.FleetWorkers))
	r.fs.Lookup("worker-count").DefValue = "the preset's or the file's own"
	if err := r.parse(args, fmt.Sprintf(helpText("workers"), render.Presets(fleetpreset.WorkersPresets()), limits.GraphFanout, limits.FleetWorkers, limits.FleetAttempts, limits.FleetDuration, limits.FleetReplicates, limits.FleetSeriesSeconds, limits.FleetSeconds, limits.DeliveryCrashes, float64(limits.FleetBytes)/(1<<30), float64(limits.FleetEvents)), nil, stdout); err != nil {
		return nil, graphFamily{}, err
	}
	loaded, err := r.loadGraph("fleets")
	if err != nil {
		return nil, graphFamily{}, err
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
		if g.Services[w].Server.Kind != fleet.Queue {
			return nil, graphFamily{}, flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(&schema.FieldError{Field: fmt.Sprintf("services[%s].server.kind", g.Services[w].Name),
				Msg: fmt.Sprintf("the workers (%s, where the first entry sends its jobs) are %s server; want a queue server, whose workers take the jobs", g.Services[w].Name, human.Article(g.Services[w].Server.Kind.String()))})))
		}
		for k := 1; k < len(g.Entries); k++ {
			if g.Entries[k].To == g.Entries[0].To { // its jobs would be delivered, but counted in no row's jobs
				return nil, graphFamily{}, flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(&schema.FieldError{Field: fmt.Sprintf("entries[%d].to", k),
					Msg: fmt.Sprintf("%s is the first entry's queue, whose jobs a workers run counts; send this entry to a queue of its own, or run retrysim graph", g.Entries[k].To)})))
			}
		}
		if r.given["worker-count"] {
			g.Services[w].Server.Workers = workerCount.V
		}
		name = render.Escaped(r.scenario)
		graphs = []fleet.Graph{g}
	case r.preset.V != "":
		chosen, _ = fleetpreset.LookupWorkersPreset(r.preset.V)
		name = chosen.Name
		runs := chosen.Runs(r.fromPreset(chosen.Duration, chosen.Replicates))
		for i := range runs {
			if r.given["worker-count"] {
				runs[i].WorkerCount = workerCount.V
			}
			if err := runs[i].Check(); err != nil {
				return nil, graphFamily{}, graphError(err, nil)
			}
			graphs = append(graphs, runs[i].Graph())
		}
	default:
		return nil, graphFamily{}, flagval.Usage(errors.New("want -preset NAME or -scenario FILE (a graph section whose first entry is the queue)"))
	}
	queue := func(g fleet.Graph) error { // the workers stay a queue server
		if w := slices.IndexFunc(g.Services, func(n fleet.Node) bool { return n.Name == g.Entries[0].To }); g.Services[w].Server.Kind != fleet.Queue {
			return fmt.Errorf("the workers (%s) are %s server at a point; a worker fleet's take the jobs from a queue", g.Services[w].Name, human.Article(g.Services[w].Server.Kind.String()))
		}
		return nil
	}
	return graphRuns(r, graphs, loaded, queue, stderr, graphFamily{kind: replicates.Workers(), name: name,
		outputs: func(rr render.Renderer, res []fleet.GraphResult, _, plotExt string) ([]byte, []byte, []byte, error) {
			main, pic, err := rr.WorkersOutputs(render.WorkersReport{Replicates: r.replicates.V, Seed: uint64(r.seed), Scenario: r.scenario, Preset: chosen}, res, plotExt)
			return main, nil, pic, err
		}})
}
