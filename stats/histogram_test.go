package stats

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The table lookup finds the same bucket as a binary search over the
// boundaries: at every boundary and its neighbours, and at a million
// durations spread evenly over the decades.
func TestBucketMatchesSearch(t *testing.T) {
	var ds []time.Duration
	for _, l := range lower[1:] {
		ds = append(ds, l-1, l, l+1)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 1_000_000 {
		ds = append(ds, time.Duration(math.Pow(10, r.Float64()*19)))
	}
	ds = append(ds, 0, 1, 999, 1<<63-1)
	for _, d := range ds {
		if got, want := bucket(d), searchBucket(d); got != want {
			t.Fatalf("bucket(%d) = %d, binary search gives %d", d, got, want)
		}
	}
}

// Buckets are a twentieth of a decade from 1 µs, and a quantile lands within
// a bucket of the true value.
func TestHistogramQuantile(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{{0, 0}, {999, 0}, {time.Microsecond, 1}, {10 * time.Microsecond, 21}, {time.Second, 121}, {time.Second - 1, 120}} {
		if got := bucket(c.d); got != c.want {
			t.Errorf("bucket(%v) = %d, want %d", c.d, got, c.want)
		}
	}
	var h Histogram
	h.AddN(20*time.Millisecond, 900)
	h.AddN(300*time.Millisecond, 90)
	for range 10 {
		h.Add(30 * time.Second)
	}
	step := math.Pow(10, 1.0/bucketsPerDecade)
	for _, c := range []struct{ p, want float64 }{{0.5, 0.02}, {0.95, 0.3}, {0.995, 30}} {
		if got := h.Quantile(c.p); got < c.want/step || got > c.want*step {
			t.Errorf("Quantile(%v) = %v s, want %v s within a bucket", c.p, got, c.want)
		}
	}
	if q := new(Histogram).Quantile(0.5); !math.IsNaN(q) {
		t.Errorf("an empty histogram's median is %v, want NaN", q)
	}
}

// The top bucket has no upper end: a quantile in it is +Inf (past the range,
// shown as such), not its middle. Its start is 10^(254/20) µs = 10^6.7 s.
func TestHistogramPastTheTop(t *testing.T) {
	if want := math.Pow(10, 6.7); math.Abs(Top()-want) > 1e-6 {
		t.Errorf("Top() = %v s; want 10^6.7 = %v s", Top(), want)
	}
	var h Histogram
	h.AddN(time.Second, 60)
	h.AddN(2000*time.Hour, 40) // 7.2e6 s
	if got := h.Quantile(0.5); got < 1/1.13 || got > 1.13 {
		t.Errorf("Quantile(0.5) = %v s; want 1 s within a bucket", got)
	}
	for _, p := range []float64{0.61, 0.99} {
		if got := h.Quantile(p); !math.IsInf(got, 1) {
			t.Errorf("Quantile(%v) = %v s; want +Inf, past the range", p, got)
		}
	}
}
