package stats

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/schema"
)

// Expected holds a strategy's exact expectations per job, and the variances behind the means.
type Expected struct {
	// SucceededRate is kept apart from 1 - FailedRate, which cannot hold a share under 1e-16.
	SucceededRate  float64
	FailedRate     float64
	CallsPerJob    float64
	RepeatedPerJob float64
	DuplicateRate  float64
	// DuplicateRates are every watched step's duplicate rates, DuplicateRate the first.
	DuplicateRates []float64
	// CallsVar and RepeatedVar are the variances of one job's calls and
	// repeated side effects.
	CallsVar, RepeatedVar float64
}

// Metric is one rate every output carries: its estimate from counters, its expectation and its spread.
type Metric struct {
	// Name is the json and csv key, and how a sweep's metric is chosen.
	Name string
	// Label says what it is, for axes and pivots.
	Label string
	// Estimate computes the rate and its interval from a row's counters.
	Estimate func(c *Counters, noRepeats bool) schema.Estimate
	// Expected picks the metric's expectation, per job.
	Expected func(e Expected) float64
	// Variance is the per-job variance the expectation implies.
	Variance func(e Expected) float64
}

// share is x of n jobs as a share, with countOfJobs' interval.
func share(x, n int64) schema.Estimate {
	e := countOfJobs(x, n)
	nf := float64(n)
	e.Value, e.Lo, e.Hi = float64(x)/nf, e.Lo/nf, e.Hi/nf
	return e
}

// repeats is the mean of repeated side effects a job, exactly 0 where none can happen.
func repeats(c *Counters, noRepeats bool) schema.Estimate {
	if noRepeats {
		return schema.Estimate{Value: float64(c.RepeatedSteps) / float64(c.Jobs), N: c.Jobs, Level: Confidence, Method: estimate.Exact}
	}
	return meanOfCounts(c.RepeatedSteps, c.RepeatedSq, c.Jobs)
}

// metrics are the rates of a row, in output order.
var metrics = []Metric{
	{
		Name:  "succeeded",
		Label: "Share of jobs that succeeded",
		Estimate: func(c *Counters, _ bool) schema.Estimate { // the mirror of failed_rate
			e := share(c.Failed, c.Jobs)
			e.Value, e.Lo, e.Hi = c.Succeeded(), 1-e.Hi, 1-e.Lo
			return e
		},
		Expected: func(e Expected) float64 { return e.SucceededRate },
		Variance: func(e Expected) float64 { return e.FailedRate * e.SucceededRate },
	},
	{
		Name:     "failed_rate",
		Label:    "Share of jobs that failed",
		Estimate: func(c *Counters, _ bool) schema.Estimate { return share(c.Failed, c.Jobs) },
		Expected: func(e Expected) float64 { return e.FailedRate },
		Variance: func(e Expected) float64 { return e.FailedRate * e.SucceededRate },
	},
	{
		Name:     "calls_per_job",
		Label:    "Calls per job",
		Estimate: func(c *Counters, _ bool) schema.Estimate { return MeanOf(c.Calls, c.CallsSq, c.Jobs) },
		Expected: func(e Expected) float64 { return e.CallsPerJob },
		Variance: func(e Expected) float64 { return e.CallsVar },
	},
	{
		Name:     "repeated_per_job",
		Label:    "Side effects repeated per job",
		Estimate: repeats,
		Expected: func(e Expected) float64 { return e.RepeatedPerJob },
		Variance: func(e Expected) float64 { return e.RepeatedVar },
	},
	{
		Name:     "duplicate_rate",
		Label:    "Share of jobs whose watched step ran twice or more",
		Estimate: func(c *Counters, _ bool) schema.Estimate { return share(c.DuplicateUsers, c.Jobs) },
		Expected: func(e Expected) float64 { return e.DuplicateRate },
		Variance: func(e Expected) float64 { return e.DuplicateRate * (1 - e.DuplicateRate) },
	},
}

// Metrics are the rates of a row, in output order, a fresh slice.
func Metrics() []Metric { return slices.Clone(metrics) }

// LookupMetric returns the metric called name.
func LookupMetric(name string) (Metric, error) { return lookup(metrics, name) }

