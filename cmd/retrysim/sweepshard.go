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
	"slices"
	"strings"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
)

// sweepShardKind marks a sweep shard file, so merge tells it from the
// others.
const sweepShardKind = "retrysim sweep shard 1"

// sweepShard is one slice of a sweep, as -shard writes it: the flags that
// decide the sweep's output, the scenario file's digest, which slice of how
// many, the sweep's point count, and each of its points' counters.
type sweepShard struct {
	Kind     string       `json:"kind"`
	Args     []string     `json:"args"`
	Scenario string       `json:"scenario_sha256,omitempty"`
	Index    int          `json:"index"`
	Count    int          `json:"count"`
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
	sh := sweepShard{Kind: sweepShardKind, Args: r.args, Scenario: digest, Index: r.shard.Index, Count: r.shard.Count, Points: n, Slice: []shardPoint{}}
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

// readSweepShard reads a sweep shard file, or says it is not one.
func readSweepShard(path string) (sweepShard, bool, error) {
	data, ok, err := readShardFile(path, sweepShardKind)
	if !ok || err != nil {
		return sweepShard{}, ok, err
	}
	var sh sweepShard
	return sh, true, decodeShard(path, data, &sh)
}

// mergeSweep merges the shards of one sweep, 0/n to n-1/n once each, all of
// the same flags and scenario file, into what the whole sweep prints; out
// and plot say where its outputs go.
func mergeSweep(ctx context.Context, files []string, out, plot string, stdout io.Writer) error {
	first, _, err := readSweepShard(files[0])
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	if first.Count < 1 || first.Count > 1_000_000 {
		return flagval.Usage(fmt.Errorf("merge: %s: %d shards; want 1 to 1000000", files[0], first.Count))
	}
	shards := make([]bool, first.Count)
	points := make([]api.SweepPoint, first.Points)
	for _, path := range files {
		sh, ok, err := readSweepShard(path)
		switch {
		case err != nil:
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		case !ok:
			return flagval.Usage(fmt.Errorf("merge: %s is not a sweep shard, as %s is", path, files[0]))
		case !slices.Equal(sh.Args, first.Args) || sh.Scenario != first.Scenario || sh.Count != first.Count || sh.Points != first.Points:
			return flagval.Usage(fmt.Errorf("merge: %s is a shard of another sweep than %s (flags %s, %d shards, %d points; want %s, %d, %d%s)",
				path, files[0], strings.Join(sh.Args, " "), sh.Count, sh.Points, strings.Join(first.Args, " "), first.Count, first.Points, digestNote(sh.Scenario, first.Scenario)))
		case sh.Index < 0 || sh.Index >= sh.Count:
			return flagval.Usage(fmt.Errorf("merge: %s: shard %d of %d", path, sh.Index, sh.Count))
		case shards[sh.Index]:
			return flagval.Usage(fmt.Errorf("merge: %s repeats shard %d/%d", path, sh.Index, sh.Count))
		}
		lo, hi := fleet.Slice(sh.Points, sh.Index, sh.Count)
		if len(sh.Slice) != hi-lo {
			return flagval.Usage(fmt.Errorf("merge: %s holds %d points; shard %d/%d has %d", path, len(sh.Slice), sh.Index, sh.Count, hi-lo))
		}
		for i, p := range sh.Slice {
			if p.Point != lo+i {
				return flagval.Usage(fmt.Errorf("merge: %s: point %d where %d belongs", path, p.Point, lo+i))
			}
			points[p.Point] = p.SweepPoint
		}
		shards[sh.Index] = true
	}
	for i, ok := range shards {
		if !ok {
			return flagval.Usage(fmt.Errorf("merge: shard %d/%d is missing", i, first.Count))
		}
	}
	args := slices.Clone(first.Args)
	if out != "" {
		args = append(args, "-o", out)
	}
	if plot != "" {
		args = append(args, "-plot", plot)
	}
	r, err := parseSweep(args, io.Discard, io.Discard)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: its flags: %w", files[0], err))
	}
	if digest, err := scenarioDigest(r.sw.ScenarioFile); err != nil || digest != first.Scenario {
		return flagval.Usage(fmt.Errorf("merge: -scenario %s is not the file the shards ran", r.sw.ScenarioFile))
	}
	if err := outfile.NotInput(r.c.Out, "shard file", files); err != nil {
		return flagval.Usage(err)
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
