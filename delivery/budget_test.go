package delivery_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// budget is a strategy written outside the module's packages, as a team
// would: retry each step with the same key, but give up the job after a
// budget of retries across all its steps.
type budget struct{ retries int }

func (b budget) Name() string  { return fmt.Sprintf("same key, %d retries a job", b.retries) }
func (budget) UsesStore() bool { return false }
func (b budget) Run(c strategy.Calls) bool {
	left := b.retries
	for i := range c.Steps() {
		if c.Enter(i) {
			continue
		}
		for n := 0; c.Call(i, 1) != provider.ReplyOK; n++ { // the action's key: provider memory is per job and step
			if left == 0 {
				return false
			}
			left--
			c.Backoff(i, n)
		}
	}
	return true
}

// The budget strategy's closed forms, for n steps whose calls each fail with
// f (s = 1 - f) and a budget of b retries: a delivery is a run of Bernoulli
// calls that stops at the n-th success or the (b+1)-th failure.
func binom(n, k int) float64 {
	r := 1.0
	for i := range k {
		r = r * float64(n-i) / float64(i+1)
	}
	return r
}

// failP is P(the (b+1)-th failure comes before the n-th success): one minus
// the negative binomial's mass at 0..b failures.
func failP(n, b int, f float64) float64 {
	s, ok := 1-f, 0.0
	for k := 0; k <= b; k++ {
		ok += binom(n-1+k, k) * math.Pow(s, float64(n)) * math.Pow(f, float64(k))
	}
	return 1 - ok
}

// meanCalls is the sum over t of P(the delivery has not stopped after t
// calls): fewer than n successes and at most b failures among them.
func meanCalls(n, b int, f float64) float64 {
	s, sum := 1-f, 0.0
	for t := 0; t <= n+b; t++ {
		for k := max(0, t-b); k <= min(t, n-1); k++ {
			sum += binom(t, k) * math.Pow(s, float64(k)) * math.Pow(f, float64(t-k))
		}
	}
	return sum
}

// zCheck fails if got's mean of jobs draws with mean want and variance v
// lies more than 4.4 standard errors off: a false failure with probability
// 1.1e-5 per comparison, and under 2e-4 for the family of this test's
// comparisons (at most 16).
func zCheck(t *testing.T, what string, sum, jobs int64, want, v float64) {
	t.Helper()
	got := float64(sum) / float64(jobs)
	se := math.Sqrt(v / float64(jobs))
	if z := (got - want) / se; math.Abs(z) > 4.4 {
		t.Errorf("%s = %.6f; want %.6f (z = %.1f)", what, got, want, z)
	}
}