// lookup returns the metric of all called name.
func lookup(all []Metric, name string) (Metric, error) {
	if i := slices.IndexFunc(all, func(m Metric) bool { return m.Name == name }); i >= 0 {
		return all[i], nil
	}
	names := make([]string, len(all))
	for j, m := range all {
		names[j] = m.Name
	}
	return Metric{}, fmt.Errorf("unknown metric %q (want one of %s)", name, strings.Join(names, ", "))
}

// Z is how many standard errors the estimate lies from e's expectation, from e's own variance; with
// none, 0 when it matches and ok false otherwise.
func (m Metric) Z(c *Counters, e Expected) (zscore float64, ok bool) {
	x := m.Expected(e)
	diff := m.Estimate(c, false).Value - x
	se := math.Sqrt(m.Variance(e) / float64(c.Jobs))
	if se == 0 || math.IsNaN(se) {
		return 0, math.Abs(diff) <= 1e-12*math.Max(1, math.Abs(x))
	}
	return diff / se, true
}

// Values are one replicate's metric values, in metrics order, which a replicated row keeps for its spreads.
type Values []float64

// ValuesOf are c's metric values.
func ValuesOf(c *Counters) Values {
	v := make(Values, len(metrics))
	for i, m := range metrics {
		v[i] = m.Estimate(c, false).Value
	}
	return v
}

// deliveryMetrics are the delivery model's sweep metrics; the completion quantiles have no interval.
var deliveryMetrics = []Metric{
	{
		Name:  "deliveries_per_job",
		Label: "Deliveries per job",
		Estimate: func(c *Counters, _ bool) schema.Estimate {
			return estimate.Point(float64(c.Deliveries)/float64(c.Jobs), c.Jobs)
		},
	},
	{
		Name:     "lost_work",
		Label:    "Share of jobs whose work was lost silently",
		Estimate: func(c *Counters, _ bool) schema.Estimate { return share(c.LostWork, c.Jobs) },
	},
	quantileMetric("completion_p50", "Time to complete, p50 of succeeded jobs", false, 0.5),
	quantileMetric("completion_p95", "Time to complete, p95 of succeeded jobs", false, 0.95),
	quantileMetric("completion_p99", "Time to complete, p99 of succeeded jobs", false, 0.99),
	quantileMetric("failed_completion_p50", "Time to fail, p50 of failed jobs", true, 0.5),
	quantileMetric("failed_completion_p95", "Time to fail, p95 of failed jobs", true, 0.95),
	quantileMetric("failed_completion_p99", "Time to fail, p99 of failed jobs", true, 0.99),
}

// quantileMetric is the p quantile of completion times in seconds, of failed jobs if failed.
func quantileMetric(name, label string, failed bool, p float64) Metric {
	return Metric{Name: name, Label: label, Estimate: func(c *Counters, _ bool) schema.Estimate {
		h := &c.Completion
		if failed {
			h = &c.FailedCompletion
		}
		return estimate.Point(h.QuantileSeconds(p), h.Count())
	}}
}

// SweepMetrics are the metrics a sweep can show: Metrics(), each watched step's duplicate rate,
// then with delivery the delivery model's.
func SweepMetrics(watched []Watch, delivery bool) []Metric {
	out := Metrics()
	for k, w := range watched {
		m := metrics[len(metrics)-1] // duplicate_rate
		m.Name = "steps[" + w.Name + "].duplicate_rate"
		m.Label = "Share of jobs whose step " + w.Name + " ran twice or more"
		if w.Label != "" { // the table's column
			m.Label = w.Label + ", share of jobs"
		}
		m.Estimate = func(c *Counters, _ bool) schema.Estimate { return c.WatchedRate(k, w) }
		out = append(out, m)
	}
	if delivery {
		out = append(out, deliveryMetrics...)
	}
	return out
}

// LookupSweepMetric returns the metric called name of SweepMetrics(watched, delivery).
func LookupSweepMetric(name string, watched []Watch, delivery bool) (Metric, error) {
	if !delivery && slices.ContainsFunc(deliveryMetrics, func(m Metric) bool { return m.Name == name }) {
		return Metric{}, fmt.Errorf("%s is counted by the delivery model only; this sweep runs the job model", name)
	}
	return lookup(SweepMetrics(watched, delivery), name)
}
