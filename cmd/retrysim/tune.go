package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/tune"
	"github.com/retrysim/retrysim/schema"
)

// tuneNotHere are the sweep's flags a search decides or has no use for.
var tuneNotHere = []string{"jobs", "set", "metric", "plot", "series", "shard", "log-y", "linear-y", "own-scales", "ci", "replicates"}

// tuneCommand searches a kind's settings (tune.Race over the kind) and
// writes the answer, or with -shard writes its shard.
func tuneCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	w, err := parseTune(args, stdout, stderr, false)
	if err != nil {
		return err
	}
	return w.do(ctx, stdout)
}

// tuneFamily are the kinds whose searches run replicates and shard: a
// tune's shard kind is "tune KIND".
var tuneFamily = []string{"workers", "graph", "fleet"}

// addTuneKinds adds the searches of tuneFamily to shardKinds.
func addTuneKinds() {
	for _, kind := range tuneFamily {
		shardKinds["tune "+kind] = subcommand{name: "tune " + kind, mergeFlags: []string{"o", "format", "width"},
			parse: func(_ string, args []string, stdout, stderr io.Writer) (*work, error) {
				return parseTune(append([]string{kind}, args...), stdout, stderr, true)
			}}
	}
}

// parseTune parses a search's flags into its work: the race, or with
// -shard (or sharded, for merge) its candidates' replicates cut into
// shards, which merge replays the race over (tune.Sharded).
func parseTune(args []string, stdout, stderr io.Writer, sharded bool) (*work, error) {
	var searches []string
	var minimize, maximize string
	budget := flagval.Count(100_000_000)
	fs := flagval.NewFlagSet("retrysim tune")
	fs.Var(flagval.Repeated(func(s string) error { searches = append(searches, s); return nil }), "search",
		"search a setting, `PATH=VALUES`: its path as retrysim sweep -set names it (attempts, steps[STEP].FIELD, the queue's fields with -model delivery), over a list or a range start:stop:count, or an enum's names (the store's: none,claim); repeat for a grid")
	fs.StringVar(&minimize, "minimize", "", "the `objective` to minimize: a searched setting's path or a metric (ROW:METRIC with several strategies)")
	fs.StringVar(&maximize, "maximize", "", "the `objective` to maximize, as -minimize")
	fs.Var(&budget, "budget", "spend at most `n` jobs (the table) or replicates (workers, graph, fleet: up to 1000, as many as the runs' duration allows, unless given) in all, 1 to 10^12")
	own, rest := splitFlags(fs, args)
	if err := flagval.Parse(fs, own, helpText("tune"), stdout); err != nil {
		return nil, err
	}
	family := len(rest) > 0 && slices.Contains(tuneFamily, rest[0])
	for _, a := range rest {
		switch name := flagName(a); {
		case name == "shard" && !family:
			return nil, flagval.Usage(errors.New("-shard: a search of the table does not shard (each candidate's share would be the whole budget of jobs); shard a search of workers, graph or fleet, or run it whole"))
		case name != "shard" && slices.Contains(tuneNotHere, name):
			return nil, flagval.Usage(fmt.Errorf("-%s: retrysim tune decides the work and writes its own output; a search takes no -%s", name, name))
		}
	}
	s := tune.Search{Objective: minimize, Budget: int64(budget)}
	var (
		k    tune.Kind
		axes []tune.Axis
		out  flagval.Output
		rf   *cli.Run // the fleet family's flags
		kind = "table"
		err  error // the flags' refusal
		kerr error // the kind's refusal of a search
	)
	if family { // the fleet family: replicates
		kind = rest[0]
		if kind == "fleet" {
			var cfgs []fleet.Config
			if rf, _, cfgs, err = parseFleetRuns("fleet", rest[1:], stdout, stderr); err == nil {
				k, axes, kerr = tune.NewFleetKind(cfgs, rf.Options(stderr), searches)
			}
		} else {
			var f cli.GraphFamily
			if rf, f, err = parseGraphKind(kind, rest[1:], stdout, stderr); err == nil {
				k, axes, kerr = tune.NewGraphKind(f.Runs, kind == "workers", rf.Options(stderr), searches)
			}
		}
		if err == nil {
			out, s.Require = rf.O, rf.Reqs
			if !flagval.Given(fs)["budget"] { // the kind's most, unless -budget says
				s.Budget = k.(interface{ Budget() int64 }).Budget()
			}
		}
	} else {
		var r sweepRun
		if r, err = parseSweepRun(rest, stdout, stderr); err == nil {
			out, s.Require = r.c.Output, r.reqs
			k, axes, kerr = tune.NewTableKind(r.sw, searches)
		}
	}
	if err != nil {
		return nil, err
	}
	if kerr != nil {
		return nil, tuneError(kerr)
	}
	format := out.Format.R.Name()
	switch {
	case minimize != "" && maximize != "":
		return nil, flagval.Usage(fmt.Errorf("-minimize, -maximize: give one of the two"))
	case maximize != "":
		s.Objective, s.Maximize = maximize, true
	case minimize == "":
		return nil, flagval.Usage(fmt.Errorf("-minimize, -maximize: give one, a searched setting or a metric"))
	}
	s.Axes = axes
	if _, _, _, err := tune.Plan(k, s); err != nil {
		return nil, tuneError(err)
	}
	write := func(ctx context.Context, res tune.Result) error {
		if err := out.Out.Render(ctx, stdout, func(w io.Writer) error { return tune.Write(w, format, kind, res) }); err != nil {
			return err
		}
		if res.Best < 0 {
			return &tune.NoneError{Result: res}
		}
		return nil
	}
	w := &work{kind: "tune " + kind, noun: "replicates", out: out.Out, whole: func(ctx context.Context) error {
		res, err := tune.Race(ctx, k, s)
		if err != nil {
			return err
		}
		return write(ctx, res)
	}}
	if rf == nil || !sharded && rf.Shard.Count == 0 {
		return w, nil
	}
	if w.echo, err = scenarioDigest(rf.Scenario); err != nil {
		return nil, err
	}
	w.shard, w.settings = rf.Shard, append(shardSettings(fs, own), shardSettings(rf.FS, rf.Args)...)
	switch k := k.(type) {
	case tune.GraphKind:
		err = shardTune(w, k.Shard, s, write)
	case tune.FleetKind:
		err = shardTune(w, k.Shard, s, write)
	}
	return w, err
}

