package fleetdata

import (
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Hooks are fleet's unexported functions over its public types (a
// fleet.Result, GraphResult, Config or Graph where a parameter is any),
// set by fleet's init: internal/fleetrun calls them with the types named,
// since fleetdata, which fleet imports, cannot name them.
type Hooks struct {
	// Replicates and GraphReplicates are a result's replicates; Result and
	// GraphResult make a result of a run's replicates.
	Replicates      func(result any) []Replicate
	GraphReplicates func(result any) []GraphReplicate
	Result          func(cfg any, reps []Replicate) any
	GraphResult     func(graph any, reps []GraphReplicate) any

	// A fleet run's row, totals, series, recovery observations and curve,
	// and duplicates a request.
	Summary              func(result any) RunRow
	Totals               func(result any) Totals
	Series               func(result any) []Point
	Observations         func(result any) []stats.Observation
	RecoveryCurve        func(result any) stats.Survival
	DuplicatesPerRequest func(result any) schema.Estimate

	// A graph run's rows and series, read as a graph's or a worker
	// fleet's.
	Rows          func(result any) []GraphRow
	GraphSeries   func(result any) []GraphPoint
	WorkersRows   func(result any) []WorkersRow
	WorkersSeries func(result any) []WorkersPoint

	// CheckReplicate and CheckGraphReplicate check a replicate read from a
	// shard against its *fleet.Config or *fleet.Graph.
	CheckReplicate      func(cfg any, r *Replicate) error
	CheckGraphReplicate func(graph any, r *GraphReplicate) error
	// CheckObservations checks a fleet-map cell's recovery observations
	// read from a shard against its *fleet.Config.
	CheckObservations func(cfg any, obs []stats.Observation, replicates int) error
	// CheckSweep checks a *fleet.Config set at a sweep's point: a path it
	// does not read there (its UnreadWhy) is refused as a *FieldError.
	CheckSweep func(cfg any, paths []string) error

	// CheckCost and CheckGraphCost refuse runs ([]fleet.Config,
	// []fleet.Graph) whose replicates may take more events or memory than
	// the limits, with fleet.Options; SeriesBytes is the memory a
	// *fleet.Config's replicate's series hold.
	CheckCost      func(cfgs, opt any) error
	CheckGraphCost func(graphs, opt any) error
	SeriesBytes    func(cfg any) float64
	// First is a *fleet.Options' first replicate, to read or set.
	First func(opt any) *int
	// Memoryless is a *fleet.Config's Memoryless mode, to read or set.
	Memoryless func(cfg any) *Memoryless
	// NewTracer starts a replicate of a Memoryless *fleet.Config;
	// PathBytes bounds its memory.
	NewTracer func(cfg any, seed uint64) Tracer
	PathBytes func(cfg any) float64
	// Edges are a *fleet.Graph's edges in the order a replicate holds
	// them; OutageWindow is when its outages begin and end.
	Edges        func(graph any) []Edge
	OutageWindow func(graph any) (from, to float64, ok bool)
}

// hooks are fleet's, once its init has run.
var hooks Hooks

// SetHooks is for fleet's init alone: a second call panics, so that no
// other importer changes what fleet's results read as.
func SetHooks(h Hooks) {
	if hooks.Replicates != nil {
		panic("fleetdata: SetHooks called twice")
	}
	hooks = h
}

// Fleet are the hooks fleet set (none before fleet's init has run: a
// package that calls them imports fleet).
func Fleet() Hooks { return hooks }
