package retrysim

import (
	"fmt"
	"math"

	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// rate is the row's metric called name, which is one of stats.Metrics'.
func (r *Row) rate(name string) Rate {
	out, err := r.Rate(name)
	if err != nil {
		panic("retrysim: " + err.Error()) // the names below are stats.Metrics'
	}
	return out
}

// Succeeded is the share of jobs that did not fail, with its 95% interval.
func (r *Row) Succeeded() Rate { return r.rate("succeeded") }

// FailedRate is the share of jobs that failed, with its 95% interval.
func (r *Row) FailedRate() Rate { return r.rate("failed_rate") }

// CallsPerJob is the mean number of calls a job made, failed ones
// included, with its 95% interval.
func (r *Row) CallsPerJob() Rate { return r.rate("calls_per_job") }

// RepeatedPerJob is the mean number of side effects a job repeated, over
// every step, with its 95% interval.
func (r *Row) RepeatedPerJob() Rate { return r.rate("repeated_per_job") }

// DuplicateRate is the share of jobs whose first watched step did its
// work twice or more, with its 95% interval (Report.Watched has every
// watched step's).
func (r *Row) DuplicateRate() Rate { return r.rate("duplicate_rate") }

// WatchedRate is one watched step of a row: which step, how many jobs did
// its work twice or more, and their share.
type WatchedRate struct {
	// Step is the step's index in the scenario, from 0; Name its name and
	// Label the column's title.
	Step        int
	Name, Label string
	// Twice counts the jobs whose step did its work twice or more.
	Twice int64
	// Rate is Twice's share of the jobs, with its interval and, when the
	// row has a closed form, its expectation and z-score.
	Rate
}

// Watched are every watched step of the report's row r, in the scenario's
// order: the first is r.DuplicateRate.
func (rep Report) Watched(r *Row) []WatchedRate {
	out := make([]WatchedRate, len(rep.params.Watched))
	for k, w := range rep.params.Watched {
		out[k] = watchedRate(r, k, w)
	}
	return out
}

// WatchedStep is the watched step called step of the report's row r.
func (rep Report) WatchedStep(r *Row, step string) (WatchedRate, error) {
	for k, w := range rep.params.Watched {
		if w.Name == step {
			return watchedRate(r, k, w), nil
		}
	}
	names := make([]string, len(rep.params.Watched))
	for k, w := range rep.params.Watched {
		names[k] = fmt.Sprintf("%q", w.Name)
	}
	return WatchedRate{}, fmt.Errorf("no watched step is named %q (the watched steps are %v)", step, names)
}

// watchedRate is the k-th watched step w of r.
func watchedRate(r *Row, k int, w stats.Watch) WatchedRate {
	c := &r.counters
	out := WatchedRate{Step: w.Step, Name: w.Name, Label: w.Label, Twice: c.Twice(k, w),
		Rate: Rate{Estimate: c.WatchedRate(k, w), Expected: math.NaN(), Z: math.NaN()}}
	if r.expected != nil && k < len(r.expected.DuplicateRates) {
		m, _ := stats.LookupMetric("duplicate_rate")
		m.Estimate = func(*stats.Counters, bool) schema.Estimate { return out.Estimate }
		e := *r.expected
		e.DuplicateRate = e.DuplicateRates[k]
		out.Expected = e.DuplicateRate
		if z, ok := m.Z(c, e); ok {
			out.Z = z
		}
	}
	return out
}
