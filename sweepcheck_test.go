package retrysim_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Sweep.Check refuses, before any work, every grid RunSweep would refuse, as
// a *FieldError naming the setting, and names the swept axes.
func TestSweepCheck(t *testing.T) {
	defaults := delivery.Defaults()
	checkout, err := scenario.Load("examples/checkout.yaml")
	if err != nil {
		t.Fatal(err)
	}
	queue, err := scenario.Load("examples/signup-queue.yaml")
	if err != nil {
		t.Fatal(err)
	}
	values := func(n int) []float64 { return make([]float64, n) }
	// the checkout with no step that can lose its reply: a lost_reply axis
	// over it would set nothing
	sure := checkout.Scenario
	sure.Steps = slices.Clone(sure.Steps)
	for i := range sure.Steps {
		sure.Steps[i].CanLoseReply, sure.Steps[i].LostReply = false, 0
	}
	all := []string{"step-nokey", "step-nokey-skip", "step-newkey", "step-newkey-skip", "step-samekey", "step-samekey-skip",
		"job-nokey", "job-nokey-skip", "job-newkey", "job-newkey-skip", "job-samekey", "job-samekey-skip"}
	var nine []string // nine parameters of the checkout by name, each once
	for _, st := range []string{"reserve the inventory", "charge the card", "create the shipment"} {
		for _, f := range []string{"p_fail=0.1", "attempts=2", "latency=1s"} {
			nine = append(nine, fmt.Sprintf("steps[%s].%s", st, f))
		}
	}
	for _, tt := range []struct {
		name       string
		sweep      retrysim.Sweep
		sets       []string
		field, msg string
		wantSwept  []string
	}{
		{name: "101 x 100 points", sweep: retrysim.Sweep{Axes: []retrysim.Axis{{Name: "p_fail", Values: values(101)}, {Name: "lost_reply", Values: values(100)}}},
			field: "p_fail x lost_reply", msg: "101 x 100 = 10100 points is more than the 10000 a sweep allows"},
		{name: "5000 points x 12", sweep: retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: strategiesNamed(all...)}, Axes: []retrysim.Axis{{Name: "p_fail", Values: values(5000)}}},
			field: "strategies", msg: "5000 points x 12 strategies = 60000 rows is more than the 50000 a sweep allows"},
		{name: "nine by name", sweep: retrysim.Sweep{Experiment: retrysim.Experiment{Scenario: checkout.Scenario, Delivery: &defaults}}, sets: nine,
			field: "axes", msg: "9 parameters are more than the 8 a sweep varies by name"},
		{name: "twice", sweep: retrysim.Sweep{Experiment: retrysim.Experiment{Scenario: checkout.Scenario}}, sets: []string{"steps[charge the card].p_fail=0.1", "steps[charge the card].p_fail=0.2"},
			field: "axes", msg: "steps[charge the card].p_fail is given twice"},
		{name: "a lease of 0s", sweep: retrysim.Sweep{Experiment: retrysim.Experiment{Scenario: queue.Scenario, Delivery: queue.Queue}}, sets: []string{"queue.lease=0s,1s"},
			field: "queue.lease", msg: "a lease must be longer than 0s"},
		{name: "lost_reply over no lossy step", sweep: retrysim.Sweep{Experiment: retrysim.Experiment{Scenario: sure}, Axes: []retrysim.Axis{{Name: "lost_reply", Values: []float64{0, 0.1}}}},
			field: "lost_reply", msg: "no step of the scenario can lose its reply"},
		{name: "swept", sweep: retrysim.Sweep{Axes: []retrysim.Axis{{Name: "jobs", Values: []float64{10, 20}}, {Name: "p_fail", Values: []float64{0.1, 0.2}}}},
			wantSwept: []string{"p_fail", "jobs"}},
		{name: "swept by name", sweep: retrysim.Sweep{Experiment: retrysim.Experiment{Scenario: queue.Scenario, Delivery: queue.Queue}}, sets: []string{"queue.ttl=1h,2h"},
			wantSwept: []string{"queue.ttl"}},
	} {
		s := tt.sweep
		if s.Experiment.Strategies == nil {
			s.Experiment.Strategies = strategiesNamed("step-samekey")
		}
		for _, arg := range tt.sets {
			if err := s.Set(arg); err != nil {
				t.Fatalf("%s: Set(%s) = %v", tt.name, arg, err)
			}
		}
		swept, err := s.Check()
		var fe *schema.FieldError
		switch {
		case tt.field == "" && (err != nil || !slices.Equal(swept, tt.wantSwept)):
			t.Errorf("%s: Check = %v, %v; want %v", tt.name, swept, err, tt.wantSwept)
		case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field || !strings.HasPrefix(fe.Msg, tt.msg)):
			t.Errorf("%s: Check = %v; want field %q: %q", tt.name, err, tt.field, tt.msg)
		}
	}
}

// SweepAxes are stats.Axes in order, each at the default -help states and
// a Sweep that leaves it out runs (p_fail 0.01, lost_reply 0.005, attempts
// 3, jobs 1e6), a value its own spec accepts, with a help text naming its
// argument.
func TestSweepAxes(t *testing.T) {
	want := map[string]float64{"p_fail": 0.01, "lost_reply": 0.005, "attempts": 3, "jobs": 1e6}
	axes := jobapi.SweepAxes()
	if len(axes) != len(stats.Axes()) {
		t.Fatalf("%d axes; want %d", len(axes), len(stats.Axes()))
	}
	for i, a := range axes {
		if a.Name != stats.Axes()[i].Name || a.Default != want[a.Name] || !strings.HasPrefix(a.Usage, "`values` of the ") {
			t.Errorf("axis %d = %+v; want %s at %g", i, a, stats.Axes()[i].Name, want[a.Name])
		}
		if v, err := a.Parse(strconv.FormatFloat(a.Default, 'f', -1, 64)); err != nil || len(v) != 1 || v[0] != a.Default {
			t.Errorf("%s: its default parses as %v, %v", a.Name, v, err)
		}
	}
}

// strategiesNamed are the strategies called ids at the command's 3 attempts.
func strategiesNamed(ids ...string) []strategy.Strategy {
	s, err := retrysim.ParseStrategies(ids, 3)
	if err != nil {
		panic(err)
	}
	return s
}

// TestSweepSetFieldError: every value Sweep.Set refuses comes back as a
// *FieldError naming the parameter by its path, as Override's do; before,
// an axis of its own (p_fail, jobs) came back as a wrapped fmt error.
func TestSweepSetFieldError(t *testing.T) {
	for _, tc := range []struct{ arg, field, msg string }{
		{"p_fail=1.5", "p_fail", "1.5 is not a probability in [0, 1]"},
		{"jobs=0", "jobs", "0 is not a whole number"},
		{"steps[save the user].p_fail=2", "steps[save the user].p_fail", "2 is not a probability in [0, 1]"},
		{"queue.ttl=1h", "queue.ttl", "only the delivery model reads it"},
		{"nope=1", "nope", "unknown parameter"},
		{"p_fail", "p_fail", "gives no values"},
	} {
		var sw retrysim.Sweep
		err := sw.Set(tc.arg)
		var fe *schema.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("Set(%q) = %v; want a *FieldError for %s with %q", tc.arg, err, tc.field, tc.msg)
		}
	}
}
