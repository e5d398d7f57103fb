package sim

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Every engine counts repeats and duplicates step by step, and each watched
// step in its own column, against closed forms of a three-step job where no
// call fails (p_fail 0) and only replies are lost: A never loses its reply, B
// loses it with l and takes no key, C loses it with m and honours keys. C is
// watched first and B second, so neither is step 0.
//
// Retrying each step (3 attempts), B is called until a reply comes back:
// done 1, 2, 3 with (1-l), l(1-l), l^2, so its repeats average l + l^2 and it
// ran twice with l; C is reached with 1 - l^3 and, without a key, the same
// with m; with the same key C's provider works once. Retrying the whole job
// (2 attempts, no key): a second attempt runs after a lost reply at B (l) or
// at C after B came back ((1-l) m), and repeats A and B; C runs again only if
// the second attempt gets past B: (1-l) m (1-l).
//
// Each count is held within 5 standard deviations, the sd of a repeats sum
// bounded by sqrt(2 n mean) (a step's repeats X are 0, 1 or 2, so X^2 <= 2X):
// a false failure below 5.7e-7 a comparison, 3.1e-5 over the 54 here.
func TestRepeatsByStepInEveryEngine(t *testing.T) {
	const (
		l, m = 0.2, 0.1
		n    = 200_000
	)
	sc := provider.Scenario{Name: "three", Steps: []provider.Step{
		{Name: "A"},
		{Name: "B", CanLoseReply: true, LostReply: l},
		{Name: "C", CanLoseReply: true, LostReply: m, HonoursKeys: true},
	}, Watched: []provider.Watch{{Step: 2}, {Step: 1}}}
	type want struct{ repeats, twice [3]float64 } // per job
	eachB := l + l*l
	reachC := 1 - l*l*l
	second := l + (1-l)*m
	strats := []struct {
		s    strategy.Retry
		want want
	}{
		{strategy.Retry{Scope: strategy.EachStep, Attempts: 3},
			want{[3]float64{0, eachB, reachC * (m + m*m)}, [3]float64{0, l, reachC * m}}},
		{strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey},
			want{[3]float64{0, eachB, 0}, [3]float64{0, l, 0}}},
		{strategy.Retry{Scope: strategy.WholeJob, Attempts: 2},
			want{[3]float64{second, second, (1 - l) * m * (1 - l)}, [3]float64{second, second, (1 - l) * m * (1 - l)}}},
	}
	q := delivery.Defaults()
	engines := []struct {
		name string
		cfg  Config
	}{
		{"plain", Config{Engine: Plain}},
		{"skip", Config{Engine: Skip}},
		{"delivery", Config{Delivery: &q}},
	}
	for _, e := range engines {
		cfg := e.cfg
		cfg.Scenario, cfg.Jobs, cfg.Seed, cfg.Generator = sc, n, 11, rng.PCGGenerator()
		for _, s := range strats {
			cfg.Strategies = append(cfg.Strategies, s.s)
		}
		got, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		for k, s := range strats {
			c := got[k]
			name := fmt.Sprintf("%s engine, %s", e.name, s.s.Name())
			var sum int64
			for i := range 3 {
				sum += c.RepeatedByStep[i]
				mu := s.want.repeats[i] * n
				if d := math.Abs(float64(c.RepeatedByStep[i]) - mu); d > 5*math.Sqrt(2*mu) || (mu == 0 && c.RepeatedByStep[i] != 0) {
					t.Errorf("%s: repeated_by_step[%s] = %d; want %.0f ± 5 × %.1f", name, sc.Steps[i].Name, c.RepeatedByStep[i], mu, math.Sqrt(2*mu))
				}
				p := s.want.twice[i]
				sd := math.Sqrt(n * p * (1 - p))
				if d := math.Abs(float64(c.TwiceByStep[i]) - p*n); d > 5*sd || (p == 0 && c.TwiceByStep[i] != 0) {
					t.Errorf("%s: twice_by_step[%s] = %d; want %.0f ± 5 × %.1f", name, sc.Steps[i].Name, c.TwiceByStep[i], p*n, sd)
				}
			}
			if sum != c.RepeatedSteps {
				t.Errorf("%s: repeated_by_step adds up to %d; repeated_steps = %d", name, sum, c.RepeatedSteps)
			}
			if c.DuplicateUsers != c.TwiceByStep[2] {
				t.Errorf("%s: duplicate_users = %d; want the first watched step's (C) %d", name, c.DuplicateUsers, c.TwiceByStep[2])
			}
		}
	}
}

// A scenario built in Go with no watched step is refused, where its zero
// value used to watch step 0: a charge watched by accident is a test that
// passes while duplicate emails go uncounted.
func TestNoWatchedStepIsAnError(t *testing.T) {
	sc := provider.Scenario{Steps: []provider.Step{{Name: "charge", HonoursKeys: true}, {Name: "email", CanLoseReply: true, LostReply: 0.01}}}
	_, err := Run(context.Background(), Config{Scenario: sc, Strategies: []strategy.Strategy{strategy.Retry{Scope: strategy.EachStep, Attempts: 3}},
		Jobs: 10, Generator: rng.PCGGenerator()})
	if err == nil || err.Error() != "watched: no step is watched; name at least one step whose repeated side effect is counted" {
		t.Errorf("Run with no watched step: error %v; want the watched error", err)
	}
}
