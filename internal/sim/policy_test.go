package sim

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/closedform"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// A step's own policy holds in every engine. Five steps fail with p; the
// run retries each step three times with no key, but step 2 sets one
// attempt and step 3 (which loses its reply with l, and whose provider
// honours keys) sends the same key. A job succeeds with
// (1-p^3)^3 (1-p) (1-f^3), f = p + (1-p) l the chance a call of step 3
// errs, and step 3's email never goes out twice. A whole-job retry calls
// each step once a pass, so a step's attempts do not apply and it fails
// with q^3, q = 1 - (1-p)^4 (1-f).
func TestStepPolicyEveryEngine(t *testing.T) {
	const (
		p, l = 0.2, 0.3
		jobs = 200_000
	)
	same := schema.SameKey
	sc := provider.Scenario{Name: "five", Noun: "jobs", Watched: []provider.Watch{{Step: 3}}}
	for i := range 5 {
		sc.Steps = append(sc.Steps, provider.Step{Name: fmt.Sprint(i), PFail: p})
	}
	sc.Steps[2].Retry.Attempts = 1
	sc.Steps[3].CanLoseReply, sc.Steps[3].LostReply, sc.Steps[3].HonoursKeys = true, l, true
	sc.Steps[3].Retry.Keys = &same
	f := p + (1-p)*l
	each := strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.NoKeys}
	whole := strategy.Retry{Scope: strategy.WholeJob, Attempts: 3, Keys: schema.NoKeys}
	okEach := math.Pow(1-p*p*p, 3) * (1 - p) * (1 - f*f*f)
	q := 1 - math.Pow(1-p, 4)*(1-f)
	wantFailed := []float64{1 - okEach, q * q * q}

	timed := sc
	timed.Steps = append([]provider.Step(nil), sc.Steps...)
	for i := range timed.Steps {
		timed.Steps[i].Latency = provider.Latency{Median: 10 * time.Millisecond}
	}
	q5 := delivery.Defaults() // no store: a claim would skip, on the next pass, a step whose call failed
	for _, c := range []struct {
		name   string
		sc     provider.Scenario
		engine Engine
		queue  *delivery.Config
	}{
		{"plain", sc, Plain, nil},
		{"skip", sc, Skip, nil},
		{"delivery model", timed, Plain, &q5},
	} {
		got, err := Run(context.Background(), Config{Scenario: c.sc, Strategies: []strategy.Strategy{each, whole}, Jobs: jobs, Seed: 5,
			Generator: rng.PCGGenerator(), Engine: c.engine, Delivery: c.queue})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range got {
			// |z| > 4.4: a false failure with probability 1.1e-5 a
			// comparison, 7e-5 for the six.
			want := wantFailed[i]
			rate := float64(r.Failed) / jobs
			if z := (rate - want) / math.Sqrt(want*(1-want)/jobs); math.Abs(z) > 4.4 {
				t.Errorf("%s, %s: failed %.5f; want %.5f (z = %.1f)", c.name, []string{"each step", "whole job"}[i], rate, want, z)
			}
		}
		if got[0].DuplicateUsers != 0 {
			t.Errorf("%s: %d jobs sent step 3 twice; its own key mode is the same key", c.name, got[0].DuplicateUsers)
		}
	}
	// Retry's closed forms agree with the same derivation.
	if e := closedform.Retry(each, sc); math.Abs(e.FailedRate-wantFailed[0]) > 1e-12 || e.DuplicateRate != 0 {
		t.Errorf("Expect: failed %v, twice %v; want %v, 0", e.FailedRate, e.DuplicateRate, wantFailed[0])
	}
}
