// Package estimate holds the ways an estimate's interval is found (schema.Method's values)
// and an estimate with no interval.
package estimate

import (
	"math"

	"github.com/retrysim/retrysim/schema"
)

// The interval methods, in the order schema.Method names them.
const (
	// NoInterval is an estimate whose Lo and Hi are NaN, or Value where a report prints one.
	NoInterval schema.Method = iota
	// Wilson is the Wilson score interval of a proportion.
	Wilson
	// Garwood is the exact Poisson interval of a count from chi-squared quantiles.
	Garwood
	// CompoundPoisson is Garwood's interval on the effective count of clumped per-job counts.
	CompoundPoisson
	// Normal is the normal interval of a mean, with its sample variance.
	Normal
	// StudentT is the Student t interval of a mean over replicates.
	StudentT
	// Exact is an interval known without sampling error: Lo and Hi are Value.
	Exact
	// Newcombe is Newcombe's hybrid score interval of two proportions' difference (method 10).
	Newcombe
	// NormalDifference is Welch's interval of two means' difference at the normal quantile.
	NormalDifference
)

// Point is value with no interval, resting on n observations.
func Point(value float64, n int64) schema.Estimate {
	return schema.Estimate{Value: value, Lo: math.NaN(), Hi: math.NaN(), N: n}
}
