package stats

import (
	"math"
	"testing"

	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/schema"
)

// Wilson's estimate against the values Newcombe published (Statistics in
// Medicine 17, 1998, "Two-sided confidence intervals for the single
// proportion: comparison of seven methods", table I, method 3, the score
// interval without continuity correction, to 4 decimals): 81/263 is
// [0.2553, 0.3662], 15/148 [0.0624, 0.1605], 0/20 [0, 0.1611], 1/29
// [0.0061, 0.1718]. Every field of the one estimate is checked: the
// share, its interval, the observations, the level and the method.
func TestWilsonPublished(t *testing.T) {
	for _, tc := range []struct {
		x, n   int64
		lo, hi float64
	}{{81, 263, 0.2553, 0.3662}, {15, 148, 0.0624, 0.1605}, {0, 20, 0, 0.1611}, {1, 29, 0.0061, 0.1718}} {
		e := Wilson(tc.x, tc.n)
		if e.Value != float64(tc.x)/float64(tc.n) || math.Abs(e.Lo-tc.lo) > 5e-5 || math.Abs(e.Hi-tc.hi) > 5e-5 ||
			e.N != tc.n || e.Level != 0.95 || e.Method != estimate.Wilson || e.Count() != tc.x {
			t.Errorf("Wilson(%d, %d) = %+v; want %d/%d [%.4f, %.4f], N %d, level 0.95, wilson", tc.x, tc.n, e, tc.x, tc.n, tc.lo, tc.hi, tc.n)
		}
	}
}

// Each metric's estimate names the method of its interval and the jobs it
// rests on: a common share by Wilson, a rare one by Garwood, a mean by the
// normal interval, rare repeats by the compound Poisson one, and repeats
// the closed form rules out exactly.
func TestMetricMethods(t *testing.T) {
	c := Counters{Jobs: 1000, Failed: 300, DuplicateUsers: 5, Calls: 1500, CallsSq: Wide{Lo: 2700}, RepeatedSteps: 4, RepeatedSq: Wide{Lo: 8}}
	want := map[string]schema.Method{"succeeded": estimate.Wilson, "failed_rate": estimate.Wilson, "calls_per_job": estimate.Normal,
		"repeated_per_job": estimate.CompoundPoisson, "duplicate_rate": estimate.Garwood}
	for _, m := range Metrics() {
		e := m.Estimate(&c, false)
		if e.Method != want[m.Name] || e.N != 1000 || e.Level != 0.95 {
			t.Errorf("%s: %v of %d at %g; want %v of 1000 at 0.95", m.Name, e.Method, e.N, e.Level, want[m.Name])
		}
	}
	if e := Metrics()[3].Estimate(&c, true); e.Method != estimate.Exact || e.Lo != 0 || e.Hi != 0 {
		t.Errorf("repeats ruled out: %+v; want exactly [0, 0]", e)
	}
}
