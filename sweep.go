package retrysim

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/stats"
	"github.com/retrysim/retrysim/strategy"
)

// Limits of a sweep, checked before any work.
const (
	// MaxSweepPoints bounds a grid, the product of its axes' lengths.
	MaxSweepPoints = sweep.MaxPoints
	// MaxSweepRows bounds a sweep's rows, points x strategies.
	MaxSweepRows = sweep.MaxRows
)

// Axis is one parameter of a sweep and its values, in the order given.
type Axis struct {
	// Name is one of stats.Axes' names (p_fail, lost_reply, attempts, jobs)
	// or a parameter of the scenario by name (LookupParam:
	// steps[charge the card].p_fail, queue.ttl; durations in seconds).
	Name   string
	Values []float64
}

// Sweep is a grid of the sign-up's parameters, every point run through every
// strategy with the same seed, so each row equals a single Run at its point.
type Sweep struct {
	// Axes give the values of the parameters that vary; a parameter left out
	// takes the command's default (p_fail 0.01, lost_reply 0.005, attempts 3,
	// jobs 1,000,000).
	Axes []Axis
	// Scenario, when not nil, is what every point runs instead of the
	// sign-up (ScenarioFile names its file, if any): p_fail and lost_reply
	// then apply only when Axes name them, over every step as the command's
	// -p-fail and -lost-reply do over a file. Delivery, when not nil, runs
	// every point through the delivery model (the rows keep the Part 5
	// counters).
	Scenario     *provider.Scenario
	ScenarioFile string
	Delivery     *delivery.Config
	// Strategies are strategy.Parse names, built at each point's attempts.
	Strategies []string
	Seed       uint64
	// Generator, Engine and Workers are as in Experiment.
	Generator, Engine string
	Workers           int
	// Metric names the metric the table formats and plots show (one of
	// stats.Metrics'); empty means failed_rate.
	Metric string
	// Progress, if not nil, is called from the workers as points finish.
	Progress func(done, total int64)
}

// sweepDefaults are the values of an axis a Sweep leaves out, in stats.Axes order.
var sweepDefaults = [...]float64{0.01, 0.005, 3, 1_000_000}

// sweepSpecs are what each axis accepts, in stats.Axes order.
var sweepSpecs = [...]sweep.Spec{
	{Kind: sweep.Probability}, {Kind: sweep.Probability},
	{Kind: sweep.Whole, Min: 1, Max: sim.MaxAttempts}, {Kind: sweep.Whole, Min: 1, Max: sim.MaxJobs},
}

// SweepAxis is one of a sweep's fixed axes as a command declares its flag:
// what its values mean, what each takes, and the value a sweep that leaves
// it out runs.
type SweepAxis struct {
	// Name is the axis's (stats.Axes): p_fail, lost_reply, attempts, jobs.
	Name string
	// Usage is the flag's help, its argument named in backquotes.
	Usage   string
	Default float64
	Spec    sweep.Spec
}

// SweepAxes are a sweep's fixed axes, in stats.Axes order.
func SweepAxes() []SweepAxis {
	usage := [...]string{
		"`values` of the probability that a call fails",
		"`values` of the probability that the welcome email's reply is lost",
		"`values` of the attempts a retry allows (1 to 1000)",
		"`values` of the jobs simulated at each point (each 1 to 10^12)",
	}
	axes := make([]SweepAxis, len(usage))
	for i, a := range stats.Axes() {
		axes[i] = SweepAxis{Name: a.Name, Usage: usage[i], Default: sweepDefaults[i], Spec: sweepSpecs[i]}
	}
	return axes
}

// sweepAxis is one axis of the grid as it runs: its values, how outputs
// show it, and, for a parameter named in the scenario, how a point sets it.
type sweepAxis struct {
	sweep.Axis
	show  stats.Axis
	fixed int   // index into stats.Axes, or -1 for a parameter
	param Param // when fixed is -1
}

