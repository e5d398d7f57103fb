package provider

import (
	"fmt"
	"math"
	"time"

	"retrysim/rng"
)

// z99 is the standard normal's 99th percentile, which ties a lognormal's p99
// to its median.
const z99 = 2.3263478740408408

// Latency is a duration that is fixed (P99 at most Median) or lognormal with
// the given median and 99th percentile.
type Latency struct {
	Median time.Duration
	P99    time.Duration
}

// Random reports whether drawing the latency takes a random draw.
func (l Latency) Random() bool { return l.P99 > l.Median && l.Median > 0 }

// Zero reports whether the latency is always zero.
func (l Latency) Zero() bool { return l.Median <= 0 && l.P99 <= 0 }

// Sampler is a Latency ready to draw from: its lognormal's sigma worked out once.
type Sampler struct {
	median float64
	sigma  float64 // 0 for a fixed latency
}

// Sampler prepares l for drawing.
func (l Latency) Sampler() Sampler {
	s := Sampler{median: float64(l.Median)}
	if l.Random() {
		s.sigma = math.Log(float64(l.P99)/float64(l.Median)) / z99
	}
	return s
}

// Random reports whether drawing takes a normal variate from the stream.
func (s Sampler) Random() bool { return s.sigma != 0 }

// At is the latency of normal variate z: the median when the latency is fixed.
// Drawing the variates apart from turning them into latencies lets a caller
// draw a job's ahead, before it knows which steps will take them.
func (s Sampler) At(z float64) time.Duration {
	if s.sigma == 0 {
		return time.Duration(s.median)
	}
	return s.random(z)
}

// random is At for a random latency.
func (s Sampler) random(z float64) time.Duration {
	return saturate(s.median * exp(s.sigma*z))
}

// Total is the time a job's calls take when each of ss, random samplers, is
// given its variate from zs: the sum of their At, in one loop with no call.
func Total(ss []Sampler, zs []float64) time.Duration {
	var t time.Duration
	for i, s := range ss {
		t += saturate(s.median * exp(s.sigma*zs[i]))
	}
	return t
}

// saturate converts nanoseconds to a Duration, maxLatency past it.
func saturate(ns float64) time.Duration {
	if ns > maxLatency {
		return time.Duration(maxLatency)
	}
	return time.Duration(ns)
}

// maxLatency keeps a latency from a far tail within time.Duration, about 292
// years: converting a larger float would wrap to a negative duration.
const maxLatency = 1<<63 - 1<<10

// Draw returns one latency, drawing from stream only when it is random.
func (s Sampler) Draw(stream *rng.Stream) time.Duration {
	if s.sigma == 0 {
		return s.At(0)
	}
	return s.At(stream.Normal())
}

// Check refuses negative durations.
func (l Latency) Check() error {
	if l.Median < 0 || l.P99 < 0 {
		return fmt.Errorf("a duration cannot be negative (median %v, p99 %v)", l.Median, l.P99)
	}
	return nil
}

// String is "fixed 20ms" or "lognormal median 20ms p99 200ms".
func (l Latency) String() string {
	if l.Random() {
		return fmt.Sprintf("lognormal median %v p99 %v", l.Median, l.P99)
	}
	return fmt.Sprintf("fixed %v", l.Median)
}
