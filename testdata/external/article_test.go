package ownjob_test

import (
	"context"
	"math"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/strategy"
)

// TestArticleTableWithIntervals runs the article's table from Go as a reader
// of the article would: the five default strategies at the article's
// settings (the sign-up, 1% failures, 0.5% lost replies, 3 attempts, a
// million jobs, seed 1) with the article's generator, mulberry32. The counts
// are the article's published ones, and every rate's 95% interval contains
// both the rate itself and the strategy's exact expectation, which the row
// carries (Rate.Expected).
func TestArticleTableWithIntervals(t *testing.T) {
	strategies, err := retrysim.ParseStrategies(strategy.DefaultIDs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	sc := retrysim.DefaultScenario()
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{
		Scenario: sc, Strategies: strategies, Jobs: 1_000_000, Seed: 1, Generator: "mulberry32",
	})
	if err != nil {
		t.Fatal(err)
	}
	// The article's table: failed jobs, steps done again, users emailed twice.
	want := []struct {
		id                     string
		failed, repeated, dups int64
	}{
		{"step-nokey", 11, 4971, 4939}, {"step-newkey", 11, 4971, 4939}, {"step-samekey", 11, 0, 0},
		{"job-samekey", 995, 464_233, 0}, {"job-samekey-skip", 250, 0, 0},
	}
	if len(rep.Rows) != len(want) {
		t.Fatalf("%d rows; want the article's %d", len(rep.Rows), len(want))
	}
	for i, w := range want {
		r := &rep.Rows[i]
		c := r.Counters()
		if r.ID != w.id || c.Jobs != 1_000_000 || c.Failed != w.failed || c.RepeatedSteps != w.repeated || c.DuplicateUsers != w.dups {
			t.Errorf("row %d: %s, %d jobs, %d failed, %d repeated, %d emailed twice; want the article's %s, 1000000, %d, %d, %d",
				i, r.ID, c.Jobs, c.Failed, c.RepeatedSteps, c.DuplicateUsers, w.id, w.failed, w.repeated, w.dups)
		}
		// The watched step, read by its name, is the duplicate users' column.
		welcome, err := rep.WatchedStep(r, "send the welcome email")
		if err != nil {
			t.Fatal(err)
		}
		if welcome.Twice != w.dups {
			t.Errorf("%s: %d users emailed twice by the watched step's name; want %d", r.ID, welcome.Twice, w.dups)
		}
		for _, name := range []string{"succeeded", "failed_rate", "calls_per_job", "repeated_per_job", "duplicate_rate"} {
			rate, err := r.Rate(name)
			if err != nil {
				t.Fatal(err)
			}
			want := rate.Expected
			if math.IsNaN(want) {
				t.Fatalf("%s %s: the row has no closed form", r.ID, name)
			}
			if !(rate.Lo <= rate.Value && rate.Value <= rate.Hi) {
				t.Errorf("%s %s: %g outside its own interval [%g, %g]", r.ID, name, rate.Value, rate.Lo, rate.Hi)
			}
			if !(rate.Lo <= want && want <= rate.Hi) {
				t.Errorf("%s %s: the exact expectation %g is outside the interval [%g, %g] of %g", r.ID, name, want, rate.Lo, rate.Hi, rate.Value)
			}
		}
	}
	// The counts that are rates: the first row's 4,939 users in a million.
	if got, err := rep.Rows[0].Rate("duplicate_rate"); err != nil || got.Value != 4939.0/1e6 {
		t.Errorf("step-nokey duplicate rate %g, %v; want 4939 in a million", got.Value, err)
	}
}
