package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/internal/tune"
	"github.com/retrysim/retrysim/scenario"
)

// runFlags are the flags the fleet family's commands share (-preset,
// -scenario, -duration, -replicates, -seed, -workers, -format, -o, -width,
// -series, -plot, -shard), as parsed, and what a command does with them:
// check its outputs, make its run's options and work, and write.
type runFlags struct {
	kind         string // the command's name, its shards' kind
	fs           *flag.FlagSet
	args         []string
	given        map[string]bool
	preset       flagval.Choice
	scenario     string
	duration     flagval.Duration
	replicates   flagval.Bounded
	seed         flagval.Seed
	workers      flagval.Bounded
	o            flagval.Output
	series, plot string
	shard        flagval.Shard
	// reqs are -require's, judged over the rows once they are written.
	reqs []tune.Requirement
	sets []sweep.Set // -set's, in a sweep of the kind's runs
}

// usages are what a command says of each shared flag in its -help; a flag
// with no usage is not the command's. Workers' usage holds %d twice, for
// its bounds; an empty seed's, shard's or workers' is the usual one.
type usages struct {
	preset, scenario, duration, replicates, seed, workers, series, plot, shard string
	// row names a row of -require's ROW:METRIC ("run's" when "").
	row string
	// doc and formats say what -format prints; replicatesDefault is
	// -replicates's default as -help shows it, "" for its value.
	doc               render.Doc
	formats           string
	replicatesDefault string
}

