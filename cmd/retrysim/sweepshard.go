package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/shardfile"
)

// sweepShardKind marks a sweep shard file, so merge tells it from the
// others. Format 2 carries settings, not flags.
const sweepShardKind = "retrysim sweep shard 2"

// sweepShard is one slice of a sweep, as -shard writes it: the envelope
// (the sweep's settings, which slice of how many), the scenario file's
// digest, the sweep's point count, and each of its points' counters.
type sweepShard struct {
	shardfile.Header
	Scenario string       `json:"scenario_sha256,omitempty"`
	Points   int          `json:"points"`
	Slice    []shardPoint `json:"slice"`
}

// shardPoint is a point's counters, with its index in the grid.
type shardPoint struct {
	Point int `json:"point"`
	api.SweepPoint
}

// scenarioDigest is the sha256 of the scenario file a sweep reads, "" for
// the sign-up, so that merge refuses shards of a file that changed.
func scenarioDigest(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// writeSweepShard runs the sweep's slice of points and writes it as a shard.
func writeSweepShard(ctx context.Context, stdout io.Writer, r sweepRun) error {
	n, err := r.sw.Points()
	if err != nil {
		return flagval.LibraryError(err, r.byName...)
	}
	digest, err := scenarioDigest(r.sw.ScenarioFile)
	if err != nil {
		return flagval.Usage(fmt.Errorf("-scenario: %w", err))
	}
	lo, hi := fleet.Slice(n, r.shard.Index, r.shard.Count)
	points, err := api.RunSweepPoints(ctx, r.sw, lo, hi)
	if err != nil {
		return flagval.LibraryError(err, r.byName...)
	}
	sh := sweepShard{Header: shardfile.Header{Kind: sweepShardKind, Settings: r.settings, Index: r.shard.Index, Count: r.shard.Count},
		Scenario: digest, Points: n, Slice: []shardPoint{}}
	for i, p := range points {
		sh.Slice = append(sh.Slice, shardPoint{Point: lo + i, SweepPoint: p})
	}
	data, err := json.Marshal(sh)
	if err != nil {
		return err
	}
	// Compact, as a point holds every replicate's histograms; the kind is
	// spaced as readShardFile looks for it.
	data = append(bytes.Replace(data, []byte(`{"kind":`), []byte(`{"kind": `), 1), '\n')
	return outfile.WriteAll(ctx, stdout, outfile.Output{File: r.c.Out, Data: data})
}

// mergeSweep merges the shards of one sweep, 0/n to n-1/n once each, all of
// the same settings and scenario file, into what the whole sweep prints;
// own are merge's flags that say how and where.
func mergeSweep(ctx context.Context, files, own []string, stdout io.Writer) error {
	var env shardfile.Slices
	shards := make([]sweepShard, len(files))
	for i, path := range files {
		sh := &shards[i]
		if err := shardfile.Read(path, sweepShardKind, sh); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		if err := env.Add(path, sh.Header); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		if first := shards[0]; sh.Scenario != first.Scenario || sh.Points != first.Points {
			return flagval.Usage(fmt.Errorf("merge: %s is a shard of another sweep than %s (%d points; want %d%s)",
				path, files[0], sh.Points, first.Points, digestNote(sh.Scenario, first.Scenario)))
		}
	}
	if err := env.Missing(); err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	args, err := settingArgs(shards[0].Header)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: %w", files[0], err))
	}
	r, err := parseSweep(append(args, own...), io.Discard, io.Discard)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: its settings: %w", files[0], err))
	}
	if digest, err := scenarioDigest(r.sw.ScenarioFile); err != nil || digest != shards[0].Scenario {
		return flagval.Usage(fmt.Errorf("merge: -scenario %s is not the file the shards ran", r.sw.ScenarioFile))
	}
	n, err := r.sw.Points()
	if err != nil || n != shards[0].Points {
		return flagval.Usage(fmt.Errorf("merge: %s: its settings make %d points, not %d", files[0], n, shards[0].Points))
	}
	points := make([]api.SweepPoint, n)
	for i, sh := range shards {
		lo, hi := fleet.Slice(n, sh.Index, sh.Count)
		if len(sh.Slice) != hi-lo {
			return flagval.Usage(fmt.Errorf("merge: %s holds %d points; shard %d/%d has %d", files[i], len(sh.Slice), sh.Index, sh.Count, hi-lo))
		}
		for k, p := range sh.Slice {
			if p.Point != lo+k {
				return flagval.Usage(fmt.Errorf("merge: %s: point %d where %d belongs", files[i], p.Point, lo+k))
			}
			points[p.Point] = p.SweepPoint
		}
	}
	s, err := api.SweepOf(r.sw, points)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	return writeSweep(ctx, stdout, r, s)
}

// digestNote says, when two shards' scenario files differ, that they do.
func digestNote(got, want string) string {
	if got == want {
		return ""
	}
	return "; the scenario files differ"
}
