package fleetdata

import (
	"github.com/retrysim/retrysim/schema"
)

// Figure is a figure of a row or point R by the key json and csv write it under: the one
// declaration of what the key holds.
type Figure[R, V any] struct {
	Key string
	Of  func(*R) V
}

// Lookup is the figure of figs keyed key.
func Lookup[R, V any](figs []Figure[R, V], key string) (Figure[R, V], bool) {
	for _, f := range figs {
		if f.Key == key {
			return f, true
		}
	}
	return Figure[R, V]{}, false
}

// Keys are figs' keys, in order.
func Keys[R, V any](figs []Figure[R, V]) []string {
	keys := make([]string, len(figs))
	for i, f := range figs {
		keys[i] = f.Key
	}
	return keys
}

// est is a row's figure of type schema.Estimate.
type est[R any] = Figure[R, schema.Estimate]

// RunFigures are a fleet run's row's figures, a fresh slice each call (as each below).
func RunFigures() []Figure[RunRow, schema.Estimate] {
	return []est[RunRow]{
		{"requests", func(r *RunRow) schema.Estimate { return r.Requests }},
		{"succeeded", func(r *RunRow) schema.Estimate { return r.Succeeded }},
		{"goodput", func(r *RunRow) schema.Estimate { return r.Goodput }},
		{"amplification", func(r *RunRow) schema.Estimate { return r.Amplification }},
		{"timeouts", func(r *RunRow) schema.Estimate { return r.Timeouts }},
		{"conflicts", func(r *RunRow) schema.Estimate { return r.Conflicts }},
		{"duplicates", func(r *RunRow) schema.Estimate { return r.Duplicates }},
		{"local_rejected", func(r *RunRow) schema.Estimate { return r.LocalRejected }},
		{"hedges", func(r *RunRow) schema.Estimate { return r.Hedges }},
		{"latency_p50", func(r *RunRow) schema.Estimate { return r.P50 }},
		{"latency_p95", func(r *RunRow) schema.Estimate { return r.P95 }},
		{"latency_p99", func(r *RunRow) schema.Estimate { return r.P99 }},
		{"peak_in_progress", func(r *RunRow) schema.Estimate { return r.PeakInProgress }},
		{"recovered_share", func(r *RunRow) schema.Estimate { return r.RecoveredShare }},
		{"recovery_seconds", func(r *RunRow) schema.Estimate { return r.Recovery }},
	}
}

// GraphFigures are a graph run's rows' figures.
func GraphFigures() []Figure[GraphRow, schema.Estimate] {
	return []est[GraphRow]{
		{"requests", func(r *GraphRow) schema.Estimate { return r.Requests }},
		{"calls", func(r *GraphRow) schema.Estimate { return r.Calls }},
		{"amplification", func(r *GraphRow) schema.Estimate { return r.Amplification }},
		{"succeeded", func(r *GraphRow) schema.Estimate { return r.Succeeded }},
		{"goodput", func(r *GraphRow) schema.Estimate { return r.Goodput }},
		{"timeouts", func(r *GraphRow) schema.Estimate { return r.Timeouts }},
		{"retries", func(r *GraphRow) schema.Estimate { return r.Retries }},
		{"rejected", func(r *GraphRow) schema.Estimate { return r.Rejected }},
		{"duplicates", func(r *GraphRow) schema.Estimate { return r.Duplicates }},
		{"in_progress", func(r *GraphRow) schema.Estimate { return r.InProgress }},
		{"sojourn_seconds", func(r *GraphRow) schema.Estimate { return r.Sojourn }},
		{"latency_p50", func(r *GraphRow) schema.Estimate { return r.P50 }},
		{"latency_p95", func(r *GraphRow) schema.Estimate { return r.P95 }},
		{"latency_p99", func(r *GraphRow) schema.Estimate { return r.P99 }},
		{"peak_in_progress", func(r *GraphRow) schema.Estimate { return r.PeakInProgress }},
	}
}

