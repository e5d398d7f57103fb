package fleet

import (
	"fmt"
	"math"
	"slices"

	"github.com/retrysim/retrysim/schema"
)

// EndToEnd is the Service of a GraphRow that sums up an entry's requests
// from end to end, followed by ": " and the service the entry sends to.
const EndToEnd = "end to end"

// GraphRow is a graph run's row for one service, or for one entry from end
// to end (Service "end to end: NAME", Depth 0): each figure a mean over
// replicates with its 95% Student t interval.
type GraphRow struct {
	Run, Service string
	// Depth is the service's depth (1: an entry sends to it), 0 for an
	// entry's row.
	Depth      int
	Replicates int
	// Requests are the requests sent to the service by its callers (an
	// entry's: the requests that entered there); Calls the calls that
	// reached it, attempts and hedges, refused ones included (an entry's:
	// the graph's, at every service). Amplification is Calls over the
	// requests that entered the graph.
	Requests, Calls, Amplification schema.Estimate
	// Succeeded is the share of Requests that succeeded, Goodput the
	// successes a second of the run's duration.
	Succeeded, Goodput schema.Estimate
	// Timeouts counts the attempts its callers gave up waiting for,
	// Retries the retries they decided, Rejected the calls it refused for
	// overload (a full queue, the rate limit), Duplicates the side effects
	// it did beyond the first of a request. In an entry's row Timeouts and
	// Retries are the entry's client's, and Rejected and Duplicates are
	// summed over every service, as Calls are.
	Timeouts, Retries, Rejected, Duplicates schema.Estimate
	// InProgress is the time average of the calls in progress at the
	// service over the run's duration (the series' Busy over Duration:
	// Little's L, its admissions a second times Sojourn), Sojourn the mean
	// seconds a call admitted spent there (W); NaN in an entry's row.
	InProgress, Sojourn schema.Estimate
	// P50, P95 and P99 are the latency quantiles of successful requests,
	// as their callers saw them, in seconds.
	P50, P95, P99 schema.Estimate
	// PeakInProgress is the most calls the service held at once; NaN in an
	// entry's row.
	PeakInProgress schema.Estimate
	// ByDepth, in an entry's row, is the amplification at each depth: the
	// calls that reached the services of depth d + 1 per request that
	// entered the graph; nil in a service's row.
	ByDepth []schema.Estimate
}

// endToEnd is the Service of entry k's end-to-end row: EndToEnd and the
// service it sends to, with its index when another entry sends there too.
func (g *Graph) endToEnd(k int) string {
	to := g.Entries[k].To
	for j, e := range g.Entries {
		if j != k && e.To == to {
			return fmt.Sprintf("%s: %s (entries[%d])", EndToEnd, to, k)
		}
	}
	return EndToEnd + ": " + to
}

