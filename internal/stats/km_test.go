package stats

import (
	"math"
	"testing"
)

// TestKaplanMeier holds the estimator to curves worked by hand. Seven
// replicates: recovered at 1, 2, 2 and 4 s, censored (still down at the
// end) at 3, 5 and 5 s. At 1 s 7 are at risk and 1 recovers: 6/7 left; at
// 2 s 6 at risk, 2 recover: 6/7 x 4/6 = 4/7; the censoring at 3 s leaves 3
// at risk at 4 s, 1 recovers: 4/7 x 2/3 = 8/21. The first quartile is the
// first time at most 3/4 is left (2 s), the median at most 1/2 (4 s); 8/21
// is never at most 1/4, so the third quartile is NaN.
func TestKaplanMeier(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		obs    []Observation
		times  []float64
		left   []float64
		p25    float64
		median float64
		p75    float64
	}{
		{"censored", []Observation{{5, false}, {2, true}, {1, true}, {3, false}, {4, true}, {2, true}, {5, false}},
			[]float64{1, 2, 4}, []float64{6.0 / 7, 4.0 / 7, 8.0 / 21}, 2, 4, nan},
		// Without censoring the estimate is the empirical one: 1/4 falls
		// at each time, and the median is the first time half is left.
		{"none censored", []Observation{{4, true}, {3, true}, {2, true}, {1, true}},
			[]float64{1, 2, 3, 4}, []float64{0.75, 0.5, 0.25, 0}, 1, 2, 3},
		// A censoring tied with a recovery comes after it: 3 at risk at 3 s.
		{"tie", []Observation{{3, false}, {3, true}, {1, true}},
			[]float64{1, 3}, []float64{2.0 / 3, 1.0 / 3}, 1, 3, nan},
		// Fewer than half recovered: no median, whatever the times.
		{"mostly down", []Observation{{0, true}, {60, false}, {60, false}},
			[]float64{0}, []float64{2.0 / 3}, 0, nan, nan},
		{"all down", []Observation{{60, false}, {60, false}}, nil, nil, nan, nan, nan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := KaplanMeier(tc.obs)
			if len(s.Times) != len(tc.times) {
				t.Fatalf("KaplanMeier = %+v; want times %v, left %v", s, tc.times, tc.left)
			}
			for i := range tc.times {
				if s.Times[i] != tc.times[i] || math.Abs(s.Left[i]-tc.left[i]) > 1e-15 {
					t.Errorf("step %d = %g, %g; want %g, %g", i, s.Times[i], s.Left[i], tc.times[i], tc.left[i])
				}
			}
			same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
			q := s.Quartiles()
			if !same(q.P25, tc.p25) || !same(q.Median, tc.median) || !same(q.P75, tc.p75) {
				t.Errorf("quartiles = %+v; want %g, %g, %g", q, tc.p25, tc.median, tc.p75)
			}
		})
	}
}