// WorkersFigures are a worker fleet's row's figures.
func WorkersFigures() []Figure[WorkersRow, schema.Estimate] {
	return []est[WorkersRow]{
		{"jobs", func(r *WorkersRow) schema.Estimate { return r.Jobs }},
		{"completed", func(r *WorkersRow) schema.Estimate { return r.Completed }},
		{"dead", func(r *WorkersRow) schema.Estimate { return r.Dead }},
		{"queued_at_end", func(r *WorkersRow) schema.Estimate { return r.Queued }},
		{"deliveries", func(r *WorkersRow) schema.Estimate { return r.Deliveries }},
		{"duplicates", func(r *WorkersRow) schema.Estimate { return r.Duplicates }},
		{"lost_work", func(r *WorkersRow) schema.Estimate { return r.LostWork }},
		{"late", func(r *WorkersRow) schema.Estimate { return r.Late }},
		{"conflicts", func(r *WorkersRow) schema.Estimate { return r.Conflicts }},
		{"crashes", func(r *WorkersRow) schema.Estimate { return r.Crashes }},
		{"rolled_back", func(r *WorkersRow) schema.Estimate { return r.RolledBack }},
		{"drain_seconds", func(r *WorkersRow) schema.Estimate { return r.DrainSeconds }},
		{"drained_replicates", func(r *WorkersRow) schema.Estimate { return r.DrainedReplicates }},
		{"peak_backlog", func(r *WorkersRow) schema.Estimate { return r.PeakBacklog }},
		{"peak_retrying", func(r *WorkersRow) schema.Estimate { return r.PeakRetrying }},
		{"peak_age_seconds", func(r *WorkersRow) schema.Estimate { return r.PeakAge }},
		{"completion_p50", func(r *WorkersRow) schema.Estimate { return r.P50 }},
		{"completion_p95", func(r *WorkersRow) schema.Estimate { return r.P95 }},
		{"completion_p99", func(r *WorkersRow) schema.Estimate { return r.P99 }},
	}
}

// PointFigures are a fleet run's second's figures, in csv and json's order.
func PointFigures() []Figure[Point, float64] {
	return []Figure[Point, float64]{
		{"starts", func(p *Point) float64 { return p.Starts }},
		{"successes", func(p *Point) float64 { return p.Successes }},
		{"retries_decided", func(p *Point) float64 { return p.RetriesDecided }},
		{"retries_sent", func(p *Point) float64 { return p.RetriesSent }},
		{"timeouts", func(p *Point) float64 { return p.Timeouts }},
		{"conflicts", func(p *Point) float64 { return p.Conflicts }},
		{"in_progress", func(p *Point) float64 { return p.InProgress }},
	}
}

// GraphPointFigures are a graph's service's second's figures: calls, then PointFigures.
func GraphPointFigures() []Figure[GraphPoint, float64] {
	figs := []Figure[GraphPoint, float64]{{"calls", func(p *GraphPoint) float64 { return p.Calls }}}
	for _, f := range PointFigures() {
		figs = append(figs, Figure[GraphPoint, float64]{f.Key, func(p *GraphPoint) float64 { return f.Of(&p.Point) }})
	}
	return figs
}

// WorkersPointFigures are a worker fleet's second's figures, before each dependency's.
func WorkersPointFigures() []Figure[WorkersPoint, float64] {
	return []Figure[WorkersPoint, float64]{
		{"arrivals", func(p *WorkersPoint) float64 { return p.Arrivals }},
		{"completions", func(p *WorkersPoint) float64 { return p.Completions }},
		{"dead", func(p *WorkersPoint) float64 { return p.Dead }},
		{"redeliveries", func(p *WorkersPoint) float64 { return p.Redeliveries }},
		{"backlog", func(p *WorkersPoint) float64 { return p.Backlog }},
		{"oldest_age_seconds", func(p *WorkersPoint) float64 { return p.OldestAge }},
		{"in_flight", func(p *WorkersPoint) float64 { return p.InFlight }},
		{"retries_scheduled", func(p *WorkersPoint) float64 { return p.RetriesScheduled }},
	}
}
