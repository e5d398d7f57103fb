// Package limits holds the checks every model's settings share and virtual time's
// arithmetic, which saturates instead of wrapping.
package limits

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/retrysim/retrysim/internal/human"
)

// MaxJobs is the most jobs a job-model run has, so that no counter can overflow.
const MaxJobs = 1_000_000_000_000

// MaxAttempts bounds the calls any retry loop of a job may make, a step's own included.
const MaxAttempts = 1000

// MaxDuration bounds every duration a run is given, from flags and files alike: a year is
// past any timeout or key life worth simulating. Sums past time.Duration saturate.
const MaxDuration = 8760 * time.Hour // the command's help and the README say 8760h

// Duration refuses a duration that is negative or longer than MaxDuration.
func Duration(d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("%s is negative", human.Duration(d))
	case d > MaxDuration:
		return fmt.Errorf("%s is longer than the 8760h (365 days) a duration may be", human.Duration(d))
	}
	return nil
}

// Probability refuses NaN and values outside [0, 1].
func Probability(p float64) error {
	if math.IsNaN(p) || p < 0 || p > 1 {
		return fmt.Errorf("%v is not a probability in [0, 1]", p)
	}
	return nil
}

// Lease refuses a lease not longer than 0s: one bound, one message, for every lease mode.
func Lease(d time.Duration) error {
	if d <= 0 {
		return errors.New("a lease must be longer than 0s (one that ran out at once would hold nothing)")
	}
	return nil
}

// Later is t + d for non-negative durations, saturated at the longest time.Duration.
func Later(t, d time.Duration) time.Duration {
	if t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}

// Times is n x d for a non-negative duration and count, saturated as Later is.
func Times(d time.Duration, n int) time.Duration {
	if n > 0 && d > math.MaxInt64/time.Duration(n) {
		return math.MaxInt64
	}
	return d * time.Duration(n)
}