// newRunFlags registers the shared flags kind has a usage of on a new flag
// set, with -replicates r by default and presets (checked by lookup).
func newRunFlags(kind string, u usages, replicates int, presets []string, lookup func(string) error) *runFlags {
	if strings.HasPrefix(kind, "sweep ") { // a row a point: no series, no picture
		u.doc, u.formats, u.series, u.plot = render.KindSweepDoc, "", "", ""
	}
	r := &runFlags{kind: kind, fs: flagval.NewFlagSet("retrysim " + kind), seed: 1,
		workers:    flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096},
		replicates: flagval.Bounded{V: replicates, Lo: 1, Hi: fleet.MaxReplicates}}
	r.preset.Valid, r.preset.Names = lookup, presets
	fs := r.fs
	for _, f := range []struct {
		name, usage string
		v           flag.Value
	}{{"preset", u.preset, &r.preset}, {"duration", u.duration, &r.duration}, {"replicates", u.replicates, &r.replicates}} {
		if f.usage != "" {
			fs.Var(f.v, f.name, f.usage)
		}
	}
	if u.replicatesDefault != "" {
		fs.Lookup("replicates").DefValue = u.replicatesDefault
	}
	for _, f := range []struct {
		name, usage string
		v           *string
	}{{"scenario", u.scenario, &r.scenario}, {"series", u.series, &r.series}, {"plot", u.plot, &r.plot}} {
		if f.usage != "" {
			fs.StringVar(f.v, f.name, "", f.usage)
		}
	}
	fs.Var(&r.seed, "seed", or(u.seed, "random `seed`; the same flags and seed print the same bytes"))
	r.o.Register(fs, u.doc, u.formats, "")
	fs.Var(&r.workers, "workers", fmt.Sprintf(or(u.workers, "parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it"), r.workers.Lo, r.workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS" // not this machine's count
	fs.Var(&r.shard, "shard", or(u.shard, shardUsage))
	if r.sweeping() {
		fs.Var(flagval.NotHere("a sweep judges no requirement; give -require to one run, or search with retrysim tune "+strings.TrimPrefix(kind, "sweep ")), "require", "")
	} else {
		registerRequireOf(fs, &r.reqs, or(u.row, "run's"))
	}
	if r.sweeping() {
		r.registerSet()
	}
	return r
}

// or is s, or else when s is "".
func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// parse parses args, -help printing intro and the flags under groups.
func (r *runFlags) parse(args []string, intro string, groups []flagval.Group, stdout io.Writer) error {
	if r.sweeping() {
		intro = fmt.Sprintf(sweepKindIntro, strings.TrimPrefix(r.kind, "sweep ")) + intro
	}
	if err := flagval.ParseGrouped(r.fs, args, intro, groups, stdout); err != nil {
		return err
	}
	r.args, r.given = args, flagval.Given(r.fs)
	return nil
}

// fromPreset is the duration of a preset's runs, d unless -duration says
// otherwise, and takes the preset's replicates unless -replicates does.
func (r *runFlags) fromPreset(d time.Duration, replicates int) time.Duration {
	if r.given["duration"] {
		d = r.duration.V
	}
	if !r.given["replicates"] {
		r.replicates.V = replicates
	}
	return d
}

// loadGraph reads the graph section of -scenario, nil without one, its
// duration from -duration where the file sets none; a preset, its own
// runs (what), goes with no file.
func (r *runFlags) loadGraph(what string) (*scenario.Graph, error) {
	switch {
	case r.preset.V != "" && r.scenario != "":
		return nil, flagval.Usage(fmt.Errorf("-preset: a preset is its own %s; drop -preset or -scenario", what))
	case r.scenario == "":
		return nil, nil
	}
	l, err := scenario.LoadGraph(r.scenario)
	if err != nil {
		return nil, flagval.Usage(fmt.Errorf("-scenario %w", err))
	}
	g := l.Graph
	if !r.given["duration"] {
		return g, nil
	}
	if line := g.Line("graph.duration"); line > 0 { // as retrysim fleet's flags may not go with their keys
		return nil, flagval.Usage(fmt.Errorf("-duration: %s:%d: graph.duration sets it; give one or the other", r.scenario, line))
	}
	g.Graph.Duration = r.duration.V
	if err := g.Graph.Check(); err != nil {
		return nil, flagval.Usage(fmt.Errorf("-duration %s: %w", r.duration.String(), g.Located(err)))
	}
	return g, nil
}

// checkOutputs checks the output files, none the scenario file, and with
// -shard refuses every output but -o: merge writes them.
func (r *runFlags) checkOutputs() error {
	if err := render.CheckFleetFiles(r.series, r.plot); err != nil {
		return flagval.Usage(err)
	}
	if err := outfile.CheckReading("scenario file", r.scenario, r.o.Out, r.file("series"), r.file("plot")); err != nil {
		return flagval.Usage(err)
	}
	if r.shard.Count > 0 {
		return refuseShardOutputs(r.fs, r.series, r.plot)
	}
	return nil
}

// require refuses, before any work, a -require on a figure not among keys
// (the kind's columns' csv and json keys) or a row not among rows, and any
// with -shard, which judges nothing.
func (r *runFlags) require(keys, rows []string) error {
	if r.shard.Count > 0 && len(r.reqs) > 0 {
		return flagval.Usage(fmt.Errorf("-require: %s", shardRefuses("require")))
	}
	return checkRequire(r.reqs, keys, rows)
}

// judge judges -require's over the rows written: an *tune.UnmetError
// (exit 3, a line each) naming those that fail or are undecided.
func (r *runFlags) judge(rows []render.Figures) error {
	if len(r.reqs) == 0 {
		return nil
	}
	return tune.Enforce(r.reqs, tune.FigureRows(rows))
}

// runNames are the names of runs, name's of each: the rows -require's
// ROW:METRIC may name.
func runNames[T any](runs []T, name func(T) string) []string {
	out := make([]string, len(runs))
	for i, x := range runs {
		out[i] = name(x)
	}
	return out
}

// file is the output file of the flag called name (series or plot).
func (r *runFlags) file(name string) outfile.File {
	if name == "series" {
		return outfile.File{Flag: name, Path: r.series}
	}
	return outfile.File{Flag: name, Path: r.plot}
}

// options are the run's options, its progress told on stderr.
func (r *runFlags) options(stderr io.Writer) fleet.Options {
	return fleet.Options{Replicates: r.replicates.V, Seed: uint64(r.seed), Workers: r.workers.V, Progress: outfile.Progress(stderr, r.kind)}
}

// work is the command's run of n items, noun, with echo.
func (r *runFlags) work(noun string, n int, echo any) *work {
	return &work{kind: r.kind, noun: noun, n: n, echo: echo, shard: r.shard, settings: shardSettings(r.fs, r.args), out: r.o.Out}
}

// write writes main to -o or stdout, and ser and pic to -series and -plot
// when they are given, then judges -require's over rows.
func (r *runFlags) write(ctx context.Context, stdout io.Writer, main, ser, pic []byte, rows []render.Figures) error {
	outs := []outfile.Output{{File: r.o.Out, Data: main}}
	if r.series != "" {
		outs = append(outs, outfile.Output{File: r.file("series"), Data: ser})
	}
	if r.plot != "" {
		outs = append(outs, outfile.Output{File: r.file("plot"), Data: pic})
	}
	if err := outfile.WriteAll(ctx, stdout, outs...); err != nil {
		return err
	}
	return r.judge(rows)
}

// replicateItems makes w a run of runs runs whose items are its
// replicates, replicate k of every run an item: run runs n replicates
// from first, by run; check refuses a replicate of run i no run makes;
// finish writes the outputs of every run's replicates.
func replicateItems[R any](w *work, runs int, run func(ctx context.Context, first, n int) ([][]R, error), check func(i int, r *R) error, finish func(ctx context.Context, byRun [][]R) error) *work {
	items(w, func(ctx context.Context, lo, hi int) ([][]R, error) {
		byRun, err := run(ctx, lo, hi-lo)
		if err != nil {
			return nil, err
		}
		out := make([][]R, hi-lo)
		for k := range out {
			for i := range byRun {
				out[k] = append(out[k], byRun[i][k])
			}
		}
		return out, nil
	}, func(_ int, item *[]R) error {
		if len(*item) != runs {
			return fmt.Errorf("%d runs; the settings make %d", len(*item), runs)
		}
		for i := range *item {
			if err := check(i, &(*item)[i]); err != nil {
				return fmt.Errorf("run %d: %w", i, err)
			}
		}
		return nil
	}, func(ctx context.Context, all [][]R) error {
		byRun := make([][]R, runs)
		for _, item := range all {
			for i := range byRun {
				byRun[i] = append(byRun[i], item[i])
			}
		}
		return finish(ctx, byRun)
	})
	return w
}

// fleetItems makes w the run of cfgs' replicates with opts; finish writes
// the outputs of the results.
func fleetItems(w *work, cfgs []fleet.Config, opts fleet.Options, finish func(context.Context, []fleet.Result) error) *work {
	run := func(ctx context.Context, first, n int) ([][]fleet.Replicate, error) {
		opts := opts
		opts.First, opts.Replicates = first, n
		res, err := fleet.Run(ctx, cfgs, opts)
		if err != nil {
			return nil, err
		}
		byRun := make([][]fleet.Replicate, len(res))
		for i, r := range res {
			byRun[i] = r.Replicates
		}
		return byRun, nil
	}
	check := func(i int, rep *fleet.Replicate) error { return cfgs[i].CheckReplicate(rep) }
	return replicateItems(w, len(cfgs), run, check, func(ctx context.Context, byRun [][]fleet.Replicate) error {
		res := make([]fleet.Result, len(cfgs))
		for i, c := range cfgs {
			res[i] = fleet.Result{Config: c, Replicates: byRun[i]}
		}
		return finish(ctx, res)
	})
}

// graphItems makes w the run of graphs' replicates, RunGraph's refusal
// said by refused; finish writes the outputs of the results.
func graphItems(w *work, graphs []fleet.Graph, opts fleet.Options, refused func(error) error, finish func(context.Context, []fleet.GraphResult) error) *work {
	run := func(ctx context.Context, first, n int) ([][]fleet.GraphReplicate, error) {
		opts := opts
		opts.First, opts.Replicates = first, n
		res, err := fleet.RunGraph(ctx, graphs, opts)
		if err != nil {
			return nil, refused(err)
		}
		byRun := make([][]fleet.GraphReplicate, len(res))
		for i, r := range res {
			byRun[i] = r.Replicates
		}
		return byRun, nil
	}
	check := func(i int, r *fleet.GraphReplicate) error { return graphs[i].CheckReplicate(r) }
	return replicateItems(w, len(graphs), run, check, func(ctx context.Context, byRun [][]fleet.GraphReplicate) error {
		res := make([]fleet.GraphResult, len(graphs))
		for i, g := range graphs {
			res[i] = fleet.GraphResult{Graph: g, Replicates: byRun[i]}
		}
		return finish(ctx, res)
	})
}

// graphError is RunGraph's refusal in the command's words, a usage error:
// of the options as their flags; of a file's graph (loaded) at the file's
// line; else as preset says it. Any other error (an interrupt) is returned
// as it is.
func graphError(err error, loaded *scenario.Graph, preset func(error) error) error {
	var fe *fleet.FieldError
	switch {
	case !errors.As(err, &fe):
		return err
	case fe.Field == "replicates" || fe.Field == "workers" || fe.Field == "duration" && loaded == nil:
		return flagval.Usage(fmt.Errorf("-%s: %s", fe.Field, fe.Msg))
	case loaded != nil:
		return flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(err)))
	}
	return preset(err)
}
