package retrysim_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// row is a row of jobs jobs of which failed failed.
func row(jobs, failed int64) *retrysim.Row {
	r := retrysim.NewRow("", stats.Counters{Jobs: jobs, Failed: failed})
	return &r
}

// near reports whether got is want to 1e-9 relative.
func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

// TestCompareNewcombe checks the interval for a difference of shares
// against the values Newcombe published (Statistics in Medicine 17, 1998,
// "Interval estimation for the difference between independent proportions",
// table II, method 10, the hybrid score interval): 56/70 - 48/80 is
// [0.0524, 0.3339], 0/10 - 0/20 [-0.1611, 0.2775]. Here the shares are of
// succeeded jobs, B's minus A's.
func TestCompareNewcombe(t *testing.T) {
	for _, tc := range []struct {
		xa, na, xb, nb int64
		lo, hi         float64
	}{{48, 80, 56, 70, 0.0524, 0.3339}, {0, 20, 0, 10, -0.1611, 0.2775}} {
		c, err := retrysim.Compare(row(tc.na, tc.na-tc.xa), row(tc.nb, tc.nb-tc.xb), "succeeded")
		if err != nil {
			t.Fatal(err)
		}
		if d := c.Diff; math.Abs(d.Lo-tc.lo) > 5e-5 || math.Abs(d.Hi-tc.hi) > 5e-5 || d.Method != estimate.Newcombe || d.N != tc.na+tc.nb || d.Level != 0.95 {
			t.Errorf("%d/%d - %d/%d: [%.4f, %.4f] by %v of %d at %g; want Newcombe's [%.4f, %.4f] of %d at 0.95", tc.xb, tc.nb, tc.xa, tc.na, d.Lo, d.Hi, d.Method, d.N, d.Level, tc.lo, tc.hi, tc.na+tc.nb)
		}
	}
}

// TestCompareByHand checks every field against values computed by hand from
// the formulas, z = 1.959963984540054. Shares: A failed 30 of 1000 jobs, B
// 15 of 1000; Wilson's intervals are [0.0210937, 0.0425034] and
// [0.0091110, 0.0246010]; Newcombe's is d - sqrt((pB-lB)^2 + (uA-pA)^2) to
// d + sqrt((uB-pB)^2 + (pA-lA)^2) with d = -0.015; the pooled share is
// 45/2000, so z = -0.015 / sqrt(0.0225 x 0.9775 x 2/1000) = -2.2616564 and
// p = erfc(|z|/sqrt 2). Means: A's four jobs made 1, 2, 3, 4 calls (sum 10,
// squares 30), B's 2, 2, 3, 5 (12, 42); the sample variances are 5/3 and
// 2, the standard error of the difference sqrt(5/12 + 2/4), d = 0.5.
func TestCompareByHand(t *testing.T) {
	c, err := retrysim.Compare(row(1000, 30), row(1000, 15), "failed_rate")
	if err != nil {
		t.Fatal(err)
	}
	want := retrysim.Comparison{Metric: "failed_rate",
		A:    schema.Estimate{Value: 0.03, Lo: 0.0210937, Hi: 0.0425034, N: 1000, Level: 0.95, Method: estimate.Wilson},
		B:    schema.Estimate{Value: 0.015, Lo: 0.0091110, Hi: 0.0246010, N: 1000, Level: 0.95, Method: estimate.Wilson},
		Diff: schema.Estimate{Value: -0.015, Lo: -0.02882085149301797, Hi: -0.001904189753970803, N: 2000, Level: 0.95, Method: estimate.Newcombe},
		P:    0.02371864263219147}
	same := func(a, b schema.Estimate, tol float64) bool {
		return math.Abs(a.Value-b.Value) <= tol && math.Abs(a.Lo-b.Lo) <= tol && math.Abs(a.Hi-b.Hi) <= tol && a.N == b.N && a.Level == b.Level && a.Method == b.Method
	}
	if !same(c.A, want.A, 5e-8) || !same(c.B, want.B, 5e-8) || !same(c.Diff, want.Diff, 1e-15) || !near(c.P, want.P) || c.Metric != want.Metric {
		t.Errorf("Compare = %+v; want %+v", c, want)
	}
	if c.P >= 0.05 || !c.Better() {
		t.Errorf("%v: significant %t, better %t; want B, failing half as often, better", c, c.P < 0.05, c.Better())
	}
	if got, want := c.String(), "-0.015 [-0.0288, -0.0019] (p=0.024)"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
	ra := retrysim.NewRow("", stats.Counters{Jobs: 4, Calls: 10, CallsSq: stats.Wide{Lo: 30}})
	rb := retrysim.NewRow("", stats.Counters{Jobs: 4, Calls: 12, CallsSq: stats.Wide{Lo: 42}})
	a, b := &ra, &rb
	c, err = retrysim.Compare(a, b, "calls_per_job")
	if err != nil {
		t.Fatal(err)
	}
	se := math.Sqrt(5.0/12 + 2.0/4)
	const z = 1.959963984540054
	if d := c.Diff; !near(d.Value, 0.5) || !near(d.Lo, 0.5-z*se) || !near(d.Hi, 0.5+z*se) || !near(c.P, math.Erfc(0.5/se/math.Sqrt2)) || d.Method != estimate.NormalDifference || d.N != 8 {
		t.Errorf("Compare(calls_per_job) = %+v; want 0.5 [%v, %v], p %v", c, 0.5-z*se, 0.5+z*se, math.Erfc(0.5/se/math.Sqrt2))
	}
	if c.P < 0.05 || c.Better() || c.String() != "~ (p=0.6)" {
		t.Errorf("%v: significant %t, better %t; want no significant difference, ~ (p=0.6)", c, c.P < 0.05, c.Better())
	}
	if _, err := retrysim.Compare(a, b, "speed"); err == nil || !strings.Contains(err.Error(), `unknown metric "speed"`) {
		t.Errorf("Compare(speed) = %v; want unknown metric", err)
	}
	if _, err := retrysim.Compare(a, &retrysim.Row{}, "failed_rate"); err == nil {
		t.Error("Compare with a row of no jobs: no error")
	}
}

