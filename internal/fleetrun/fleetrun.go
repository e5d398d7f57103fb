// Package fleetrun reads a fleet run's data from fleet's public results and makes results
// of it, calling fleet's non-API functions through fleetdata's Hooks, typed here.
package fleetrun

import (
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// h are fleet's hooks: fleet, imported here, has set them before this
// package's variables are initialized.
var h = fleetdata.Fleet()

// Replicates are r's replicates, in replicate order.
func Replicates(r fleet.Result) []fleetdata.Replicate { return h.Replicates(r) }

// GraphReplicates are r's replicates, in replicate order.
func GraphReplicates(r fleet.GraphResult) []fleetdata.GraphReplicate { return h.GraphReplicates(r) }

// Result is the result of a run of cfg whose replicates are reps.
func Result(cfg fleet.Config, reps []fleetdata.Replicate) fleet.Result {
	return h.Result(cfg, reps).(fleet.Result)
}

// GraphResult is the result of a run of g whose replicates are reps.
func GraphResult(g fleet.Graph, reps []fleetdata.GraphReplicate) fleet.GraphResult {
	return h.GraphResult(g, reps).(fleet.GraphResult)
}

// Summary sums up r's replicates: each figure a mean over replicates with
// its 95% Student t interval.
func Summary(r fleet.Result) fleetdata.RunRow { return h.Summary(r) }

// Totals sums r's replicates.
func Totals(r fleet.Result) fleetdata.Totals { return h.Totals(r) }

// Series is r's time series, one point a second, averaged over replicates.
func Series(r fleet.Result) []fleetdata.Point { return h.Series(r) }

// Observations are r's judged replicates as observations of their
// recovery time, a replicate down at the end censored there.
func Observations(r fleet.Result) []stats.Observation { return h.Observations(r) }

// RecoveryCurve is the Kaplan-Meier estimate of r's recovery time over its
// judged replicates.
func RecoveryCurve(r fleet.Result) stats.Survival { return h.RecoveryCurve(r) }

// DuplicatesPerRequest is the duplicate side effects a request, a mean
// over r's replicates with its 95% Student t interval.
func DuplicatesPerRequest(r fleet.Result) schema.Estimate { return h.DuplicatesPerRequest(r) }

// Rows sums up a graph run's replicates: a row for each entry from end to
// end, then a row for each service.
func Rows(r fleet.GraphResult) []fleetdata.GraphRow { return h.Rows(r) }

// GraphSeries is a graph run's time series: for each service, one point a
// second, averaged over replicates.
func GraphSeries(r fleet.GraphResult) []fleetdata.GraphPoint { return h.GraphSeries(r) }

// WorkersRows sums up a graph run's replicates as a worker fleet's.
func WorkersRows(r fleet.GraphResult) []fleetdata.WorkersRow { return h.WorkersRows(r) }

// WorkersSeries is a worker fleet's time series, one point a second.
func WorkersSeries(r fleet.GraphResult) []fleetdata.WorkersPoint { return h.WorkersSeries(r) }

// CheckReplicate reports why r is no replicate a run of c can produce.
func CheckReplicate(c *fleet.Config, r *fleetdata.Replicate) error { return h.CheckReplicate(c, r) }

// CheckGraphReplicate reports why r is no replicate a run of g can
// produce; g must have passed Check.
func CheckGraphReplicate(g *fleet.Graph, r *fleetdata.GraphReplicate) error {
	return h.CheckGraphReplicate(g, r)
}

// CheckObservations reports why obs are not the recoveries of at most
// replicates replicates of a run of c.
func CheckObservations(c *fleet.Config, obs []stats.Observation, replicates int) error {
	return h.CheckObservations(c, obs, replicates)
}

// CheckCost refuses runs whose replicates may take more events or memory
// than the limits, as Run does before any work.
func CheckCost(cfgs []fleet.Config, opt fleet.Options) error { return h.CheckCost(cfgs, opt) }

// CheckGraphCost refuses graph runs whose replicates may take more events
// or memory than the limits, as RunGraph does before any work.
func CheckGraphCost(graphs []fleet.Graph, opt fleet.Options) error {
	return h.CheckGraphCost(graphs, opt)
}

// SeriesBytes bounds the memory a replicate of cfg keeps of its series.
func SeriesBytes(cfg *fleet.Config) float64 { return h.SeriesBytes(cfg) }

// First is the index of opt's first replicate, to read or set (a shard's slice).
func First(opt *fleet.Options) *int { return h.First(opt) }

// Memoryless is cfg's Memoryless mode, to read or set: only the chain
// command's runs set it.
func Memoryless(cfg *fleet.Config) *fleetdata.Memoryless { return h.Memoryless(cfg) }

// NewTracer starts replicate seed of cfg, which must have passed Check with
// Memoryless on. Its streams are those Run gives the replicate of that seed.
func NewTracer(cfg *fleet.Config, seed uint64) fleetdata.Tracer { return h.NewTracer(cfg, seed) }

// PathBytes bounds the memory of one Tracer on cfg, a path of a splitting:
// a replicate's whole state, its series over cfg's duration included.
func PathBytes(cfg *fleet.Config) float64 { return h.PathBytes(cfg) }

// Edges lists g's edges in the order a replicate holds them: the entries,
// then each service's calls, services in order. g must have passed Check.
func Edges(g *fleet.Graph) []fleetdata.Edge { return h.Edges(g) }

// OutageWindow is when g's outages begin and end, the first's start to the
// last's end; ok is false without one.
func OutageWindow(g *fleet.Graph) (from, to float64, ok bool) { return h.OutageWindow(g) }
