package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/scenario"
	"github.com/retrysim/retrysim/stats"
)

const sweepIntro = `retrysim sweep runs every combination of the listed parameter values through
every strategy. Each of -p-fail, -lost-reply, -attempts and -jobs takes ` + sweep.Forms + `.
-scenario FILE sweeps a scenario file instead of the sign-up (-p-fail and -lost-reply
then apply only when given), and -set NAME=VALUES varies any numeric parameter of
it by name, as in -set 'steps[charge the card].p_fail=0:0.05:11' or
-set queue.ttl=1h,24h,72h (at most 8 -set; their values count in the grid).
Every point uses the same seed, so each row equals a single run at that point.
A grid has at most 10,000 points (the product of the lengths) and 50,000 rows (points x
strategies); a larger one is refused before any work.

Usage: retrysim sweep [flags]

Example: retrysim sweep -p-fail 0.001,0.005,0.01,0.02,0.05 -lost-reply 0,0.005,0.02 -format csv

Flags:
`

// axisFlags name the flags of the axes, in stats.Axes order.
var axisFlags = [...]string{"p-fail", "lost-reply", "attempts", "jobs"}

// axisFlag is a flag.Value for one sweep axis.
type axisFlag struct {
	text string
	spec sweep.Spec
	vals []float64
}

func (a *axisFlag) String() string { return a.text }

func (a *axisFlag) Set(s string) error {
	vals, err := sweep.Parse(s, a.spec)
	if err != nil {
		return err
	}
	a.text, a.vals = s, vals
	return nil
}

func newAxis(def string, spec sweep.Spec) *axisFlag {
	a := &axisFlag{spec: spec}
	if err := a.Set(def); err != nil {
		panic(err) // a default that does not parse is a programming error
	}
	return a
}

