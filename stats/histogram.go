package stats

import (
	"math"
	"math/bits"
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

// UnmarshalJSON reads exactly HistogramBuckets counts: encoding/json would
// drop the extra numbers of a longer array without a word.
func (h *Histogram) UnmarshalJSON(b []byte) error { return exactly(b, h[:], "histogram buckets") }

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

// bucket finds d's bucket. A binary search over the boundaries was the time
// model's third cost; instead d's power of two and the six bits below its top
// bit name a cell, narrower than any bucket, whose bucket a table gives, and
// one comparison settles a boundary within the cell.
func bucket(d time.Duration) int {
	if d < time.Microsecond {
		return 0
	}
	b := int(cellBucket[cell(d)])
	if b+1 < HistogramBuckets && d >= lower[b+1] {
		b++
	}
	return b
}

// cellBits splits each power of two into 64 cells: one spans at most 1/64 of
// its start, a bucket 12%, so a cell holds at most one boundary.
const cellBits = 6

// cell is the cell of a duration of at least 1 µs.
func cell(d time.Duration) int {
	e := bits.Len64(uint64(d)) - 1
	return e<<cellBits | int(uint64(d)>>(e-cellBits))&(1<<cellBits-1)
}

// cellBucket[c] is the bucket of cell c's shortest duration.
var cellBucket = func() (t [63 << cellBits]uint8) {
	for c := cell(time.Microsecond); c < len(t); c++ {
		e, m := c>>cellBits, c&(1<<cellBits-1)
		t[c] = uint8(searchBucket(time.Duration(1<<cellBits+m) << (e - cellBits)))
	}
	return t
}()

// searchBucket finds d's bucket by binary search over the boundaries.
func searchBucket(d time.Duration) int {
	if d < time.Microsecond {
		return 0
	}
	b, found := slices.BinarySearch(lower[:], d)
	if !found {
		b--
	}
	return b
}

// value is a bucket's representative duration in seconds: its geometric
// middle, or +Inf for the top bucket, which has no upper end.
func value(b int) float64 {
	switch b {
	case 0:
		return 0
	case HistogramBuckets - 1:
		return math.Inf(1)
	}
	return 1e-6 * math.Pow(10, (float64(b-1)+0.5)/bucketsPerDecade)
}

// PastRange is how many durations h counted past its range: Top or longer.
func (h *Histogram) PastRange() int64 { return h[HistogramBuckets-1] }

// Top is the shortest duration, in seconds, past the histogram's range (about
// 5.0e6 s, 58 days): the top bucket counts every duration from there on,
// virtual time saturated by an overflow included.
func Top() float64 { return lower[HistogramBuckets-1].Seconds() }

// Quantile is the p-quantile of the counted durations, in seconds, to within
// a bucket (about 6%); +Inf when it lies past the range (at least Top, by how
// much unknown), and NaN when nothing was counted.
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
