package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/render"
)

// workersIntro is the workers command's -help above its flags, built when the
// command runs: its lists of presets and limits are no cost of another's.
func workersIntro() string {
	return `retrysim workers simulates a worker fleet in virtual time: jobs arrive on a
job queue, a pool of workers takes them, and each job's steps call shared
dependencies (a database, a payments API) that can fail, stall or refuse
load. The queue's own retry (its tries, its schedule, its visibility
timeout, the job's idempotency key) redelivers a failed job, then
dead-letters it. A worker fleet is a service graph (retrysim graph): the
queue is the graph's entry, its client the queue's redelivery, the workers
a queue server whose calls are the job's steps; one engine runs both.

The workers may keep the delivery model's key store for a job's steps
(none, after, loose, claim or lease, with its TTL and lease), shared by
every delivery of the job, and crash at its crash points.

It prints a row a run: jobs, completed, dead-lettered, still queued when
arrivals stop (the run goes on until each job has ended), deliveries,
duplicate side effects (a step a job's second delivery did again), lost work
(jobs completed with a step the store says done and no delivery did, as the
delivery model counts it), late deliveries (finished after the queue stopped
waiting for them), the peak backlog (jobs waiting for a worker), the most
jobs waiting out a retry at once and the oldest waiting job's peak age, the
drain time after the outages (until the jobs waiting, for a worker or out a
retry, are first back to their level before them; with the share of
replicates that drained) and completion time quantiles; means over
replicates with 95% Student t intervals. -format json also holds each run's settings (params,
a graph section that runs again), crashes and rolled-back calls, each
step's duplicates, each service's calls and amplification (services), and
each second's arrivals, completions, dead-lettered jobs, backlog, oldest
age, jobs in flight, retries scheduled, and each dependency's calls and
calls in progress; -plot draws them, and -format html is one page with them
drawn before the table.

A fleet comes from a preset, or from the graph section of a scenario file
(retrysim help scenario lists its keys) whose first entry is the job queue:
its client the queue's redelivery (attempts, backoff, timeout as the
visibility timeout, keys as the job's key), its poison, redeliver_at_timeout,
timeout_at_receive, heartbeat, store, ttl, lease, crash, crash_at and
max_crashes keys, and the
service it sends to the workers (a queue server; its calls are the job's
steps).

Usage: retrysim workers -preset NAME [flags]
       retrysim workers -scenario FILE [flags]

Example: retrysim workers -preset sidekiq-outage

Presets:
` + workersPresetsHelp() + `
Limits (checked before any work):
` + render.FleetLimits(workersLimits()) + `
Flags:
`
}

// workersPresetsHelp lists the presets for -help.
func workersPresetsHelp() string { return render.KindPresets(fleet.WorkersPresets()) }

// workersLimits are a worker fleet's limits, from the constants
// fleet.Workers.Check and fleet.Graph.Check enforce.
func workersLimits() []render.Limit {
	return []render.Limit{
		{What: "steps", Bound: fmt.Sprintf("1 to %d a job, each a call to a dependency", fleet.MaxFanout)},
		{What: "-worker-count", Bound: fmt.Sprintf("1 to %d workers (the model's, not -workers)", fleet.MaxWorkers)},
		{What: "tries", Bound: fmt.Sprintf("the queue's and each step's, 1 to %d", fleet.MaxAttempts)},
		{What: "-duration", Bound: fmt.Sprintf("1 s to %d s (the series holds a row a second)", fleet.MaxDuration)},
		{What: "-replicates", Bound: fmt.Sprintf("1 to %d; replicates x duration up to %d s", fleet.MaxReplicates, fleet.MaxSeriesSeconds)},
		{What: "store", Bound: fmt.Sprintf("ttl and lease up to %d s (a lease above 0 s), crash a probability, max_crashes 0 to %d", fleet.MaxSeconds, delivery.CrashesLimit)},
		{What: "memory", Bound: fmt.Sprintf("a job waiting for a worker costs about 104 bytes, and 24 bytes a step more with a store; the jobs and calls a replicate can hold at once, bounded before any work, up to %.0f GiB", float64(fleet.MaxBytes)/(1<<30))},
		{What: "events", Bound: fmt.Sprintf("up to %.0e over every run and replicate", float64(fleet.MaxEvents))},
	}
}

// workersCommand runs a preset's worker fleets on the graph engine and
// prints them.
func workersCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	w, err := parseWorkers(args, stdout, stderr)
	if err != nil {
		return err
	}
	return w.do(ctx, stdout)
}

