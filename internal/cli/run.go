// Package cli is retrysim's driver of a kind of run: the flags every kind
// shares (-preset, -scenario, -duration, -replicates, -seed, -workers,
// -format, -o, -series, -plot, -shard, -require, -set), parsed and checked,
// and the run's outputs written and judged. It is not a command: each kind
// declares its own flags, and its work is sharded elsewhere.
package cli

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/internal/tune"
)

// Run is the shared flags of a kind's command, as parsed, and what the
// command does with them: check its outputs, make its run's options, and write.
type Run struct {
	Kind         string // the command's name, its shards' kind
	FS           *flag.FlagSet
	Args         []string
	Given        map[string]bool
	Preset       flagval.Choice
	Scenario     string
	Duration     time.Duration
	Replicates   flagval.Bounded
	Seed         flagval.Seed
	Workers      flagval.Bounded
	O            flagval.Output
	Series, Plot outfile.File
	Shard        flagval.Shard
	Reqs         []tune.Requirement // judged over the rows once they are written
	Sets         []sweep.Set        // -set's, in a sweep of the kind's runs
}

// Usages are what a command says of each shared flag in its -help; a flag
// with no usage is not the command's. Workers' usage holds %d twice, for
// its bounds; an empty shard's or workers' is the usual one.
type Usages struct {
	Preset, Scenario, Duration, Replicates, Workers, Series, Plot, Shard, Seed string
	// Plain is a command that prints its own output: -o alone, no -format,
	// -width or -require.
	Plain bool
	// Doc and Formats say what -format prints; ReplicatesDefault is
	// -replicates's default as -help shows it, "" for its value; RequireRow
	// is whose a -require's ROW is, "" for a run's.
	Doc                           render.Doc
	Formats                       string
	ReplicatesDefault, RequireRow string
}

// setUsage is -set's usage in retrysim sweep KIND.
const setUsage = "vary the setting at `path=values` (graph.services[NAME].server.capacity=5,10,20 for a graph or workers, client.timeout=1s:3s:3 for a fleet run): values " + sweep.TextForms + "; repeat for a grid, at most 8"

// sweepIntro is the -help text of retrysim sweep KIND above the kind's own.
//
//go:embed sweepkind.txt
var sweepIntro string

