package fleetdata

import (
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Hooks are fleet's unexported functions over its public types (any stands for a
// fleet.Result, GraphResult, Config, Graph or Options), set by fleet's init and typed by
// internal/fleetrun, whose functions of the same names document them.
type Hooks struct {
	Replicates      func(result any) []Replicate
	GraphReplicates func(result any) []GraphReplicate
	Result          func(cfg any, reps []Replicate) any
	GraphResult     func(graph any, reps []GraphReplicate) any

	Summary              func(result any) RunRow
	Totals               func(result any) Totals
	Series               func(result any) []Point
	Observations         func(result any) []stats.Observation
	RecoveryCurve        func(result any) stats.Survival
	DuplicatesPerRequest func(result any) schema.Estimate

	Rows          func(result any) []GraphRow
	GraphSeries   func(result any) []GraphPoint
	WorkersRows   func(result any) []WorkersRow
	WorkersSeries func(result any) []WorkersPoint

	CheckReplicate      func(cfg any, r *Replicate) error
	CheckGraphReplicate func(graph any, r *GraphReplicate) error
	CheckObservations   func(cfg any, obs []stats.Observation, replicates int) error
	CheckSweep          func(cfg any, paths []string) error

	CheckCost      func(cfgs, opt any) error
	CheckGraphCost func(graphs, opt any) error
	SeriesBytes    func(cfg any) float64
	First          func(opt any) *int
	Memoryless     func(cfg any) *Memoryless
	NewTracer      func(cfg any, seed uint64) Tracer
	PathBytes      func(cfg any) float64
	Edges          func(graph any) []Edge
	OutageWindow   func(graph any) (from, to float64, ok bool)
}

// hooks are fleet's, once its init has run.
var hooks Hooks

// SetHooks is for fleet's init alone: a second call panics.
func SetHooks(h Hooks) {
	if hooks.Replicates != nil {
		panic("fleetdata: SetHooks called twice")
	}
	hooks = h
}

// Fleet are the hooks fleet set (none before fleet's init).
func Fleet() Hooks { return hooks }
