package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/internal/tune"
	"github.com/retrysim/retrysim/schema"
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
	series, plot outfile.File
	shard        flagval.Shard
	// reqs are -require's, judged over the rows once they are written.
	reqs []tune.Requirement
	sets []sweep.Set // -set's, in a sweep of the kind's runs
}

// usages are what a command says of each shared flag in its -help; a flag
// with no usage is not the command's. Workers' usage holds %d twice, for
// its bounds; an empty shard's or workers' is the usual one.
type usages struct {
	preset, scenario, duration, replicates, workers, series, plot, shard, seed string
	// plain is a command that prints its own output: -o alone, no -format,
	// -width or -require.
	plain bool
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
	r := &runFlags{kind: kind, fs: flagval.NewFlagSet("retrysim " + kind), seed: 1, series: outfile.File{Flag: "series"}, plot: outfile.File{Flag: "plot"},
		workers:    flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096},
		replicates: flagval.Bounded{V: replicates, Lo: 1, Hi: limits.FleetReplicates}}
	r.preset.Valid, r.preset.Names = lookup, presets
	fs := r.fs
	for _, f := range []struct {
		name, usage string
		v           any
	}{{"preset", u.preset, &r.preset}, {"duration", u.duration, &r.duration}, {"replicates", u.replicates, &r.replicates},
		{"scenario", u.scenario, &r.scenario}, {"series", u.series, &r.series.Path}, {"plot", u.plot, &r.plot.Path}} {
		if v, ok := f.v.(*string); ok && f.usage != "" {
			fs.StringVar(v, f.name, "", f.usage)
		} else if f.usage != "" {
			fs.Var(f.v.(flag.Value), f.name, f.usage)
		}
	}
	if u.replicatesDefault != "" {
		fs.Lookup("replicates").DefValue = u.replicatesDefault
	}
	fs.Var(&r.seed, "seed", cmp.Or(u.seed, "random `seed`; the same flags and seed print the same bytes"))
	if u.plain {
		r.o.Out = outfile.File{Flag: "o"}
		fs.StringVar(&r.o.Out.Path, "o", "", "write the output to `file` (atomically) instead of stdout")
	} else {
		r.o.Register(fs, u.doc, u.formats, "")
	}
	fs.Var(&r.workers, "workers", fmt.Sprintf(cmp.Or(u.workers, "parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it"), r.workers.Lo, r.workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS" // not this machine's count
	fs.Var(&r.shard, "shard", cmp.Or(u.shard, shardrun.Usage))
	if !r.sweeping() {
		if !u.plain {
			shardrun.RegisterRequire(fs, &r.reqs, "run's")
		}
		return r
	}
	fs.Var(flagval.NotHere("a sweep judges no requirement; give -require to one run, or search with retrysim tune "+strings.TrimPrefix(kind, "sweep ")), "require", "")
	fs.Var(flagval.Repeated(func(s string) error { // the settings the sweep varies
		set, err := sweep.ParseSet(s)
		r.sets = append(r.sets, set)
		return err
	}), "set", sweepSetUsage)
	return r
}

// parse parses args, -help printing intro and the flags under groups.
func (r *runFlags) parse(args []string, intro string, groups []flagval.Group, stdout io.Writer) error {
	if r.sweeping() {
		intro = fmt.Sprintf(helpText("sweep-kind"), strings.TrimPrefix(r.kind, "sweep "), sweep.TextForms) + intro
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
	if err := render.CheckFleetFiles(r.series.Path, r.plot.Path); err != nil {
		return flagval.Usage(err)
	}
	if err := outfile.CheckReading("scenario file", r.scenario, r.o.Out, r.series, r.plot); err != nil {
		return flagval.Usage(err)
	}
	if r.shard.Count > 0 {
		return shardrun.RefuseOutputs(r.fs, r.series.Path, r.plot.Path)
	}
	return nil
}

// require refuses, before any work, a -require on a figure not among keys
// (the kind's columns' csv and json keys) or a row not among rows, and any
// with -shard, which judges nothing.
func (r *runFlags) require(keys, rows []string) error {
	if r.shard.Count > 0 && len(r.reqs) > 0 {
		return flagval.Usage(fmt.Errorf("-require: %s", shardrun.NoRequire))
	}
	return shardrun.CheckRequire(r.reqs, keys, rows)
}

// options are the run's options, its progress told on stderr.
func (r *runFlags) options(stderr io.Writer) fleet.Options {
	return fleet.Options{Replicates: r.replicates.V, Seed: uint64(r.seed), Workers: r.workers.V, Progress: outfile.Progress(stderr, r.kind)}
}

// work is the command's run of n items, noun, with echo.
func (r *runFlags) work(noun string, n int, echo any) *shardrun.Work {
	return &shardrun.Work{Kind: r.kind, Noun: noun, N: n, Echo: echo, Shard: r.shard, Settings: shardrun.Settings(r.fs, r.args), Out: r.o.Out}
}

// writeRuns writes doc in -format and, with -plot, its picture drawn by
// plot (nil: none), then judges -require's over rows.
func (r *runFlags) writeRuns(ctx context.Context, stdout io.Writer, doc render.Runs, plot func(io.Writer, string) error, rows []render.Figures) error {
	main, _, pic, err := r.o.Renderer(stdout).Outputs(doc, "", nil, filepath.Ext(r.plot.Path), plot)
	if err != nil {
		return err
	}
	return r.write(ctx, stdout, main, nil, pic, rows)
}

// write writes main to -o or stdout, and ser and pic to -series and -plot
// when they are given, then judges -require's over rows.
func (r *runFlags) write(ctx context.Context, stdout io.Writer, main, ser, pic []byte, rows []render.Figures) error {
	return shardrun.WriteJudged(ctx, stdout, r.reqs, func() []tune.Row { return tune.FigureRows(rows) },
		outfile.Output{File: r.o.Out, Data: main}, outfile.Output{File: r.series, Data: ser}, outfile.Output{File: r.plot, Data: pic})
}

// kindItems makes w the run of runs' replicates of kind k with opts,
// perPoint runs a point, an item a replicate of every run of a point:
// refused, when not nil, says the engine's refusal, and finish writes the
// outputs of the results.
func kindItems[C, P, R any](k replicates.Kind[C, P, R], w *shardrun.Work, runs []C, perPoint int, opts fleet.Options, refused func(error) error, finish func(context.Context, []R) error) *shardrun.Work {
	want := "the settings make %d"
	if strings.HasPrefix(w.Kind, "sweep ") {
		want += " a point"
	}
	return shardrun.Items(w, func(ctx context.Context, lo, hi int) ([][]P, error) {
		out, err := k.Run(ctx, runs, perPoint, opts, lo, hi)
		if err != nil && refused != nil {
			err = refused(err)
		}
		return out, err
	}, func(i int, item *[]P) error {
		return k.Check(runs, perPoint, opts.Replicates, i, *item, want)
	}, func(ctx context.Context, all [][]P) error {
		return finish(ctx, k.Fold(runs, perPoint, all))
	})
}

// flagNames name the flag of each setting, by the path a library's
// *schema.FieldError names it by: a key a path, or PREFIX* every other path
// PREFIX starts, the flag's %s the rest of the path ("*": any other path);
// a table holds at most one PREFIX*.
type flagNames map[string]string

// flagError is err in the command's words when it is a library's
// *schema.FieldError whose path names has a flag of: "FLAG: why", why its
// message in words (nil: as it is); any other error as it is.
func flagError(err error, names flagNames, words func(*schema.FieldError) string) error {
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	name, ok := names[fe.Field]
	for pattern, flag := range names {
		if rest, found := strings.CutPrefix(fe.Field, strings.TrimSuffix(pattern, "*")); !ok && found && strings.HasSuffix(pattern, "*") {
			name = fmt.Sprintf(flag, rest)
		}
	}
	if name == "" {
		return err
	}
	if words == nil {
		return fmt.Errorf("%s: %s", name, fe.Msg)
	}
	return fmt.Errorf("%s: %s", name, words(fe))
}

// graphError is a graph's refusal in the command's words, a usage error:
// of the options as their flags (-worker-count the model's workers); of a
// file's graph (loaded) at the file's line; else of the preset. Any other
// error (an interrupt) is returned as it is.
func graphError(err error, loaded *scenario.Graph) error {
	names := flagNames{"replicates": "-replicates", "workers": "-workers", "worker_count": "-worker-count"}
	if loaded == nil { // a file's duration is its own
		names["duration"] = "-duration"
	}
	switch named := flagError(err, names, nil); {
	case !errors.As(err, new(*schema.FieldError)):
		return err
	case named != err:
		return flagval.Usage(named)
	case loaded != nil:
		return flagval.Usage(fmt.Errorf("-scenario %w", loaded.Located(err)))
	}
	return flagval.Usage(fmt.Errorf("-preset: %s", strings.TrimSpace(err.Error())))
}