// shardTune makes w, a search, a run of items, its candidates' replicates
// (tune.Sharded), for -shard and merge; whole stays the race.
func shardTune[P any](w *work, shard func(tune.Search) (tune.Sharded[P], error), s tune.Search, write func(context.Context, tune.Result) error) error {
	sh, err := shard(s)
	if err != nil {
		return tuneError(err)
	}
	w.n = sh.Items
	whole := w.whole
	items(w, sh.Run, func(k int, item *[]P) error { return sh.Check(k, item) }, func(ctx context.Context, all [][]P) error {
		res, err := sh.Replay(ctx, all)
		if err != nil {
			return err
		}
		return write(ctx, res)
	})
	w.whole = whole
	return nil
}

// tuneError is a library error of a search's, refused as bad usage naming
// the flag of the part it names (a setting's own refusal by its path).
func tuneError(err error) error {
	return flagval.Usage(cli.FlagError(err, cli.Names{"search.*": "-search: %s", "search": "-search", "objective": "-minimize, -maximize", "require": "-require", "budget": "-budget"},
		func(fe *schema.FieldError) string { return flagval.ModelHint(fe.Msg) }))
}

// flagName is the name of the flag arg gives (-name, --name=value), "" for
// a value.
func flagName(arg string) string {
	if !strings.HasPrefix(arg, "-") {
		return ""
	}
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name
}

// splitFlags sorts args into those of fs's flags (each taking a value, as
// -name value or -name=value) and -help, and the rest.
func splitFlags(fs *flag.FlagSet, args []string) (own, rest []string) {
	for i := 0; i < len(args); i++ {
		name := flagName(args[i])
		switch {
		case name == "help" || name == "h":
			own = append(own, args[i])
		case name == "" || fs.Lookup(name) == nil:
			rest = append(rest, args[i])
		case strings.Contains(args[i], "=") || i+1 == len(args):
			own = append(own, args[i])
		default:
			own = append(own, args[i], args[i+1])
			i++
		}
	}
	return own, rest
}
