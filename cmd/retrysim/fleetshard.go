package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
)

// fleetShardKind marks a fleet shard file. Format 2 added each run's
// settings.
const fleetShardKind = "retrysim fleet shard 2"

// fleetShard is one slice of a fleet run's replicates, as -shard writes it:
// the flags that decide the run's output, which slice of how many, the
// run's runs and replicates, each run's settings as the json format's
// params object writes them (render.FleetParams: every setting of
// fleet.Params the run read, from a flag or a scenario file), and the
// slice's replicates of every run, gob encoded (gob keeps a NaN quantile
// and every float's bits).
type fleetShard struct {
	Kind       string            `json:"kind"`
	Args       []string          `json:"args"`
	Index      int               `json:"index"`
	Count      int               `json:"count"`
	Runs       int               `json:"runs"`
	Replicates int               `json:"replicates"`
	Settings   []json.RawMessage `json:"settings"`
	Data       []byte            `json:"data"`
}

// fleetSettings are the settings of each of cfgs, as a fleet shard
// carries them.
func fleetSettings(cfgs []fleet.Config) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(cfgs))
	for i, c := range cfgs {
		var err error
		if out[i], err = render.FleetParams(c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fleetArgs are the flags of fs that decide a fleet run's output: every
// one given but -shard, -o, -series, -plot and -workers.
func fleetArgs(fs *flag.FlagSet) []string {
	var args []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "shard", "o", "series", "plot", "workers":
			return
		}
		args = append(args, "-"+f.Name+"="+f.Value.String())
	})
	return args
}

// sameSettings reports whether a and b are the same settings object, as a
// shard file (indented) or render.FleetParams (compact) writes it.
func sameSettings(a, b json.RawMessage) bool { return bytes.Equal(compact(a), compact(b)) }

// compact is the json object o on one line; o itself if it is no json.
func compact(o json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, o) != nil {
		return o
	}
	return b.Bytes()
}

// mergedKey is the context key under which merge hands the fleet command
// the merged shards (a merged), instead of running them.
type mergedKey struct{}

// merged is what merge hands the fleet command: the replicates of every
// run, and the settings of every run the shards carry.
type merged struct {
	reps     [][]fleet.Replicate
	settings []json.RawMessage
}

// fleetResults runs cfgs, or takes their replicates from ctx when merge
// put them there, refusing shards whose settings are not those of cfgs
// (a scenario file changed since the shards ran).
func fleetResults(ctx context.Context, cfgs []fleet.Config, opts fleet.Options) ([]fleet.Result, error) {
	m, ok := ctx.Value(mergedKey{}).(merged)
	if !ok {
		return memoized(struct {
			Configs []fleet.Config
			Options fleet.Options
		}{cfgs, opts}, func() ([]fleet.Result, error) { return fleet.Run(ctx, cfgs, opts) })
	}
	reps := m.reps
	want, err := fleetSettings(cfgs)
	if err != nil {
		return nil, err
	}
	for i := range min(len(want), len(m.settings)) {
		if !sameSettings(want[i], m.settings[i]) {
			return nil, fmt.Errorf("merge: the shards ran run %s with the settings %s, but their flags now make %s", cfgs[i].Name, compact(m.settings[i]), compact(want[i]))
		}
	}
	if len(reps) != len(cfgs) {
		return nil, fmt.Errorf("merge: the shards hold %d runs; their flags make %d", len(reps), len(cfgs))
	}
	out := make([]fleet.Result, len(cfgs))
	for i, c := range cfgs {
		if len(reps[i]) != opts.Replicates {
			return nil, fmt.Errorf("merge: the shards hold %d replicates of run %s; want %d", len(reps[i]), c.Name, opts.Replicates)
		}
		out[i] = fleet.Result{Config: c, Replicates: reps[i]}
	}
	return out, nil
}

