package stats

import (
	"math"

	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/schema"
)

// Share is k of n with its Wilson score interval, NaN with n = 0.
func Share(k, n int) schema.Estimate {
	if n == 0 {
		return estimate.Point(math.NaN(), 0)
	}
	return Wilson(int64(k), int64(n))
}
