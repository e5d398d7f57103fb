package retrysim

import (
	"fmt"
	"math"

	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// WatchedRate is one watched step of a row.
type WatchedRate struct {
	// Step is the step's index from 0; Name its name and Label the column's title.
	Step        int
	Name, Label string
	// Twice counts the jobs whose step did its work twice or more.
	Twice int64
	// Rate is Twice's share of the jobs, with its interval and, when the
	// row has a closed form, its expectation and z-score.
	Rate
}

// Watched are every watched step of the report's row r, in order: the first is
// r.Rate("duplicate_rate").
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
