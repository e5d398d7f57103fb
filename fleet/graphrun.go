package fleet

import (
	"context"
	"errors"
	"math"
)

// GraphResult is a graph's run and its replicates, in replicate order.
type GraphResult struct {
	Graph      Graph
	Replicates []GraphReplicate
}

// GraphReplicate is one seeded simulation of a graph.
type GraphReplicate struct {
	// Services holds each service's figures, in Graph.Services order.
	Services []ServiceReplicate
	// Edges holds each edge's client figures, in Graph.Edges order: the
	// entries first (their end-to-end figures), then the calls.
	Edges []EdgeReplicate
	// End is when the last request finished; Events counts the events the
	// replicate processed (the unit of the engine's speed).
	End    float64
	Events int64
}

// ServiceReplicate is a service's figures in a replicate. Its Counts' client
// side (Requests, Succeeded, Failed, Retries, Timeouts, Errors, Denied,
// LocalRejected, Hedges, Late) sums the edges that call it; its server side
// (Calls, Conflicts, Rejected, Stored, Effects, Duplicates, Duplicated,
// PeakInProgress) is its own.
type ServiceReplicate struct {
	Counts
	// P50, P95 and P99 are latency quantiles of the successful requests to
	// the service, as their callers saw them, from a request's first
	// attempt to its reply, in seconds (NaN with no success).
	P50, P95, P99 float64
	// Little's law's terms over the whole run, as in Replicate: Area the
	// integral of calls in progress at the service (a call is in progress
	// from its admission until the service answers it, its own calls
	// included), Sojourn the sum of those times, Entered the calls admitted.
	Area, Sojourn float64
	Entered       int64
	// Wait sums a queue server's waits before service.
	Wait float64
	// Series is the service's per-second series: Starts, Successes,
	// RetriesDecided, RetriesSent and Timeouts of the requests to it,
	// Conflicts and Busy (calls in progress) at it.
	Series []Second
}

// EdgeReplicate is an edge's client figures in a replicate: the requests
// sent on it and their attempts (Counts' client side; its server side is
// the service's). For an entry these are end to end: a request succeeds
// when the service it entered at answers success, which it does only when
// all the calls below it succeeded.
type EdgeReplicate struct {
	Counts
	// P50, P95 and P99 are latency quantiles of the edge's successful
	// requests, in seconds (NaN with no success).
	P50, P95, P99 float64
	// Expired counts requests that failed because their caller's deadline
	// had passed before an attempt could go out (Graph.Deadlines).
	Expired int64
	// PushedBack counts requests that failed because an attempt was
	// answered "do not retry" (Server.Pushback) and the client honours it
	// (Client.HonourPushback) while attempts were left.
	PushedBack int64
	// Orphaned counts requests that finished after the caller's request
	// they served had already been answered (a parallel sibling failed, or
	// the caller's own caller gave up): work nobody waited for.
	Orphaned int64
}

// Requests is the requests that entered the graph: the entries' requests.
func (r *GraphReplicate) Requests(g *Graph) int64 {
	var n int64
	for k := range g.Entries {
		n += r.Edges[k].Requests
	}
	return n
}

// Amplification is the calls that reached service v (attempts and hedges,
// refused ones included) per request that entered the graph; NaN with no
// request.
func (r *GraphReplicate) Amplification(g *Graph, v int) float64 {
	n := r.Requests(g)
	if n == 0 {
		return math.NaN()
	}
	return float64(r.Services[v].Calls) / float64(n)
}

// RunGraph simulates every graph Replicates times on Workers goroutines, as
// Run does configurations: it first checks each graph (Graph.Check), the
// options and what the runs may cost (CheckGraphCost), and returns the
// first error without running anything. Replicate r of every graph is
// seeded by Seed and First + r alone; the numbers do not depend on Workers.
// Once ctx is done it returns ctx's error within a few thousand events of
// each replicate in progress; a panic in a Go program's own policy stops
// every replicate and becomes the error.
func RunGraph(ctx context.Context, graphs []Graph, opt Options) ([]GraphResult, error) {
	return nil, errors.New("fleet: RunGraph is not built yet")
}
