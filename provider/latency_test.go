package provider

import (
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/rng"
)

// A lognormal latency has the median and p99 it was given: the fractions of
// draws below each sit within 4 sd of 1/2 and 99/100.
func TestLatencyQuantiles(t *testing.T) {
	const n = 200_000
	l := Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	s, stream := l.Sampler(), rng.NewStream(rng.PCGGenerator().New(1, 0))
	var belowMedian, belowP99 float64
	for range n {
		d := s.Draw(stream)
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
	if got := (Latency{Median: 20 * time.Millisecond}).Sampler().Draw(nil); got != 20*time.Millisecond {
		t.Errorf("a fixed latency draws %v, want 20ms", got)
	}
	if got := saturate(1e30); got != maxLatency || got < 290*365*24*time.Hour {
		t.Errorf("saturate(1e30) = %v, want about 292 years", got)
	}
	if got := saturate(1.5e9); got != 1500*time.Millisecond {
		t.Errorf("saturate(1.5e9) = %v, want 1.5s", got)
	}
}

// Virtual time saturates at the longest Duration instead of wrapping.
func TestLaterAndTimesSaturate(t *testing.T) {
	const most = time.Duration(math.MaxInt64)
	for _, c := range []struct{ got, want time.Duration }{
		{Later(1, 2), 3}, {Later(most-2, 2), most}, {Later(most-2, 3), most}, {Later(most, most), most},
		{Times(3, 4), 12}, {Times(0, 1000), 0}, {Times(most/2, 2), most - 1}, {Times(most/2+1, 2), most}, {Times(MaxDuration, 1000), most},
	} {
		if c.got != c.want {
			t.Errorf("got %d; want %d", c.got, c.want)
		}
	}
}
