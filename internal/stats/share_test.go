package stats

import (
	"math"
	"testing"

	"github.com/retrysim/retrysim/internal/estimate"
)

// TestShare holds the recovered share's interval to the Wilson score
// interval (95%, z = 1.959964) computed by hand: for k of n, centre (p +
// z^2/2n)/(1 + z^2/n), half width z/(1 + z^2/n) sqrt(p(1-p)/n + z^2/4n^2).
// 1 of 10: centre 0.211013, half 0.193137; 0 of 10: hi = z^2/(n + z^2) =
// 3.841459/13.841459; 50 of 200: centre 0.254711, half 0.059630. 250 of
// 1000 (the README's spike) is checked against the roots of the score
// test's quadratic (p - x)^2 = z^2 x(1 - x)/n, another route to the same
// bounds: 0.224153 and 0.277760.
func TestShare(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{1, 10, 0.017876, 0.404150},
		{0, 10, 0, 0.277533},
		{10, 10, 0.722467, 1},
		{50, 200, 0.195082, 0.314341},
		{250, 1000, 0.224153, 0.277760},
	} {
		s := Share(tc.k, tc.n)
		if s.Count() != int64(tc.k) || s.N != int64(tc.n) || s.Value != float64(tc.k)/float64(tc.n) || s.Method != estimate.Wilson || s.Level != 0.95 ||
			math.Abs(s.Lo-tc.lo) > 2e-6 || math.Abs(s.Hi-tc.hi) > 2e-6 {
			t.Errorf("Share(%d, %d) = %+v; want [%g, %g]", tc.k, tc.n, s, tc.lo, tc.hi)
		}
	}
	if s := Share(0, 0); !math.IsNaN(s.Value) || !math.IsNaN(s.Lo) || !math.IsNaN(s.Hi) || s.N != 0 || s.Method != estimate.NoInterval {
		t.Errorf("Share(0, 0) = %+v; want NaN", s)
	}
}
