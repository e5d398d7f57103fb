package reportjson

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/retrysim/retrysim/internal/stats"
	"gonum.org/v1/gonum/stat"
)

// SpreadOf's interval is the mean's 95% Student t interval, worked out by
// hand: 10, 11 and 12 have mean 11 and sd 1, t(0.975, 2 df) = 4.302653 (a
// published table's 4.303), so the half width is 4.302653/sqrt(3) =
// 2.484138; 0.1 and 0.3 (mean 0.2, sd 0.141421, t(0.975, 1 df) = 12.706205,
// half width 1.270620) have an interval cut at 0; one replicate has the
// mean alone.
func TestSpreadInterval(t *testing.T) {
	m := stats.Metrics()[0]
	reps := func(xs ...float64) []stats.Values {
		var vs []stats.Values
		for _, x := range xs {
			v := make(stats.Values, len(stats.Metrics()))
			v[0] = x
			vs = append(vs, v)
		}
		return vs
	}
	for _, tc := range []struct {
		xs           []float64
		mean, lo, hi float64
	}{
		{[]float64{10, 11, 12}, 11, 11 - 2.484138, 11 + 2.484138},
		{[]float64{0.1, 0.3}, 0.2, 0, 0.2 + 1.270620},
		{[]float64{5}, 5, 5, 5},
	} {
		s := SpreadOf(m, reps(tc.xs...))
		if math.Abs(s.Value-tc.mean) > 1e-9 || math.Abs(s.Lo-tc.lo) > 1e-5 || math.Abs(s.Hi-tc.hi) > 1e-5 {
			t.Errorf("SpreadOf(%v) = %+v; want mean %g, [%g, %g]", tc.xs, s, tc.mean, tc.lo, tc.hi)
		}
	}
}

// meanSD gives gonum's stat.MeanStdDev's mean and standard deviation to the
// last bit, for 1 to 40 replicates' values of every size (the sum's order
// depends on the count), and 3, 4 and 5 replicates by hand: 2, 4, 9 have
// mean 5 and standard deviation sqrt(13).
func TestMeanSDIsGonums(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for n := 1; n <= 40; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = r.ExpFloat64() * math.Pow(10, float64(r.IntN(9)-4))
		}
		mu, sd := meanSD(xs)
		wantMu, wantSD := stat.MeanStdDev(xs, nil)
		if mu != wantMu || sd != wantSD && !(math.IsNaN(sd) && math.IsNaN(wantSD)) {
			t.Errorf("%d values: meanSD = %.17g, %.17g; stat.MeanStdDev %.17g, %.17g", n, mu, sd, wantMu, wantSD)
		}
	}
	if mu, sd := meanSD([]float64{2, 4, 9}); mu != 5 || math.Abs(sd-math.Sqrt(13)) > 1e-15 {
		t.Errorf("meanSD(2, 4, 9) = %g, %g; want 5, sqrt(13)", mu, sd)
	}
}