// parseWorkers parses the workers command's flags into its run, a
// replicate an item.
func parseWorkers(args []string, stdout, stderr io.Writer) (*work, error) {
	return parseWorkersAs("workers", args, stdout, stderr, nil)
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
	}, 10, presetNames(fleet.WorkersPresets(), func(p fleet.WorkersPreset) string { return p.Name }),
		func(s string) error { _, err := fleet.LookupWorkersPreset(s); return err })
	workerCount := flagval.Bounded{Lo: 1, Hi: fleet.MaxWorkers}
	r.fs.Var(&workerCount, "worker-count", fmt.Sprintf("the model's workers taking jobs, `n` from 1 to %d, in every run instead of its own (not -workers)", fleet.MaxWorkers))
	r.fs.Lookup("worker-count").DefValue = "the preset's or the file's own"
	if err := r.parse(args, workersIntro(), nil, stdout); err != nil {
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
			return nil, flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(&fleet.FieldError{Field: fmt.Sprintf("services[%s].server.kind", g.Services[w].Name),
				Msg: fmt.Sprintf("the workers (%s, where the first entry sends its jobs) are %s server; want a queue server, whose workers take the jobs", g.Services[w].Name, human.Article(g.Services[w].Server.Kind.String()))})))
		}
		for k := 1; k < len(g.Entries); k++ {
			if g.Entries[k].To == g.Entries[0].To { // its jobs would be delivered, but counted in no row's jobs
				return nil, flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(&fleet.FieldError{Field: fmt.Sprintf("entries[%d].to", k),
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
				return nil, workersError(err)
			}
			graphs = append(graphs, runs[i].Graph())
		}
	default:
		return nil, flagval.Usage(errors.New("want -preset NAME or -scenario FILE (a graph section whose first entry is the queue)"))
	}
	if err := r.checkOutputs(); err != nil {
		return nil, err
	}
	if take != nil {
		return nil, take(r, graphs)
	}
	if err := r.require(render.WorkersFigureKeys(), runNames(graphs, graphName)); err != nil {
		return nil, err
	}
	echo, err := scenarioDigest(r.scenario)
	if err != nil {
		return nil, err
	}
	refused := func(err error) error { return graphError(err, loaded, workersError) }
	if r.sweeping() {
		queue := func(g fleet.Graph) error { // the workers stay a queue server
			if w := slices.IndexFunc(g.Services, func(n fleet.Node) bool { return n.Name == g.Entries[0].To }); g.Services[w].Server.Kind != fleet.Queue {
				return fmt.Errorf("the workers (%s) are %s server at a point; a worker fleet's take the jobs from a queue", g.Services[w].Name, human.Article(g.Services[w].Server.Kind.String()))
			}
			return nil
		}
		return sweepGraphs(r, stdout, echo, graphs, r.options(stderr), refused, queue, func(h render.SweepHead, points [][]string, res []fleet.GraphResult) render.Runs {
			return render.WorkersSweep(h, points, byPoint(res, len(graphs), fleet.GraphResult.WorkersRows))
		}, name)
	}
	return graphItems(r.work("replicates", r.replicates.V, echo), graphs, r.options(stderr), refused, func(ctx context.Context, res []fleet.GraphResult) error {
		rep := render.WorkersReport{Replicates: r.replicates.V, Seed: uint64(r.seed), Scenario: r.scenario, Preset: chosen,
			Title: fmt.Sprintf("retrysim workers: %s, %s, %s, seed %d", name, human.Duration(d), human.Count(int64(r.replicates.V), "replicate"), uint64(r.seed))}
		for _, res := range res {
			rep.Add(res)
		}
		var out, pic bytes.Buffer
		if err := r.o.Renderer(stdout).Runs(&out, rep); err != nil {
			return err
		}
		if r.plot != "" {
			if err := render.PlotWorkers(&pic, rep, filepath.Ext(r.plot)); err != nil {
				return err
			}
		}
		return r.write(ctx, stdout, out.Bytes(), nil, pic.Bytes(), render.WorkersFigures(rep.Rows))
	}), nil
}

// workersError is a refusal in the command's words, a usage error (exit
// 2): of the options as their flags, of a preset's fleet as its setting.
// Any other error (an interrupt) is returned as it is.
func workersError(err error) error {
	var fe *fleet.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	switch fe.Field {
	case "replicates", "workers", "duration":
		return flagval.Usage(fmt.Errorf("-%s: %s", fe.Field, fe.Msg))
	case "worker_count":
		return flagval.Usage(fmt.Errorf("-worker-count: %s", fe.Msg))
	}
	return flagval.Usage(fmt.Errorf("-preset: %s", strings.TrimSpace(err.Error())))
}
