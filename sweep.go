package retrysim

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/closedform"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Axis is one parameter of a sweep and its values, in the order given.
type Axis struct {
	// Name is a fixed axis (p_fail, lost_reply, attempts, jobs) or a scenario parameter as Override
	// names it (queue.ttl; durations in seconds); attempts sets every strategy.Retry's Attempts.
	Name   string
	Values []float64
}

// Sweep is a grid of an experiment's parameters, every point run through every strategy with the
// same seed, so each row equals a single Run at its point.
type Sweep struct {
	// Experiment is what every point runs but for what the axes set. A zero Scenario is the sign-up,
	// whose p_fail (0.01) and lost_reply (0.005) are axes of every sweep; over any other, they set
	// every step only when Axes name them. Jobs 0 is 1,000,000. Progress counts the points done.
	Experiment Experiment
	// Axes give the values of the parameters that vary.
	Axes []Axis
	// Settings are set, as Override sets them, at every point before the axes.
	Settings []Setting
	// Metric names the metric the table formats and plots show (failed_rate, succeeded, calls_per_job,
	// repeated_per_job, duplicate_rate, duplicate_rate_step_N, the delivery model's); empty means
	// failed_rate.
	Metric string
}

// sweepAxis is one axis of the grid as it runs.
type sweepAxis struct {
	sweep.Axis
	show  stats.Axis
	fixed int        // index into stats.Axes, or -1 for a parameter
	param sweepParam // when fixed is -1
}

// base is the scenario every point starts from, and whether it is the built-in sign-up.
func (s Sweep) base() (provider.Scenario, bool) {
	if sc := s.Experiment.Scenario; len(sc.Steps) > 0 || sc.Name != "" {
		return sc, false
	}
	return DefaultScenario(), true
}

// grid is the sweep's axes: the fixed ones, defaults filled in, then the named parameters in order.
func (s Sweep) grid() ([]sweepAxis, error) {
	sc, signup := s.base()
	var grid, params []sweepAxis
	for i, a := range stats.Axes() {
		if signup || i >= 2 || slices.ContainsFunc(s.Axes, func(x Axis) bool { return x.Name == a.Name }) {
			v := jobapi.SweepDefault(i)
			switch {
			case i == 2: // what the strategies allow, when no axis sets it
				v = float64(s.attempts())
			case i == 3 && s.Experiment.Jobs != 0:
				v = float64(s.Experiment.Jobs)
			}
			grid = append(grid, sweepAxis{Axis: sweep.Axis{Name: a.Name, Values: []float64{v}}, show: a, fixed: i})
		}
	}
	named := 0
	for _, a := range s.Axes {
		if !slices.ContainsFunc(stats.Axes(), func(x stats.Axis) bool { return x.Name == a.Name }) {
			named++
		}
	}
	if named > maxSetAxes {
		return nil, fieldErr("axes", "%d parameters are more than the %d a sweep varies by name", named, maxSetAxes)
	}
	var given []string
	for _, a := range s.Axes {
		i := slices.IndexFunc(grid, func(x sweepAxis) bool { return x.Name == a.Name })
		spec := sweep.Spec{}
		var p sweepParam
		switch {
		case i >= 0 && a.Name == "lost_reply" && !slices.ContainsFunc(sc.Steps, func(st provider.Step) bool { return st.CanLoseReply }):
			// as Experiment's unread refuses it for a run: the axis would set nothing
			return nil, fieldErr(a.Name, "no step of the scenario can lose its reply")
		case i >= 0:
			spec = jobapi.SweepSpec(grid[i].fixed)
		default:
			var err error
			if p, err = lookupParam(a.Name, sc, s.Experiment.Delivery); err != nil {
				return nil, err
			}
			spec = p.spec
		}
		switch {
		case slices.Contains(given, a.Name):
			return nil, fieldErr("axes", "%s is given twice", a.Name)
		case len(a.Values) == 0:
			return nil, fieldErr(a.Name, "no values")
		}
		for _, v := range a.Values {
			if err := spec.Check(v); err != nil {
				return nil, fieldErr(a.Name, "%v", err)
			}
		}
		given = append(given, a.Name)
		if i >= 0 {
			grid[i].Values = a.Values
			continue
		}
		params = append(params, sweepAxis{Axis: sweep.Axis{Name: p.Name, Values: a.Values},
			show: stats.Axis{Name: p.Name, Label: p.Name, Whole: p.spec.Kind == sweep.Whole, Duration: p.spec.Kind == sweep.Duration}, fixed: -1, param: p})
	}
	return append(grid, params...), nil
}

