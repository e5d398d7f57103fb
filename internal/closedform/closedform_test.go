package closedform_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/retrysim/retrysim/internal/closedform"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

func allRetries(attempts int) []strategy.Retry {
	var out []strategy.Retry
	for _, scope := range []strategy.Scope{strategy.EachStep, strategy.WholeJob} {
		for _, keys := range []schema.KeyMode{schema.NoKeys, schema.FreshKeys, schema.SameKey} {
			for _, skip := range []bool{false, true} {
				out = append(out, strategy.Retry{Scope: scope, Attempts: attempts, Keys: keys, SkipFinished: skip})
			}
		}
	}
	return out
}

// Every closed form of every Retry agrees with the simulation, within 4.5
// standard errors, at points where each term matters.
func TestExpectAgreesWithSimulation(t *testing.T) {
	const jobs = 400_000
	for _, pt := range []struct {
		p, l     float64
		attempts int
	}{{0.05, 0.02, 3}, {0.2, 0.3, 2}, {0.1, 0.5, 4}, {0.3, 0, 1}} {
		sc := provider.Signup(pt.p, pt.l)
		retries := allRetries(pt.attempts)
		strats := make([]strategy.Strategy, len(retries))
		for i, r := range retries {
			strats[i] = r
		}
		all, err := sim.RunAll(context.Background(), []sim.Config{{Scenario: sc, Strategies: strats, Jobs: jobs, Seed: 77, Generator: rng.PCGGenerator()}}, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := all[0]
		for i, r := range retries {
			want := closedform.Retry(r, sc)
			for _, m := range stats.Metrics() {
				z, ok := m.Z(&got[i], want)
				if !ok || math.Abs(z) > 4.5 {
					t.Errorf("p=%v l=%v A=%d %s %s: simulated %.6g, expected %.6g (z %.2f, defined %v)",
						pt.p, pt.l, pt.attempts, r.Name(), m.Name, m.Estimate(&got[i], false).Value, m.Expected(want), z, ok)
				}
			}
		}
	}
}

// Hand-checked values: with one attempt every scope is one pass through the
// steps; with no failures nothing happens twice.
func TestExpectByHand(t *testing.T) {
	sc := provider.Signup(0.1, 0.5)
	f := 0.1 + 0.9*0.5
	pass := math.Pow(0.9, 9) * (1 - f)
	for _, r := range allRetries(1) {
		e := closedform.Retry(r, sc)
		if math.Abs(e.FailedRate-(1-pass)) > 1e-12 {
			t.Errorf("%s, 1 attempt: failed %v; want %v", r.Name(), e.FailedRate, 1-pass)
		}
		if e.RepeatedPerJob > 1e-12 || e.DuplicateRate > 1e-12 {
			t.Errorf("%s, 1 attempt: repeated %v, duplicates %v; want 0, 0", r.Name(), e.RepeatedPerJob, e.DuplicateRate)
		}
		// calls: 1 + 0.9 + 0.9^2 + ... + 0.9^6 (to the email) + 0.9^6 (1-f) (1 + 0.9 + 0.9^2)
		calls := 0.0
		for k := range 7 {
			calls += math.Pow(0.9, float64(k))
		}
		calls += math.Pow(0.9, 6) * (1 - f) * (1 + 0.9 + 0.81)
		if math.Abs(e.CallsPerJob-calls) > 1e-12 {
			t.Errorf("%s, 1 attempt: calls %v; want %v", r.Name(), e.CallsPerJob, calls)
		}
	}
	for _, r := range allRetries(3) {
		e := closedform.Retry(r, provider.Signup(0, 0))
		if !reflect.DeepEqual(e, stats.Expected{SucceededRate: 1, CallsPerJob: 10, DuplicateRates: []float64{0}}) {
			t.Errorf("%s with no failures: %+v; want success and 10 calls, nothing else", r.Name(), e)
		}
	}
}

func ExampleRetry() {
	sc := provider.Signup(0.01, 0.005)
	for _, id := range strategy.DefaultIDs() {
		r, _ := strategy.Parse(id, 3)
		e := closedform.Retry(r, sc)
		fmt.Printf("%-17s failed %6.1f  calls/job %.4f  repeated %8.1f  duplicates %6.1f (per 1,000,000)\n",
			id, e.FailedRate*1e6, e.CallsPerJob, e.RepeatedPerJob*1e6, e.DuplicateRate*1e6)
	}
	// Output:
	// step-nokey        failed   12.3  calls/job 10.1060  repeated   5022.7  duplicates 4998.5 (per 1,000,000)
	// step-newkey       failed   12.3  calls/job 10.1060  repeated   5022.7  duplicates 4998.5 (per 1,000,000)
	// step-samekey      failed   12.3  calls/job 10.1060  repeated      0.0  duplicates    0.0 (per 1,000,000)
	// job-samekey       failed 1004.2  calls/job 10.5998  repeated 461802.7  duplicates    0.0 (per 1,000,000)
	// job-samekey-skip  failed  238.3  calls/job 10.1053  repeated      0.0  duplicates    0.0 (per 1,000,000)
}
