package tune_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/tune"
)

// signup is the sign-up of ten steps, each call failing with probability
// p and no reply lost, run by a per-step retry with one key a step.
func signup(t *testing.T, p float64) retrysim.Experiment {
	t.Helper()
	strategies, err := retrysim.ParseStrategies([]string{"step-samekey"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	return retrysim.Experiment{Scenario: provider.Signup(p, 0), Strategies: strategies, Seed: 1}
}

// jobFails is the probability that a job of n independent steps fails when
// each call fails with probability p and a step tries a times: a step fails
// when all its a calls do, p^a, and the job when any step does.
func jobFails(p float64, a, n int) float64 {
	return 1 - math.Pow(1-math.Pow(p, float64(a)), float64(n))
}

// TestRunClosedForm: the fewest attempts that keep failed jobs at most 1e-4
// when each of ten steps' calls fails 5% of the time is the smallest a with
// 1-(1-0.05^a)^10 <= 1e-4, found here from the closed form (1.25e-3 at 3,
// 6.25e-5 at 4); every candidate whose closed form is over the bound
// fails, and every other but the best is beaten by it (a setting, exactly).
// The candidates' rates are ten times the bound or more, or under it by
// a third, so that the race decides every one within the budget.
func TestRunClosedForm(t *testing.T) {
	const p, bound, steps = 0.05, 1e-4, 10
	want := 0
	for a := 8; a >= 1; a-- {
		if jobFails(p, a, steps) <= bound {
			want = a
		}
	}
	if want != 4 {
		t.Fatalf("closed form: fewest attempts %d; the test was written for 4", want)
	}
	res, err := tune.Run(context.Background(), signup(t, p), tune.Search{
		Set: []string{"attempts=1:8:8"}, Objective: "attempts", Require: []string{"failed_rate<=1e-4"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || fmt.Sprint(res.Best.Settings) != fmt.Sprintf("map[attempts:%d]", want) {
		t.Fatalf("best = %+v; want attempts=%d", res.Best, want)
	}
	if len(res.Candidates) != 8 || res.Spent > 100_000_000 {
		t.Errorf("%d candidates, %d jobs spent; want 8 (3 attempts, the strategy's, among them), at most the default budget of 10^8", len(res.Candidates), res.Spent)
	}
	for _, c := range res.Candidates {
		a := int(c.Settings["attempts"].(int64))
		status, verdict := "beaten", "holds"
		switch {
		case a == want:
			status = "best"
		case jobFails(p, a, steps) > bound:
			status, verdict = "fails", "fails"
		}
		if c.Status != status || c.Current != (a == 3) || len(c.Judged) != 1 || c.Judged[0].Verdict != verdict && status != "beaten" {
			t.Errorf("attempts=%d: %s, current %t, judged %+v; want %s, current %t, %s (closed form %.3g)", a, c.Status, c.Current, c.Judged, status, a == 3, verdict, jobFails(p, a, steps))
		}
		if c.Objective.Value != float64(a) {
			t.Errorf("attempts=%d: objective %v; want %d, the setting", a, c.Objective.Value, a)
		}
	}
}

// TestRunRefuses: a search the package cannot run is refused before any
// work with a *schema.FieldError naming the part of the search (or of the
// experiment) at fault.
func TestRunRefuses(t *testing.T) {
	ok := tune.Search{Set: []string{"attempts=2:5:4"}, Objective: "attempts", Require: []string{"failed_rate<=1e-4"}}
	for _, c := range []struct {
		name  string
		edit  func(*tune.Search, *retrysim.Experiment)
		field string
		msg   string // a part of the message
	}{
		{"no setting", func(s *tune.Search, _ *retrysim.Experiment) { s.Set = nil }, "set", "none given"},
		{"unknown path", func(s *tune.Search, _ *retrysim.Experiment) { s.Set = append(s.Set, "retries=1,2") }, "set[1]", `unknown setting "retries"`},
		{"unknown step", func(s *tune.Search, _ *retrysim.Experiment) { s.Set = []string{"steps[nope].p_fail=0.1"} }, "set[0].steps[nope].p_fail", "nope"},
		{"value out of bounds", func(s *tune.Search, _ *retrysim.Experiment) { s.Set = []string{"p_fail=0.1,7"} }, "set[0].p_fail", "7"},
		{"given twice", func(s *tune.Search, _ *retrysim.Experiment) { s.Set = append(s.Set, "attempts=1,2") }, "set[1]", "given twice"},
		{"no objective", func(s *tune.Search, _ *retrysim.Experiment) { s.Objective = "" }, "objective", "none given"},
		{"unknown objective", func(s *tune.Search, _ *retrysim.Experiment) { s.Objective = "speed" }, "objective", `"speed" is neither a searched setting`},
		{"requirement without a comparison", func(s *tune.Search, _ *retrysim.Experiment) { s.Require = append(s.Require, "failed_rate") }, "require[1]", "has no comparison"},
		{"requirement on no metric", func(s *tune.Search, _ *retrysim.Experiment) { s.Require = []string{"speed<=1"} }, "require[0]", `no metric "speed"`},
		{"requirement on no row", func(s *tune.Search, _ *retrysim.Experiment) { s.Require = []string{"job-nokey:failed_rate<=1"} }, "require[0]", `no row "job-nokey"`},
		{"negative budget", func(s *tune.Search, _ *retrysim.Experiment) { s.Budget = -1 }, "budget", "-1 is negative"},
		{"budget under a first batch", func(s *tune.Search, _ *retrysim.Experiment) { s.Budget = 39_999 }, "budget", "39,999 is less than a first batch of 10,000 jobs for each of the 4 candidates"},
		{"jobs", func(_ *tune.Search, e *retrysim.Experiment) { e.Jobs = 1000 }, "jobs", "the search decides the jobs"},
		{"replicates", func(_ *tune.Search, e *retrysim.Experiment) { e.Replicates = 2 }, "replicates", "replicate b"},
		{"progress", func(_ *tune.Search, e *retrysim.Experiment) { e.Progress = func(_, _ int64) {} }, "progress", "no progress"},
		{"experiment", func(_ *tune.Search, e *retrysim.Experiment) { e.Scenario.Steps[0].PFail = 2 }, "scenario.steps[0].p_fail", "2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, e := ok, signup(t, 0.05)
			s.Set, s.Require = append([]string(nil), s.Set...), append([]string(nil), s.Require...)
			c.edit(&s, &e)
			_, err := tune.Run(context.Background(), e, s)
			var fe *schema.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) {
				t.Errorf("Run = %v (%T); want a *schema.FieldError for %s saying %q", err, err, c.field, c.msg)
			}
		})
	}
}
