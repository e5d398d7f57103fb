package jobcmd

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/internal/tune"
)

// sweepRun is a parsed sweep command.
type sweepRun struct {
	*jobFlags
	sw      api.Sweep
	opts    render.PlotOptions
	byName  []string // the settings -set names, as it names them
	watched []stats.Watch
}

// Sweep parses the table sweep's flags into its run, a point an item; help
// is its -help text.
func Sweep(args []string, help string, stdout, stderr io.Writer) (*shardrun.Work, error) {
	r, err := parseSweepRun(args, help, stdout, stderr)
	if err != nil {
		return nil, err
	}
	sw := r.sw
	n, err := jobapi.SweepPoints(sw)
	if err != nil {
		return nil, flagval.LibraryError(err, r.byName...)
	}
	echo, err := shardrun.ScenarioDigest(*jobapi.ScenarioFile(&sw.Experiment))
	if err != nil {
		return nil, err
	}
	run := func(ctx context.Context, lo, hi int) ([]jobapi.SweepPoint, error) {
		points, err := jobapi.RunSweepPoints(ctx, sw, lo, hi)
		return points, flagval.LibraryError(err, r.byName...) // nil for nil
	}
	finish := func(ctx context.Context, points []jobapi.SweepPoint) error {
		s, err := jobapi.SweepOf(sw, points)
		if err != nil {
			return flagval.Usage(fmt.Errorf("merge: %w", err))
		}
		return r.write(ctx, stdout, s)
	}
	w := cli.Work(r.Run, "points", echo, shardrun.Items[jobapi.SweepPoint]{N: n, Run: run, Check: func(int, *jobapi.SweepPoint) error { return nil }, Finish: finish}) // SweepOf checks every point
	w.Whole = func(ctx context.Context) error {
		res, err := api.RunSweep(ctx, sw)
		if err != nil {
			return flagval.LibraryError(err, r.byName...)
		}
		return r.write(ctx, stdout, jobapi.SweepStats(res))
	}
	return w, nil
}

// write writes a sweep's output and -plot's picture, then judges -require's.
func (r sweepRun) write(ctx context.Context, stdout io.Writer, s stats.Sweep) error {
	s.CI = r.ci
	var doc, pic bytes.Buffer
	if err := r.O.Renderer(stdout).Sweep(&doc, s, r.opts); err != nil {
		return err
	}
	if r.Plot.Path != "" {
		if err := render.PlotSweep(&pic, s, filepath.Ext(r.Plot.Path), r.opts); err != nil {
			return err
		}
	}
	return r.Write(ctx, stdout, func() []tune.Row { return tune.SweepRows(s, r.watched, r.sw.Experiment.Delivery != nil) }, doc.Bytes(), nil, pic.Bytes())
}

