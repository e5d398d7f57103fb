package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
)

// mapShardKind marks a fleet-map shard file, so merge tells it from a job
// run's shard.
const mapShardKind = "retrysim fleet-map shard 1"

// maxMapShardBytes bounds a map shard file merge reads.
const maxMapShardBytes = 256 << 20

// mapShard is one slice of a fleet-map run, as -shard writes it: the flags
// that decide the run's output, which slice of how many, the run's cell
// count, and each of its cells' recoveries.
type mapShard struct {
	Kind  string      `json:"kind"`
	Args  []string    `json:"args"`
	Index int         `json:"index"`
	Count int         `json:"count"`
	Cells int         `json:"cells"`
	Slice []shardCell `json:"slice"`
}

// shardCell is a cell's judged replicates' recoveries.
type shardCell struct {
	Cell         int                 `json:"cell"`
	Observations []fleet.Observation `json:"observations"`
}

// readShardFile reads the shard file at path when it is one of kind, or
// says it is not. Anything but a regular file is not one: the job model's
// merge refuses it, without opening a FIFO that would block.
func readShardFile(path, kind string) ([]byte, bool, error) {
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return nil, false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMapShardBytes+1))
	if err != nil {
		return nil, false, err
	}
	if !bytes.Contains(data[:min(len(data), 64)], []byte(`"kind": "`+kind+`"`)) {
		return nil, false, nil
	}
	if len(data) > maxMapShardBytes {
		return nil, true, fmt.Errorf("%s: larger than %d MiB", path, maxMapShardBytes>>20)
	}
	return data, true, nil
}

// decodeShard decodes a shard file's json strictly into v.
func decodeShard(path string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readMapShard reads a map shard file, or says it is not one.
func readMapShard(path string) (mapShard, bool, error) {
	data, ok, err := readShardFile(path, mapShardKind)
	if !ok || err != nil {
		return mapShard{}, ok, err
	}
	var sh mapShard
	return sh, true, decodeShard(path, data, &sh)
}

// mergeFleetShards is merge for fleet-map, fleet, chain and sweep shards: it reports
// handled false, leaving the files to the job model's merge, unless the
// first file named is one. The shards must be 0/n to n-1/n once each, of
// one run (the same flags); merge's -o, -plot and (fleet) -series say where
// the run's outputs go.
func mergeFleetShards(ctx context.Context, args []string, stdout io.Writer) (handled bool, err error) {
	fs := flag.NewFlagSet("retrysim merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var out, plot, series, format, width string
	var ci, expect bool
	fs.StringVar(&out, "o", "", "")
	fs.StringVar(&plot, "plot", "", "")
	fs.StringVar(&series, "series", "", "")
	fs.StringVar(&format, "format", "", "") // the job model's merge flags, refused below
	fs.StringVar(&width, "width", "", "")
	fs.BoolVar(&ci, "ci", false, "")
	fs.BoolVar(&expect, "expect", false, "")
	if fs.Parse(flagval.Interspersed(fs, args)) != nil || fs.NArg() == 0 {
		return false, nil
	}
	files := fs.Args()
	_, isFleet, _ := readShardFile(files[0], fleetShardKind)
	_, isMap, _ := readShardFile(files[0], mapShardKind)
	_, isChain, _ := readShardFile(files[0], chainShardKind)
	_, isSweep, _ := readShardFile(files[0], sweepShardKind)
	if !isFleet && !isMap && !isChain && !isSweep {
		return false, nil
	}
	if format != "" || width != "" || ci || expect {
		return true, flagval.Usage(fmt.Errorf("merge: -format, -width, -ci and -expect are for the job model's shards; %s is a shard of retrysim fleet, fleet-map, chain or sweep, whose flags, -format and -width included, decide what merge prints", files[0]))
	}
	if isChain {
		if plot != "" || series != "" {
			return true, flagval.Usage(fmt.Errorf("merge: -plot and -series: a chain run draws nothing"))
		}
		return true, mergeChain(ctx, files, out, stdout)
	}
	if isSweep {
		if series != "" {
			return true, flagval.Usage(fmt.Errorf("merge: -series: a sweep has no series"))
		}
		return true, mergeSweep(ctx, files, out, plot, stdout)
	}
	if isFleet {
		return true, mergeFleet(ctx, files, out, series, plot, stdout)
	}
	first, _, err := readMapShard(files[0])
	if err != nil {
		return true, flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	if series != "" {
		return true, flagval.Usage(fmt.Errorf("merge: -series: a map has no series"))
	}
	shards := make([]*mapShard, first.Count)
	cells := make([]fleet.MapCell, first.Cells)
	for _, path := range files {
		sh, ok, err := readMapShard(path)
		switch {
		case err != nil:
			return true, flagval.Usage(fmt.Errorf("merge: %w", err))
		case !ok:
			return true, flagval.Usage(fmt.Errorf("merge: %s is not a fleet-map shard, as %s is", path, files[0]))
		case !slices.Equal(sh.Args, first.Args) || sh.Count != first.Count || sh.Cells != first.Cells:
			return true, flagval.Usage(fmt.Errorf("merge: %s is a shard of another run than %s (flags %s, %d shards, %d cells; want %s, %d, %d)",
				path, files[0], strings.Join(sh.Args, " "), sh.Count, sh.Cells, strings.Join(first.Args, " "), first.Count, first.Cells))
		case sh.Index < 0 || sh.Index >= sh.Count:
			return true, flagval.Usage(fmt.Errorf("merge: %s: shard %d of %d", path, sh.Index, sh.Count))
		case shards[sh.Index] != nil:
			return true, flagval.Usage(fmt.Errorf("merge: %s repeats shard %d/%d", path, sh.Index, sh.Count))
		}
		lo, hi := fleet.Slice(sh.Cells, sh.Index, sh.Count)
		if len(sh.Slice) != hi-lo {
			return true, flagval.Usage(fmt.Errorf("merge: %s holds %d cells; shard %d/%d has %d", path, len(sh.Slice), sh.Index, sh.Count, hi-lo))
		}
		for i, c := range sh.Slice {
			if c.Cell != lo+i {
				return true, flagval.Usage(fmt.Errorf("merge: %s: cell %d where %d belongs", path, c.Cell, lo+i))
			}
			cells[c.Cell].Observations = c.Observations
		}
		shards[sh.Index] = &sh
	}
	for i, sh := range shards {
		if sh == nil {
			return true, flagval.Usage(fmt.Errorf("merge: shard %d/%d is missing", i, first.Count))
		}
	}
	r, err := parseFleetMap(first.Args, io.Discard)
	if err != nil {
		return true, flagval.Usage(fmt.Errorf("merge: %s: its flags: %w", files[0], err))
	}
	cfgs := r.m.Cells()
	if len(cfgs) != first.Cells {
		return true, flagval.Usage(fmt.Errorf("merge: %s: its flags make %d cells, not %d", files[0], len(cfgs), first.Cells))
	}
	for i := range cells {
		cells[i].Config = cfgs[i]
		if len(cells[i].Observations) > r.replicates {
			return true, flagval.Usage(fmt.Errorf("merge: cell %d holds %d replicates; the run has %d", i, len(cells[i].Observations), r.replicates))
		}
	}
	r.o.Out, r.plot = outfile.File{Flag: "o", Path: out}, plot
	if err := outfile.Check(r.o.Out, outfile.File{Flag: "plot", Path: plot}); err != nil {
		return true, flagval.Usage(err)
	}
	return true, writeFleetMap(ctx, stdout, r, cells)
}
