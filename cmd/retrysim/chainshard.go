package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/fleet/chain"
	"github.com/retrysim/retrysim/fleet/metastable"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/shardfile"
)

// chainShardKind marks a chain shard file. Format 2 carries settings, not
// flags.
const chainShardKind = "retrysim chain shard 2"

// chainShard is one slice of a chain run's splitting, as -shard writes it:
// the envelope (the run's settings, which slice of how many), the run's
// splitting runs, the slice's runs' estimates, and the events of the
// slice's share of the crude replicates that measure a replicate's work.
type chainShard struct {
	shardfile.Header
	Runs        int             `json:"runs"`
	Slice       []chainShardRun `json:"slice"`
	CrudeEvents []int64         `json:"crude_events"`
}

// chainShardRun is one splitting run's estimate and the events it took.
type chainShardRun struct {
	Run    int     `json:"run"`
	P      float64 `json:"p"`
	Events int64   `json:"events"`
}

// writeChainShard runs r's slice of the splitting runs and of the crude
// replicates, and writes it as a shard file to stdout.
func writeChainShard(ctx context.Context, stdout io.Writer, r chainRun) error {
	sp, index, count := r.q.Split, r.shard.Index, r.shard.Count
	lo, hi := fleet.Slice(sp.Runs, index, count)
	ests, err := sp.RepeatRuns(ctx, &sp.Config, lo, hi, r.workers)
	if err != nil {
		return err
	}
	clo, chi := fleet.Slice(chain.CrudeRuns, index, count)
	crude, err := sp.CrudeEvents(ctx, clo, chi)
	if err != nil {
		return err
	}
	sh := chainShard{Header: shardfile.Header{Kind: chainShardKind, Settings: r.settings, Index: index, Count: count}, Runs: sp.Runs,
		Slice: make([]chainShardRun, 0, len(ests)), CrudeEvents: crude}
	for i, e := range ests {
		sh.Slice = append(sh.Slice, chainShardRun{Run: lo + i, P: e.P, Events: e.Events})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sh); err != nil {
		return err
	}
	return outfile.WriteAll(ctx, stdout, outfile.Output{File: outfile.File{Flag: "o"}, Data: b.Bytes()})
}

// mergeChain prints, to merge's -o or stdout, what the chain run whose
// shards files are prints: the shards must be 0/n to n-1/n once each, of
// one run.
func mergeChain(ctx context.Context, files, own []string, stdout io.Writer) error {
	var env shardfile.Slices
	shards := make([]chainShard, len(files))
	for i, path := range files {
		sh := &shards[i]
		if err := shardfile.Read(path, chainShardKind, sh); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		if err := env.Add(path, sh.Header); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		if sh.Runs != shards[0].Runs {
			return flagval.Usage(fmt.Errorf("merge: %s is a shard of another run than %s (%d runs; want %d)", path, files[0], sh.Runs, shards[0].Runs))
		}
	}
	if err := env.Missing(); err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	args, err := settingArgs(shards[0].Header)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: %w", files[0], err))
	}
	r, err := parseChain(args, io.Discard)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: its settings: %w", files[0], err))
	}
	if r.q.Split == nil || r.q.Split.Runs != shards[0].Runs {
		return flagval.Usage(fmt.Errorf("merge: %s: its settings make no splitting of %d runs", files[0], shards[0].Runs))
	}
	ans, err := r.answers()
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: its settings: %w", files[0], err))
	}
	ests := make([]metastable.SplitEstimate, r.q.Split.Runs)
	crude := make([]int64, chain.CrudeRuns)
	for i, sh := range shards {
		path := files[i]
		lo, hi := fleet.Slice(sh.Runs, sh.Index, sh.Count)
		clo, chi := fleet.Slice(chain.CrudeRuns, sh.Index, sh.Count)
		if len(sh.Slice) != hi-lo || len(sh.CrudeEvents) != chi-clo {
			return flagval.Usage(fmt.Errorf("merge: %s holds %d runs and %d crude replicates; shard %d/%d has %d and %d",
				path, len(sh.Slice), len(sh.CrudeEvents), sh.Index, sh.Count, hi-lo, chi-clo))
		}
		for k, run := range sh.Slice {
			if run.Run != lo+k || !(run.P >= 0 && run.P <= 1) || run.Events < 0 || run.Events > fleet.MaxEvents {
				return flagval.Usage(fmt.Errorf("merge: %s: run %d (estimate %g, %d events) where run %d belongs, with an estimate from 0 to 1 and 0 to %.0e events",
					path, run.Run, run.P, run.Events, lo+k, float64(fleet.MaxEvents)))
			}
			ests[run.Run] = metastable.SplitEstimate{P: run.P, Events: run.Events}
		}
		for k, e := range sh.CrudeEvents {
			if e < 0 || e > fleet.MaxEvents {
				return flagval.Usage(fmt.Errorf("merge: %s: crude replicate %d took %d events, not 0 to %.0e", path, clo+k, e, float64(fleet.MaxEvents)))
			}
			crude[clo+k] = e
		}
	}
	out := outfile.File{Flag: "o"}
	fs := flag.NewFlagSet("retrysim merge", flag.ContinueOnError)
	fs.StringVar(&out.Path, "o", "", "")
	if err := fs.Parse(own); err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	if err := outfile.Check(out); err != nil {
		return flagval.Usage(err)
	}
	return outfile.WriteAll(ctx, stdout, outfile.Output{File: out, Data: []byte(r.report(r.q.Stats(ans, ests, crude)))})
}
