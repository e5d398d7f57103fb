package ownjob_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"

	"example.com/ownjob"
)

// TestSweepOwnStrategy sweeps the team's own strategy beside the library's
// retry over the charge's failure rate, on the team's scenario: every row is
// the single Run at its point, counter for counter, and the budget's failed
// jobs at each point agree with its closed form (|z| < 5 wrongly fails with
// probability 5.7e-7 a point).
func TestSweepOwnStrategy(t *testing.T) {
	const n = 50_000
	sc := untimed(ownjob.Invoice())
	strategies := []strategy.Strategy{
		ownjob.NewBudget(2),
		strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey},
	}
	charge := []float64{0.05, 0.2, 0.4}
	sw, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{Experiment: retrysim.Experiment{Scenario: sc, Strategies: strategies, Seed: 11}, Axes: []retrysim.Axis{{Name: "steps[charge the card].p_fail", Values: charge}, {Name: "jobs", Values: []float64{n}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Rows) != len(charge)*len(strategies) {
		t.Fatalf("%d rows; want %d points x %d strategies", len(sw.Rows), len(charge), len(strategies))
	}
	for i, row := range sw.Rows {
		point, s := charge[i/len(strategies)], strategies[i%len(strategies)]
		if row.Label != s.Name() {
			t.Errorf("row %d is %q; want %q, the strategies in order at each point", i, row.Label, s.Name())
		}
		at := sc
		at.Steps = append(at.Steps[:0:0], sc.Steps...)
		at.Steps[1].PFail = point
		rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: at, Strategies: []strategy.Strategy{s}, Jobs: n, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		r := row.Row()
		got, _ := json.Marshal(r.Counters())
		want, _ := json.Marshal(rep.Rows[0].Counters())
		if string(got) != string(want) {
			t.Errorf("%s at charge p_fail %g: the sweep's row\n %s\nthe single run\n %s", row.Label, point, got, want)
		}
		if _, own := s.(strategy.Straight); own {
			q := failRate(at.Steps, 2)
			failed := r.Counters().Failed
			if z := (float64(failed) - n*q) / math.Sqrt(n*q*(1-q)); math.Abs(z) >= 5 {
				t.Errorf("%s at charge p_fail %g: %d of %d failed; the closed form expects %.1f (z = %.2f)", row.Label, point, failed, n, n*q, z)
			}
		}
	}
}
