package schema

import "math"

// Estimate is a quantity a model estimated, with its confidence interval:
// a share of jobs, a mean a job, a mean over replicates, a count, or a
// difference of two of them. Every model's results and every report carry
// this one type.
type Estimate struct {
	// Value is the estimate itself.
	Value float64
	// Lo and Hi bound its interval at confidence Level; both NaN when it
	// has none (Method NoInterval).
	Lo, Hi float64
	// N is how many observations it rests on: jobs for a share or a mean a
	// job, replicates for a mean over replicates, judged replicates for a
	// share of them.
	N int64
	// Level is the interval's confidence level (0.95), 0 without one.
	Level float64
	// Method is how the interval was found.
	Method Method
}

// Method is how an estimate's interval was found.
type Method int

const (
	// NoInterval is an estimate with no interval: Lo and Hi are NaN (a
	// quantile from a histogram, a mean of one replicate in the fleet), or
	// Value itself where a report prints one anyway (the mean of one
	// replicate of a job model's row).
	NoInterval Method = iota
	// Wilson is the Wilson score interval of a proportion.
	Wilson
	// Garwood is the exact Poisson interval of a count from chi-squared
	// quantiles; a share of jobs whose count is rare gets it, scaled.
	Garwood
	// CompoundPoisson is Garwood's interval on the effective count of a
	// sum of clumped per-job counts, scaled back by the clumps' size.
	CompoundPoisson
	// Normal is the normal interval of a mean, with its sample variance.
	Normal
	// StudentT is the Student t interval of a mean over replicates.
	StudentT
	// Exact is an interval known without sampling error: Lo and Hi are
	// Value (a count that the strategy's closed form says is 0).
	Exact
	// Newcombe is Newcombe's hybrid score interval for the difference of
	// two proportions, from each one's Wilson interval (his method 10).
	Newcombe
	// NormalDifference is the normal interval of the difference of two
	// means, each with its own sample variance (Welch's, at the normal
	// quantile).
	NormalDifference
)

// methods names the interval methods, in Method order.
var methods = NewEnum[Method]("interval method", "none", "wilson", "garwood", "compound-poisson", "normal",
	"student-t", "exact", "newcombe", "normal-difference")

// String names the method.
func (m Method) String() string { return methods.String(m) }

// MarshalText is the method's name.
func (m Method) MarshalText() ([]byte, error) { return methods.MarshalText(m) }

// UnmarshalText reads a method's name.
func (m *Method) UnmarshalText(text []byte) error { return methods.UnmarshalText(text, m) }

// Point is value with no interval, resting on n observations.
func Point(value float64, n int64) Estimate {
	return Estimate{Value: value, Lo: math.NaN(), Hi: math.NaN(), N: n}
}

// Count is Value x N, rounded to a whole number: for a share of N, the
// observations it counts (3 of 4 replicates recovered); 0 with N 0.
func (e Estimate) Count() int64 {
	if e.N == 0 {
		return 0
	}
	return int64(math.Round(e.Value * float64(e.N)))
}