// at is the experiment at one grid point, set as flags set a run.
func (s Sweep) at(grid []sweepAxis, pt sweep.Point, strategies []strategy.Strategy) (Experiment, error) {
	e := Experiment{Jobs: int64(jobapi.SweepDefault(3)), Seed: s.Experiment.Seed, Generator: s.Experiment.Generator, Engine: s.Experiment.Engine,
		scenarioFile: s.Experiment.scenarioFile, Replicates: s.Experiment.Replicates}
	attempts := 0 // the strategies' own, unless the attempts axis is named
	over := slices.Clone(s.Settings)
	for k, a := range grid {
		switch a.fixed {
		case 0, 1:
			over = append(over, Setting{Name: a.Name, Value: pt[k]})
		case 2:
			if slices.ContainsFunc(s.Axes, func(x Axis) bool { return x.Name == "attempts" }) {
				attempts = int(pt[k])
			}
		case 3:
			e.Jobs = int64(pt[k])
		}
	}
	for k, a := range grid {
		if a.fixed < 0 {
			over = append(over, Setting{Name: a.Name, Value: a.param.value(pt[k])})
		}
	}
	sc, _ := s.base()
	sc, q, err := Override(sc, s.Experiment.Delivery, over...) // copies sc's steps and the queue
	e.Scenario, e.Delivery = sc, q
	if err == nil {
		e.Strategies = withAttempts(strategies, attempts)
		err = e.Check()
	}
	return e, err
}

// Set adds the axis NAME=VALUES, a fixed axis or a parameter by its path; an error is a
// *schema.FieldError naming it.
func (s *Sweep) Set(arg string) error {
	name, values, _ := strings.Cut(arg, "=")
	name = strings.TrimSpace(name)
	if i := slices.IndexFunc(stats.Axes(), func(a stats.Axis) bool { return a.Name == name }); i >= 0 && strings.Contains(arg, "=") {
		vals, err := sweep.Parse(values, jobapi.SweepSpec(i))
		if err != nil {
			return fieldErr(name, "%v", err)
		}
		s.Axes = append(s.Axes, Axis{Name: name, Values: vals})
		return nil
	}
	sc, _ := s.base()
	p, vals, err := parseSet(arg, sc, s.Experiment.Delivery)
	if err == nil {
		s.Axes = append(s.Axes, Axis{Name: p.Name, Values: vals})
	}
	return err
}

// withAttempts is strategies with every strategy.Retry allowing attempts calls, unchanged for 0.
func withAttempts(strategies []strategy.Strategy, attempts int) []strategy.Strategy {
	if attempts == 0 {
		return strategies
	}
	out := slices.Clone(strategies)
	for i, st := range out {
		if r, ok := st.(strategy.Retry); ok {
			r.Attempts = attempts
			out[i] = r
		}
	}
	return out
}

// named are the sweep's strategies and row IDs, labelled as jobapi.RowNames labels them; relabelled says
// whether any was.
func (s Sweep) named() (out []strategy.Strategy, ids []string, relabelled bool) {
	ids, labels := jobapi.RowNames(s.Experiment.Strategies)
	out = slices.Clone(s.Experiment.Strategies)
	for i, st := range out {
		if r, ok := st.(strategy.Retry); ok && r.Label == "" && labels[i] != r.Name() {
			r.Label = labels[i]
			out[i], relabelled = r, true
		}
	}
	return out, ids, relabelled
}

// attempts is the most attempts a strategy.Retry of the sweep allows, or the default when none is one.
func (s Sweep) attempts() int {
	n := 0
	for _, st := range s.Experiment.Strategies {
		if r, ok := st.(strategy.Retry); ok {
			n = max(n, r.Attempts)
		}
	}
	return cmp.Or(n, int(jobapi.SweepDefault(2)))
}

