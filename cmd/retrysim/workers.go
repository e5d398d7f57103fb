package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/schema"
)

// parseWorkers parses the flags of kind (workers, or its sweep) into its
// run, a replicate (of a point) an item.
func parseWorkers(kind string, args []string, stdout, stderr io.Writer) (*work, error) {
	return parseWorkersAs(kind, args, stdout, stderr, nil)
}

// parseWorkersAs is parseWorkers as kind (workers, or its sweep), or, with
// take, hands take the flags and the fleets' graphs instead (retrysim tune
// workers) and makes no run.
func parseWorkersAs(kind string, args []string, stdout, stderr io.Writer, take func(*runFlags, []fleet.Graph) error) (*work, error) {
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
	}, 10, each(fleet.WorkersPresets(), func(p fleet.WorkersPreset) string { return p.Name }),
		func(s string) error { _, err := fleet.LookupWorkersPreset(s); return err })
	workerCount := flagval.Bounded{Lo: 1, Hi: limits.FleetWorkers}
	r.fs.Var(&workerCount, "worker-count", fmt.Sprintf("the model's workers taking jobs, `n` from 1 to %d, in every run instead of its own (not -workers)", limits.FleetWorkers))
	r.fs.Lookup("worker-count").DefValue = "the preset's or the file's own"
	if err := r.parse(args, fmt.Sprintf(helpText("workers"), render.KindPresets(fleet.WorkersPresets()), limits.GraphFanout, limits.FleetWorkers, limits.FleetAttempts, limits.FleetDuration, limits.FleetReplicates, limits.FleetSeriesSeconds, limits.FleetSeconds, limits.DeliveryCrashes, float64(limits.FleetBytes)/(1<<30), float64(limits.FleetEvents)), nil, stdout); err != nil {
		return nil, err
	}
	loaded, err := r.loadGraph("fleets")
	if err != nil {
		return nil, err
	}
	var (
		chosen fleet.WorkersPreset
		graphs []fleet.Graph
		name   string
		d      time.Duration
	)
	switch {
	case loaded != nil:
		g := loaded.Graph
		g.Services = slices.Clone(g.Services)
		w := slices.IndexFunc(g.Services, func(n fleet.Node) bool { return n.Name == g.Entries[0].To })
		if g.Services[w].Server.Kind != fleet.Queue {
			return nil, flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(&schema.FieldError{Field: fmt.Sprintf("services[%s].server.kind", g.Services[w].Name),
				Msg: fmt.Sprintf("the workers (%s, where the first entry sends its jobs) are %s server; want a queue server, whose workers take the jobs", g.Services[w].Name, human.Article(g.Services[w].Server.Kind.String()))})))
		}
		for k := 1; k < len(g.Entries); k++ {
			if g.Entries[k].To == g.Entries[0].To { // its jobs would be delivered, but counted in no row's jobs
				return nil, flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(&schema.FieldError{Field: fmt.Sprintf("entries[%d].to", k),
					Msg: fmt.Sprintf("%s is the first entry's queue, whose jobs a workers run counts; send this entry to a queue of its own, or run retrysim graph", g.Entries[k].To)})))
			}
		}
		if r.given["worker-count"] {
			g.Services[w].Server.Workers = workerCount.V
		}
		name, d = render.Escaped(r.scenario), g.Duration
		graphs = []fleet.Graph{g}
	case r.preset.V != "":
		chosen, _ = fleet.LookupWorkersPreset(r.preset.V)
		name, d = chosen.Name, r.fromPreset(chosen.Duration, chosen.Replicates)
		runs := chosen.Runs(d)
		for i := range runs {
			if r.given["worker-count"] {
				runs[i].WorkerCount = workerCount.V
			}
			if err := runs[i].Check(); err != nil {
				return nil, graphError(err, nil)
			}
			graphs = append(graphs, runs[i].Graph())
		}
	default:
		return nil, flagval.Usage(errors.New("want -preset NAME or -scenario FILE (a graph section whose first entry is the queue)"))
	}
	queue := func(g fleet.Graph) error { // the workers stay a queue server
		if w := slices.IndexFunc(g.Services, func(n fleet.Node) bool { return n.Name == g.Entries[0].To }); g.Services[w].Server.Kind != fleet.Queue {
			return fmt.Errorf("the workers (%s) are %s server at a point; a worker fleet's take the jobs from a queue", g.Services[w].Name, human.Article(g.Services[w].Server.Kind.String()))
		}
		return nil
	}
	return graphWork(r, graphs, loaded, queue, take, stdout, stderr, family[fleet.Graph, fleet.GraphReplicate, fleet.GraphResult]{name: name,
		keys: render.WorkersFigureKeys(),
		sweep: func(h render.SweepHead, points [][]string, res []fleet.GraphResult) render.Runs {
			return render.WorkersSweep(h, points, byPoint(res, len(graphs), fleet.GraphResult.WorkersRows))
		},
		write: func(ctx context.Context, res []fleet.GraphResult) error {
			rep := render.WorkersReport{Replicates: r.replicates.V, Seed: uint64(r.seed), Scenario: r.scenario, Preset: chosen,
				Title: fmt.Sprintf("retrysim workers: %s, %s, %s, seed %d", name, human.Duration(d), human.Count(int64(r.replicates.V), "replicate"), uint64(r.seed))}
			for _, res := range res {
				rep.Add(res)
			}
			plot := func(w io.Writer, ext string) error { return render.PlotWorkers(w, rep, ext) }
			return r.writeRuns(ctx, stdout, rep, plot, render.WorkersFigures(rep.Rows))
		}})
}
