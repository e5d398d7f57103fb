package main

import (
	"context"
	"fmt"
	"io"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/jobcmd"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/internal/tune"
)

// tuneCommand searches a kind's settings (tune.Race over the kind) and
// writes the answer, or with -shard writes its shard.
func tuneCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	w, err := parseTune(args, stdout, stderr, false)
	if err != nil {
		return err
	}
	return w.Do(ctx, stdout)
}

// addTuneKinds adds the searches of cli.TuneFamily to shardKinds.
func addTuneKinds() {
	for _, kind := range cli.TuneFamily() {
		shardKinds["tune "+kind] = shardrun.Kind{MergeFlags: []string{"o", "format", "width"},
			Parse: func(_ string, args []string, stdout, stderr io.Writer) (*shardrun.Work, error) {
				return parseTune(append([]string{kind}, args...), stdout, stderr, true)
			}}
	}
}

// parseTune parses a search's flags into its work: the race, or with
// -shard (or sharded, for merge) its candidates' replicates cut into
// shards, which merge replays the race over (tune.Sharded).
func parseTune(args []string, stdout, stderr io.Writer, sharded bool) (*shardrun.Work, error) {
	t, err := cli.ParseTune(args, helpText("tune"), stdout)
	if err != nil {
		return nil, err
	}
	var (
		k    tune.Kind
		axes []tune.Axis
		rf   *cli.Run // the flags every kind shares
		kerr error    // the kind's refusal of a search
	)
	switch t.Kind {
	case "table":
		var sw api.Sweep
		if sw, rf, err = jobcmd.ParseSweep(t.Rest, fmt.Sprintf(helpText("sweep"), sweep.Forms), stdout, stderr); err == nil {
			k, axes, kerr = tune.NewTableKind(sw, t.Searches)
		}
	case "fleet":
		var cfgs []fleet.Config
		if rf, _, cfgs, err = cli.FleetRuns("fleet", t.Rest, helpText("fleet"), stdout, stderr); err == nil {
			k, axes, kerr = tune.NewFleetKind(cfgs, rf.Options(stderr), t.Searches)
		}
	default:
		var f cli.GraphFamily
		if rf, f, err = cli.Graphs(t.Kind, t.Rest, helpText(t.Kind), stdout, stderr); err == nil {
			k, axes, kerr = tune.NewGraphKind(f.Runs, t.Kind == "workers", rf.Options(stderr), t.Searches)
		}
	}
	if err != nil {
		return nil, err
	}
	if kerr != nil {
		return nil, cli.TuneError(kerr)
	}
	s, err := t.Search(k, axes, rf.Reqs)
	if err != nil {
		return nil, err
	}
	write := t.Write(rf.O, stdout)
	w := &shardrun.Work{Kind: "tune " + t.Kind, Noun: "replicates", Out: rf.O.Out, Whole: func(ctx context.Context) error {
		res, err := tune.Race(ctx, k, s)
		if err != nil {
			return err
		}
		return write(ctx, res)
	}}
	if !sharded && rf.Shard.Count == 0 { // as the table's always: its search does not shard
		return w, nil
	}
	if w.Echo, err = shardrun.ScenarioDigest(rf.Scenario); err != nil {
		return nil, err
	}
	w.Shard, w.Settings = rf.Shard, append(shardrun.Settings(t.FS, t.Own), shardrun.Settings(rf.FS, rf.Args)...)
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
func shardTune[P any](w *shardrun.Work, shard func(tune.Search) (tune.Sharded[P], error), s tune.Search, write func(context.Context, tune.Result) error) error {
	sh, err := shard(s)
	if err != nil {
		return cli.TuneError(err)
	}
	whole := w.Whole
	shardrun.Cut(w, shardrun.Items[[]P]{N: sh.Items, Run: sh.Run, Check: sh.Check, Finish: func(ctx context.Context, all [][]P) error {
		res, err := sh.Replay(ctx, all)
		if err != nil {
			return err
		}
		return write(ctx, res)
	}})
	w.Whole = whole
	return nil
}
