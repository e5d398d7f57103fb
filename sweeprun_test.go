package retrysim_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// budget is a strategy of a program's own, as a user writes one: retry each
// step with the same key, within a budget of retries for the whole job.
type budget struct{ retries int }

func (b budget) Name() string  { return fmt.Sprintf("same key, %d retries a job", b.retries) }
func (budget) UsesStore() bool { return false }
func (b budget) Run(c strategy.Calls) bool {
	return b.resume(c, 0)
}

// resume drives a delivery from step from on, the steps before it each
// called once with success (strategy.Straight's Resume).
func (b budget) resume(c strategy.Calls, from int) bool {
	left := b.retries
	for i := from; i < c.Steps(); i++ {
		if c.Enter(i) {
			continue
		}
		for n := 0; c.Call(i, 1) != provider.ReplyOK; n++ {
			if left == 0 {
				return false
			}
			left--
			c.Backoff(i, n)
		}
	}
	return true
}

// A sweep's row is a single Run at its point, every counter of it: over a
// scenario file with its queue (the delivery model's deliveries, lost work
// and times, the side effects by step), with settings held at every point,
// replicates pooled, a strategy of the program's own, and two retries that
// differ only in their attempts, each its own row. The engine is named: with
// the program's own strategy (no fast path) auto picks the plain engine for
// the sweep, and for a Run of a built-in retry alone the skip engine.
func TestSweepRowIsRunDelivery(t *testing.T) {
	loaded, err := scenario.LoadJob("examples/signup-queue.yaml")
	if err != nil {
		t.Fatal(err)
	}
	twice := strategy.Retry{Scope: strategy.EachStep, Attempts: 2, Keys: schema.SameKey}
	five := twice
	five.Attempts = 5
	settings := []retrysim.Setting{{Name: "queue.repeat_delay", Value: loaded.Queue.RepeatDelay}, {Name: "queue.crash", Value: 0.01}}
	sw := retrysim.Sweep{Experiment: retrysim.Experiment{Scenario: loaded.Scenario, Delivery: loaded.Queue, Seed: 3, Replicates: 2, Workers: 2, Strategies: []strategy.Strategy{twice, five, budget{4}}, Engine: "plain"}, Settings: settings, Metric: "lost_work"}
	if err := sw.Set("queue.ttl=1h,72h"); err != nil {
		t.Fatal(err)
	}
	if err := sw.Set("jobs=1500"); err != nil {
		t.Fatal(err)
	}
	var calls [][2]int64
	sw.Experiment.Progress = func(done, total int64) { calls = append(calls, [2]int64{done, total}) }
	res, err := retrysim.RunSweep(context.Background(), sw)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Stats()
	// Progress counts points, one call a point, as its doc says (it counted
	// blocks of jobs before).
	if want := [][2]int64{{1, 2}, {2, 2}}; !slices.Equal(calls, want) {
		t.Errorf("Progress calls %v; want %v", calls, want)
	}
	wantIDs := []string{"step-samekey-2attempts", "step-samekey-5attempts", "same key, 4 retries a job"}
	if !slices.Equal(s.Strategies, wantIDs) || s.Rows[1].Label != "Retry each step, same key every time, 5 attempts" {
		t.Errorf("strategies %q, label %q; want %q and the attempts in the label", s.Strategies, s.Rows[1].Label, wantIDs)
	}
	if s.Metric.Name != "lost_work" || len(s.StepNames) != 10 {
		t.Errorf("metric %q, %d step names; want lost_work and 10", s.Metric.Name, len(s.StepNames))
	}
	if len(s.Rows) != 6 {
		t.Fatalf("%d rows; want 6", len(s.Rows))
	}
	for k, ttl := range []float64{3600, 72 * 3600} {
		sc, q, err := retrysim.Override(loaded.Scenario, loaded.Queue, append(settings, retrysim.Setting{Name: "queue.ttl", Value: time.Duration(ttl) * time.Second})...)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: sc, Delivery: q, Jobs: 1500, Seed: 3, Replicates: 2, Engine: "plain",
			Strategies: []strategy.Strategy{twice}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		rep5, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: sc, Delivery: q, Jobs: 1500, Seed: 3, Replicates: 2, Engine: "plain",
			Strategies: []strategy.Strategy{five, budget{4}}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []retrysim.Row{rep.Rows[0], rep5.Rows[0], rep5.Rows[1]} {
			row := s.Rows[k*3+i]
			if row.Point[len(row.Point)-1] != ttl {
				t.Fatalf("row %d at %v; want queue.ttl %v last", k*3+i, row.Point, ttl)
			}
			got := row.Row()
			if !reflect.DeepEqual(got.Counters, *want.Stats()) || !reflect.DeepEqual(got.Replicates, want.Replicates()) {
				t.Errorf("%s at ttl %vs: sweep's counters and replicates differ from Run's", row.ID, ttl)
			}
			if got.LostWork == 0 && got.Deliveries == 0 {
				t.Errorf("%s at ttl %vs: no deliveries", row.ID, ttl)
			}
		}
	}
}