// writeFleetShard runs the replicates of cfgs that slice index of count
// holds and writes them as a shard file to out.
func writeFleetShard(ctx context.Context, stdout io.Writer, index, count int, args []string, cfgs []fleet.Config, opts fleet.Options, out outfile.File) error {
	total := opts.Replicates
	lo, hi := fleet.Slice(total, index, count)
	opts.First, opts.Replicates = lo, hi-lo
	reps := make([][]fleet.Replicate, len(cfgs))
	if hi > lo {
		res, err := fleet.Run(ctx, cfgs, opts)
		if err != nil {
			return err
		}
		for i, r := range res {
			reps[i] = r.Replicates
		}
	}
	var data bytes.Buffer
	if err := gob.NewEncoder(&data).Encode(reps); err != nil {
		return err
	}
	settings, err := fleetSettings(cfgs)
	if err != nil {
		return err
	}
	sh := fleetShard{Kind: fleetShardKind, Args: args, Index: index, Count: count, Runs: len(cfgs), Replicates: total, Settings: settings, Data: data.Bytes()}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sh); err != nil {
		return err
	}
	return outfile.WriteAll(ctx, stdout, outfile.Output{File: out, Data: b.Bytes()})
}

// mergeFleet merges fleet shard files and prints what the whole run
// prints, running the fleet command on the shards' flags with their
// replicates in place of a run.
func mergeFleet(ctx context.Context, files []string, out, series, plot string, stdout io.Writer) error {
	var first fleetShard
	var parts [][][]fleet.Replicate
	for _, path := range files {
		data, ok, err := readShardFile(path, fleetShardKind)
		switch {
		case err != nil:
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		case !ok:
			return flagval.Usage(fmt.Errorf("merge: %s is not a fleet shard, as %s is", path, files[0]))
		}
		var sh fleetShard
		if err := decodeShard(path, data, &sh); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		if parts == nil {
			first = sh
			if sh.Count < 1 || sh.Count > 10000 {
				return flagval.Usage(fmt.Errorf("merge: %s: %d shards", path, sh.Count))
			}
			parts = make([][][]fleet.Replicate, sh.Count)
		}
		switch {
		case !slices.Equal(sh.Args, first.Args) || sh.Count != first.Count || sh.Runs != first.Runs || sh.Replicates != first.Replicates:
			return flagval.Usage(fmt.Errorf("merge: %s is a shard of another run than %s (flags %s, %d shards; want %s, %d)",
				path, files[0], strings.Join(sh.Args, " "), sh.Count, strings.Join(first.Args, " "), first.Count))
		case len(sh.Settings) != sh.Runs:
			return flagval.Usage(fmt.Errorf("merge: %s holds the settings of %d runs; want %d", path, len(sh.Settings), sh.Runs))
		case !slices.EqualFunc(sh.Settings, first.Settings, sameSettings):
			return flagval.Usage(fmt.Errorf("merge: %s is a shard of another run than %s: its settings differ (a scenario file changed between them?)", path, files[0]))
		case sh.Index < 0 || sh.Index >= sh.Count:
			return flagval.Usage(fmt.Errorf("merge: %s: shard %d of %d", path, sh.Index, sh.Count))
		case parts[sh.Index] != nil:
			return flagval.Usage(fmt.Errorf("merge: %s repeats shard %d/%d", path, sh.Index, sh.Count))
		}
		var reps [][]fleet.Replicate
		if err := gob.NewDecoder(bytes.NewReader(sh.Data)).Decode(&reps); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %s: its replicates: %w", path, err))
		}
		lo, hi := fleet.Slice(sh.Replicates, sh.Index, sh.Count)
		if len(reps) != sh.Runs {
			return flagval.Usage(fmt.Errorf("merge: %s holds %d runs; want %d", path, len(reps), sh.Runs))
		}
		for i := range reps {
			if len(reps[i]) != hi-lo {
				return flagval.Usage(fmt.Errorf("merge: %s holds %d replicates of run %d; shard %d/%d has %d", path, len(reps[i]), i, sh.Index, sh.Count, hi-lo))
			}
		}
		parts[sh.Index] = reps
	}
	whole := make([][]fleet.Replicate, first.Runs)
	for i, p := range parts {
		if p == nil {
			return flagval.Usage(fmt.Errorf("merge: shard %d/%d is missing", i, first.Count))
		}
		for r := range whole {
			whole[r] = append(whole[r], p[r]...)
		}
	}
	args := slices.Clone(first.Args)
	for _, f := range []struct{ name, v string }{{"o", out}, {"series", series}, {"plot", plot}} {
		if f.v != "" {
			args = append(args, "-"+f.name+"="+f.v)
		}
	}
	return fleetCommand(context.WithValue(ctx, mergedKey{}, merged{whole, first.Settings}), args, stdout, io.Discard)
}
