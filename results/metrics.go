package results

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// Estimate is a simulated rate and its 95% interval.
type Estimate struct {
	Value, Lo, Hi float64
}

// Expected holds a strategy's closed-form expectations, per job.
type Expected struct {
	FailedRate     float64
	CallsPerJob    float64
	RepeatedPerJob float64
	DuplicateRate  float64
}

// Metric is one rate every output carries: how to estimate it from counters,
// with which interval, and how far an observation is from its expectation.
type Metric struct {
	// Name is the json and csv key, and what sweep's -metric takes.
	Name string
	// Label says what it is, for axes and pivots.
	Label string
	// Estimate computes the rate and its interval.
	Estimate func(c Counters) Estimate
	// Expected picks the metric's expectation, per job.
	Expected func(e Expected) float64
	// SE is the standard error of the estimate when expected is the truth.
	SE func(c Counters, expected float64) float64
}

func share(x, n int64) Estimate {
	ci := CountOfJobs(x, n)
	nf := float64(n)
	return Estimate{float64(x) / nf, ci.Lo / nf, ci.Hi / nf}
}

func mean(sum int64, sumSq Wide, n int64) Estimate {
	m, ci := MeanOf(sum, sumSq, n)
	return Estimate{m, ci.Lo, ci.Hi}
}

func binomialSE(c Counters, p float64) float64 { return math.Sqrt(p * (1 - p) / float64(c.Jobs)) }

func meanSE(sum int64, sumSq Wide, n int64) float64 {
	m, ci := MeanOf(sum, sumSq, n)
	return (ci.Hi - m) / z
}

// Metrics are the rates of a row, in output order.
var Metrics = []Metric{
	{
		Name:  "succeeded",
		Label: "Share of jobs that succeeded",
		Estimate: func(c Counters) Estimate { // the mirror of failed_rate
			f := share(c.Failed, c.Jobs)
			return Estimate{c.Succeeded(), 1 - f.Hi, 1 - f.Lo}
		},
		Expected: func(e Expected) float64 { return 1 - e.FailedRate },
		SE:       binomialSE,
	},
	{
		Name:     "failed_rate",
		Label:    "Share of jobs that failed",
		Estimate: func(c Counters) Estimate { return share(c.Failed, c.Jobs) },
		Expected: func(e Expected) float64 { return e.FailedRate },
		SE:       binomialSE,
	},
	{
		Name:     "calls_per_job",
		Label:    "Calls per job",
		Estimate: func(c Counters) Estimate { return mean(c.Calls, c.CallsSq, c.Jobs) },
		Expected: func(e Expected) float64 { return e.CallsPerJob },
		SE:       func(c Counters, _ float64) float64 { return meanSE(c.Calls, c.CallsSq, c.Jobs) },
	},
	{
		Name:     "repeated_per_job",
		Label:    "Side effects repeated per job",
		Estimate: func(c Counters) Estimate { return mean(c.RepeatedSteps, c.RepeatedSq, c.Jobs) },
		Expected: func(e Expected) float64 { return e.RepeatedPerJob },
		SE:       func(c Counters, _ float64) float64 { return meanSE(c.RepeatedSteps, c.RepeatedSq, c.Jobs) },
	},
	{
		Name:     "duplicate_rate",
		Label:    "Share of jobs whose watched step ran twice or more",
		Estimate: func(c Counters) Estimate { return share(c.DuplicateUsers, c.Jobs) },
		Expected: func(e Expected) float64 { return e.DuplicateRate },
		SE:       binomialSE,
	},
}

// LookupMetric returns the metric called name.
func LookupMetric(name string) (Metric, error) {
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		names := make([]string, len(Metrics))
		for j, m := range Metrics {
			names[j] = m.Name
		}
		return Metric{}, fmt.Errorf("unknown metric %q (want one of %s)", name, strings.Join(names, ", "))
	}
	return Metrics[i], nil
}

// Z is how many standard errors the estimate lies from expected. A metric with
// no spread (every job alike) gives 0 when it matches and ok false otherwise.
func (m Metric) Z(c Counters, expected float64) (zscore float64, ok bool) {
	diff := m.Estimate(c).Value - expected
	se := m.SE(c, expected)
	if se == 0 || math.IsNaN(se) {
		return 0, math.Abs(diff) < 1e-12
	}
	return diff / se, true
}

// Spread is the mean and sample standard deviation of one metric over
// replicates.
type Spread struct {
	Mean, SD float64
}

// SpreadOf is m's mean and standard deviation over the replicates' counters.
func (m Metric) SpreadOf(reps []Counters) Spread {
	xs := make([]float64, len(reps))
	for i, c := range reps {
		xs[i] = m.Estimate(c).Value
	}
	mu, sd := stat.MeanStdDev(xs, nil)
	if len(xs) < 2 {
		sd = 0
	}
	return Spread{mu, sd}
}
