package hist

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// Add counts a duration in the bucket of its Seconds, which is how it was
// defined before it skipped Seconds' division: at every bucket's edge (the
// durations within 64 ns of it, where the two could part), and at a million
// durations drawn log-uniformly from 1 ns to past the range, and negative ones.
func TestAddIsBucketOfSeconds(t *testing.T) {
	check := func(d time.Duration) {
		t.Helper()
		if got, want := durationBucket(d), bucketOf(d.Seconds()); got != want {
			t.Fatalf("durationBucket(%d ns) = %d; want bucketOf(Seconds) = %d", int64(d), got, want)
		}
	}
	for b := 1; b < HistogramBuckets; b++ {
		edge := math.Float64frombits(uint64(b+histLow) << histShift) // the least x of bucket b
		d0 := time.Duration(math.Round(edge * 1e9))
		for d := d0 - 64; d <= d0+64; d++ {
			check(d)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		d := time.Duration(math.Exp2(r.Float64() * 64))
		check(d)
		check(-d)
	}
	for _, d := range []time.Duration{0, 1, -1, math.MaxInt64, math.MinInt64} {
		check(d)
	}
}