// TestWatchedRates reads every watched step of the article's rows, the
// first also as the row's duplicate_rate, and by name: the same values; an
// unlabelled one is headed by its step's name.
func TestWatchedRates(t *testing.T) {
	e := article(t, 20_000, "")
	e.Scenario.Watched = append(e.Scenario.Watched, e.Scenario.Watched[0])
	e.Scenario.Watched[1].Step, e.Scenario.Watched[1].Label = 1, "Billing customers made twice"
	e.Scenario.Watched = append(e.Scenario.Watched, provider.Watch{Step: 2}) // no label: the default heading
	rep, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rep.Rows {
		r := &rep.Rows[i]
		dup, err := r.Rate("duplicate_rate")
		if err != nil {
			t.Fatal(err)
		}
		ws := rep.Watched(r)
		if len(ws) != 3 {
			t.Fatalf("%s: %d watched steps; want 3", r.ID, len(ws))
		}
		if want := `Jobs with 2+ "create the workspace"`; ws[2].Label != want {
			t.Errorf("%s: the unlabelled watched step's heading %q; want %q", r.ID, ws[2].Label, want)
		}
		if ws[0].Rate.Estimate != dup.Estimate || ws[0].Twice != r.Counters().DuplicateUsers {
			t.Errorf("%s: first watched step %+v; want the duplicate rate %+v", r.ID, ws[0], dup)
		}
		second, err := rep.WatchedStep(r, "create the billing customer")
		if err != nil {
			t.Fatal(err)
		}
		if second.Step != 1 || second.Twice != r.Counters().TwiceByStep[1] || second.Label != "Billing customers made twice" ||
			!near(second.Value, float64(r.Counters().TwiceByStep[1])/20_000) || second.Estimate != ws[1].Estimate || !sameFloat(second.Z, ws[1].Z) {
			t.Errorf("%s: watched step by name %+v; want step 1, %d jobs twice", r.ID, second, r.Counters().TwiceByStep[1])
		}
		if r.Expected() != nil && !near(second.Expected, r.Expected().DuplicateRates[1]) {
			t.Errorf("%s: expected %v; want the closed form's %v", r.ID, second.Expected, r.Expected().DuplicateRates[1])
		}
	}
	if _, err := rep.WatchedStep(&rep.Rows[0], "charge"); err == nil || !strings.Contains(err.Error(), `no watched step is named "charge"`) {
		t.Errorf("WatchedStep(charge) = %v; want no such watched step", err)
	}
}

// sameFloat reports whether a and b are equal, NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || a != a && b != b }

// TestCompareWatched compares two rows on a watched step after the first:
// the counts are the rows' jobs that did that step's work twice, compared
// as Compare compares shares (its hand-computed case above, by the same
// counts).
func TestCompareWatched(t *testing.T) {
	rep := retrysim.NewReport(stats.Params{Watched: []stats.Watch{{Step: 6, Name: "send the welcome email"}, {Step: 2, Name: "create the workspace"}}})
	a, b := row(1000, 0), row(1000, 0)
	a.Stats().TwiceByStep[2], b.Stats().TwiceByStep[2] = 30, 15
	c, err := rep.CompareWatched(a, b, "create the workspace")
	if err != nil {
		t.Fatal(err)
	}
	if c.Metric != "duplicate_rate_step_3" || !near(c.Diff.Value, -0.015) || !near(c.Diff.Lo, -0.02882085149301797) || !near(c.Diff.Hi, -0.001904189753970803) || !near(c.P, 0.02371864263219147) {
		t.Errorf("CompareWatched = %+v; want duplicate_rate_step_3, -0.015 [-0.0288, -0.0019], p 0.0237", c)
	}
	if _, err := rep.CompareWatched(a, b, "charge"); err == nil || !strings.Contains(err.Error(), `no watched step is named "charge"`) {
		t.Errorf("CompareWatched(charge) = %v; want no such watched step", err)
	}
}
