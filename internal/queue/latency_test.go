package queue

import (
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
)

// A lognormal latency has the median and p99 it was given: the fractions of
// draws below each sit within 4 sd of 1/2 and 99/100.
func TestLatencyQuantiles(t *testing.T) {
	const n = 200_000
	l := provider.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	s, stream := newSampler(l), rng.NewStream(rng.PCGGenerator().New(1, 0))
	var belowMedian, belowP99 float64
	for range n {
		d := s.draw(stream)
		if d < l.Median {
			belowMedian++
		}
		if d < l.P99 {
			belowP99++
		}
	}
	for _, c := range []struct{ got, p float64 }{{belowMedian, 0.5}, {belowP99, 0.99}} {
		if sd := math.Sqrt(n * c.p * (1 - c.p)); math.Abs(c.got-n*c.p) > 4*sd {
			t.Errorf("%v of %d draws below the %v quantile, want %.0f ± %.0f", c.got, n, c.p, n*c.p, 4*sd)
		}
	}
}

// A fixed latency draws nothing; a far tail saturates instead of wrapping to
// a negative duration.
func TestLatencyFixedAndSaturated(t *testing.T) {
	if got := newSampler(provider.Latency{Median: 20 * time.Millisecond}).draw(nil); got != 20*time.Millisecond {
		t.Errorf("a fixed latency draws %v, want 20ms", got)
	}
	if got := saturate(1e30); got != maxLatency || got < 290*365*24*time.Hour {
		t.Errorf("saturate(1e30) = %v, want about 292 years", got)
	}
	if got := saturate(1.5e9); got != 1500*time.Millisecond {
		t.Errorf("saturate(1.5e9) = %v, want 1.5s", got)
	}
}
