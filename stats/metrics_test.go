package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// A z-score divides by the expectation's own spread: when every simulated job
// repeated nothing (no spread in the sample) the z-score is still defined, and
// is (0 - m) / sqrt(v/n). With m = 0.005 repeats a job, variance v = 0.005 and
// n = 1,000 jobs that is -0.005 / sqrt(5e-6) = -sqrt(5).
func TestZUsesExpectedVariance(t *testing.T) {
	c := Counters{Jobs: 1000, Calls: 10_000}
	c.CallsSq.Add(100_000) // every job made 10 calls
	e := Expected{SucceededRate: 1, CallsPerJob: 10.02, CallsVar: 0.04, RepeatedPerJob: 0.005, RepeatedVar: 0.005}
	for _, tt := range []struct {
		metric string
		want   float64
	}{
		{"repeated_per_job", -math.Sqrt(5)},
		{"calls_per_job", -0.02 / math.Sqrt(0.04/1000)},
	} {
		m, _ := LookupMetric(tt.metric)
		z, ok := m.Z(&c, e)
		if !ok || math.Abs(z-tt.want) > 1e-9 {
			t.Errorf("%s: Z = %v, %v; want %v, true", tt.metric, z, ok, tt.want)
		}
	}
	// Where the truth has no spread either, z is 0 on a match and undefined
	// otherwise.
	m, _ := LookupMetric("repeated_per_job")
	if z, ok := m.Z(&c, Expected{SucceededRate: 1, CallsPerJob: 10}); z != 0 || !ok {
		t.Errorf("no repeats expected, none seen: Z = %v, %v; want 0, true", z, ok)
	}
	one := Counters{Jobs: 1000, RepeatedSteps: 1000}
	one.RepeatedSq.Add(1000)
	if _, ok := m.Z(&one, Expected{SucceededRate: 1, RepeatedPerJob: 2}); ok {
		t.Errorf("one repeat a job seen, two certain: Z defined; want undefined")
	}
}

// The interval on repeats at small counts: a sum of 0 reaches -ln(0.025) =
// 3.689 jobs' worth (Garwood's upper bound for 0, chi-squared with 2 degrees
// of freedom), not 0; repeats that come two at a time (sum 20, sum of squares
// 40: ten clumps of 2) get twice Garwood's interval for 10, [4.7954, 18.390]
// in the published tables; a strategy that cannot repeat gets [0, 0].
func TestRepeatsInterval(t *testing.T) {
	m, _ := LookupMetric("repeated_per_job")
	for _, tt := range []struct {
		name           string
		row            Row
		sumSq          uint64
		wantLo, wantHi float64
	}{
		{"none seen", Row{Counters: Counters{Jobs: 1000}}, 0, 0, -math.Log(0.025) / 1000},
		{"ten pairs", Row{Counters: Counters{Jobs: 1000, RepeatedSteps: 20}}, 40, 2 * 4.7954 / 1000, 2 * 18.390 / 1000},
		{"none possible", Row{Counters: Counters{Jobs: 1000}, NoRepeats: true}, 0, 0, 0},
	} {
		tt.row.RepeatedSq.Add(tt.sumSq)
		e := m.Estimate(&tt.row.Counters, tt.row.NoRepeats)
		if math.Abs(e.Lo-tt.wantLo) > 1e-6 || math.Abs(e.Hi-tt.wantHi) > 1e-6 {
			t.Errorf("%s: interval [%v, %v]; want [%v, %v]", tt.name, e.Lo, e.Hi, tt.wantLo, tt.wantHi)
		}
	}
}

// SpreadOf's interval is the mean's 95% Student t interval, worked out by
// hand: 10, 11 and 12 have mean 11 and sd 1, t(0.975, 2 df) = 4.302653 (a
// published table's 4.303), so the half width is 4.302653/sqrt(3) =
// 2.484138; 0.1 and 0.3 (mean 0.2, sd 0.141421, t(0.975, 1 df) = 12.706205,
// half width 1.270620) have an interval cut at 0; one replicate has the
// mean alone.
func TestSpreadInterval(t *testing.T) {
	m := Metrics()[0]
	reps := func(xs ...float64) []Values {
		var vs []Values
		for _, x := range xs {
			v := make(Values, len(Metrics()))
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
		s := m.SpreadOf(reps(tc.xs...))
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
