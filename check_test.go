package retrysim_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/waits"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Check refuses, as a *FieldError naming the field's path, every setting
// that Run cannot run: enum values out of range, a backoff kind that is no
// policy or a cap below its base, a zero scenario, and a step that takes
// time in the job model (which has none, and would drop it).
func TestCheckRefusesWhatRunCannotRun(t *testing.T) {
	queue := func(change func(*delivery.Config)) *delivery.Config {
		q := delivery.Defaults()
		change(&q)
		return &q
	}
	signup := retrysim.DefaultScenario()
	slowStep := retrysim.DefaultScenario()
	slowStep.Steps = append([]provider.Step(nil), slowStep.Steps...)
	slowStep.Steps[2].Latency = provider.Latency{Median: 20 * time.Millisecond}
	lowCap := retrysim.DefaultScenario()
	lowCap.Steps = append([]provider.Step(nil), lowCap.Steps...)
	lowCap.Steps[1].Policy.Backoff = &backoff.Policy{Kind: backoff.Exponential, Base: time.Second, Cap: 100 * time.Millisecond}
	step := []strategy.Strategy{strategy.Retry{Attempts: 3}}
	for _, tt := range []struct {
		name  string
		e     retrysim.Experiment
		field string
	}{
		{"scope 2", retrysim.Experiment{Scenario: signup, Strategies: []strategy.Strategy{strategy.Retry{Scope: 2, Attempts: 3}}}, "strategies[0].scope"},
		{"keys 7", retrysim.Experiment{Scenario: signup, Strategies: []strategy.Strategy{strategy.Retry{Keys: 7, Attempts: 3}}}, "strategies[0].keys"},
		{"store 9", retrysim.Experiment{Scenario: signup, Strategies: step, Delivery: queue(func(q *delivery.Config) { q.Store = 9 })}, "queue.store"},
		{"crash point 9", retrysim.Experiment{Scenario: signup, Strategies: step, Delivery: queue(func(q *delivery.Config) { q.CrashAt = 9 })}, "queue.crash_at"},
		{"backoff 42", retrysim.Experiment{Scenario: signup, Strategies: step, Delivery: queue(func(q *delivery.Config) { q.Backoff.Kind = 42 })}, "queue.backoff.policy"},
		{"cap below base", retrysim.Experiment{Scenario: signup, Strategies: step, Delivery: queue(func(q *delivery.Config) { q.Backoff.Cap = q.Backoff.Base / 2 })}, "queue.backoff.cap"},
		{"step cap below base", retrysim.Experiment{Scenario: lowCap, Strategies: step, Delivery: queue(func(*delivery.Config) {})}, "scenario.steps[1].backoff.cap"},
		{"step keys 5", retrysim.Experiment{Scenario: withKeys(signup, 5), Strategies: step}, "scenario.steps[0].keys"},
		{"zero scenario", retrysim.Experiment{Strategies: step}, "scenario"},
		{"latency in the job model", retrysim.Experiment{Scenario: slowStep, Strategies: step}, "scenario.steps[2].latency"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.e.Jobs = 100
			var fe *schema.FieldError
			if err := tt.e.Check(); !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("Check = %v; want a *FieldError for %s", err, tt.field)
			}
			if _, err := retrysim.Run(context.Background(), tt.e); err == nil {
				t.Errorf("Run succeeded; want Check's error")
			}
		})
	}
	// What Check refuses in the job model runs in the delivery model.
	e := retrysim.Experiment{Scenario: slowStep, Strategies: step, Jobs: 100, Delivery: queue(func(*delivery.Config) {})}
	if err := e.Check(); err != nil {
		t.Errorf("a step with latency and a delivery model: Check = %v", err)
	}
}

func withKeys(sc provider.Scenario, k schema.KeyMode) provider.Scenario {
	sc.Steps = append([]provider.Step(nil), sc.Steps...)
	sc.Steps[0].Policy.Keys = &k
	return sc
}

// A backoff's cap of 0 is no cap: an exponential backoff doubles on from
// its base, as min(cap, base x 2^n) does with an infinite cap, where it used
// to wait 0 on every retry.
func TestBackoffCapZeroIsNoCap(t *testing.T) {
	for _, tt := range []struct {
		p    backoff.Policy
		n    int
		u    float64
		want time.Duration
	}{
		{backoff.Policy{Kind: backoff.Exponential, Base: time.Second}, 5, 0, 32 * time.Second},
		{backoff.Policy{Kind: backoff.FullJitter, Base: time.Second}, 3, 0.5, 4 * time.Second},
		{backoff.Policy{Kind: backoff.EqualJitter, Base: time.Second}, 2, 0, 2 * time.Second},
		{backoff.Policy{Kind: backoff.GRPC, Base: time.Second}, 1, 0.5, 2 * time.Second},
		// decorrelated: base + u (3 prev - base) = 1s + 0.5 (30s - 1s)
		{backoff.Policy{Kind: backoff.Decorrelated, Base: time.Second}, 4, 0.5, 15500 * time.Millisecond},
		{backoff.Policy{Kind: backoff.Exponential, Base: time.Second}, 100, 0, math.MaxInt64},
	} {
		prev := time.Duration(0)
		if tt.p.Kind == backoff.Decorrelated {
			prev = 10 * time.Second
		}
		if got := waits.Delay(tt.p, tt.n, prev, tt.u); got != tt.want {
			t.Errorf("%v base %v cap 0: Delay(%d, %v, %v) = %v; want %v", tt.p.Kind, tt.p.Base, tt.n, prev, tt.u, got, tt.want)
		}
		if err := tt.p.Check(); err != nil {
			t.Errorf("%v cap 0: Check = %v; want nil (no cap)", tt.p.Kind, err)
		}
	}
	// A constant backoff reads no cap: one below its base is no error.
	if err := (backoff.Policy{Kind: backoff.Constant, Base: time.Second, Cap: time.Millisecond}).Check(); err != nil {
		t.Errorf("constant 1s with an unread cap of 1ms: Check = %v", err)
	}
}

// Seed 0 is a seed like any other, not a stand-in for the command's
// default: it runs, and differs from the command's default seed's run.
func TestSeedZeroIsASeed(t *testing.T) {
	run := func(seed uint64) int64 {
		rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: []strategy.Strategy{strategy.Retry{Attempts: 1}}, Jobs: 10_000, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Rows[0].Counters().Failed
	}
	if zero, one := run(0), run(jobapi.DefaultSeed); zero == one {
		t.Errorf("seed 0 and seed %d both failed %d jobs; want two different runs", jobapi.DefaultSeed, zero)
	}
}
