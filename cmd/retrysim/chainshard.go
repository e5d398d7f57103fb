package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/sim"
)

// chainShardKind marks a chain shard file.
const chainShardKind = "retrysim chain shard 1"

// chainShard is one slice of a chain run's splitting, as -shard writes it:
// the flags that decide the run's output, which slice of how many, the
// run's splitting runs, the slice's runs' estimates, and the events of the
// slice's share of the crude replicates that measure a replicate's work.
type chainShard struct {
	Kind        string          `json:"kind"`
	Args        []string        `json:"args"`
	Index       int             `json:"index"`
	Count       int             `json:"count"`
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
	sp, index, count := r.sp, r.shard.Index, r.shard.Count
	lo, hi := fleet.Slice(sp.runs, index, count)
	ests, err := sp.RepeatRuns(ctx, &sp.cfg, lo, hi, sp.workers)
	if err != nil {
		return err
	}
	clo, chi := fleet.Slice(crudeRuns, index, count)
	crude, err := sp.crudeEvents(ctx, clo, chi)
	if err != nil {
		return err
	}
	sh := chainShard{Kind: chainShardKind, Args: r.args, Index: index, Count: count, Runs: sp.runs,
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

// readChainShard reads a chain shard file, or says it is not one.
func readChainShard(path string) (chainShard, bool, error) {
	data, ok, err := readShardFile(path, chainShardKind)
	if !ok || err != nil {
		return chainShard{}, ok, err
	}
	var sh chainShard
	return sh, true, decodeShard(path, data, &sh)
}

// mergeChain prints, to out or stdout, what the chain run whose shards
// files are prints: the shards must be 0/n to n-1/n once each, of one run.
func mergeChain(ctx context.Context, files []string, out string, stdout io.Writer) error {
	first, _, err := readChainShard(files[0])
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	if first.Count < 1 || first.Count > sim.MaxShards || first.Runs < 2 || first.Runs > maxSplitRuns {
		return flagval.Usage(fmt.Errorf("merge: %s: %d shards of %d runs; want 1 to %d shards of 2 to %d runs", files[0], first.Count, first.Runs, sim.MaxShards, maxSplitRuns))
	}
	shards := make([]bool, first.Count)
	ests := make([]fleet.SplitEstimate, first.Runs)
	crude := make([]int64, crudeRuns)
	for _, path := range files {
		sh, ok, err := readChainShard(path)
		switch {
		case err != nil:
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		case !ok:
			return flagval.Usage(fmt.Errorf("merge: %s is not a chain shard, as %s is", path, files[0]))
		case !slices.Equal(sh.Args, first.Args) || sh.Count != first.Count || sh.Runs != first.Runs:
			return flagval.Usage(fmt.Errorf("merge: %s is a shard of another run than %s (flags %s, %d shards, %d runs; want %s, %d, %d)",
				path, files[0], strings.Join(sh.Args, " "), sh.Count, sh.Runs, strings.Join(first.Args, " "), first.Count, first.Runs))
		case sh.Index < 0 || sh.Index >= sh.Count:
			return flagval.Usage(fmt.Errorf("merge: %s: shard %d of %d", path, sh.Index, sh.Count))
		case shards[sh.Index]:
			return flagval.Usage(fmt.Errorf("merge: %s repeats shard %d/%d", path, sh.Index, sh.Count))
		}
		lo, hi := fleet.Slice(sh.Runs, sh.Index, sh.Count)
		clo, chi := fleet.Slice(crudeRuns, sh.Index, sh.Count)
		if len(sh.Slice) != hi-lo || len(sh.CrudeEvents) != chi-clo {
			return flagval.Usage(fmt.Errorf("merge: %s holds %d runs and %d crude replicates; shard %d/%d has %d and %d",
				path, len(sh.Slice), len(sh.CrudeEvents), sh.Index, sh.Count, hi-lo, chi-clo))
		}
		for i, run := range sh.Slice {
			if run.Run != lo+i || !(run.P >= 0 && run.P <= 1) || run.Events < 0 {
				return flagval.Usage(fmt.Errorf("merge: %s: run %d (estimate %g, %d events) where run %d belongs, with an estimate from 0 to 1",
					path, run.Run, run.P, run.Events, lo+i))
			}
			ests[run.Run] = fleet.SplitEstimate{P: run.P, Events: run.Events}
		}
		for i, e := range sh.CrudeEvents {
			if e < 0 {
				return flagval.Usage(fmt.Errorf("merge: %s: crude replicate %d took %d events", path, clo+i, e))
			}
			crude[clo+i] = e
		}
		shards[sh.Index] = true
	}
	for i, ok := range shards {
		if !ok {
			return flagval.Usage(fmt.Errorf("merge: shard %d/%d is missing", i, first.Count))
		}
	}
	r, err := parseChain(first.Args, io.Discard)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: its flags: %w", files[0], err))
	}
	if r.sp == nil || r.sp.runs != first.Runs {
		return flagval.Usage(fmt.Errorf("merge: %s: its flags make no splitting of %d runs", files[0], first.Runs))
	}
	ans, err := r.answers()
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: its flags: %w", files[0], err))
	}
	o := outfile.File{Flag: "o", Path: out}
	if err := outfile.Check(o); err != nil {
		return flagval.Usage(err)
	}
	return outfile.WriteAll(ctx, stdout, outfile.Output{File: o, Data: []byte(r.report(ans, ests, crude))})
}
