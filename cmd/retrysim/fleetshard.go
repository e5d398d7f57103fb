package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardfile"
)

// fleetShardKind marks a fleet shard file. Format 3 carries settings, not
// flags, and binds its data to its header.
const fleetShardKind = "retrysim fleet shard 3"

// fleetShard is one slice of a fleet run's replicates, as -shard writes it:
// the envelope (the run's settings, which slice of how many), the run's
// runs and replicates, each run's settings as the json format's params
// object writes them (render.FleetParams: every setting of fleet.Params the
// run read, from a flag or a scenario file), and the slice's replicates of
// every run, gob encoded (gob keeps a NaN quantile and every float's bits)
// with the digest of the rest of the file (fleetData).
type fleetShard struct {
	shardfile.Header
	Runs       int               `json:"runs"`
	Replicates int               `json:"replicates"`
	Params     []json.RawMessage `json:"params"`
	Data       []byte            `json:"data"`
}

// fleetData is what a fleet shard's data holds: the digest of its header
// (fleetDigest), so that data spliced from another shard, of another seed
// or duration, is refused, and the slice's replicates of every run.
type fleetData struct {
	Header [sha256.Size]byte
	Runs   [][]fleet.Replicate
}

// fleetDigest is the sha256 of sh without its data, as json.
func fleetDigest(sh fleetShard) ([sha256.Size]byte, error) {
	sh.Data = nil
	b, err := json.Marshal(sh)
	return sha256.Sum256(b), err
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
// run, the settings of every run the shards carry, and the file of each
// replicate.
type merged struct {
	reps     [][]fleet.Replicate
	settings []json.RawMessage
	files    []string
}

// fleetResults runs cfgs, or takes their replicates from ctx when merge
// put them there, refusing shards whose settings are not those of cfgs
// (a scenario file changed since the shards ran) and replicates no run of
// cfgs can produce.
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
			return nil, flagval.Usage(fmt.Errorf("merge: the shards ran run %s with the settings %s, but their settings now make %s", cfgs[i].Name, compact(m.settings[i]), compact(want[i])))
		}
	}
	if len(reps) != len(cfgs) {
		return nil, flagval.Usage(fmt.Errorf("merge: the shards hold %d runs; their settings make %d", len(reps), len(cfgs)))
	}
	out := make([]fleet.Result, len(cfgs))
	for i, c := range cfgs {
		if len(reps[i]) != opts.Replicates {
			return nil, flagval.Usage(fmt.Errorf("merge: the shards hold %d replicates of run %s; want %d", len(reps[i]), c.Name, opts.Replicates))
		}
		for k := range reps[i] {
			if err := c.CheckReplicate(&reps[i][k]); err != nil {
				return nil, flagval.Usage(fmt.Errorf("merge: %s: run %d, replicate %d: %v", m.files[k], i, k, err))
			}
		}
		out[i] = fleet.Result{Config: c, Replicates: reps[i]}
	}
	return out, nil
}

// writeFleetShard runs the replicates of cfgs that slice index of count
// holds and writes them as a shard file to out.
func writeFleetShard(ctx context.Context, stdout io.Writer, index, count int, settings []shardfile.Setting, cfgs []fleet.Config, opts fleet.Options, out outfile.File) error {
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
	params, err := fleetSettings(cfgs)
	if err != nil {
		return err
	}
	sh := fleetShard{Header: shardfile.Header{Kind: fleetShardKind, Settings: settings, Index: index, Count: count},
		Runs: len(cfgs), Replicates: total, Params: params}
	d := fleetData{Runs: reps}
	if d.Header, err = fleetDigest(sh); err != nil {
		return err
	}
	var data bytes.Buffer
	if err := gob.NewEncoder(&data).Encode(d); err != nil {
		return err
	}
	sh.Data = data.Bytes()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sh); err != nil {
		return err
	}
	return outfile.WriteAll(ctx, stdout, outfile.Output{File: out, Data: b.Bytes()})
}

// mergeFleet merges fleet shard files and prints what the whole run
// prints, running the fleet command on the shards' settings and merge's
// own flags with their replicates in place of a run.
func mergeFleet(ctx context.Context, files, own []string, stdout io.Writer) error {
	var first fleetShard
	var env shardfile.Slices
	var parts [][][]fleet.Replicate
	var byReplicate []string // the file of each replicate
	var args []string
	for _, path := range files {
		var sh fleetShard
		if err := shardfile.Read(path, fleetShardKind, &sh); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		if err := env.Add(path, sh.Header); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		if parts == nil {
			first = sh
			var err error
			if args, err = settingArgs(sh.Header); err != nil {
				return flagval.Usage(fmt.Errorf("merge: %s: %w", path, err))
			}
			if sh.Replicates < 1 || sh.Replicates > fleet.MaxReplicates || sh.Runs < 1 || sh.Runs != len(sh.Params) {
				return flagval.Usage(fmt.Errorf("merge: %s: %d runs (with the settings of %d) of %d replicates; want 1 to %d replicates",
					path, sh.Runs, len(sh.Params), sh.Replicates, fleet.MaxReplicates))
			}
			parts = make([][][]fleet.Replicate, sh.Count)
			byReplicate = make([]string, sh.Replicates)
		}
		switch {
		case sh.Runs != first.Runs || sh.Replicates != first.Replicates:
			return flagval.Usage(fmt.Errorf("merge: %s is a shard of another run than %s (%d runs of %d replicates; want %d of %d)",
				path, files[0], sh.Runs, sh.Replicates, first.Runs, first.Replicates))
		case !slices.EqualFunc(sh.Params, first.Params, sameSettings):
			return flagval.Usage(fmt.Errorf("merge: %s is a shard of another run than %s: its settings differ (a scenario file changed between them?)", path, files[0]))
		}
		var d fleetData
		if err := gob.NewDecoder(bytes.NewReader(sh.Data)).Decode(&d); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %s: its replicates: %w", path, err))
		}
		if digest, err := fleetDigest(sh); err != nil || digest != d.Header {
			return flagval.Usage(fmt.Errorf("merge: %s: its data is not of the run and slice its header names", path))
		}
		lo, hi := fleet.Slice(sh.Replicates, sh.Index, sh.Count)
		if len(d.Runs) != sh.Runs {
			return flagval.Usage(fmt.Errorf("merge: %s holds %d runs; want %d", path, len(d.Runs), sh.Runs))
		}
		for i := range d.Runs {
			if len(d.Runs[i]) != hi-lo {
				return flagval.Usage(fmt.Errorf("merge: %s holds %d replicates of run %d; shard %d/%d has %d", path, len(d.Runs[i]), i, sh.Index, sh.Count, hi-lo))
			}
		}
		for k := lo; k < hi; k++ {
			byReplicate[k] = path
		}
		parts[sh.Index] = d.Runs
	}
	if err := env.Missing(); err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	whole := make([][]fleet.Replicate, first.Runs)
	for _, p := range parts {
		for r := range whole {
			whole[r] = append(whole[r], p[r]...)
		}
	}
	return fleetCommand(context.WithValue(ctx, mergedKey{}, merged{whole, first.Params, byReplicate}), append(args, own...), stdout, io.Discard)
}