// base is the scenario every point starts from, and whether it is the
// built-in sign-up.
func (s Sweep) base() (provider.Scenario, bool) {
	if s.Scenario == nil {
		return Signup(), true
	}
	return *s.Scenario, false
}

// grid is the sweep's axes: the four of stats.Axes, defaults filled in
// (p_fail and lost_reply only when named, with a Scenario), then the
// parameters named in the scenario, in the order given.
func (s Sweep) grid() ([]sweepAxis, error) {
	sc, signup := s.base()
	var grid, params []sweepAxis
	for i, a := range stats.Axes() {
		if signup || i >= 2 || slices.ContainsFunc(s.Axes, func(x Axis) bool { return x.Name == a.Name }) {
			grid = append(grid, sweepAxis{Axis: sweep.Axis{Name: a.Name, Values: []float64{sweepDefaults[i]}}, show: a, fixed: i})
		}
	}
	named := 0
	for _, a := range s.Axes {
		if !slices.ContainsFunc(stats.Axes(), func(x stats.Axis) bool { return x.Name == a.Name }) {
			named++
		}
	}
	if named > MaxSetAxes {
		return nil, fieldErr("axes", "%d parameters are more than the %d a sweep varies by name", named, MaxSetAxes)
	}
	var given []string
	for _, a := range s.Axes {
		i := slices.IndexFunc(grid, func(x sweepAxis) bool { return x.Name == a.Name })
		spec := sweep.Spec{}
		var p Param
		switch {
		case i >= 0 && a.Name == "lost_reply" && !slices.ContainsFunc(sc.Steps, func(st provider.Step) bool { return st.CanLoseReply }):
			// as Experiment.Unread refuses it for a run: the axis would set nothing
			return nil, fieldErr(a.Name, "no step of the scenario can lose its reply")
		case i >= 0:
			spec = sweepSpecs[grid[i].fixed]
		default:
			var err error
			if p, err = LookupParam(a.Name, sc, s.Delivery); err != nil {
				return nil, fieldErr("axes", "%v", err)
			}
			spec = p.Spec
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
		label := p.Name
		if p.Spec.Kind == sweep.Duration {
			label += " (seconds)"
		}
		params = append(params, sweepAxis{Axis: sweep.Axis{Name: p.Name, Values: a.Values},
			show: stats.Axis{Name: p.Name, Label: label, Whole: p.Spec.Kind == sweep.Whole}, fixed: -1, param: p})
	}
	return append(grid, params...), nil
}

// at is the experiment at one grid point. A queue the point's values make
// invalid is refused naming the queue's field as -set does (queue.lease).
func (s Sweep) at(grid []sweepAxis, pt sweep.Point) (Experiment, error) {
	e := Experiment{Jobs: int64(sweepDefaults[3]), Seed: s.Seed, Generator: s.Generator, Engine: s.Engine, ScenarioFile: s.ScenarioFile}
	attempts := int(sweepDefaults[2])
	// p_fail and lost_reply over every step, as the command's flags over a
	// file, then the parameters named: a point is set as flags set a run.
	var over []Setting
	for k, a := range grid {
		switch a.fixed {
		case 0, 1:
			over = append(over, Setting{Name: a.Name, Value: pt[k]})
		case 2:
			attempts = int(pt[k])
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
	sc, q, err := Override(sc, s.Delivery, over...) // copies sc's steps and the queue
	e.Scenario, e.Delivery = sc, q
	if err == nil {
		if e.Strategies, err = ParseStrategies(s.Strategies, attempts); err != nil {
			return e, err
		}
		err = e.Check()
	}
	return e, err
}

// Set adds the axis a -set argument gives, NAME=VALUES (ParseSet, against
// the sweep's scenario and queue); its errors name the parameter.
func (s *Sweep) Set(arg string) error {
	sc, _ := s.base()
	p, vals, err := ParseSet(arg, sc, s.Delivery)
	if err == nil {
		s.Axes = append(s.Axes, Axis{Name: p.Name, Values: vals})
	}
	return err
}

// plan is a sweep checked and ready to run: its points, each one's engine
// configuration, how outputs show it, and the metric.
type plan struct {
	points []sweep.Point
	cfgs   []sim.Config
	out    stats.Sweep
}

// Check refuses, before any work, every sweep RunSweep would refuse, as a
// *FieldError naming the setting (plan's), and names the swept axes, those
// of more than one value.
func (s Sweep) Check() (swept []string, err error) {
	p, err := s.plan()
	for _, i := range p.out.Swept {
		swept = append(swept, p.out.Axes[i].Name)
	}
	return swept, err
}

// plan checks the sweep and builds its points. A grid of more than
// MaxSweepPoints points or MaxSweepRows rows is refused as a *FieldError
// whose Fields are the swept parameters (Field joins them by " x ") and whose message gives
// their lengths, or for the rows with Field "strategies"; a parameter given
// twice, or more than MaxSetAxes of them, with Field "axes".
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
		return plan{}, &FieldError{Field: strings.Join(names, " x "), Fields: names, Msg: fmt.Sprintf("%s = %v", strings.Join(lens, " x "), err)}
	}
	if len(s.Strategies) == 0 {
		return plan{}, fieldErr("strategies", "none given")
	}
	if rows := len(points) * len(s.Strategies); rows > sweep.MaxRows {
		return plan{}, fieldErr("strategies", "%d points x %d strategies = %d rows is more than the %d a sweep allows", len(points), len(s.Strategies), rows, sweep.MaxRows)
	}
	metric := s.Metric
	if metric == "" {
		metric = "failed_rate"
	}
	m, err := stats.LookupMetric(metric)
	if err != nil {
		return plan{}, fieldErr("metric", "%v", err)
	}
	cfgs := make([]sim.Config, len(points))
	for k, pt := range points {
		e, err := s.at(grid, pt)
		if err != nil {
			return plan{}, err
		}
		cfgs[k] = e.config(0, sim.Shard{})
	}
	out := stats.Sweep{
		Scenario:   cfgs[0].Scenario.Name,
		RNG:        cfgs[0].Generator.Name,
		Engine:     cfgs[0].EngineUsed().String(),
		File:       s.ScenarioFile,
		Axes:       shown,
		Seed:       s.Seed,
		Swept:      swept,
		Metric:     m,
		Strategies: s.Strategies,
	}
	return plan{points, cfgs, out}, nil
}

// RunSweep runs every point of the sweep and returns its rows, a row a point
// and strategy, the first axis varying slowest. It refuses what Check
// refuses, before any work.
func RunSweep(ctx context.Context, s Sweep) (stats.Sweep, error) {
	p, err := s.plan()
	if err != nil {
		return stats.Sweep{}, err
	}
	points, cfgs, out := p.points, p.cfgs, p.out
	out.Rows = make([]stats.SweepRow, len(points)*len(s.Strategies))
	// Each point's rows are filled in as the point finishes.
	n := len(s.Strategies)
	err = sim.RunEach(ctx, cfgs, s.Workers, s.Progress, func(k int, counters []stats.Counters) {
		for i, id := range s.Strategies {
			out.Rows[k*n+i] = stats.SweepRow{
				Point: stats.Point(points[k]), ID: id, Label: cfgs[k].Strategies[i].Name(), Core: stats.CoreOf(counters[i]),
			}
		}
	})
	if err != nil {
		return stats.Sweep{}, err
	}
	// NoRepeats matters only to a row that saw no repeat, so only those pay
	// for the exact walk that tells an impossible 0 from a chance one.
	for k := range points {
		for i := range s.Strategies {
			if row := &out.Rows[k*n+i]; row.RepeatedSteps == 0 && cfgs[k].Delivery == nil {
				r := cfgs[k].Strategies[i].(strategy.Retry)
				row.NoRepeats = r.Expect(cfgs[k].Scenario).RepeatedPerJob == 0
			}
		}
	}
	return out, nil
}