// Rows sums up r's replicates: a row for each entry from end to end, in
// Graph.Entries order, then a row for each service, in Graph.Services
// order.
func (r GraphResult) Rows() []GraphRow {
	g := &r.Graph
	d := g.Duration.Seconds()
	col := func(f func(*GraphReplicate) float64) schema.Estimate { return column(r.Replicates, f) }
	nan := func(*GraphReplicate) float64 { return math.NaN() }
	depths := g.depths()
	var byDepth []schema.Estimate
	for d := 1; slices.Contains(depths, d); d++ {
		byDepth = append(byDepth, col(func(p *GraphReplicate) float64 {
			var n int64
			for v := range p.Services {
				if depths[v] == d {
					n += p.Services[v].Calls
				}
			}
			return ratio(n, p.Requests(g))
		}))
	}
	var rows []GraphRow
	for k := range g.Entries {
		c := func(p *GraphReplicate) *EdgeReplicate { return &p.Edges[k] }
		rows = append(rows, GraphRow{
			Run: g.Name, Service: g.endToEnd(k), Replicates: len(r.Replicates),
			Requests:      col(func(p *GraphReplicate) float64 { return float64(c(p).Requests) }),
			Calls:         col(func(p *GraphReplicate) float64 { return float64(allCalls(p)) }),
			Amplification: col(func(p *GraphReplicate) float64 { return ratio(allCalls(p), p.Requests(g)) }),
			Succeeded:     col(func(p *GraphReplicate) float64 { return ratio(c(p).Succeeded, c(p).Requests) }),
			Goodput:       col(func(p *GraphReplicate) float64 { return float64(c(p).Succeeded) / d }),
			Timeouts:      col(func(p *GraphReplicate) float64 { return float64(c(p).Timeouts) }),
			Retries:       col(func(p *GraphReplicate) float64 { return float64(c(p).Retries) }),
			Rejected: col(func(p *GraphReplicate) float64 {
				return float64(allServices(p, func(s *ServiceReplicate) int64 { return s.Rejected }))
			}),
			Duplicates: col(func(p *GraphReplicate) float64 {
				return float64(allServices(p, func(s *ServiceReplicate) int64 { return s.Duplicates }))
			}),
			InProgress:     col(nan),
			Sojourn:        col(nan),
			P50:            col(func(p *GraphReplicate) float64 { return c(p).P50 }),
			P95:            col(func(p *GraphReplicate) float64 { return c(p).P95 }),
			P99:            col(func(p *GraphReplicate) float64 { return c(p).P99 }),
			PeakInProgress: col(nan),
			ByDepth:        byDepth,
		})
	}
	for v, n := range g.Services {
		s := func(p *GraphReplicate) *ServiceReplicate { return &p.Services[v] }
		rows = append(rows, GraphRow{
			Run: g.Name, Service: n.Name, Depth: depths[v], Replicates: len(r.Replicates),
			Requests:      col(func(p *GraphReplicate) float64 { return float64(s(p).Requests) }),
			Calls:         col(func(p *GraphReplicate) float64 { return float64(s(p).Calls) }),
			Amplification: col(func(p *GraphReplicate) float64 { return p.Amplification(g, v) }),
			Succeeded:     col(func(p *GraphReplicate) float64 { return ratio(s(p).Succeeded, s(p).Requests) }),
			Goodput:       col(func(p *GraphReplicate) float64 { return float64(s(p).Succeeded) / d }),
			Timeouts:      col(func(p *GraphReplicate) float64 { return float64(s(p).Timeouts) }),
			Retries:       col(func(p *GraphReplicate) float64 { return float64(s(p).Retries) }),
			Rejected:      col(func(p *GraphReplicate) float64 { return float64(s(p).Rejected) }),
			Duplicates:    col(func(p *GraphReplicate) float64 { return float64(s(p).Duplicates) }),
			InProgress: col(func(p *GraphReplicate) float64 {
				var busy float64
				for i := range s(p).Series {
					busy += s(p).Series[i].Busy
				}
				return busy / d
			}),
			Sojourn:        col(func(p *GraphReplicate) float64 { return ratioF(s(p).Sojourn, s(p).Entered) }),
			P50:            col(func(p *GraphReplicate) float64 { return s(p).P50 }),
			P95:            col(func(p *GraphReplicate) float64 { return s(p).P95 }),
			P99:            col(func(p *GraphReplicate) float64 { return s(p).P99 }),
			PeakInProgress: col(func(p *GraphReplicate) float64 { return float64(s(p).PeakInProgress) }),
		})
	}
	return rows
}

// allCalls is the calls that reached every service of the replicate.
func allCalls(p *GraphReplicate) int64 {
	return allServices(p, func(s *ServiceReplicate) int64 { return s.Calls })
}

// allServices is count summed over the replicate's services.
func allServices(p *GraphReplicate, count func(*ServiceReplicate) int64) int64 {
	var n int64
	for i := range p.Services {
		n += count(&p.Services[i])
	}
	return n
}

// ratioF is a / b, NaN when b is 0.
func ratioF(a float64, b int64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / float64(b)
}

// GraphPoint is one second of a service's series in a graph run, averaged
// over replicates: Point's figures for the requests to the service and the
// calls in progress at it, and the calls that reached it.
type GraphPoint struct {
	Point
	Service string
	// Calls is the calls that reached the service, attempts and hedges,
	// refused ones included (ServiceReplicate.CallSeries).
	Calls float64
}

// Series is r's time series: for each service, in Graph.Services order,
// one point a second, averaged over replicates (summed in replicate order,
// so the bytes do not depend on the workers).
func (r GraphResult) Series() []GraphPoint {
	if len(r.Replicates) == 0 {
		return nil
	}
	var pts []GraphPoint
	n := float64(len(r.Replicates))
	for v, node := range r.Graph.Services {
		for t := range r.Replicates[0].Services[v].Series {
			p := GraphPoint{Point: Point{Run: r.Graph.Name, T: t}, Service: node.Name}
			width := math.Min(1, r.Graph.Duration.Seconds()-float64(t)) // the last second may be cut short
			for i := range r.Replicates {
				sv := &r.Replicates[i].Services[v]
				p.Calls += float64(sv.CallSeries[t])
				p.add(&sv.Series[t], width)
			}
			p.Calls /= n
			p.divide(n)
			pts = append(pts, p)
		}
	}
	return pts
}
