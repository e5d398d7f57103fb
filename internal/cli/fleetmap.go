package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/metastable"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/internal/tune"
	"github.com/retrysim/retrysim/schema"
)

// numbers is a flag.Value for a comma-separated list of distinct values in
// [lo, hi]: numbers, or durations written and bounded as seconds.
func numbers[T float64 | time.Duration](v *[]T, lo, hi float64) flag.Value {
	_, seconds := any(T(0)).(time.Duration)
	unit, what := "", "a number"
	if seconds {
		unit, what = "s", "a duration such as 5s"
	}
	return flagval.ListVar(v, func(s string) (T, error) {
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		t := T(x)
		if seconds {
			var d time.Duration
			d, err = time.ParseDuration(strings.TrimSpace(s))
			x, t = d.Seconds(), T(d)
		}
		if err != nil || !(x >= lo && x <= hi) {
			return 0, fmt.Errorf("%q is not %s from %g to %g", s, what, lo, hi)
		}
		return t, nil
	}, func(t T) string {
		x := float64(t)
		if d, ok := any(t).(time.Duration); ok {
			x = d.Seconds()
		}
		return strconv.FormatFloat(x, 'g', -1, 64) + unit
	})
}

// policies is a flag.Value for -policies: distinct names of
// metastable.MapPolicies.
func policies(v *[]metastable.MapPolicy) flag.Value {
	return flagval.ListVar(v, func(name string) (metastable.MapPolicy, error) {
		i := slices.IndexFunc(metastable.MapPolicies(), func(p metastable.MapPolicy) bool { return p.Name == name })
		if i < 0 {
			return metastable.MapPolicy{}, fmt.Errorf("%q is no policy (want no_backoff or backoff_and_jitter)", name)
		}
		return metastable.MapPolicies()[i], nil
	}, func(p metastable.MapPolicy) string { return p.Name })
}

// FleetMap declares fleet-map's flags, parses args (-help printing help,
// filled with the map's limits) and makes its run, a cell's observations
// an item.
func FleetMap(kind string, args []string, help string, stdout, stderr io.Writer) (*shardrun.Work, error) {
	r := New(kind, Usages{
		Replicates: fmt.Sprintf("each cell is simulated with `r` independent seeds, 1 to %d", limits.FleetReplicates),
		Workers:    "parallel `workers`, %d to %d; the output does not depend on it",
		Plot:       "also draw the heat maps to `file` (.png or .svg), a panel a policy and length",
		Shard:      "run slice `i/n` of the cells (0 <= i < n), or auto/n or auto (index, and count, from the environment), and write it as a shard for retrysim merge",
		Doc:        render.FleetDoc,
		Formats:    " (html is one page with the heat maps)",
	}, 100)
	fs, m := r.FS, metastable.CollapseMap()
	trigger := flagval.Choice{V: "spike", Valid: flagval.OneOf("trigger", "spike, outage or stall", "spike", "outage", "stall")}
	fs.Var(numbers(&m.Rates, 0, limits.FleetRate), "rates", "the base loads, a comma-separated `list` of requests a second")
	fs.Var(numbers(&m.Heights, 0, limits.FleetRate), "heights", "the spike's heights, a comma-separated `list` of requests a second (not with an outage)")
	fs.Var(numbers(&m.Lengths, 0, limits.FleetSeconds), "lengths", "the spike's or the outage's lengths, a comma-separated `list` of durations")
	fs.Var(policies(&m.Policies), "policies", "the client `policies`, comma-separated: no_backoff, backoff_and_jitter (Brooker's two: no backoff, or a wait uniform in [0, b], b = 20 s doubling)")
	fs.Var(&trigger, "trigger", "the `trigger`: spike (to each -heights for each -lengths), outage (every call fails at once for each -lengths) or stall (every call held to the outage's end)")
	fs.Var(flagval.DurationVar(&m.From), "from", "the trigger starts at this `time`")
	fs.Var(flagval.DurationVar(&m.After), "after", "each run goes on for this `duration` after the trigger ends (at least 10s, one recovery window)")
	intro := fmt.Sprintf(help, metastable.MaxMapAxis, metastable.MaxMapCells, limits.FleetReplicates, float64(limits.FleetEvents), limits.FleetBytes>>30)
	if err := r.Parse(args, intro, nil, stdout); err != nil {
		return nil, err
	}
	switch trigger.V {
	case "outage", "stall":
		if r.Given["heights"] {
			return nil, flagval.Usage(fmt.Errorf("-heights: an outage has no height; drop it or use -trigger spike"))
		}
		m.Outage, m.Heights = true, []float64{0}
		if trigger.V == "stall" {
			m.Base.Outage.Mode = fleet.Stall
		}
	}
	if err := m.Check(); err != nil {
		return nil, flagval.Usage(fleetMapFlagError(err))
	}
	if err := r.checkOutputs(); err != nil {
		return nil, err
	}
	names := make([]string, len(m.Policies))
	for i, p := range m.Policies {
		names[i] = p.Name
	}
	if err := r.require(render.MapFigureKeys(), names); err != nil {
		return nil, err
	}
	cells := m.Cells()
	for _, c := range cells {
		if err := (fleet.Options{Replicates: r.Replicates.V}).Check(c.Duration.Seconds()); err != nil {
			return nil, flagval.Usage(err)
		}
	}
	opts := r.Options(stderr)
	run := func(ctx context.Context, lo, hi int) ([][]stats.Observation, error) {
		if err := fleetrun.Fleet().CheckCost(cells[lo:hi], opts); err != nil { // the slice's: a merge runs none
			return nil, flagval.Usage(FlagError(err, Names{"replicates": "-replicates", "duration": "-after", "*": "-heights (%s)"}, nil)) // the cells' duration by -after, the load in flight at the peak by -heights
		}
		return metastable.RunMap(ctx, cells[lo:hi], opts)
	}
	check := func(k int, obs *[]stats.Observation) error {
		return fleetrun.Fleet().CheckObservations(&cells[k], *obs, r.Replicates.V)
	}
	finish := func(ctx context.Context, obs [][]stats.Observation) error {
		main, pic, rows, err := r.O.Renderer(stdout).MapOutputs(m, cells, obs, r.Replicates.V, uint64(r.Seed), filepath.Ext(r.Plot.Path))
		if err != nil {
			return err
		}
		return r.Write(ctx, stdout, func() []tune.Row { return tune.FigureRows(rows) }, main, nil, pic)
	}
	return Work(r, "cells", nil, shardrun.Items[[]stats.Observation]{N: len(cells), Run: run, Check: check, Finish: finish}), nil
}

// fleetMapFlagError is Map.Check's refusal in the command's words: a field
// of the map is named by its flag (rates as -rates; the axes together as
// -policies x -lengths x -heights x -rates), and a cell's own setting,
// which no flag of this command gives, as "cell NAME: path: why".
func fleetMapFlagError(err error) error {
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	if rest, ok := strings.CutPrefix(fe.Field, "cells["); ok && strings.Contains(rest, "].") {
		i := strings.LastIndex(rest, "].")
		return fmt.Errorf("cell %s: %s: %s", rest[:i], rest[i+2:], fe.Msg)
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
