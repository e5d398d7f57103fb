package queue

import (
	"math"
	"time"

	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
)

// z99 is the standard normal's 99th percentile, tying a lognormal's p99 to its median.
const z99 = 2.3263478740408408

// sampler is a latency ready to draw from: its lognormal's tables built once.
type sampler struct {
	median float64
	ln     *rng.Lognormal // nil for a fixed latency
}

// newSampler prepares l for drawing.
func newSampler(l provider.Latency) sampler {
	s := sampler{median: float64(l.Median)}
	if rng.LognormalDrawn(l.Median, l.P99) {
		s.ln = rng.NewLognormal(math.Log(float64(l.P99)/float64(l.Median)) / z99)
	}
	return s
}

// random reports whether drawing takes draws from the stream.
func (s sampler) random() bool { return s.ln != nil }

// draw returns one latency, drawing from stream only when it is random.
func (s sampler) draw(stream *rng.Stream) time.Duration {
	if s.ln == nil {
		return time.Duration(s.median)
	}
	return saturate(s.median * s.ln.Draw(stream))
}

// batch draws the latencies of a list of calls in order, as their samplers would.
type batch struct {
	ls      []*rng.Lognormal
	medians []float64
	z       []float64
}

// newBatch prepares to draw one latency for each of ss, which must be random.
func newBatch(ss []sampler) *batch {
	b := &batch{z: make([]float64, len(ss))}
	for _, s := range ss {
		b.ls, b.medians = append(b.ls, s.ln), append(b.medians, s.median)
	}
	return b
}

// draw sets dst[k] to a latency of the k-th sampler and returns their sum.
func (b *batch) draw(stream *rng.Stream, dst []time.Duration) time.Duration {
	rng.Lognormals(b.ls, stream, b.z)
	medians, dst := b.medians[:len(b.z)], dst[:len(b.z)]
	var sum time.Duration
	for k, z := range b.z {
		d := saturate(medians[k] * z)
		dst[k] = d
		sum = limits.Later(sum, d)
	}
	return sum
}

// saturate converts nanoseconds to a Duration, maxLatency past it.
func saturate(ns float64) time.Duration {
	if ns > maxLatency {
		return maxLatency
	}
	return time.Duration(ns)
}

// maxLatency keeps a far tail's latency within time.Duration, which a larger float wraps.
const maxLatency = 1<<63 - 1<<10
