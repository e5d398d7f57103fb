package retrysim

import (
	"context"
	"slices"
	"strconv"
	"strings"

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
	// Name is one of stats.Axes' names: p_fail, lost_reply, attempts, jobs.
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

// grid is the sweep's four axes in stats.Axes order, defaults filled in.
func (s Sweep) grid() ([]sweep.Axis, error) {
	grid := make([]sweep.Axis, len(stats.Axes()))
	for i, a := range stats.Axes() {
		grid[i] = sweep.Axis{Name: a.Name, Values: []float64{sweepDefaults[i]}}
	}
	var given []string
	for _, a := range s.Axes {
		i := slices.IndexFunc(stats.Axes(), func(x stats.Axis) bool { return x.Name == a.Name })
		switch {
		case i < 0:
			return nil, fieldErr("axes", "unknown parameter %q (want p_fail, lost_reply, attempts or jobs)", a.Name)
		case slices.Contains(given, a.Name):
			return nil, fieldErr(a.Name, "given twice")
		case len(a.Values) == 0:
			return nil, fieldErr(a.Name, "no values")
		}
		for _, v := range a.Values {
			if err := sweepSpecs[i].Check(v); err != nil {
				return nil, fieldErr(a.Name, "%v", err)
			}
		}
		given = append(given, a.Name)
		grid[i].Values = a.Values
	}
	return grid, nil
}

// RunSweep runs every point of the sweep and returns its rows, a row a point
// and strategy, the first axis varying slowest. A grid of more than
// MaxSweepPoints points or MaxSweepRows rows is refused before any work: as
// a *FieldError whose Field is the swept parameters joined by " x " and whose
// message gives their lengths, or for the rows with Field "strategies".
func RunSweep(ctx context.Context, s Sweep) (stats.Sweep, error) {
	grid, err := s.grid()
	if err != nil {
		return stats.Sweep{}, err
	}
	swept := sweep.Swept(grid)
	points, err := sweep.Grid(grid)
	if err != nil {
		var names, lens []string
		for _, i := range swept {
			names = append(names, grid[i].Name)
			lens = append(lens, strconv.Itoa(len(grid[i].Values)))
		}
		return stats.Sweep{}, fieldErr(strings.Join(names, " x "), "%s = %v", strings.Join(lens, " x "), err)
	}
	if len(s.Strategies) == 0 {
		return stats.Sweep{}, fieldErr("strategies", "none given")
	}
	if rows := len(points) * len(s.Strategies); rows > sweep.MaxRows {
		return stats.Sweep{}, fieldErr("strategies", "%d points x %d strategies = %d rows is more than the %d a sweep allows", len(points), len(s.Strategies), rows, sweep.MaxRows)
	}
	metric := s.Metric
	if metric == "" {
		metric = "failed_rate"
	}
	m, err := stats.LookupMetric(metric)
	if err != nil {
		return stats.Sweep{}, fieldErr("metric", "%v", err)
	}
	cfgs := make([]sim.Config, len(points))
	for k, pt := range points {
		e := Experiment{Scenario: provider.Signup(pt[0], pt[1]), Jobs: int64(pt[3]), Seed: s.Seed,
			Generator: s.Generator, Engine: s.Engine}
		for _, id := range s.Strategies {
			st, err := strategy.Parse(id, int(pt[2]))
			if err != nil {
				return stats.Sweep{}, fieldErr("strategies", "%v", err)
			}
			e.Strategies = append(e.Strategies, st)
		}
		if err := e.Check(); err != nil {
			return stats.Sweep{}, err
		}
		cfgs[k] = e.config(0, sim.Shard{})
	}
	out := stats.Sweep{
		Scenario:   cfgs[0].Scenario.Name,
		RNG:        cfgs[0].Generator.Name,
		Engine:     cfgs[0].Engine.Resolve(cfgs[0].Generator).String(),
		Seed:       s.Seed,
		Swept:      swept,
		Metric:     m,
		Strategies: s.Strategies,
		Rows:       make([]stats.SweepRow, len(points)*len(s.Strategies)),
	}
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
			if row := &out.Rows[k*n+i]; row.RepeatedSteps == 0 {
				r := cfgs[k].Strategies[i].(strategy.Retry)
				row.NoRepeats = r.Expect(cfgs[k].Scenario).RepeatedPerJob == 0
			}
		}
	}
	return out, nil
}
