package retrysim

import (
	"context"

	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/stats"
)

// This file lends the tests of package retrysim_test what the public API
// keeps unexported.

// ParseSet is parseSet.
var ParseSet = parseSet

// Stats are the row's counters whole.
func (r *Row) Stats() *stats.Counters { return &r.counters }

// Expected is the row's closed form, nil without one.
func (r *Row) Expected() *stats.Expected { return r.expected }

// NoRepeats reports whether the row's closed form repeats no side effect.
func (r *Row) NoRepeats() bool { return r.noRepeats }

// Replicates are each replicate's metric values, nil for one replicate.
func (r *Row) Replicates() []stats.Values { return r.replicates }

// NewRow is a row of counters c and no closed form.
func NewRow(id string, c stats.Counters) Row {
	return Row{ID: id, Label: id, counters: c, steps: stats.MaxSteps}
}

// NewReport is a report of parameters p and rows.
func NewReport(p stats.Params, rows ...Row) Report { return Report{params: p, Rows: rows} }

// Params are the report's echoed parameters.
func (rep Report) Params() stats.Params { return rep.params }

// Results is jobapi.Results.
func (rep Report) Results(ci, expect bool) stats.Report { return rep.results(ci, expect) }

// Params are the parameters e's report echoes.
func (e Experiment) Params() stats.Params { return e.params() }

// UnreadStepPolicy is jobapi.UnreadStepPolicy of e's scenario and strategies.
func (e Experiment) UnreadStepPolicy(i int) (attempts, backoff string) {
	return jobapi.UnreadStepPolicy(e.Scenario, e.Strategies, i)
}

// RunShard is jobapi.RunShard, what the command's shard option runs.
func RunShard(ctx context.Context, e Experiment, index, count int) (stats.Shard, error) {
	return jobapi.RunShard(ctx, e, index, count)
}

// ShardOf is sh as a Shard.
func ShardOf(sh stats.Shard) Shard { return Shard{sh} }

// Stats is the shard as a stats.Shard.
func (sh Shard) Stats() stats.Shard { return sh.s }

// Stats is the sweep result as the outputs render it.
func (res SweepResult) Stats() stats.Sweep { return res.stats() }

// Check reports whether the parameter takes v.
func (p sweepParam) Check(v float64) error { return p.spec.Check(v) }
