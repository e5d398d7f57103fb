package stats

import (
	"math"
	"testing"
)

// A z-score divides by the expectation's own spread: when every simulated job
// repeated nothing (no spread in the sample) the z-score is still defined, and
// is (0 - m) / sqrt(v/n). With m = 0.005 repeats a job, variance v = 0.005 and
// n = 1,000 jobs that is -0.005 / sqrt(5e-6) = -sqrt(5).
func TestZUsesExpectedVariance(t *testing.T) {
	c := Counters{Jobs: 1000, Calls: 10_000, CallsSq: Wide{Lo: 100_000}} // every job made 10 calls
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
	one := Counters{Jobs: 1000, RepeatedSteps: 1000, RepeatedSq: Wide{Lo: 1000}}
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
		tt.row.RepeatedSq = Wide{Lo: tt.sumSq}
		e := m.Estimate(&tt.row.Counters, tt.row.NoRepeats)
		if math.Abs(e.Lo-tt.wantLo) > 1e-6 || math.Abs(e.Hi-tt.wantHi) > 1e-6 {
			t.Errorf("%s: interval [%v, %v]; want [%v, %v]", tt.name, e.Lo, e.Hi, tt.wantLo, tt.wantHi)
		}
	}
}