// A strategy from outside the module's packages runs under the Part 5
// engine and the delivery model, with latencies, a store, repeated requests
// and crashes; its counts hold to closed forms derived from the strategy's
// description alone.
func TestOutsideStrategyEveryEngine(t *testing.T) {
	const (
		steps, retries = 5, 3
		f              = 0.3
		jobs           = 200_000
	)
	sc := provider.Scenario{Name: "five", Noun: "jobs", Watched: []provider.Watch{{Step: 0}}}
	for i := range steps {
		sc.Steps = append(sc.Steps, provider.Step{Name: fmt.Sprint(i), PFail: f, Latency: provider.Latency{Median: 20 * time.Millisecond}})
	}
	s := budget{retries}
	run := func(q *delivery.Config, engine sim.Engine) stats.Counters {
		t.Helper()
		c, err := sim.RunAll(context.Background(), []sim.Config{{Scenario: sc, Strategies: []strategy.Strategy{s}, Jobs: jobs, Seed: 9,
			Generator: rng.PCGGenerator(), Engine: engine, Delivery: q}}, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c[0][0]
	}
	// The waits draw nothing with no backoff, so the delivery model with
	// time and a store but no repeat and no crash draws what the Part 5
	// model draws, and counts the same, to the call.
	queue := func(edit func(*delivery.Config)) *delivery.Config {
		q := delivery.Defaults()
		q.Backoff, q.Store = backoff.Schedule{}, delivery.After
		edit(&q)
		return &q
	}
	part5 := run(nil, sim.Plain)
	if _, err := sim.RunAll(context.Background(), []sim.Config{{Scenario: sc, Strategies: []strategy.Strategy{s}, Jobs: 1,
		Generator: rng.PCGGenerator(), Engine: sim.Skip}}, 0, nil); err == nil {
		t.Error("the skip engine ran a strategy it cannot resume")
	}
	if auto := run(nil, sim.Auto); auto.Calls != part5.Calls || auto.Failed != part5.Failed {
		t.Errorf("auto %+v; plain %+v", auto, part5)
	}
	timed := run(queue(func(*delivery.Config) {}), sim.Plain)
	if timed.Calls != part5.Calls || timed.Failed != part5.Failed || timed.Deliveries != jobs {
		t.Errorf("delivery model with time and a store: %d calls, %d failed, %d deliveries; Part 5: %d calls, %d failed",
			timed.Calls, timed.Failed, timed.Deliveries, part5.Calls, part5.Failed)
	}
	pf := failP(steps, retries, f)
	zCheck(t, "Part 5 failed", part5.Failed, jobs, pf, pf*(1-pf))
	mc := meanCalls(steps, retries, f)
	zCheck(t, "Part 5 calls", part5.Calls, jobs, mc, part5.CallsSq.Float64()/jobs-mc*mc)
	if part5.RepeatedSteps != 0 {
		t.Errorf("Part 5: %d repeated steps; want 0 (no step loses a reply)", part5.RepeatedSteps)
	}

	// Every request sent twice, the copy an hour later: the store skips
	// the steps the first delivery finished, and the second delivery goes
	// on from the step the first gave up on with a budget of its own, so
	// the job fails only when it meets 2b+2 failures.
	twice := run(queue(func(q *delivery.Config) {
		q.RepeatP, q.RepeatDelay = 1, provider.Latency{Median: time.Hour}
	}), sim.Plain)
	pf2 := failP(steps, 2*retries+1, f)
	zCheck(t, "repeated requests failed", twice.Failed, jobs, pf2, pf2*(1-pf2))
	mc2 := meanCalls(steps, 2*retries+1, f)
	zCheck(t, "repeated requests calls", twice.Calls, jobs, mc2, twice.CallsSq.Float64()/jobs-mc2*mc2)
	if twice.Deliveries != 2*jobs {
		t.Errorf("repeated requests: %d deliveries; want %d", twice.Deliveries, 2*jobs)
	}

	// One crash a job, after the first work and before its key is
	// recorded: the first delivery dies as soon as step 0 succeeds (it
	// gives up first with f^(b+1)), and the visibility timeout brings a
	// second that starts over with a full budget and does step 0 again.
	crash := run(queue(func(q *delivery.Config) {
		q.CrashP, q.CrashAt, q.MaxCrashes = 1, delivery.AfterWork, 1
	}), sim.Plain)
	giveUp := math.Pow(f, retries+1)
	pf3 := giveUp + (1-giveUp)*pf
	zCheck(t, "crashes failed", crash.Failed, jobs, pf3, pf3*(1-pf3))
	first := 0.0 // the first delivery's calls: at least t+1 with f^t, t <= b
	for k := 0; k <= retries; k++ {
		first += math.Pow(f, float64(k))
	}
	mc3 := first + (1-giveUp)*mc
	zCheck(t, "crashes calls", crash.Calls, jobs, mc3, crash.CallsSq.Float64()/jobs-mc3*mc3)
	rep := (1 - giveUp) * (1 - giveUp) // both deliveries did step 0's work
	zCheck(t, "crashes repeated", crash.RepeatedSteps, jobs, rep, rep*(1-rep))
}
