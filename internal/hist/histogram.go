// Package hist is a mergeable histogram of durations: fixed memory, exact
// merges of integer counts, quantiles within QuantileError.
package hist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"time"
)

// Histogram counts durations in log-spaced buckets, 128 an octave, from 2^-20 s to Top, in
// constant memory, its integer counts merging exactly; a quantile is its bucket's
// geometric middle, within QuantileError. The first bucket counts everything under 2^-20 s
// and reads as 0, the last everything from Top on and reads as +Inf. Its zero value is empty.
type Histogram struct {
	n      int64
	counts [HistogramBuckets]int64
}

const (
	histSub     = 128 // buckets an octave: 7 mantissa bits
	histMinExp  = -20
	histMaxExp  = 23
	histShift   = 52 - 7
	histOctaves = histMaxExp - histMinExp
	// HistogramBuckets is 128 for each of the 43 octaves, one below them and one past.
	HistogramBuckets = histOctaves*histSub + 2
)

var (
	histMin = math.Ldexp(1, histMinExp)
	histTop = math.Ldexp(1, histMaxExp)
	// histLow is the float bits' bucket number of histMin, one above the first bucket.
	histLow = int(math.Float64bits(histMin)>>histShift) - 1
)

// QuantileError is a quantile's largest relative error within the range: 0.39%.
const QuantileError = 0.003898650263063158781 // sqrt(129/128) - 1

// Top is the shortest duration, in seconds, past the histogram's range: 2^23 s, about 97 days.
func Top() float64 { return histTop }

// bucketOf is x's bucket: 0 below the range (NaN and negatives included), the last past it.
func bucketOf(x float64) int {
	switch {
	case !(x >= histMin):
		return 0
	case x >= histTop:
		return HistogramBuckets - 1
	}
	return int(math.Float64bits(x)>>histShift) - histLow
}

// AddSeconds counts a duration of x seconds.
func (h *Histogram) AddSeconds(x float64) {
	h.counts[bucketOf(x)]++
	h.n++
}

// Add counts d.
func (h *Histogram) Add(d time.Duration) { h.AddN(d, 1) }

// AddN counts d n times, as n calls of Add would, n at least 0.
func (h *Histogram) AddN(d time.Duration, n int64) {
	h.counts[durationBucket(d)] += n
	h.n += n
}

// durationBucket is bucketOf(d.Seconds()) without Seconds' division: d times 1e-9 falls in
// the same bucket unless its bits are within 2^10 of a bucket's edge, where it asks Seconds.
func durationBucket(d time.Duration) int {
	x := float64(d) * 1e-9
	if low := math.Float64bits(x) & (1<<histShift - 1); low > 1<<10 && low < 1<<histShift-1<<10 {
		return bucketOf(x)
	}
	return bucketOf(d.Seconds())
}

// Count is how many durations h counted.
func (h *Histogram) Count() int64 { return h.n }

// PastRange is how many durations h counted past its range: Top or longer.
func (h *Histogram) PastRange() int64 { return h.counts[HistogramBuckets-1] }

// middle is bucket b's geometric middle in seconds, 0 for the first and +Inf for the last.
func middle(b int) float64 {
	switch b {
	case 0:
		return 0
	case HistogramBuckets - 1:
		return math.Inf(1)
	}
	lo := math.Float64frombits(uint64(b+histLow) << histShift)
	hi := math.Float64frombits(uint64(b+histLow+1) << histShift)
	return math.Sqrt(lo * hi)
}

// QuantileSeconds is the p-quantile in seconds, the value of rank ceil(p n) (1 at least):
// 0 under the range, +Inf past it, NaN when nothing was counted.
func (h *Histogram) QuantileSeconds(p float64) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	rank := max(int64(math.Ceil(p*float64(h.n))), 1)
	var seen int64
	for b, c := range &h.counts {
		seen += c
		if seen >= rank {
			return middle(b)
		}
	}
	return math.Inf(1) // p above 1
}

// Quantile is QuantileSeconds as a duration (MaxInt64 past the range, 0 for none).
func (h *Histogram) Quantile(p float64) time.Duration {
	q := h.QuantileSeconds(p)
	switch {
	case math.IsNaN(q):
		return 0
	case q*1e9 >= math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(math.Round(q * 1e9))
}

// Merge adds o's counts to h exactly, refusing a 64-bit overflow with h unchanged.
func (h *Histogram) Merge(o *Histogram) error {
	if _, carry := bits.Add64(uint64(h.n), uint64(o.n), 0); carry != 0 || h.n+o.n < 0 {
		return fmt.Errorf("histogram: %d + %d durations overflow a 64-bit count", h.n, o.n)
	}
	for b, c := range &o.counts {
		h.counts[b] += c
	}
	h.n += o.n
	return nil
}

// Bucket is a bucket's index, from 0 to HistogramBuckets-1, and its count.
type Bucket struct {
	Index int
	Count int64
}

// Buckets are h's buckets that counted something, in order.
func (h *Histogram) Buckets() []Bucket {
	var out []Bucket
	for b, c := range &h.counts {
		if c != 0 {
			out = append(out, Bucket{b, c})
		}
	}
	return out
}

// SetBuckets makes h hold exactly bs, in increasing index, or leaves it unchanged on an error.
func (h *Histogram) SetBuckets(bs []Bucket) error {
	var out Histogram
	for i, b := range bs {
		switch {
		case b.Index < 0 || b.Index >= HistogramBuckets:
			return fmt.Errorf("histogram bucket %d: not from 0 to %d", b.Index, HistogramBuckets-1)
		case i > 0 && b.Index <= bs[i-1].Index:
			return fmt.Errorf("histogram bucket %d: after bucket %d, not in increasing order", b.Index, bs[i-1].Index)
		case b.Count < 1:
			return fmt.Errorf("histogram bucket %d: count %d is not positive", b.Index, b.Count)
		case out.n+b.Count < 0:
			return errors.New("histogram: its counts overflow a 64-bit count")
		}
		out.counts[b.Index] = b.Count
		out.n += b.Count
	}
	*h = out
	return nil
}

// MarshalJSON writes the buckets that counted something as [index, count] pairs.
func (h Histogram) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, x := range h.Buckets() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d,%d]", x.Index, x.Count)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes and refuses anything else.
func (h *Histogram) UnmarshalJSON(data []byte) error {
	var pairs [][]int64
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&pairs); err != nil {
		return fmt.Errorf("histogram: not a list of [index, count] pairs of whole numbers: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("histogram: data after its buckets")
	}
	if pairs == nil {
		return errors.New("histogram: null, not a list of [index, count] pairs")
	}
	bs := make([]Bucket, len(pairs))
	for i, p := range pairs {
		if len(p) != 2 {
			return fmt.Errorf("histogram: pair %d holds %d numbers, not an index and a count", i, len(p))
		}
		if p[0] < 0 || p[0] >= HistogramBuckets {
			return fmt.Errorf("histogram: pair %d: bucket %d is not from 0 to %d", i, p[0], HistogramBuckets-1)
		}
		bs[i] = Bucket{int(p[0]), p[1]}
	}
	return h.SetBuckets(bs)
}

// GobEncode writes what MarshalJSON writes, for a shard's gob encoded items.
func (h Histogram) GobEncode() ([]byte, error) { return h.MarshalJSON() }

// GobDecode reads what GobEncode writes, refusing what UnmarshalJSON does.
func (h *Histogram) GobDecode(data []byte) error { return h.UnmarshalJSON(data) }
