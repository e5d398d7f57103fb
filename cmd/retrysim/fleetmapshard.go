package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/fleet/metastable"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardfile"
	"github.com/retrysim/retrysim/stats"
)

// mapShardKind marks a fleet-map shard file, so merge tells it from a job
// run's shard. Format 2 carries settings, not flags.
const mapShardKind = "retrysim fleet-map shard 2"

// mapShard is one slice of a fleet-map run, as -shard writes it: the
// envelope (the run's settings, which slice of how many), the run's cell
// count, and each of its cells' recoveries.
type mapShard struct {
	shardfile.Header
	Cells int         `json:"cells"`
	Slice []shardCell `json:"slice"`
}

// shardCell is a cell's judged replicates' recoveries.
type shardCell struct {
	Cell         int                 `json:"cell"`
	Observations []stats.Observation `json:"observations"`
}

// shardKind is a kind of shard merge reads besides the job model's: its
// envelope's kind, the flags of merge's own command line its merge takes,
// and its merge, given the files and those flags as -name=value.
type shardKind struct {
	kind  string
	flags []string
	merge func(ctx context.Context, files, own []string, stdout io.Writer) error
}

// shardKinds are the kinds of shard merge reads besides the job model's.
var shardKinds = []shardKind{
	{fleetShardKind, []string{"o", "format", "width", "series", "plot"}, mergeFleet},
	{mapShardKind, []string{"o", "format", "width", "plot"}, mergeMap},
	{sweepShardKind, []string{"o", "format", "width", "plot", "metric", "log-y", "linear-y", "own-scales", "ci"}, mergeSweep},
	{chainShardKind, []string{"o"}, mergeChain},
}

// mergeFleetShards is merge for fleet-map, fleet, chain and sweep shards: it reports
// handled false, leaving the files to the job model's merge, unless the
// first file named is one. The shards must be 0/n to n-1/n once each, of
// one run (the same settings); where and how the run's outputs are written
// (-o, -format, -plot...) is said by merge's own flags only.
func mergeFleetShards(ctx context.Context, args []string, stdout io.Writer) (handled bool, err error) {
	fs := flag.NewFlagSet("retrysim merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, name := range mergeOwn {
		switch name {
		case "log-y", "linear-y", "own-scales", "ci", "expect":
			fs.Bool(name, false, "")
		case "shard", "workers", "help", "h": // no merge flag
		default:
			fs.String(name, "", "")
		}
	}
	if fs.Parse(flagval.Interspersed(fs, args)) != nil || fs.NArg() == 0 {
		return false, nil
	}
	files := fs.Args()
	k := slices.IndexFunc(shardKinds, func(k shardKind) bool { return shardfile.Is(files[0], k.kind) })
	if k < 0 {
		return false, nil
	}
	var own []string
	fs.Visit(func(f *flag.Flag) {
		if err == nil && !slices.Contains(shardKinds[k].flags, f.Name) {
			err = flagval.Usage(fmt.Errorf("merge: -%s: %s is a %s, whose merge takes -%s", f.Name, files[0], shardKinds[k].kind, strings.Join(shardKinds[k].flags, ", -")))
		}
		if err == nil && slices.Contains([]string{"o", "series", "plot"}, f.Name) {
			if e := outfile.NotInput(outfile.File{Flag: f.Name, Path: f.Value.String()}, "shard file", files); e != nil {
				err = flagval.Usage(e)
			}
		}
		own = append(own, "-"+f.Name+"="+f.Value.String())
	})
	if err != nil {
		return true, err
	}
	return true, shardKinds[k].merge(ctx, files, own, stdout)
}

// mergeMap merges fleet-map shard files into what the whole run prints.
func mergeMap(ctx context.Context, files, own []string, stdout io.Writer) error {
	var env shardfile.Slices
	shards := make([]mapShard, len(files))
	for i, path := range files {
		if err := shardfile.Read(path, mapShardKind, &shards[i]); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		if err := env.Add(path, shards[i].Header); err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		if shards[i].Cells != shards[0].Cells {
			return flagval.Usage(fmt.Errorf("merge: %s is a shard of another run than %s (%d cells; want %d)", path, files[0], shards[i].Cells, shards[0].Cells))
		}
	}
	if err := env.Missing(); err != nil {
		return flagval.Usage(fmt.Errorf("merge: %w", err))
	}
	args, err := settingArgs(shards[0].Header)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: %w", files[0], err))
	}
	r, err := parseFleetMap(append(args, own...), io.Discard)
	if err != nil {
		return flagval.Usage(fmt.Errorf("merge: %s: its settings: %w", files[0], err))
	}
	cfgs := r.m.Cells()
	if len(cfgs) != shards[0].Cells {
		return flagval.Usage(fmt.Errorf("merge: %s: its settings make %d cells, not %d", files[0], len(cfgs), shards[0].Cells))
	}
	cells := make([]metastable.MapCell, len(cfgs))
	for i, sh := range shards {
		lo, hi := fleet.Slice(len(cfgs), sh.Index, sh.Count)
		if len(sh.Slice) != hi-lo {
			return flagval.Usage(fmt.Errorf("merge: %s holds %d cells; shard %d/%d has %d", files[i], len(sh.Slice), sh.Index, sh.Count, hi-lo))
		}
		for k, c := range sh.Slice {
			if c.Cell != lo+k {
				return flagval.Usage(fmt.Errorf("merge: %s: cell %d where %d belongs", files[i], c.Cell, lo+k))
			}
			if err := cfgs[c.Cell].CheckObservations(c.Observations, r.replicates); err != nil {
				return flagval.Usage(fmt.Errorf("merge: %s: cell %d: %w", files[i], c.Cell, err))
			}
			cells[c.Cell] = metastable.MapCell{Config: cfgs[c.Cell], Observations: c.Observations}
		}
	}
	if r.plot != "" {
		if err := render.CheckPlotPath(r.plot); err != nil {
			return flagval.Usage(fmt.Errorf("-plot: %w", err))
		}
	}
	if err := outfile.Check(r.o.Out, outfile.File{Flag: "plot", Path: r.plot}); err != nil {
		return flagval.Usage(err)
	}
	return writeFleetMap(ctx, stdout, r, cells)
}
