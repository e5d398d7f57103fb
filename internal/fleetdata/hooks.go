package fleetdata

import (
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Hooks are fleet's unexported functions over its public types R (fleet.Result), GR
// (GraphResult), C (Config), G (Graph) and O (Options), set by fleet's init; internal/fleetrun
// holds them typed as fleet's.
type Hooks[R, GR, C, G, O any] struct {
	// Replicates are a result's replicates, in replicate order.
	Replicates func(R) []Replicate
	// GraphReplicates are a graph result's replicates, in replicate order.
	GraphReplicates func(GR) []GraphReplicate
	// Result is the result of a run whose replicates are reps.
	Result func(cfg C, reps []Replicate) R
	// GraphResult is the result of a run of a graph whose replicates are reps.
	GraphResult func(g G, reps []GraphReplicate) GR

	// Summary sums up a result's replicates, each figure a mean with its 95% Student t interval.
	Summary func(R) RunRow
	// Totals sums a result's replicates.
	Totals func(R) Totals
	// Series is a result's time series, one point a second, averaged over replicates.
	Series func(R) []Point
	// Observations are a result's judged replicates' recovery times, those down at the end censored.
	Observations func(R) []stats.Observation
	// RecoveryCurve is the Kaplan-Meier estimate of a result's recovery time.
	RecoveryCurve func(R) stats.Survival
	// DuplicatesPerRequest is the duplicate side effects a request, a mean over replicates.
	DuplicatesPerRequest func(R) schema.Estimate

	// Rows sums up a graph run's replicates: a row each entry end to end, then each service.
	Rows func(GR) []GraphRow
	// GraphSeries is each service's series, a point a second, averaged over replicates.
	GraphSeries func(GR) []GraphPoint
	// WorkersRows sums up a graph run's replicates as a worker fleet's.
	WorkersRows func(GR) []WorkersRow
	// WorkersSeries is a worker fleet's time series, one point a second.
	WorkersSeries func(GR) []WorkersPoint

	// CheckReplicate reports why r is no replicate a run of cfg can produce.
	CheckReplicate func(cfg *C, r *Replicate) error
	// CheckGraphReplicate reports why r is no replicate a run of g (checked) can produce.
	CheckGraphReplicate func(g *G, r *GraphReplicate) error
	// CheckObservations reports why obs are not the recoveries of up to replicates of cfg.
	CheckObservations func(cfg *C, obs []stats.Observation, replicates int) error
	// CheckSweep refuses a path of a sweep's point that cfg does not read there, then checks cfg.
	CheckSweep func(cfg *C, paths []string) error

	// CheckCost refuses runs that may take more events or memory than the limits.
	CheckCost func([]C, O) error
	// CheckGraphCost refuses graph runs that may take more events or memory than the limits.
	CheckGraphCost func([]G, O) error
	// SeriesBytes bounds the memory a replicate of cfg keeps of its series.
	SeriesBytes func(cfg *C) float64
	// First is the index of the options' first replicate, to read or set (a shard's slice).
	First func(*O) *int
	// Memoryless is cfg's Memoryless mode, to read or set (the chain command's runs only).
	Memoryless func(cfg *C) *Memoryless
	// NewTracer starts replicate seed of cfg (checked, Memoryless on) on Run's streams.
	NewTracer func(cfg *C, seed uint64) Tracer
	// PathBytes bounds the memory of one Tracer on cfg, its series included.
	PathBytes func(cfg *C) float64
	// Edges lists g's edges as a replicate holds them: entries, then each service's calls.
	Edges func(g *G) []Edge
	// OutageWindow is from g's first outage's start to its last's end; ok false without one.
	OutageWindow func(g *G) (from, to float64, ok bool)
}

// hooks are fleet's *Hooks, once its init has run.
var hooks any

// SetHooks is for fleet's init alone: a second call panics.
func SetHooks[R, GR, C, G, O any](h *Hooks[R, GR, C, G, O]) {
	if hooks != nil {
		panic("fleetdata: SetHooks called twice")
	}
	hooks = h
}

// Fleet are the hooks fleet set, typed as fleet's (nil before fleet's init).
func Fleet[R, GR, C, G, O any]() *Hooks[R, GR, C, G, O] {
	h, _ := hooks.(*Hooks[R, GR, C, G, O])
	return h
}