// parseSweepRun parses and checks the sweep command's flags.
func parseSweepRun(args []string, help string, stdout, stderr io.Writer) (sweepRun, error) {
	var r sweepRun
	r.jobFlags = newJobFlags("sweep", cli.Usages{Doc: render.SweepDoc, Scenario: "sweep the scenario in YAML `file` (its queue too) instead of the sign-up; -p-fail and -lost-reply then apply only when given, over every step",
		Shard: "run slice `i/n` of the points (0 <= i < n), or auto/n or auto (index, and count, from the environment), and write it as a shard for retrysim merge",
		Plot:  "also draw the metric to `file` (.png or .svg; written as -o is, and not -o's file): a line per strategy against one swept parameter, or heat maps for two"}, "p_fail", "lost_reply") // the axes'
	fs := r.FS
	metric := flagval.Choice{V: "failed_rate", Valid: func(string) error { return nil }} // the library checks it against the scenario
	var sets []string
	var logY, linearY, ownScales bool
	axes := jobapi.SweepAxes()
	values := make([]*flagval.Values, len(axes))
	for i, a := range axes {
		values[i] = flagval.NewValues(strconv.FormatFloat(a.Default, 'f', -1, 64), a.Parse)
		fs.Var(values[i], flagval.FlagOf(a.Name), a.Usage)
	}
	fs.Var(&metric, "metric", "the `metric` the table formats and -plot show (csv and json carry every one): succeeded, failed_rate, calls_per_job, repeated_per_job, duplicate_rate, steps[STEP].duplicate_rate of a watched step, or with the delivery model deliveries_per_job, lost_work, completion_p50, _p95, _p99, failed_completion_p50, _p95 or _p99")
	for name, why := range map[string]string{
		"expect": "a sweep shows no closed forms; run retrysim -expect at a point of it",
		"preset": "a preset runs its own cases, not a grid; run retrysim -preset",
	} {
		fs.Var(flagval.NotHere(why), name, "")
	}
	fs.Var(flagval.Repeated(func(s string) error {
		sets = append(sets, s)
		return nil
	}), "set", "vary a numeric parameter of the scenario by `name=values`: steps[STEP].p_fail, .lost_reply, .latency or .attempts (the step's own), or queue.ttl, .lease, .visibility, .repeat_delay, .backoff.base, .backoff.cap, .max_deliveries, .max_crashes, .repeat or .crash (durations as 1h or 250ms; a latency or repeat_delay is a fixed one, replacing a lognormal median:p99); repeat for several, at most 8")
	fs.BoolVar(&logY, "log-y", false, "draw -plot's line plot on a log y axis (by default: when the values span more than two decades)")
	fs.BoolVar(&linearY, "linear-y", false, "draw -plot's line plot on a linear y axis")
	fs.BoolVar(&ownScales, "own-scales", false, "give each of -plot's heat maps its own colour scale (by default they share one, so a colour is the same value in every panel)")
	if err := r.Parse(args, help, nil, stdout); err != nil {
		return r, err
	}
	file, sc, q, err := r.load()
	if err != nil {
		return r, err
	}
	// -strategies has checked each; the attempts axis sets their attempts.
	strategies, _ := api.ParseStrategies(r.strategies, int(axes[2].Default))
	sw := api.Sweep{Experiment: api.Experiment{Strategies: strategies, Seed: uint64(r.Seed), Generator: r.rng.V,
		Engine: r.engine.String(), Replicates: r.Replicates.V, Workers: r.Workers.V, Delivery: q,
		Progress: outfile.Progress(stderr, "sweep")}, Metric: metric.V}
	*jobapi.ScenarioFile(&sw.Experiment) = r.Scenario
	if file != nil { // the sign-up's takes no time
		sw.Experiment.Scenario = sc
	}
	for _, st := range flagval.GivenSettings(fs, sw.Experiment.Delivery != nil) {
		if st.Name != "p_fail" && st.Name != "lost_reply" { // the axes'
			sw.Settings = append(sw.Settings, st)
		}
	}
	fs.Visit(func(f *flag.Flag) { // an axis not given takes its default, as the flag's
		if i := slices.IndexFunc(axes, func(a jobapi.SweepAxis) bool { return flagval.FlagOf(a.Name) == f.Name }); i >= 0 {
			sw.Axes = append(sw.Axes, api.Axis{Name: axes[i].Name, Values: values[i].V})
		}
	})
	var byName []string // a setting -set names is named as -set gave it, not by its flag
	for _, arg := range sets {
		if err := sw.Set(arg); err != nil {
			return r, flagval.SetError(err)
		}
		if name := sw.Axes[len(sw.Axes)-1].Name; r.Given[flagval.FlagOf(name)] && !strings.Contains(name, "[") {
			return r, flagval.Usage(fmt.Errorf("-%s: -set %s varies it; give one of the two", flagval.FlagOf(name), name))
		}
		name, _, _ := strings.Cut(arg, "=")
		byName = append(byName, strings.TrimSpace(name))
	}
	swept, err := sw.Check()
	if err != nil {
		return r, flagval.LibraryError(err, byName...)
	}
	unread := flagval.UnreadFlags(jobapi.SweepUnread(sw))
	if err := r.refuseUnread(file, unread, sw.Experiment.Delivery != nil, api.Experiment{Scenario: sc, Strategies: strategies}); err != nil {
		return r, err
	}
	r.watched = jobapi.Watches(sc)
	if err := shardrun.CheckRequire(r.Reqs, tune.Metrics(r.watched, sw.Experiment.Delivery != nil), jobapi.RowIDs(strategies)); err != nil {
		return r, err
	}
	if r.Shard.Count > 0 && len(r.Reqs) > 0 {
		return r, flagval.Usage(fmt.Errorf("-require: a shard judges nothing; give -require to the whole sweep"))
	}
	if r.Shard.Count > 0 {
		if err := shardrun.RefuseOutputs(fs, "", r.Plot.Path); err != nil {
			return r, err
		}
		if err := shardrun.RefuseInShard(fs, "metric", "log-y", "linear-y", "own-scales", "ci"); err != nil {
			return r, err
		}
	}
	opts, err := render.NewPlotOptions(r.Plot.Path, r.O.Format.R.Page(), len(swept), logY, linearY, ownScales)
	if err != nil {
		return r, flagval.Usage(err)
	}
	if err := outfile.CheckReading("scenario file", []string{r.Scenario}, r.O.Out, r.Plot); err != nil {
		return r, flagval.Usage(err)
	}
	err = flagval.Refuse(fs, func(n string) string {
		if n != "metric" || !r.O.Format.R.Raw() || r.Plot.Path != "" {
			return ""
		}
		return fmt.Sprintf("%s carries every metric; -metric picks the one a table, markdown or -plot shows", r.O.Format.R.Name())
	})
	if err != nil {
		return r, err
	}
	warnKeysInVain(stderr, r.Scenario, sc, r.strategies, strategies, jobapi.SweepWarning(sw)) // as the table warns
	r.sw, r.opts, r.byName = sw, opts, byName
	return r, nil
}

// ParseSweep is the table sweep's flags parsed, as a search of the table
// reads them: the sweep, and the flags it shares with every kind.
func ParseSweep(args []string, help string, stdout, stderr io.Writer) (api.Sweep, *cli.Run, error) {
	r, err := parseSweepRun(args, help, stdout, stderr)
	return r.sw, r.Run, err
}