// plan is a sweep checked and ready to run, a configuration a point and replicate.
type plan struct {
	points []sweep.Point
	cfgs   []sim.Config
	out    stats.Sweep
	unread map[string]string
	warn   string
}

// Check refuses, before any work, every sweep RunSweep would refuse, as a *schema.FieldError, and
// names the axes of more than one value.
func (s Sweep) Check() (swept []string, err error) {
	p, err := s.plan()
	for _, i := range p.out.Swept {
		swept = append(swept, p.out.Axes[i].Name)
	}
	return swept, err
}

// plan checks the sweep and builds its points; a grid too large is refused naming the swept
// parameters (Fields), or "strategies" for its rows.
func (s Sweep) plan() (plan, error) {
	grid, err := s.grid()
	if err != nil {
		return plan{}, err
	}
	axes := make([]sweep.Axis, len(grid))
	shown := make([]stats.Axis, len(grid))
	for k, a := range grid {
		axes[k], shown[k] = a.Axis, a.show
	}
	swept := sweep.Swept(axes)
	points, err := sweep.Grid(axes)
	if err != nil {
		var names, lens []string
		for _, i := range swept {
			names = append(names, grid[i].Name)
			lens = append(lens, strconv.Itoa(len(grid[i].Values)))
		}
		return plan{}, &schema.FieldError{Field: strings.Join(names, " x "), Fields: names, Msg: fmt.Sprintf("%s = %v", strings.Join(lens, " x "), err)}
	}
	if rows := len(points) * len(s.Experiment.Strategies); rows > sweep.MaxRows {
		return plan{}, fieldErr("strategies", "%d points x %d strategies = %d rows is more than the %d a sweep allows", len(points), len(s.Experiment.Strategies), rows, sweep.MaxRows)
	}
	if r := s.Experiment.Replicates; r < 0 || r > jobapi.MaxReplicates {
		return plan{}, fieldErr("replicates", "%d is not a whole number from 1 to %d", r, jobapi.MaxReplicates)
	}
	reps := max(1, s.Experiment.Replicates)
	if runs := len(points) * reps; runs > sweep.MaxPoints {
		return plan{}, fieldErr("replicates", "%d points x %d replicates = %d runs is more than the %d a sweep allows", len(points), reps, runs, sweep.MaxPoints)
	}
	strategies, ids, relabelled := s.named()
	if relabelled && slices.ContainsFunc(s.Axes, func(x Axis) bool { return x.Name == "attempts" }) {
		return plan{}, fieldErr("strategies", "two strategies differ only in their attempts, which the attempts axis sets for both")
	}
	var p plan
	cfgs := make([]sim.Config, len(points)*reps)
	var e Experiment
	var unread map[string]string
	for k, pt := range points {
		if e, err = s.at(grid, pt, strategies); err != nil {
			return plan{}, err
		}
		for r := range reps {
			cfgs[k*reps+r] = e.config(r, sim.Shard{})
		}
		if q := e.Delivery; q != nil && p.warn == "" {
			p.warn = q.Warning(e.Scenario, e.Strategies)
		}
		if k == 0 {
			unread = e.unread()
		} else { // unread by the sweep only if unread at every point
			here := e.unread()
			maps.DeleteFunc(unread, func(name, _ string) bool { return here[name] == "" })
		}
	}
	par := e.params()
	m, err := stats.LookupSweepMetric(cmp.Or(s.Metric, "failed_rate"), par.Watched, e.Delivery != nil)
	if err != nil {
		return plan{}, fieldErr("metric", "%v", err)
	}
	out := stats.Sweep{
		Scenario:   cfgs[0].Scenario.Name,
		RNG:        cfgs[0].Generator.Name,
		Engine:     cfgs[0].EngineUsed().String(),
		File:       s.Experiment.scenarioFile,
		Axes:       shown,
		Seed:       s.Experiment.Seed,
		Swept:      swept,
		Metric:     m,
		Strategies: ids,
	}
	if len(par.Watched) > 1 {
		out.Watched = par.Watched
	}
	if e.Delivery != nil {
		for _, st := range e.Scenario.Steps {
			out.StepNames = append(out.StepNames, st.Name)
		}
	}
	p.points, p.cfgs, p.out, p.unread = points, cfgs, out, unread
	return p, nil
}

