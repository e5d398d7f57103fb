package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardfile"
)

var fleetMapIntro = `retrysim fleet-map maps where the fleet model recovers: over a trigger's size
and duration (a spike's height and length, or an outage's length) and the base
load, for one or more client policies, it runs every cell -replicates times and
prints the share of replicates that recovered (goodput back within 10%% of the
offered load for good by the run's end) with its 95%% Wilson score interval, and
the Kaplan-Meier median time to recover (never when fewer than half did). It is
a command of its own, not a fleet preset, because its output is a grid of
probabilities, not a row of means and a time series a run.

The model is Brooker's collapse server and client (-preset brooker-collapse of
retrysim fleet: latency 1 s + 0.01 s a call in progress, network 0.1 s each way,
a 3 s timeout, 3 tries). Low load recovers whatever the trigger (stable), high
load stays collapsed after a large trigger (metastable), and between them the
outcome is chance (vulnerable): the map shows the three regions and draws the
50%% boundary.

Usage: retrysim fleet-map [flags]

Example: retrysim fleet-map -plot map.png

Limits (checked before any work): each axis 1 to %d values, at most %d cells,
-replicates 1 to %d, and the fleet's cost model over every cell and replicate
(at most %.0e events, %d GiB held at once). -shard i/n runs the cells of slice
i of n; -shard auto/n takes i from the environment: JOB_COMPLETION_INDEX
(Kubernetes Indexed Job, from 0), SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN,
over SLURM_ARRAY_TASK_STEP (Slurm job array; --array=0-6:2 is shards 0 to 3; an
array of ids no step numbers, such as 1,2,7, refused), or PARALLEL_SEQ less 1 (GNU parallel counts from 1), refused
when none is set or two disagree; -shard auto takes n from SLURM_ARRAY_TASK_COUNT
too. retrysim merge prints what the whole run prints from the shards.

Flags:
`

// numberList is a flag.Value for a comma-separated list of numbers in [lo,
// hi], each a duration when seconds is set.
type numberList struct {
	v       *[]float64
	lo, hi  float64
	seconds bool
}