// Set takes the four axes of stats.Axes by name, as the flags give them.
func TestSweepSetAxes(t *testing.T) {
	var sw retrysim.Sweep
	for _, arg := range []string{"jobs=100,200", "attempts=1:3:3", "p_fail=0.1"} {
		if err := sw.Set(arg); err != nil {
			t.Errorf("Set(%q) = %v", arg, err)
		}
	}
	want := []retrysim.Axis{{Name: "jobs", Values: []float64{100, 200}}, {Name: "attempts", Values: []float64{1, 2, 3}}, {Name: "p_fail", Values: []float64{0.1}}}
	if !reflect.DeepEqual(sw.Axes, want) {
		t.Errorf("axes %v; want %v", sw.Axes, want)
	}
	for arg, msg := range map[string]string{
		"jobs=0":        "jobs: 0 is not a whole number from 1 to 1e+12",
		"attempts=2.5":  "attempts: 2.5 is not a whole number from 1 to 1000",
		"lost_reply=-1": "lost_reply: -1 is not a probability in [0, 1]",
	} {
		if err := sw.Set(arg); err == nil || err.Error() != msg {
			t.Errorf("Set(%q) = %v; want %q", arg, err, msg)
		}
	}
	// The attempts axis sets every strategy.Retry's: two that differ only
	// in their attempts would become one.
	sw = retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: []strategy.Strategy{strategy.Retry{Attempts: 2}, strategy.Retry{Attempts: 4}}}, Axes: []retrysim.Axis{{Name: "attempts", Values: []float64{2, 3}}}}
	if _, err := sw.Check(); err == nil || err.Error() != "strategies: two strategies differ only in their attempts, which the attempts axis sets for both" {
		t.Errorf("Check = %v; want the two strategies refused", err)
	}
}

// Every column of the table is a metric of a sweep: each watched step's by
// its name, and the delivery model's only when it runs.
func TestSweepMetrics(t *testing.T) {
	watched := []stats.Watch{{Step: 1, Name: "charge the card"}, {Step: 3, Name: "send the receipt"}}
	var names []string
	for _, m := range stats.SweepMetrics(watched, true) {
		names = append(names, m.Name)
	}
	want := []string{"succeeded", "failed_rate", "calls_per_job", "repeated_per_job", "duplicate_rate",
		"steps[charge the card].duplicate_rate", "steps[send the receipt].duplicate_rate",
		"deliveries_per_job", "lost_work", "completion_p50", "completion_p95", "completion_p99",
		"failed_completion_p50", "failed_completion_p95", "failed_completion_p99"}
	if !slices.Equal(names, want) {
		t.Errorf("SweepMetrics = %q; want %q", names, want)
	}
	var c stats.Counters
	c.Jobs, c.DuplicateUsers, c.TwiceByStep[3], c.LostWork, c.Deliveries = 200, 10, 30, 50, 260
	row := stats.Row{Counters: c}
	for name, v := range map[string]float64{"steps[charge the card].duplicate_rate": 0.05, "steps[send the receipt].duplicate_rate": 0.15,
		"lost_work": 0.25, "deliveries_per_job": 1.3} {
		m, err := stats.LookupSweepMetric(name, watched, true)
		if err != nil || m.Estimate(&row.Counters, row.NoRepeats).Value != v {
			t.Errorf("%s = %v, %v; want %v", name, m.Estimate(&row.Counters, row.NoRepeats).Value, err, v)
		}
	}
	if _, err := stats.LookupSweepMetric("lost_work", watched, false); err == nil || err.Error() != "lost_work is counted by the delivery model only; this sweep runs the job model" {
		t.Errorf("lost_work in the job model: %v", err)
	}
}

// A strategy holding a func, as strategy.Straight does (the opt-in to the
// engines' fast path), sweeps like any other, with or without the
// attempts axis: the sweep once compared the strategies with == to find
// the ones it relabelled, which panics on such a value.
func TestSweepStraightStrategy(t *testing.T) {
	b := budget{retries: 2}
	straight := strategy.Straight{Strategy: b, Resume: b.resume}
	for _, axes := range [][]retrysim.Axis{
		{{Name: "jobs", Values: []float64{1000}}},
		{{Name: "jobs", Values: []float64{1000}}, {Name: "attempts", Values: []float64{2, 3}}},
	} {
		s, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: []strategy.Strategy{straight, strategiesNamed("step-samekey")[0]}}, Axes: axes})
		if err != nil || len(s.Rows) != 2*len(axes) {
			t.Errorf("%d axes: %d rows, %v; want %d rows", len(axes), len(s.Rows), err, 2*len(axes))
		}
	}
}

// A sweep's Experiment.Jobs is the jobs of every point the jobs axis does
// not set, and a zero Scenario is the sign-up: each row is the single Run
// of the sign-up at its point, with those jobs.
func TestSweepExperimentJobs(t *testing.T) {
	st := strategy.Retry{Attempts: 2}
	res, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{
		Experiment: retrysim.Experiment{Strategies: []strategy.Strategy{st}, Jobs: 3000, Seed: 5},
		Axes:       []retrysim.Axis{{Name: "p_fail", Values: []float64{0.1, 0.2}}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []float64{0.1, 0.2} {
		row := res.Rows[i].Row()
		rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: provider.Signup(p, 0.005),
			Strategies: []strategy.Strategy{st}, Jobs: 3000, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := row.Counters(), rep.Rows[0].Counters(); !reflect.DeepEqual(got, want) || got.Jobs != 3000 {
			t.Errorf("p_fail %g: the sweep's row %+v; the single run's %+v, of 3000 jobs", p, got, want)
		}
	}
}
