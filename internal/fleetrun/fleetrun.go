// Package fleetrun reads a fleet run's data from fleet's public results and makes results
// of it, calling fleet's non-API functions through fleetdata's Hooks, typed here.
package fleetrun

import (
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// h are fleet's hooks, set by fleet's init before this package's variables.
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

// Summary sums up r's replicates, each figure a mean with its 95% Student t interval.
func Summary(r fleet.Result) fleetdata.RunRow { return h.Summary(r) }

// Totals sums r's replicates.
func Totals(r fleet.Result) fleetdata.Totals { return h.Totals(r) }

// Series is r's time series, one point a second, averaged over replicates.
func Series(r fleet.Result) []fleetdata.Point { return h.Series(r) }

// Observations are r's judged replicates' recovery times, those down at the end censored.
func Observations(r fleet.Result) []stats.Observation { return h.Observations(r) }

// RecoveryCurve is the Kaplan-Meier estimate of r's recovery time.
func RecoveryCurve(r fleet.Result) stats.Survival { return h.RecoveryCurve(r) }

// DuplicatesPerRequest is the duplicate side effects a request, a mean over replicates.
func DuplicatesPerRequest(r fleet.Result) schema.Estimate { return h.DuplicatesPerRequest(r) }

// Rows sums up a graph run's replicates: a row each entry end to end, then each service.
func Rows(r fleet.GraphResult) []fleetdata.GraphRow { return h.Rows(r) }

// GraphSeries is each service's series, a point a second, averaged over replicates.
func GraphSeries(r fleet.GraphResult) []fleetdata.GraphPoint { return h.GraphSeries(r) }

// WorkersRows sums up a graph run's replicates as a worker fleet's.
func WorkersRows(r fleet.GraphResult) []fleetdata.WorkersRow { return h.WorkersRows(r) }

// WorkersSeries is a worker fleet's time series, one point a second.
func WorkersSeries(r fleet.GraphResult) []fleetdata.WorkersPoint { return h.WorkersSeries(r) }

// CheckReplicate reports why r is no replicate a run of c can produce.
func CheckReplicate(c *fleet.Config, r *fleetdata.Replicate) error { return h.CheckReplicate(c, r) }

// CheckGraphReplicate reports why r is no replicate a run of g (checked) can produce.
func CheckGraphReplicate(g *fleet.Graph, r *fleetdata.GraphReplicate) error {
	return h.CheckGraphReplicate(g, r)
}

// CheckObservations reports why obs are not the recoveries of up to replicates of c.
func CheckObservations(c *fleet.Config, obs []stats.Observation, replicates int) error {
	return h.CheckObservations(c, obs, replicates)
}

// CheckCost refuses runs that may take more events or memory than the limits.
func CheckCost(cfgs []fleet.Config, opt fleet.Options) error { return h.CheckCost(cfgs, opt) }

// CheckGraphCost refuses graph runs that may take more events or memory than the limits.
func CheckGraphCost(graphs []fleet.Graph, opt fleet.Options) error {
	return h.CheckGraphCost(graphs, opt)
}

// SeriesBytes bounds the memory a replicate of cfg keeps of its series.
func SeriesBytes(cfg *fleet.Config) float64 { return h.SeriesBytes(cfg) }

// First is the index of opt's first replicate, to read or set (a shard's slice).
func First(opt *fleet.Options) *int { return h.First(opt) }

// Memoryless is cfg's Memoryless mode, to read or set (the chain command's runs only).
func Memoryless(cfg *fleet.Config) *fleetdata.Memoryless { return h.Memoryless(cfg) }

// NewTracer starts replicate seed of cfg (checked, Memoryless on) on Run's streams.
func NewTracer(cfg *fleet.Config, seed uint64) fleetdata.Tracer { return h.NewTracer(cfg, seed) }

// PathBytes bounds the memory of one Tracer on cfg, its series included.
func PathBytes(cfg *fleet.Config) float64 { return h.PathBytes(cfg) }

// Edges lists g's edges as a replicate holds them: entries, then each service's calls.
func Edges(g *fleet.Graph) []fleetdata.Edge { return h.Edges(g) }

// OutageWindow is from g's first outage's start to its last's end; ok false without one.
func OutageWindow(g *fleet.Graph) (from, to float64, ok bool) { return h.OutageWindow(g) }