// SweepResult is what a sweep measured: a row a point and strategy, the
// first axis varying slowest.
type SweepResult struct {
	Rows  []SweepRow
	sweep stats.Sweep
}

// SweepRow is one strategy at one point of a sweep; Row gives it back whole.
type SweepRow struct {
	// Point is the row's value on each axis: p_fail and lost_reply (when they are axes), attempts,
	// jobs, then the named parameters.
	Point []float64
	// ID is the strategy's short name, Label the name people read.
	ID, Label string
	row       stats.SweepRow
	steps     int
}

// Row is what a single Run at the row's point reports for its strategy.
func (r *SweepRow) Row() Row {
	full := r.row.Row()
	return Row{ID: r.ID, Label: r.Label, counters: full.Counters, noRepeats: full.NoRepeats, replicates: full.Replicates, steps: r.steps}
}

// stats is the sweep as the outputs render it.
func (res *SweepResult) stats() stats.Sweep {
	out := res.sweep
	out.Rows = make([]stats.SweepRow, len(res.Rows))
	for i := range res.Rows {
		out.Rows[i] = res.Rows[i].row
	}
	return out
}

// RunSweep runs every point of the sweep, refusing first what Check refuses, and returns a row a
// point and strategy, the first axis varying slowest.
func RunSweep(ctx context.Context, s Sweep) (SweepResult, error) {
	p, err := s.plan()
	if err != nil {
		return SweepResult{}, err
	}
	out := p.out
	out.Rows = make([]stats.SweepRow, len(p.points)*len(s.Experiment.Strategies))
	err = p.run(ctx, s, 0, len(p.points), func(k int, reps [][]stats.Counters) { p.fill(&out, k, reps) })
	if err != nil {
		return SweepResult{}, err
	}
	p.noRepeats(&out)
	res := SweepResult{Rows: make([]SweepRow, len(out.Rows)), sweep: out}
	for i := range out.Rows {
		r := &out.Rows[i]
		res.Rows[i] = SweepRow{Point: r.Point, ID: r.ID, Label: r.Label, row: *r, steps: p.steps()}
	}
	res.sweep.Rows = nil
	return res, nil
}

func (p plan) steps() int { return len(p.cfgs[0].Scenario.Steps) }

