package fleet

import "math"

// histogram counts latencies in buckets of 1/128 of an octave, from 2^-20 s
// (about a microsecond) to 2^20 s, so memory does not grow with the requests.
// The buckets cut each octave [2^e, 2^(e+1)) into 128 equal widths, and a
// quantile is its bucket's geometric middle, so for a latency in that range
// it is within histError (sqrt(129/128) - 1, 0.39%) of the exact one,
// the bound reached at the bottom of an octave's first bucket.
type histogram struct {
	n      int64
	counts [histOctaves * histSub]int64
}

const (
	histSub     = 128 // buckets an octave: 7 mantissa bits
	histOctaves = 40
	histShift   = 52 - 7
)

// histError is the largest relative error of a latency quantile: a
// bucket [lo, hi) reports sqrt(lo hi), which is sqrt(hi/lo) - 1 above lo, and
// hi/lo is largest, 129/128, in an octave's first bucket.
var histError = math.Sqrt(1+1.0/histSub) - 1

// histLow is the bucket index of 2^-20, the lowest bucket.
var histLow = int(math.Float64bits(0x1p-20) >> histShift)

func (h *histogram) add(x float64) {
	x = math.Min(math.Max(x, 0x1p-20), 0x1p20*(1-0x1p-20))
	h.counts[int(math.Float64bits(x)>>histShift)-histLow]++
	h.n++
}

// quantile is the q-quantile (the value of rank ceil(q n)) as the geometric
// middle of its bucket; NaN for an empty histogram.
func (h *histogram) quantile(q float64) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo := math.Float64frombits(uint64(i+histLow) << histShift)
			hi := math.Float64frombits(uint64(i+histLow+1) << histShift)
			return math.Sqrt(lo * hi)
		}
	}
	return math.NaN() // not reached: the counts sum to n
}
