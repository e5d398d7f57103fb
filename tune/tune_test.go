package tune_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/fleet"
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
// a third, so that the race decides every one within the budget. The
// answer is the same on 3 goroutines as on 1.
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
	search := tune.Search{Set: []string{"attempts=1:8:8"}, Objective: "attempts", Require: []string{"failed_rate<=1e-4"}}
	e := signup(t, p)
	e.Workers = 1
	res, err := tune.Run(context.Background(), e, search)
	if err != nil {
		t.Fatal(err)
	}
	e.Workers = 3
	if again, err := tune.Run(context.Background(), e, search); err != nil || fmt.Sprint(again.Candidates) != fmt.Sprint(res.Candidates) || again.Spent != res.Spent {
		t.Errorf("on 3 workers: %v, %v; want what one worker found, %v", err, again.Candidates, res.Candidates)
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

// twoSteps is fleet's ExampleWorkers' fleet: 100 jobs a second for two
// minutes, each of two steps, the first's dependency failing 30% of calls
// and tried twice, the second's 20%, once; the queue delivers a job up to
// 3 times, with no visibility timeout.
func twoSteps() fleet.Workers {
	return fleet.Workers{Name: "two steps", Duration: 120 * time.Second, Load: fleet.Shape{Kind: fleet.ConstantLoad, Rate: 100},
		Queue: fleet.Client{Attempts: 3, Timeout: fleet.NoVisibility}, WorkerCount: 1000, QueueMax: 10_000_000,
		Steps: []fleet.WorkerStep{{To: "d1", Client: fleet.Client{Attempts: 2}}, {To: "d2", Client: fleet.Client{Attempts: 1}}},
		Dependencies: []fleet.Node{
			{Name: "d1", Server: fleet.Server{Kind: fleet.IndependentServer, Base: time.Millisecond, PFail: 0.3}},
			{Name: "d2", Server: fleet.Server{Kind: fleet.IndependentServer, Base: time.Millisecond, PFail: 0.2}},
		}}
}

// TestRunWorkersClosedForm: on twoSteps, a delivery passes both steps with
// s = (1 - 0.3^2)(1 - 0.2) = 0.728, so a queue delivering a job up to a
// times dead-letters a share (1-s)^a of the 12,000 jobs that arrive: 3,264
// at 1, 888, 242, 66, 18 and 4.9 at 6. The fewest deliveries that keep
// dead jobs at most 10 is the smallest a whose closed form is, 6, and every
// fewer fails (the closed form 18 at 5 is past the bound by more than its
// interval at 5 replicates, about +-5). The fleet's run as given (3
// deliveries, shown as given) is run beside the grid and fails.
func TestRunWorkersClosedForm(t *testing.T) {
	const jobs, bound = 12_000.0, 10.0
	s := (1 - 0.3*0.3) * (1 - 0.2)
	dead := func(a int) float64 { return jobs * math.Pow(1-s, float64(a)) }
	want := 0
	for a := 6; a >= 1; a-- {
		if dead(a) <= bound {
			want = a
		}
	}
	if want != 6 {
		t.Fatalf("closed form: fewest deliveries %d; the test was written for 6", want)
	}
	path := "graph.entries[0].client.attempts"
	res, err := tune.RunWorkers(context.Background(), []fleet.Workers{twoSteps()}, fleet.Options{Seed: 1}, tune.Search{
		Set: []string{path + "=1:6:6"}, Objective: path, Require: []string{"dead<=10"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || fmt.Sprint(res.Best.Settings) != fmt.Sprintf("map[%s:%d]", path, want) {
		t.Fatalf("best = %+v; want %s=%d", res.Best, path, want)
	}
	if len(res.Candidates) != 7 || !res.Candidates[6].Current || res.Candidates[6].Settings[path] != "as given" || res.Candidates[6].Status != "fails" {
		t.Errorf("candidates %+v; want 6 and the run as given, failing", res.Candidates)
	}
	for _, c := range res.Candidates[:6] {
		a := int(c.Settings[path].(int64))
		if got, fails := c.Status, dead(a) > bound; fails != (got == "fails") || !fails && a != want {
			t.Errorf("%s=%d: %s, %+v; want it to fail exactly when the closed form %.3g is past %g", path, a, got, c.Judged, dead(a), bound)
		}
	}
}

// TestRunWorkersRefuses: a search of worker fleets the package cannot run
// is refused before any work with a *schema.FieldError naming the part of
// the search, the options or the fleets at fault.
func TestRunWorkersRefuses(t *testing.T) {
	path := "graph.entries[0].client.attempts"
	ok := tune.Search{Set: []string{path + "=1,2"}, Objective: "dead"}
	for _, c := range []struct {
		name  string
		edit  func(*tune.Search, *fleet.Options, *fleet.Workers)
		field string
		msg   string
	}{
		{"unknown service", func(s *tune.Search, _ *fleet.Options, _ *fleet.Workers) {
			s.Set = []string{"graph.services[nope].server.capacity=1,2"}
		}, "set[0].graph.services[nope].server.capacity", `no service is called "nope"`},
		{"no path of a graph", func(s *tune.Search, _ *fleet.Options, _ *fleet.Workers) { s.Set = []string{"workers=1,2"} }, "set[0].workers", "not a path of a graph"},
		{"value out of bounds", func(s *tune.Search, _ *fleet.Options, _ *fleet.Workers) { s.Set = append(s.Set, path+"=0") }, "set[1]." + path, "0 is not a whole number from 1"},
		{"requirement on no figure", func(s *tune.Search, _ *fleet.Options, _ *fleet.Workers) { s.Require = []string{"failed_rate<=0"} }, "require[0]", `no metric "failed_rate"`},
		{"budget under a first batch", func(s *tune.Search, _ *fleet.Options, _ *fleet.Workers) { s.Budget = 14 }, "budget", "14 is less than a first batch of 5 replicates for each of the 3 candidates"},
		{"negative budget", func(s *tune.Search, _ *fleet.Options, _ *fleet.Workers) { s.Budget = -1 }, "budget", "negative"},
		{"replicates", func(_ *tune.Search, o *fleet.Options, _ *fleet.Workers) { o.Replicates = 5 }, "replicates", "the search decides the replicates"},
		{"a fleet", func(_ *tune.Search, _ *fleet.Options, w *fleet.Workers) { w.Steps = nil }, "workers[0].steps", "at least one step"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, o, w := ok, fleet.Options{Seed: 1}, twoSteps()
			s.Set = append([]string(nil), s.Set...)
			c.edit(&s, &o, &w)
			_, err := tune.RunWorkers(context.Background(), []fleet.Workers{w}, o, s)
			var fe *schema.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) {
				t.Errorf("RunWorkers = %v (%T); want a *schema.FieldError for %s saying %q", err, err, c.field, c.msg)
			}
		})
	}
}