// New registers the shared flags kind has a usage of on a new flag set,
// with -replicates replicates by default.
func New(kind string, u Usages, replicates int) *Run {
	if strings.HasPrefix(kind, "sweep ") { // a row a point: no series, no picture
		u.Doc, u.Formats, u.Series, u.Plot = render.KindSweepDoc, "", "", ""
	}
	r := &Run{Kind: kind, FS: flagval.NewFlagSet("retrysim " + kind), Seed: 1, Series: outfile.File{Flag: "series"}, Plot: outfile.File{Flag: "plot"},
		Workers:    flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096},
		Replicates: flagval.Bounded{V: replicates, Lo: 1, Hi: limits.FleetReplicates}}
	fs := r.FS
	for _, f := range []struct {
		name, usage string
		v           any
	}{{"preset", u.Preset, &r.Preset}, {"duration", u.Duration, flagval.DurationVar(&r.Duration)}, {"replicates", u.Replicates, &r.Replicates},
		{"scenario", u.Scenario, &r.Scenario}, {"series", u.Series, &r.Series.Path}, {"plot", u.Plot, &r.Plot.Path}} {
		if v, ok := f.v.(*string); ok && f.usage != "" {
			fs.StringVar(v, f.name, "", f.usage)
		} else if f.usage != "" {
			fs.Var(f.v.(flag.Value), f.name, f.usage)
		}
	}
	if u.ReplicatesDefault != "" {
		fs.Lookup("replicates").DefValue = u.ReplicatesDefault
	}
	fs.Var(&r.Seed, "seed", cmp.Or(u.Seed, "random `seed`; the same flags and seed print the same bytes"))
	if u.Plain {
		r.O.Out = outfile.File{Flag: "o"}
		fs.StringVar(&r.O.Out.Path, "o", "", "write the output to `file` (atomically) instead of stdout")
	} else {
		r.O.Register(fs, u.Doc, u.Formats, "")
	}
	fs.Var(&r.Workers, "workers", fmt.Sprintf(cmp.Or(u.Workers, "parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it"), r.Workers.Lo, r.Workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS" // not this machine's count
	fs.Var(&r.Shard, "shard", cmp.Or(u.Shard, shardrun.Usage))
	if !r.sweeping() {
		if !u.Plain {
			shardrun.RegisterRequire(fs, &r.Reqs, cmp.Or(u.RequireRow, "run's"))
		}
		return r
	}
	fs.Var(flagval.NotHere("a sweep judges no requirement; give -require to one run, or search with retrysim tune "+strings.TrimPrefix(kind, "sweep ")), "require", "")
	fs.Var(flagval.Repeated(func(s string) error { // the settings the sweep varies
		set, err := sweep.ParseSet(s)
		r.Sets = append(r.Sets, set)
		return err
	}), "set", setUsage)
	return r
}

// choosePresets makes -preset a name of ps, found by lookup.
func choosePresets[R any](r *Run, ps []fleetpreset.Preset[R], lookup func(string) (fleetpreset.Preset[R], error)) {
	for _, p := range ps {
		r.Preset.Names = append(r.Preset.Names, p.Name)
	}
	r.Preset.Valid = func(s string) error { _, err := lookup(s); return err }
}

// Parse parses args, -help printing intro and the flags under groups.
func (r *Run) Parse(args []string, intro string, groups []flagval.Group, stdout io.Writer) error {
	if r.sweeping() {
		intro = fmt.Sprintf(sweepIntro, strings.TrimPrefix(r.Kind, "sweep "), sweep.TextForms) + intro
	}
	if err := flagval.Parse(r.FS, args, intro, stdout, groups...); err != nil {
		return err
	}
	r.Args, r.Given = args, flagval.Given(r.FS)
	return nil
}

// fromPreset is the duration of a preset's runs, d unless -duration says
// otherwise, and takes the preset's replicates unless -replicates does.
func (r *Run) fromPreset(d time.Duration, replicates int) time.Duration {
	if r.Given["duration"] {
		d = r.Duration
	}
	if !r.Given["replicates"] {
		r.Replicates.V = replicates
	}
	return d
}

// loadGraph parses args (-help printing intro) and reads the graph section
// of -scenario, nil without one, its duration from -duration where the file
// sets none; a preset, its own runs (what), goes with no file, and with
// neither the error is want.
func (r *Run) loadGraph(args []string, intro, what, want string, stdout io.Writer) (*scenario.Graph, error) {
	if err := r.Parse(args, intro, nil, stdout); err != nil {
		return nil, err
	}
	switch {
	case r.Preset.V != "" && r.Scenario != "":
		return nil, flagval.Usage(fmt.Errorf("-preset: a preset is its own %s; drop -preset or -scenario", what))
	case r.Scenario == "" && r.Preset.V == "":
		return nil, flagval.Usage(errors.New(want))
	case r.Scenario == "":
		return nil, nil
	}
	l, err := scenario.LoadGraph(r.Scenario)
	if err != nil {
		return nil, flagval.Usage(fmt.Errorf("-scenario %w", err))
	}
	g := l.Graph
	if !r.Given["duration"] {
		return g, nil
	}
	if line := g.Line("graph.duration"); line > 0 { // as retrysim fleet's flags may not go with their keys
		return nil, flagval.Usage(fmt.Errorf("-duration: %s:%d: graph.duration sets it; give one or the other", r.Scenario, line))
	}
	g.Graph.Duration = r.Duration
	if err := g.Graph.Check(); err != nil {
		return nil, flagval.Usage(fmt.Errorf("-duration %s: %w", human.Duration(r.Duration), g.Located(err)))
	}
	return g, nil
}

// checkOutputs checks the output files, none the scenario file, and with
// -shard refuses every output but -o: merge writes them.
func (r *Run) checkOutputs() error {
	if err := render.CheckFleetFiles(r.Series.Path, r.Plot.Path); err != nil {
		return flagval.Usage(err)
	}
	if err := outfile.CheckReading("scenario file", []string{r.Scenario}, r.O.Out, r.Series, r.Plot); err != nil {
		return flagval.Usage(err)
	}
	if r.Shard.Count > 0 {
		return shardrun.RefuseOutputs(r.FS, r.Series.Path, r.Plot.Path)
	}
	return nil
}

// require refuses, before any work, a -require on a figure not among keys
// (the kind's columns' csv and json keys) or a row not among rows, and any
// with -shard, which judges nothing.
func (r *Run) require(keys, rows []string) error {
	if r.Shard.Count > 0 && len(r.Reqs) > 0 {
		return flagval.Usage(fmt.Errorf("-require: %s", shardrun.NoRequire))
	}
	return shardrun.CheckRequire(r.Reqs, keys, rows)
}

// Options are the run's options, its progress told on stderr.
func (r *Run) Options(stderr io.Writer) fleet.Options {
	return fleet.Options{Replicates: r.Replicates.V, Seed: uint64(r.Seed), Workers: r.Workers.V, Progress: outfile.Progress(stderr, r.Kind)}
}

// Write writes main to -o or stdout, and ser and pic to -series and -plot
// when they are given, then judges -require's over the rows written (nil
// for a run that judges none).
func (r *Run) Write(ctx context.Context, stdout io.Writer, rows func() []tune.Row, main, ser, pic []byte) error {
	outs := slices.DeleteFunc([]outfile.Output{{File: r.Series, Data: ser}, {File: r.Plot, Data: pic}}, func(o outfile.Output) bool { return o.File.Path == "" })
	if err := outfile.WriteAll(ctx, stdout, append([]outfile.Output{{File: r.O.Out, Data: main}}, outs...)...); err != nil || len(r.Reqs) == 0 {
		return err
	}
	return tune.Enforce(r.Reqs, rows())
}

// sweeping reports whether r's command is a sweep of its kind's runs.
func (r *Run) sweeping() bool { return strings.HasPrefix(r.Kind, "sweep ") }

// grid is the paths -set varies and the grid's points, a value each.
func (r *Run) grid() ([]string, [][]string, error) {
	if len(r.Sets) == 0 {
		return nil, nil, flagval.Usage(fmt.Errorf("-set: want PATH=VALUES, the setting a sweep of %s varies", strings.TrimPrefix(r.Kind, "sweep ")))
	}
	points, err := sweep.SetGrid(r.Sets)
	if err != nil {
		return nil, nil, flagval.Usage(fmt.Errorf("-set: %w", err))
	}
	paths := make([]string, len(r.Sets))
	for i, s := range r.Sets {
		paths[i] = s.Path
	}
	return paths, points, nil
}

// head is what ran r's sweep of name's runs over paths, for its output.
func (r *Run) head(name string, paths []string) render.SweepHead {
	return render.SweepHead{Title: fmt.Sprintf("retrysim %s: %s, %s, seed %d, by %s", r.Kind, name, human.Count(int64(r.Replicates.V), "replicate"), uint64(r.Seed), strings.Join(paths, ", ")),
		Paths: paths, Replicates: r.Replicates.V, Seed: uint64(r.Seed), Scenario: r.Scenario}
}
