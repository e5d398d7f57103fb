package provider

import (
	"fmt"
	"time"

	"github.com/retrysim/retrysim/internal/rng"
)

// Latency is a duration that is fixed (P99 at most Median) or lognormal with
// the given median and 99th percentile.
type Latency struct {
	Median time.Duration
	P99    time.Duration
}

// String is "fixed 20ms" or "lognormal median 20ms p99 200ms".
func (l Latency) String() string {
	if rng.LognormalDrawn(l.Median, l.P99) {
		return fmt.Sprintf("lognormal median %v p99 %v", l.Median, l.P99)
	}
	return fmt.Sprintf("fixed %v", l.Median)
}
