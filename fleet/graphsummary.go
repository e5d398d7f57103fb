package fleet

import (
	"fmt"
	"math"
	"slices"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/schema"
)

// endToEnd is the Service of entry k's end-to-end row, with its index when
// another entry sends to the same service.
func (g *Graph) endToEnd(k int) string {
	to := g.Entries[k].To
	for j, e := range g.Entries {
		if j != k && e.To == to {
			return fmt.Sprintf("%s: %s (entries[%d])", fleetdata.EndToEnd, to, k)
		}
	}
	return fleetdata.EndToEnd + ": " + to
}

// rows sums up r's replicates: a row an entry from end to end, then a row a
// service.
func (r GraphResult) rows() []fleetdata.GraphRow {
	g := &r.Graph
	d := g.Duration.Seconds()
	col := func(f func(*fleetdata.GraphReplicate) float64) schema.Estimate { return column(r.replicates, f) }
	nan := col(func(*fleetdata.GraphReplicate) float64 { return math.NaN() })
	depths := g.depths()
	var byDepth []schema.Estimate
	for d := 1; slices.Contains(depths, d); d++ {
		byDepth = append(byDepth, col(func(p *fleetdata.GraphReplicate) float64 {
			var n int64
			for v := range p.Services {
				if depths[v] == d {
					n += p.Services[v].Calls
				}
			}
			return ratio(n, entered(p, g))
		}))
	}
	// row is a row of the requests c counts, q their latency quantiles, and of
	// the calls, rejections and duplicates at counts.
	row := func(service string, depth int, c, at func(*fleetdata.GraphReplicate) *fleetdata.Counts, q func(*fleetdata.GraphReplicate) [3]float64) fleetdata.GraphRow {
		return fleetdata.GraphRow{Run: g.Name, Service: service, Depth: depth, Replicates: len(r.replicates),
			Requests:      col(func(p *fleetdata.GraphReplicate) float64 { return float64(c(p).Requests) }),
			Calls:         col(func(p *fleetdata.GraphReplicate) float64 { return float64(at(p).Calls) }),
			Amplification: col(func(p *fleetdata.GraphReplicate) float64 { return ratio(at(p).Calls, entered(p, g)) }),
			Succeeded:     col(func(p *fleetdata.GraphReplicate) float64 { return ratio(c(p).Succeeded, c(p).Requests) }),
			Goodput:       col(func(p *fleetdata.GraphReplicate) float64 { return float64(c(p).Succeeded) / d }),
			Timeouts:      col(func(p *fleetdata.GraphReplicate) float64 { return float64(c(p).Timeouts) }),
			Retries:       col(func(p *fleetdata.GraphReplicate) float64 { return float64(c(p).Retries) }),
			Rejected:      col(func(p *fleetdata.GraphReplicate) float64 { return float64(at(p).Rejected) }),
			Duplicates:    col(func(p *fleetdata.GraphReplicate) float64 { return float64(at(p).Duplicates) }),
			P50:           col(func(p *fleetdata.GraphReplicate) float64 { return q(p)[0] }),
			P95:           col(func(p *fleetdata.GraphReplicate) float64 { return q(p)[1] }),
			P99:           col(func(p *fleetdata.GraphReplicate) float64 { return q(p)[2] }),
		}
	}
	every := func(p *fleetdata.GraphReplicate) *fleetdata.Counts { // every service's counts summed
		var n fleetdata.Counts
		for v := range p.Services {
			n.Add(&p.Services[v].Counts)
		}
		return &n
	}
	var rows []fleetdata.GraphRow
	for k := range g.Entries {
		e := func(p *fleetdata.GraphReplicate) *fleetdata.EdgeReplicate { return &p.Edges[k] }
		end := row(g.endToEnd(k), 0, func(p *fleetdata.GraphReplicate) *fleetdata.Counts { return &e(p).Counts }, every,
			func(p *fleetdata.GraphReplicate) [3]float64 { return [3]float64{e(p).P50, e(p).P95, e(p).P99} })
		end.InProgress, end.Sojourn, end.PeakInProgress, end.ByDepth = nan, nan, nan, byDepth
		rows = append(rows, end)
	}
	for v, n := range g.Services {
		s := func(p *fleetdata.GraphReplicate) *fleetdata.ServiceReplicate { return &p.Services[v] }
		c := func(p *fleetdata.GraphReplicate) *fleetdata.Counts { return &s(p).Counts }
		own := row(n.Name, depths[v], c, c, func(p *fleetdata.GraphReplicate) [3]float64 { return [3]float64{s(p).P50, s(p).P95, s(p).P99} })
		own.InProgress = col(func(p *fleetdata.GraphReplicate) float64 {
			var busy float64
			for i := range s(p).Series {
				busy += s(p).Series[i].Busy
			}
			return busy / d
		})
		own.Sojourn = col(func(p *fleetdata.GraphReplicate) float64 { return ratioF(s(p).Sojourn, s(p).Entered) })
		own.PeakInProgress = col(func(p *fleetdata.GraphReplicate) float64 { return float64(s(p).PeakInProgress) })
		rows = append(rows, own)
	}
	return rows
}

// ratioF is a / b, NaN when b is 0.
func ratioF(a float64, b int64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / float64(b)
}

// series is r's time series, a point a second a service, averaged over
// replicates in replicate order.
func (r GraphResult) series() []fleetdata.GraphPoint {
	if len(r.replicates) == 0 {
		return nil
	}
	var pts []fleetdata.GraphPoint
	n := float64(len(r.replicates))
	for v, node := range r.Graph.Services {
		for t := range r.replicates[0].Services[v].Series {
			p := fleetdata.GraphPoint{Point: fleetdata.Point{Run: r.Graph.Name, T: t}, Service: node.Name}
			width := math.Min(1, r.Graph.Duration.Seconds()-float64(t)) // the last second may be cut short
			for i := range r.replicates {
				sv := &r.replicates[i].Services[v]
				p.Calls += float64(sv.CallSeries[t])
				p.Add(&sv.Series[t], width)
			}
			p.Calls /= n
			p.Divide(n)
			pts = append(pts, p)
		}
	}
	return pts
}