func runSweepPoints(ctx context.Context, s Sweep, lo, hi int) ([]jobapi.SweepPoint, error) {
	p, err := s.plan()
	if err != nil {
		return nil, err
	}
	if lo < 0 || lo > hi || hi > len(p.points) {
		return nil, fieldErr("points", "%d to %d is not a slice of the %d points", lo, hi, len(p.points))
	}
	out := make([]jobapi.SweepPoint, hi-lo)
	err = p.run(ctx, s, lo, hi, func(k int, reps [][]stats.Counters) {
		if len(reps) == 1 { // run's own until this call returns
			reps = [][]stats.Counters{slices.Clone(reps[0])}
		}
		out[k-lo].Replicates = reps
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func sweepOf(s Sweep, points []jobapi.SweepPoint) (stats.Sweep, error) {
	p, err := s.plan()
	if err != nil {
		return stats.Sweep{}, err
	}
	n, reps := len(s.Experiment.Strategies), len(p.cfgs)/len(p.points)
	if len(points) != len(p.points) {
		return stats.Sweep{}, fieldErr("points", "%d given; the grid has %d", len(points), len(p.points))
	}
	for k, pt := range points {
		if len(pt.Replicates) != reps {
			return stats.Sweep{}, fieldErr("points", "point %d holds %d replicates; the sweep runs %d", k, len(pt.Replicates), reps)
		}
		for r, cs := range pt.Replicates {
			if len(cs) != n {
				return stats.Sweep{}, fieldErr("points", "point %d, replicate %d holds %d strategies' counters; the sweep runs %d", k, r, len(cs), n)
			}
			cfg := p.cfgs[k*reps+r]
			for i := range cs {
				c := &cs[i] // by index: Counters are 89 KB
				if c.Jobs != cfg.Jobs {
					return stats.Sweep{}, fieldErr("points", "point %d, replicate %d, strategy %d ran %d jobs; the point runs %d", k, r, i, c.Jobs, cfg.Jobs)
				}
				if err := checkPointCounters(cfg, c); err != nil {
					return stats.Sweep{}, fieldErr("points", "point %d, replicate %d, strategy %d: %v", k, r, i, err)
				}
			}
		}
	}
	out := p.out
	out.Rows = make([]stats.SweepRow, len(p.points)*n)
	for k, pt := range points {
		p.fill(&out, k, pt.Replicates)
	}
	p.noRepeats(&out)
	return out, nil
}

// checkPointCounters refuses counters no strategy's run of cfg can produce.
func checkPointCounters(cfg sim.Config, c *stats.Counters) error {
	var deliveries int64
	if q := cfg.Delivery; q != nil {
		deliveries = int64(q.MaxDeliveries)
		if q.RepeatP > 0 { // a request sent twice is a second message
			deliveries *= 2
		}
	}
	return c.Check(len(cfg.Scenario.Steps), 0, deliveries)
}

// run runs points lo to hi-1 and calls done, one call at a time, with each point's replicates'
// counters, lent only until done returns.
func (p plan) run(ctx context.Context, s Sweep, lo, hi int, done func(k int, reps [][]stats.Counters)) error {
	reps := len(p.cfgs) / len(p.points)
	counters := make([][][]stats.Counters, hi-lo)
	left := make([]int, hi-lo)
	var finished int64
	return sim.RunEach(ctx, p.cfgs[lo*reps:hi*reps], s.Experiment.Workers, nil, func(c int, cs []stats.Counters) {
		k, r := c/reps, c%reps
		if counters[k] == nil {
			counters[k], left[k] = make([][]stats.Counters, reps), reps
		}
		if reps == 1 { // cs is RunEach's until this call returns: no copy
			counters[k][r] = cs
		} else {
			counters[k][r] = slices.Clone(cs)
		}
		if left[k]--; left[k] > 0 {
			return
		}
		done(lo+k, counters[k])
		counters[k] = nil
		if finished++; s.Experiment.Progress != nil {
			s.Experiment.Progress(finished, int64(hi-lo))
		}
	})
}

// fill sets point k's rows of out, pooling its replicates.
func (p plan) fill(out *stats.Sweep, k int, reps [][]stats.Counters) {
	n := len(out.Strategies)
	cfg := p.cfgs[k*len(reps)]
	var sum *stats.Counters // 89 KB: only when there are replicates to pool
	for i, id := range out.Strategies {
		row := &out.Rows[k*n+i]
		pooled := &reps[0][i]
		if len(reps) > 1 {
			if sum == nil {
				sum = new(stats.Counters)
			}
			*sum, pooled = stats.Counters{}, sum
			row.Replicates = make([]stats.Values, len(reps))
			for r, cs := range reps {
				pooled.Add(&cs[i])
				row.Replicates[r] = stats.ValuesOf(&cs[i])
			}
		}
		row.Point, row.ID, row.Label = stats.Point(p.points[k]), id, cfg.Strategies[i].Name()
		row.SetCounters(pooled)
	}
}

// noRepeats sets NoRepeats of rows that saw no repeat, which alone pay for the exact walk.
func (p plan) noRepeats(out *stats.Sweep) {
	n := len(out.Strategies)
	reps := len(p.cfgs) / len(p.points)
	for k := range p.points {
		cfg := p.cfgs[k*reps]
		for i := range n {
			row := &out.Rows[k*n+i]
			if r, ok := cfg.Strategies[i].(strategy.Retry); ok && row.RepeatedSteps == 0 && cfg.Delivery == nil {
				row.NoRepeats = closedform.Retry(r, cfg.Scenario).RepeatedPerJob == 0
			}
		}
	}
}
