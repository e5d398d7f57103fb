package retrysim_test

import (
	"context"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/strategy"
)

// TestHooks calls every hook package retrysim hands jobapi, each once with
// the value its doc names, so that a hook left unset or given another type
// fails here by name rather than in the command.
func TestHooks(t *testing.T) {
	ctx := context.Background()
	strategies := []strategy.Strategy{strategy.Retry{Attempts: 3}}
	e := retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: strategies, Jobs: 1000, Seed: 1}
	rep, err := retrysim.Run(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if got := jobapi.Results(rep, false, false); len(got.Rows) != 1 || got.Rows[0].Jobs != 1000 {
		t.Errorf("Results: %d rows, %+v; want one of 1000 jobs", len(got.Rows), got.Rows)
	}
	if got := e.Params(); got.Jobs != 1000 || got.Attempts != 3 {
		t.Errorf("Params: %d jobs, attempts %d; want 1000, 3", got.Jobs, got.Attempts)
	}
	if a, b := jobapi.UnreadStepPolicy(e.Scenario, e.Strategies, 0); a != "" || b != "" {
		t.Errorf("UnreadStepPolicy(0) = %q, %q; want both read (the step sets no policy)", a, b)
	}
	if sh, err := jobapi.RunShard(ctx, e, 0, 1); err != nil || sh.Rows[0].Jobs != 1000 {
		t.Errorf("RunShard = %v; want the one slice of 1000 jobs", err)
	}
	if got := jobapi.RowIDs(strategies); len(got) != 1 || got[0] != rep.Rows[0].ID {
		t.Errorf("RowIDs = %q; want the run's row, %q", got, rep.Rows[0].ID)
	}
	named := e
	*jobapi.ScenarioFile(&named) = "signup.yaml"
	if got := named.Params(); *jobapi.ScenarioFile(&named) != "signup.yaml" || got.File != "signup.yaml" || *jobapi.ScenarioFile(&e) != "" {
		t.Errorf("ScenarioFile: the report's file %q; want signup.yaml, and e's unchanged", got.File)
	}
	if defs := jobapi.Settings(); len(defs) == 0 || defs[0].Name != "p_fail" || defs[0].Default != 0.01 {
		t.Errorf("Settings = %+v; want p_fail first, at the command's 0.01", defs)
	}
	sw := retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: strategies, Seed: 1}, Axes: []retrysim.Axis{{Name: "p_fail", Values: []float64{0.01, 0.02}}, {Name: "jobs", Values: []float64{1000}}}}
	res, err := retrysim.RunSweep(ctx, sw)
	if err != nil {
		t.Fatal(err)
	}
	if got := jobapi.SweepStats(res); len(got.Rows) != 2 || len(got.Swept) != 1 {
		t.Errorf("SweepStats: %d rows, swept %v; want 2 rows, one swept axis", len(got.Rows), got.Swept)
	}
	if got, err := jobapi.RunSweeps(ctx, []retrysim.Sweep{sw}); err != nil || len(got) != 1 || len(got[0].Rows) != 2 {
		t.Errorf("RunSweeps = %d sweeps, %v; want one of 2 rows", len(got), err)
	}
	if got := jobapi.SweepUnread(sw); got["queue.ttl"] != jobapi.UnreadInJobModel || got["p_fail"] != "" {
		t.Errorf("SweepUnread = %v; want queue.ttl unread in the job model, p_fail read", got)
	}
	if n, err := jobapi.SweepPoints(sw); n != 2 || err != nil {
		t.Errorf("SweepPoints = %d, %v; want 2", n, err)
	}
	points, err := jobapi.RunSweepPoints(ctx, sw, 0, 2)
	if err != nil || len(points) != 2 {
		t.Fatalf("RunSweepPoints = %d points, %v; want 2", len(points), err)
	}
	if got, err := jobapi.SweepOf(sw, points); err != nil || len(got.Rows) != 2 {
		t.Errorf("SweepOf = %d rows, %v; want 2", len(got.Rows), err)
	}
	if a, err := jobapi.SweepShown(sw, "jobs"); err != nil || !a.Whole {
		t.Errorf("SweepShown(jobs) = %+v, %v; want a whole number", a, err)
	}
	if v, err := jobapi.SweepValue(sw, "attempts"); err != nil || v != 3 {
		t.Errorf("SweepValue(attempts) = %v, %v; want 3", v, err)
	}
	if w := jobapi.SweepWarning(sw); w != "" {
		t.Errorf("SweepWarning = %q; want none, there being no queue", w)
	}
}

// Row.Counters are the row's integer sums as the outputs print them (the
// json's jobs, failed, calls, repeated_steps, duplicate_users and the
// delivery model's columns), with one by-step count a step of the scenario.
func TestRowCounters(t *testing.T) {
	q := delivery.Defaults()
	e := retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: []strategy.Strategy{strategy.Retry{Attempts: 2}},
		Jobs: 4000, Seed: 3, Delivery: &q}
	rep, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	c, whole := rep.Rows[0].Counters(), jobapi.Results(rep, false, false).Rows[0].Counters
	if c.Jobs != 4000 || c.Jobs != whole.Jobs || c.Failed != whole.Failed || c.Calls != whole.Calls || c.RepeatedSteps != whole.RepeatedSteps ||
		c.DuplicateUsers != whole.DuplicateUsers || c.SideEffects != whole.SideEffects || c.Deliveries != whole.Deliveries || c.LostWork != whole.LostWork {
		t.Errorf("Counters = %+v; want the report's %+v", c, whole)
	}
	if len(c.TwiceByStep) != 10 || len(c.RepeatedByStep) != 10 || c.TwiceByStep[6] != whole.TwiceByStep[6] || c.RepeatedByStep[6] != whole.RepeatedByStep[6] {
		t.Errorf("by step: %v, %v; want the sign-up's 10 steps, step 7's %d and %d", c.TwiceByStep, c.RepeatedByStep, whole.TwiceByStep[6], whole.RepeatedByStep[6])
	}
	if c.Deliveries == 0 || c.SideEffects == 0 {
		t.Errorf("deliveries %d, side effects %d; want some of each in the delivery model", c.Deliveries, c.SideEffects)
	}
}
