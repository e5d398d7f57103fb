package hist_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/hist"
)

// exactQuantile is the value of rank ceil(p n), 1 at least, of the sorted
// xs: the nearest-rank definition.
func exactQuantile(sorted []float64, p float64) float64 {
	rank := max(int(math.Ceil(p*float64(len(sorted)))), 1)
	return sorted[rank-1]
}

// Quantiles of 100,001 lognormal durations (median 0.2 s, from about 1 ms
// to 40 s) land within QuantileError of the sorted sample's, at every p
// from 0.001 to 1; the duration view agrees with the seconds view to the
// nanosecond.
func TestHistogramQuantilesAgainstSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h hist.Histogram
	xs := make([]float64, 100_001)
	for i := range xs {
		xs[i] = 0.2 * math.Exp(1.3*r.NormFloat64())
		h.AddSeconds(xs[i])
	}
	slices.Sort(xs)
	if h.Count() != int64(len(xs)) {
		t.Fatalf("Count = %d; want %d", h.Count(), len(xs))
	}
	for _, p := range []float64{0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.99999, 1} {
		want, got := exactQuantile(xs, p), h.QuantileSeconds(p)
		if math.Abs(got/want-1) > hist.QuantileError {
			t.Errorf("QuantileSeconds(%v) = %v; the sample's is %v, off by more than %.4f%%", p, got, want, 100*hist.QuantileError)
		}
		if d := h.Quantile(p); d != time.Duration(math.Round(got*1e9)) {
			t.Errorf("Quantile(%v) = %v; want %v s to the nanosecond", p, d, got)
		}
	}
}

// A bucket is 1/128 of an octave: 1 s reads as the middle of [1, 1+1/128),
// sqrt(129/128) s; 3 s as that of [3, 3+2/128); a duration under 2^-20 s (0
// included) reads 0; Top, 2^23 s, and past it read +Inf and count as past
// the range; nothing counted reads NaN, and 0 as a duration.
func TestHistogramBuckets(t *testing.T) {
	for _, tc := range []struct {
		x, want float64
	}{
		{1, math.Sqrt(129.0 / 128)},
		{1.0 + 0.5/128, math.Sqrt(129.0 / 128)},
		{3, math.Sqrt(3 * (3 + 2.0/128))},
		{0, 0},
		{math.Ldexp(1, -21), 0},
		{math.Ldexp(1, -20), math.Ldexp(math.Sqrt(129.0/128), -20)},
		{math.Ldexp(1, 23), math.Inf(1)},
		{1e9, math.Inf(1)},
	} {
		var h hist.Histogram
		h.AddSeconds(tc.x)
		if got := h.QuantileSeconds(0.5); got != tc.want && math.Abs(got/tc.want-1) > 1e-15 {
			t.Errorf("%v s reads %v; want %v", tc.x, got, tc.want)
		}
		if past := h.PastRange() == 1; past != (tc.x >= hist.Top()) {
			t.Errorf("%v s: past the range %t", tc.x, past)
		}
	}
	if hist.Top() != 8388608 {
		t.Errorf("Top = %v; want 2^23", hist.Top())
	}
	var empty hist.Histogram
	if !math.IsNaN(empty.QuantileSeconds(0.5)) || empty.Quantile(0.5) != 0 {
		t.Errorf("empty: %v, %v; want NaN and 0", empty.QuantileSeconds(0.5), empty.Quantile(0.5))
	}
	var d hist.Histogram
	d.Add(1500 * time.Millisecond)
	if got := d.Quantile(0.5); got != time.Duration(math.Round(math.Sqrt(1.5*(1.5+1.0/128))*1e9)) {
		t.Errorf("1.5 s reads %v", got)
	}
}

// Merging histograms is adding their counts: four histograms of a
// sample's quarters merged equal the histogram of the whole sample, bucket
// for bucket; a merge that would overflow a count is refused and leaves
// the histogram as it was.
func TestHistogramMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var whole hist.Histogram
	parts := make([]hist.Histogram, 4)
	for i := range 40_000 {
		x := r.ExpFloat64() * math.Pow(10, float64(r.IntN(12)-6))
		whole.AddSeconds(x)
		parts[i%4].AddSeconds(x)
	}
	var merged hist.Histogram
	for i := range parts {
		if err := merged.Merge(&parts[i]); err != nil {
			t.Fatal(err)
		}
	}
	if merged != whole {
		t.Error("the merged quarters differ from the whole")
	}
	var big hist.Histogram
	if err := big.SetBuckets([]hist.Bucket{{Index: 7, Count: math.MaxInt64}}); err != nil {
		t.Fatal(err)
	}
	before := big
	if err := big.Merge(&parts[0]); err == nil || big != before {
		t.Errorf("an overflowing merge: %v, changed %t; want an error and no change", err, big != before)
	}
}

