package results

import (
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
)

// Histogram counts durations in fixed log-spaced buckets, 20 a decade from
// 1 µs to about 10^6 s, so quantiles over billions of jobs take constant
// memory, and integer counts add up exactly across workers and shards.
// Bucket 0 holds zero durations.
type Histogram [HistogramBuckets]int64

// HistogramBuckets is the number of buckets.
const HistogramBuckets = 256

const bucketsPerDecade = 20

// Add counts d.
func (h *Histogram) Add(d time.Duration) { h[bucket(d)]++ }

// AddN counts d n times.
func (h *Histogram) AddN(d time.Duration, n int64) { h[bucket(d)] += n }

// AddHistogram adds o to h.
func (h *Histogram) AddHistogram(o *Histogram) {
	for i := range h {
		h[i] += o[i]
	}
}

// lower[b] is the shortest duration in bucket b: 1 µs x 10^((b-1)/20).
var lower = func() (l [HistogramBuckets]time.Duration) {
	for b := 1; b < HistogramBuckets; b++ {
		l[b] = time.Duration(math.Round(float64(time.Microsecond) * math.Pow(10, float64(b-1)/bucketsPerDecade)))
	}
	return l
}()

// bucket finds d's bucket by binary search over the boundaries: cheaper than
// a logarithm, and exact at the edges.
func bucket(d time.Duration) int {
	if d < time.Microsecond {
		return 0
	}
	b, found := slices.BinarySearch(lower[:], d)
	if !found {
		b--
	}
	return b
}

// value is a bucket's representative duration in seconds: its geometric middle.
func value(b int) float64 {
	if b == 0 {
		return 0
	}
	return 1e-6 * math.Pow(10, (float64(b-1)+0.5)/bucketsPerDecade)
}

// Quantile is the p-quantile of the counted durations, in seconds, to within
// a bucket (about 6%); NaN when nothing was counted.
func (h *Histogram) Quantile(p float64) float64 {
	var xs, ws []float64
	for b, n := range h {
		if n > 0 {
			xs = append(xs, value(b))
			ws = append(ws, float64(n))
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return stat.Quantile(p, stat.Empirical, xs, ws)
}