func (l numberList) String() string {
	if l.v == nil {
		return ""
	}
	var parts []string
	for _, x := range *l.v {
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if l.seconds {
			s += "s"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

func (l numberList) Set(s string) error {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		var x float64
		var err error
		if l.seconds {
			var d time.Duration
			d, err = time.ParseDuration(strings.TrimSpace(part))
			x = d.Seconds()
		} else {
			x, err = strconv.ParseFloat(strings.TrimSpace(part), 64)
		}
		if err != nil || !(x >= l.lo && x <= l.hi) {
			unit := ""
			if l.seconds {
				unit = " (durations such as 5s)"
			}
			return fmt.Errorf("%q is not a list of values from %g to %g%s", s, l.lo, l.hi, unit)
		}
		if slices.Contains(out, x) {
			return fmt.Errorf("%q names %g twice", s, x)
		}
		out = append(out, x)
	}
	if len(out) > fleet.MaxMapAxis {
		return fmt.Errorf("%d values; at most %d", len(out), fleet.MaxMapAxis)
	}
	*l.v = out
	return nil
}

// policyList is a flag.Value for -policies.
type policyList struct{ v *[]fleet.MapPolicy }

func (l policyList) String() string {
	if l.v == nil {
		return ""
	}
	var names []string
	for _, p := range *l.v {
		names = append(names, p.Name)
	}
	return strings.Join(names, ",")
}

func (l policyList) Set(s string) error {
	var out []fleet.MapPolicy
	mapPolicies := fleet.MapPolicies()
	for _, name := range strings.Split(s, ",") {
		i := slices.IndexFunc(mapPolicies, func(p fleet.MapPolicy) bool { return p.Name == name })
		if i < 0 || slices.ContainsFunc(out, func(p fleet.MapPolicy) bool { return p.Name == name }) {
			return fmt.Errorf("%q is not a list of distinct policies from no_backoff, backoff_and_jitter", s)
		}
		out = append(out, mapPolicies[i])
	}
	*l.v = out
	return nil
}

// fleetMapRun is a parsed fleet-map command: the map, how to run it, and
// where its outputs go.
type fleetMapRun struct {
	m          fleet.Map
	replicates int
	seed       uint64
	workers    int
	o          flagval.Output
	plot       string
	shard      flagval.Shard
	// settings are the run's settings, for a shard to carry to merge.
	settings []shardfile.Setting
}

// parseFleetMap parses the fleet-map command's flags.
func parseFleetMap(args []string, stdout io.Writer) (fleetMapRun, error) {
	fs := flagval.NewFlagSet("retrysim fleet-map")
	r := fleetMapRun{m: fleet.CollapseMap()}
	var (
		seed       flagval.Seed = 1
		workers                 = flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096}
		replicates              = flagval.Bounded{V: 100, Lo: 1, Hi: fleet.MaxReplicates}
		trigger                 = flagval.Choice{V: "spike", Valid: func(s string) error {
			if s != "spike" && s != "outage" && s != "stall" {
				return fmt.Errorf("unknown trigger %q (want spike, outage or stall)", s)
			}
			return nil
		}}
	)
	fs.Var(numberList{v: &r.m.Rates, lo: 0, hi: fleet.MaxRate}, "rates", "the base loads, a comma-separated `list` of requests a second")
	fs.Var(numberList{v: &r.m.Heights, lo: 0, hi: fleet.MaxRate}, "heights", "the spike's heights, a comma-separated `list` of requests a second (not with an outage)")
	lengths := make([]float64, len(r.m.Lengths))
	for i, l := range r.m.Lengths {
		lengths[i] = l.Seconds()
	}
	fs.Var(numberList{v: &lengths, lo: 0, hi: fleet.MaxSeconds, seconds: true}, "lengths", "the spike's or the outage's lengths, a comma-separated `list` of durations")
	fs.Var(policyList{&r.m.Policies}, "policies", "the client `policies`, comma-separated: no_backoff, backoff_and_jitter (Brooker's two: no backoff, or a wait uniform in [0, b], b = 20 s doubling)")
	fs.Var(&trigger, "trigger", "the `trigger`: spike (to each -heights for each -lengths), outage (every call fails at once for each -lengths) or stall (every call held to the outage's end)")
	fs.Var(flagval.DurationVar(&r.m.From), "from", "the trigger starts at this `time`")
	fs.Var(flagval.DurationVar(&r.m.After), "after", "each run goes on for this `duration` after the trigger ends (at least 10s, one recovery window)")
	fs.Var(&replicates, "replicates", fmt.Sprintf("each cell is simulated with `r` independent seeds, 1 to %d", fleet.MaxReplicates))
	fs.Var(&seed, "seed", "random `seed`; the same flags and seed print the same bytes")
	fs.Var(&workers, "workers", fmt.Sprintf("parallel `workers`, %d to %d; the output does not depend on it", workers.Lo, workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS"
	r.o.Register(fs, render.FleetDoc, " (html is one page with the heat maps)", "")
	fs.StringVar(&r.plot, "plot", "", "also draw the heat maps to `file` (.png or .svg), a panel a policy and length")
	fs.Var(&r.shard, "shard", "run slice `i/n` of the cells (0 <= i < n), or auto/n or auto (index, and count, from the environment), and write it as a shard for retrysim merge")
	intro := fmt.Sprintf(fleetMapIntro, fleet.MaxMapAxis, fleet.MaxMapCells, fleet.MaxReplicates, float64(fleet.MaxEvents), fleet.MaxBytes>>30)
	if err := flagval.Parse(fs, args, intro, stdout); err != nil {
		return r, err
	}
	r.m.Lengths = r.m.Lengths[:0]
	for _, l := range lengths {
		r.m.Lengths = append(r.m.Lengths, time.Duration(math.Round(l*float64(time.Second))))
	}
	given := flagval.Given(fs)
	switch trigger.V {
	case "outage", "stall":
		if given["heights"] {
			return r, flagval.Usage(fmt.Errorf("-heights: an outage has no height; drop it or use -trigger spike"))
		}
		r.m.Outage, r.m.Heights = true, []float64{0}
		if trigger.V == "stall" {
			r.m.Base.Outage.Mode = fleet.Stall
		}
	}
	if err := r.m.Check(); err != nil {
		return r, flagval.Usage(fleetMapFlagError(err))
	}
	r.replicates, r.seed, r.workers = replicates.V, uint64(seed), workers.V
	r.settings = shardSettings(fs, args)
	if r.shard.Count > 0 {
		if err := refuseInShard(fs, "format", "width"); err != nil {
			return r, err
		}
	}
	return r, nil
}

// fleetMapCommand runs the fleet-map command.
func fleetMapCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	r, err := parseFleetMap(args, stdout)
	if err != nil {
		return err
	}
	cells := r.m.Cells()
	for _, c := range cells {
		if err := (fleet.Options{Replicates: r.replicates}).Check(c.Duration.Seconds()); err != nil {
			return flagval.Usage(err)
		}
	}
	lo, hi := 0, len(cells)
	var index, count int
	if r.shard.Count > 0 {
		index, count = r.shard.Index, r.shard.Count
		if r.plot != "" {
			return flagval.Usage(fmt.Errorf("-plot: a shard draws nothing; give -plot to retrysim merge"))
		}
		lo, hi = fleet.Slice(len(cells), index, count)
	}
	opts := fleet.Options{Replicates: r.replicates, Seed: r.seed, Workers: r.workers, Progress: outfile.Progress(stderr, "fleet-map")}
	if hi > lo {
		if err := fleet.CheckCost(cells[lo:hi], opts); err != nil {
			return flagval.Usage(mapCostError(err))
		}
	}
	plotF := outfile.File{Flag: "plot", Path: r.plot}
	if r.plot != "" {
		if err := render.CheckPlotPath(r.plot); err != nil {
			return flagval.Usage(fmt.Errorf("-plot: %w", err))
		}
	}
	if err := outfile.Check(r.o.Out, plotF); err != nil {
		return flagval.Usage(err)
	}
	var done []fleet.MapCell
	if hi > lo {
		if done, err = memoized(struct {
			Cells   []fleet.Config
			Options fleet.Options
		}{cells[lo:hi], opts}, func() ([]fleet.MapCell, error) { return fleet.RunMap(ctx, cells[lo:hi], opts) }); err != nil {
			return err
		}
	}
	if r.shard.Count > 0 {
		sh := mapShard{Header: shardfile.Header{Kind: mapShardKind, Settings: r.settings, Index: index, Count: count}, Cells: len(cells)}
		for i, c := range done {
			sh.Slice = append(sh.Slice, shardCell{Cell: lo + i, Observations: c.Observations})
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sh); err != nil {
			return err
		}
		return outfile.WriteAll(ctx, stdout, outfile.Output{File: r.o.Out, Data: b.Bytes()})
	}
	return writeFleetMap(ctx, stdout, r, done)
}

// writeFleetMap renders a whole map's cells as fleet-map prints them.
func writeFleetMap(ctx context.Context, stdout io.Writer, r fleetMapRun, done []fleet.MapCell) error {
	rep := render.MapReport{Map: r.m, Cells: done, Replicates: r.replicates, Seed: r.seed,
		Title: fmt.Sprintf("retrysim fleet-map: %d cells x %d replicates, seed %d", len(done), r.replicates, r.seed)}
	var main bytes.Buffer
	err := r.o.Renderer(stdout).Runs(&main, rep)
	if err != nil {
		return err
	}
	outs := []outfile.Output{{File: r.o.Out, Data: main.Bytes()}}
	if r.plot != "" {
		var pic bytes.Buffer
		if err := render.PlotMap(&pic, rep, filepath.Ext(r.plot)); err != nil {
			return err
		}
		outs = append(outs, outfile.Output{File: outfile.File{Flag: "plot", Path: r.plot}, Data: pic.Bytes()})
	}
	return outfile.WriteAll(ctx, stdout, outs...)
}

// mapCostError is fleet.CheckCost's refusal of a map's cells by the flag to
// change: -replicates, -after for the cells' duration (which a map has no
// flag of, and which the refusal names for one replicate), and -heights for
// the load a setting of the model holds in flight at the spike's peak.
func mapCostError(err error) error {
	var fe *fleet.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	flag, ok := map[string]string{"replicates": "-replicates", "duration": "-after"}[fe.Field]
	if !ok {
		flag = "-heights (" + fe.Field + ")"
	}
	return fmt.Errorf("%s: %s", flag, fe.Msg)
}

// fleetMapFlagError is Map.Check's refusal in the command's words: a field
// of the map is named by its flag (rates as -rates; the axes together as
// -policies x -lengths x -heights x -rates), and a cell's own setting,
// which no flag of this command gives, as "cell NAME: path: why".
func fleetMapFlagError(err error) error {
	var fe *fleet.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	if rest, ok := strings.CutPrefix(fe.Field, "cells["); ok {
		if i := strings.LastIndex(rest, "]."); i >= 0 {
			return fmt.Errorf("cell %s: %s: %s", rest[:i], rest[i+2:], fe.Msg)
		}
	}
	paths := fe.Fields
	if paths == nil {
		paths = []string{fe.Field}
	}
	flags := make([]string, len(paths))
	for i, p := range paths {
		flags[i] = "-" + p
	}
	return fmt.Errorf("%s: %s", strings.Join(flags, " x "), fe.Msg)
}