// JSON holds the buckets that counted something as [index, count] pairs,
// reads back equal, and anything malformed is refused.
func TestHistogramJSON(t *testing.T) {
	var h hist.Histogram
	h.AddSeconds(1)
	h.AddSeconds(1)
	h.AddSeconds(0)
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	// 1 s is bucket (20 octaves + the one below) x 128 ... : 1 + 20 x 128.
	if got, want := string(b), "[[0,1],[2561,2]]"; got != want {
		t.Errorf("Marshal = %s; want %s", got, want)
	}
	var back hist.Histogram
	if err := json.Unmarshal(b, &back); err != nil || back != h {
		t.Errorf("Unmarshal(%s) = %v; want the histogram back", b, err)
	}
	if b, _ := json.Marshal(hist.Histogram{}); string(b) != "[]" {
		t.Errorf("empty: %s; want []", b)
	}
	for _, bad := range []string{
		`null`, `{}`, `[1,2]`, `[[1]]`, `[[1,2,3]]`, `[[1,1.5]]`, `[[1,"2"]]`, `[[-1,1]]`,
		`[[5506,1]]`, `[[3,0]]`, `[[3,-1]]`, `[[4,1],[3,1]]`, `[[4,1],[4,1]]`,
		`[[1,9223372036854775807],[2,1]]`, `[] []`, `[]]`, `[[1,99999999999999999999]]`,
	} {
		var x hist.Histogram
		if err := json.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("Unmarshal(%s) = nil; want an error", bad)
		} else if !strings.Contains(err.Error(), "histogram") && !strings.Contains(err.Error(), "invalid") {
			t.Errorf("Unmarshal(%s) = %v; want an error naming the histogram", bad, err)
		}
	}
}

// Whatever the reader accepts writes back as the same bytes (the form is
// canonical) and reads back as the same histogram, its Count the sum of
// its buckets.
func FuzzHistogramJSON(f *testing.F) {
	for _, s := range []string{`[]`, `[[0,1],[2561,2]]`, `[[5505,3]]`, `[[1,9223372036854775807]]`, `null`, `[[4,1],[3,1]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var h hist.Histogram
		if h.UnmarshalJSON(data) != nil {
			return
		}
		out, err := h.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var back hist.Histogram
		if err := back.UnmarshalJSON(out); err != nil || back != h {
			t.Fatalf("%s -> %s: reads back %v", data, out, err)
		}
		var sum int64
		for _, b := range h.Buckets() {
			sum += b.Count
		}
		if sum != h.Count() {
			t.Fatalf("%s: buckets add to %d, Count %d", data, sum, h.Count())
		}
	})
}

// TestHistogramErrorBound holds the latency quantiles' stated bound: for
// every bucket from 2^-20 s to 2^23 s, a value at either edge of the bucket
// (the worst cases of a geometric middle) is reported within QuantileError,
// and the octave's first bucket reaches it, so the bound is the true one
// (above the 0.3% the fleet's doc used to promise).
func TestHistogramErrorBound(t *testing.T) {
	// Written from the buckets' definition, not from QuantileError's.
	want := math.Sqrt(129.0/128.0) - 1
	if math.Abs(hist.QuantileError-want) > 1e-15 || hist.QuantileError < 0.0038 || hist.QuantileError > 0.0039 {
		t.Fatalf("hist.QuantileError = %g; want sqrt(129/128) - 1 = %g (0.39%%)", hist.QuantileError, want)
	}
	worst := 0.0
	for e := -20; e < 23; e++ {
		for k := range 128 {
			lo := math.Ldexp(1+float64(k)/128, e)
			hi := math.Ldexp(1+float64(k+1)/128, e)
			for _, x := range []float64{lo, math.Nextafter(hi, 0)} {
				var h hist.Histogram
				h.AddSeconds(x)
				got := h.QuantileSeconds(0.5)
				rel := math.Abs(got-x) / x
				if rel > hist.QuantileError*(1+1e-12) {
					t.Fatalf("quantile of %g = %g, off by %.5f%%; want within %.5f%%", x, got, 100*rel, 100*hist.QuantileError)
				}
				worst = math.Max(worst, rel)
			}
		}
	}
	if worst < hist.QuantileError*(1-1e-9) {
		t.Errorf("worst relative error %.6f%%; want the bound %.6f%% reached", 100*worst, 100*hist.QuantileError)
	}
	if worst <= 0.003 {
		t.Errorf("worst relative error %.6f%%; the bound is above 0.3%%", 100*worst)
	}
}

// BenchmarkHistogramMerge is the cost of adding one block's histogram into
// a run's, which every block of the delivery model does twice a strategy.
func BenchmarkHistogramMerge(b *testing.B) {
	var h, o hist.Histogram
	o.Add(20 * time.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Merge(&o); err != nil {
			b.Fatal(err)
		}
	}
}

// AddN(d, n) is n calls of Add(d): the same buckets, quantiles and count,
// 0 times included, for durations under, in and past the range.
func TestHistogramAddNIsRepeatedAdd(t *testing.T) {
	for _, d := range []time.Duration{-1, 0, 1, 20 * time.Millisecond, 200*time.Millisecond + 1, time.Duration(hist.Top()*1e9) + 1} {
		for _, n := range []int64{0, 1, 7} {
			var got, want hist.Histogram
			got.AddN(d, n)
			for range n {
				want.Add(d)
			}
			if !slices.Equal(got.Buckets(), want.Buckets()) || got.Count() != want.Count() {
				t.Errorf("AddN(%v, %d) = %v (count %d); want %v (count %d)", d, n, got.Buckets(), got.Count(), want.Buckets(), want.Count())
			}
		}
	}
}