// sweepCommand runs the grid and writes the long-format rows, a pivot or a plot.
func sweepCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c common
	prob := sweep.Spec{Kind: sweep.Probability}
	axes := []*axisFlag{ // in stats.Axes() order
		newAxis("0.01", prob),
		newAxis("0.005", prob),
		newAxis("3", sweep.Spec{Kind: sweep.Whole, Min: 1, Max: sim.MaxAttempts}),
		newAxis("1000000", sweep.Spec{Kind: sweep.Whole, Min: 1, Max: sim.MaxJobs}),
	}
	metric := flagval.Choice{V: "failed_rate", Valid: func(s string) error { _, err := stats.LookupMetric(s); return err }}
	plot := outfile.File{Flag: "plot"}
	fs := flagval.NewFlagSet("retrysim sweep")
	fs.Var(axes[0], axisFlags[0], "`values` of the probability that a call fails")
	fs.Var(axes[1], axisFlags[1], "`values` of the probability that the welcome email's reply is lost")
	fs.Var(axes[2], axisFlags[2], "`values` of the attempts a retry allows (1 to 1000)")
	fs.Var(axes[3], axisFlags[3], "`values` of the jobs simulated at each point (each 1 to 10^12)")
	fs.Var(&metric, "metric", "the `metric` the table formats and -plot show (csv and json carry every one): succeeded, failed_rate, calls_per_job, repeated_per_job or duplicate_rate")
	fs.StringVar(&plot.Path, "plot", "", "also draw the metric to `file` (.png or .svg; written as -o is, and not -o's file): a line per strategy against one swept parameter, or heat maps for two")
	var scenarioPath string
	fs.StringVar(&scenarioPath, "scenario", "", "sweep the scenario in YAML `file` (its queue too) instead of the sign-up; -p-fail and -lost-reply then apply only when given, over every step")
	var sets setList
	fs.Var(&sets, "set", "vary a numeric parameter of the scenario by `name=values`: steps[STEP].p_fail, .lost_reply, .latency or .attempts (the step's own), or queue.ttl, .lease, .visibility, .repeat_delay, .backoff.base, .backoff.cap, .max_deliveries, .max_crashes, .repeat or .crash (durations as 1h or 250ms); repeat for several, at most 8")
	var logY, linearY, sharedScale bool
	fs.BoolVar(&logY, "log-y", false, "draw -plot's line plot on a log y axis (by default: when the values span more than two decades)")
	fs.BoolVar(&linearY, "linear-y", false, "draw -plot's line plot on a linear y axis")
	fs.BoolVar(&sharedScale, "shared-scale", false, "give -plot's heat maps one colour scale (by default each panel has its own)")
	c.register(fs, render.SweepDoc)
	if err := flagval.Parse(fs, args, sweepIntro, stdout); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var base *provider.Scenario
	var queue *delivery.Config
	if scenarioPath != "" {
		loaded, err := scenario.Load(scenarioPath)
		if err == nil {
			err = loaded.CheckJob()
		}
		if err != nil {
			return flagval.Usage(fmt.Errorf("-scenario %w", err))
		}
		base, queue = &loaded.Scenario, loaded.Queue
	}
	// The grid as the flags give it, each axis named by its flag for errors:
	// the four axes (p_fail and lost_reply over a file only when given),
	// then each -set.
	var grid []sweep.Axis
	var flagOf, sweepName []string
	for i, a := range axes {
		if base != nil && i < 2 && !set[axisFlags[i]] {
			continue
		}
		grid = append(grid, sweep.Axis{Name: stats.Axes()[i].Name, Values: a.vals})
		flagOf, sweepName = append(flagOf, "-"+axisFlags[i]), append(sweepName, stats.Axes()[i].Name)
	}
	sc := provider.Signup(0.01, 0.005)
	if base != nil {
		sc = *base
	}
	for _, arg := range sets {
		p, vals, err := api.ParseSet(arg, sc, queue)
		if err != nil {
			return flagval.Usage(fmt.Errorf("-set: %w", err))
		}
		if slices.Contains(sweepName, p.Name) {
			return flagval.Usage(fmt.Errorf("-set: %s is given twice", p.Name))
		}
		grid = append(grid, sweep.Axis{Name: p.Name, Values: vals})
		flagOf, sweepName = append(flagOf, "-set "+p.Name), append(sweepName, p.Name)
	}
	if len(sets) > api.MaxSetAxes {
		return flagval.Usage(fmt.Errorf("-set: %d parameters are more than the %d a sweep varies by name", len(sets), api.MaxSetAxes))
	}
	swept := sweep.Swept(grid)
	npoints, err := sweep.Size(grid)
	if err != nil {
		var names, lens []string
		for _, i := range swept {
			names = append(names, flagOf[i])
			lens = append(lens, strconv.Itoa(len(grid[i].Values)))
		}
		return flagval.Usage(fmt.Errorf("%s: %s = %w", strings.Join(names, " x "), strings.Join(lens, " x "), err))
	}
	if rows := int(npoints) * len(c.strategies); rows > sweep.MaxRows {
		return flagval.Usage(fmt.Errorf("-strategies: %d points x %d strategies = %d rows is more than the %d a sweep allows", npoints, len(c.strategies), rows, sweep.MaxRows))
	}
	if plot.Path != "" {
		if err := render.CheckPlotPath(plot.Path); err != nil {
			return flagval.Usage(fmt.Errorf("-plot: %w", err))
		}
		if len(swept) < 1 || len(swept) > 2 {
			return flagval.Usage(fmt.Errorf("-plot: a plot needs one or two swept parameters; %d are swept", len(swept)))
		}
	}
	opts, err := plotOptions(plot.Path != "" || c.format.R.Page(), len(swept), logY, linearY, sharedScale)
	if err != nil {
		return err
	}
	if err := outfile.Check(c.out, plot); err != nil {
		return flagval.Usage(err)
	}
	if c.format.R.Raw() {
		var metricSet bool
		fs.Visit(func(f *flag.Flag) { metricSet = metricSet || f.Name == "metric" })
		if metricSet && plot.Path == "" {
			return flagval.Usage(fmt.Errorf("-metric: %s carries every metric; -metric picks the one a table, markdown or -plot shows", c.format.R.Name()))
		}
	}

	var given []api.Axis
	for k, a := range grid {
		given = append(given, api.Axis{Name: sweepName[k], Values: a.Values})
	}
	s, err := api.RunSweep(ctx, api.Sweep{
		Axes: given, Scenario: base, ScenarioFile: scenarioPath, Delivery: queue,
		Strategies: c.strategies, Seed: uint64(c.seed), Generator: c.rng.V, Engine: c.engine.String(),
		Workers: c.workers.V, Metric: metric.V, Progress: outfile.Progress(stderr, "sweep"),
	})
	if err != nil {
		var fe *api.FieldError
		if errors.As(err, &fe) {
			return flagval.Usage(fmt.Errorf("-%s: %s", strings.ReplaceAll(fe.Field, "generator", "rng"), fe.Msg))
		}
		return err
	}
	if plot.Path != "" {
		var img bytes.Buffer
		if err := render.PlotSweep(&img, s, filepath.Ext(plot.Path), opts); err != nil {
			return err
		}
		if err := plot.Write(ctx, stdout, img.Bytes()); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := c.format.R.Sweep(&buf, s, opts); err != nil {
		return err
	}
	return c.out.Write(ctx, stdout, buf.Bytes())
}

// plotOptions checks the flags that shape -plot: each needs -plot and the
// kind of plot it shapes (a line plot for one swept parameter, heat maps for two).
func plotOptions(plotting bool, swept int, logY, linearY, shared bool) (render.PlotOptions, error) {
	var o render.PlotOptions
	for _, f := range []struct {
		name  string
		set   bool
		kind  int
		shape string
	}{{"log-y", logY, 1, "a line plot (one swept parameter)"}, {"linear-y", linearY, 1, "a line plot (one swept parameter)"},
		{"shared-scale", shared, 2, "heat maps (two swept parameters)"}} {
		switch {
		case !f.set:
		case !plotting:
			return o, flagval.Usage(fmt.Errorf("-%s: shapes the picture -plot or -format html draws; give one of them", f.name))
		case swept != f.kind:
			return o, flagval.Usage(fmt.Errorf("-%s: applies to %s; this sweep has %d", f.name, f.shape, swept))
		}
	}
	if logY && linearY {
		return o, flagval.Usage(fmt.Errorf("-linear-y: -log-y asks for the opposite; give one"))
	}
	switch {
	case logY:
		o.Y = render.LogScale
	case linearY:
		o.Y = render.LinearScale
	}
	o.SharedScale = shared
	return o, nil
}

// setList is -set, given once a parameter: NAME=VALUES each time.
type setList []string

func (l *setList) String() string { return strings.Join(*l, " ") }

func (l *setList) Set(s string) error {
	*l = append(*l, s)
	return nil
}
