package schema

import (
	"math"

	"github.com/retrysim/retrysim/internal/enum"
)

// Estimate is a quantity a model estimated, with its confidence interval: the one type
// every model's results and reports carry.
type Estimate struct {
	// Value is the estimate itself.
	Value float64
	// Lo and Hi bound its interval at confidence Level; both NaN with none.
	Lo, Hi float64
	// N is how many observations it rests on (jobs, replicates or judged replicates).
	N int64
	// Level is the interval's confidence level (0.95), 0 without one.
	Level float64
	// Method is how the interval was found.
	Method Method
}

// Method is how an estimate's interval was found.
type Method int

// methods names the interval methods, in Method order.
var methods = enum.New[Method]("interval method", "none", "wilson", "garwood", "compound-poisson", "normal",
	"student-t", "exact", "newcombe", "normal-difference")

// String names the method.
func (m Method) String() string { return methods.String(m) }

// MarshalText is the method's name.
func (m Method) MarshalText() ([]byte, error) { return methods.MarshalText(m) }

// UnmarshalText reads a method's name.
func (m *Method) UnmarshalText(text []byte) error { return methods.UnmarshalText(text, m) }

// Count is Value x N rounded: for a share of N, the observations it counts.
func (e Estimate) Count() int64 {
	if e.N == 0 {
		return 0
	}
	return int64(math.Round(e.Value * float64(e.N)))
}
