package provider

import (
	"fmt"
	"time"

	"github.com/retrysim/retrysim/internal/limits"
)

// Latency is a duration that is fixed (P99 at most Median) or lognormal with
// the given median and 99th percentile.
type Latency struct {
	Median time.Duration
	P99    time.Duration
}

// Random reports whether drawing the latency takes a random draw.
func (l Latency) Random() bool { return l.P99 > l.Median && l.Median > 0 }

// Check refuses what a latency cannot be: a negative duration or one past
// MaxDuration, a p99 below the median, or a p99 with no median (a lognormal
// needs both; without this it would run as a fixed 0).
func (l Latency) Check() error {
	if err := limits.Duration(l.Median); err != nil {
		return err
	}
	if err := limits.Duration(l.P99); err != nil {
		return err
	}
	switch {
	case l.P99 > 0 && l.Median == 0:
		return fmt.Errorf("a p99 (%v) needs a median above 0", l.P99)
	case l.P99 > 0 && l.P99 < l.Median:
		return fmt.Errorf("p99 %v is below the median %v", l.P99, l.Median)
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
