package fleet

import (
	"math"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/schema"
)

// workersRows sums up r's replicates as a worker fleet's: one row.
func (r GraphResult) workersRows() []fleetdata.WorkersRow {
	g := &r.Graph
	edges := g.edges()
	w := edges[0].To // the workers' service
	var steps []int  // the edges of its calls
	for i, e := range edges {
		if e.From == w {
			steps = append(steps, i)
		}
	}
	col := func(f func(*fleetdata.GraphReplicate) float64) schema.Estimate { return column(r.replicates, f) }
	q := func(p *fleetdata.GraphReplicate) *fleetdata.EdgeReplicate { return &p.Edges[0] }
	ws := func(p *fleetdata.GraphReplicate) *fleetdata.ServiceReplicate { return &p.Services[w] }
	drained, secs := r.drain(w)
	var perStep []fleetdata.WorkersStep
	for k, i := range steps {
		perStep = append(perStep, fleetdata.WorkersStep{Step: k + 1, To: g.Services[edges[i].To].Name,
			Duplicates: col(func(p *fleetdata.GraphReplicate) float64 { return float64(p.Edges[i].JobDuplicates) })})
	}
	return []fleetdata.WorkersRow{{
		Run: g.Name, Replicates: len(r.replicates),
		Jobs:       col(func(p *fleetdata.GraphReplicate) float64 { return float64(q(p).Requests) }),
		Completed:  col(func(p *fleetdata.GraphReplicate) float64 { return float64(q(p).Succeeded) }),
		Dead:       col(func(p *fleetdata.GraphReplicate) float64 { return float64(q(p).Failed) }),
		Queued:     col(func(p *fleetdata.GraphReplicate) float64 { return float64(ws(p).WaitingAtEnd + ws(p).ScheduledAtEnd) }),
		Deliveries: col(func(p *fleetdata.GraphReplicate) float64 { return float64(ws(p).Calls) }),
		Duplicates: col(func(p *fleetdata.GraphReplicate) float64 {
			var n int64
			for _, i := range steps {
				n += p.Edges[i].JobDuplicates
			}
			return float64(n)
		}),
		LostWork:          col(func(p *fleetdata.GraphReplicate) float64 { return float64(q(p).Lost) }),
		Late:              col(func(p *fleetdata.GraphReplicate) float64 { return float64(q(p).Late) }),
		Conflicts:         col(func(p *fleetdata.GraphReplicate) float64 { return float64(ws(p).Conflicts) }),
		Crashes:           col(func(p *fleetdata.GraphReplicate) float64 { return float64(q(p).Crashes) }),
		RolledBack:        col(func(p *fleetdata.GraphReplicate) float64 { return float64(q(p).RolledBack) }),
		DrainSeconds:      secs,
		DrainedReplicates: drained,
		PeakBacklog:       col(func(p *fleetdata.GraphReplicate) float64 { return float64(ws(p).PeakBacklog) }),
		PeakRetrying:      col(func(p *fleetdata.GraphReplicate) float64 { return float64(ws(p).PeakScheduled) }),
		PeakAge:           col(func(p *fleetdata.GraphReplicate) float64 { return ws(p).PeakAge }),
		P50:               col(func(p *fleetdata.GraphReplicate) float64 { return q(p).P50 }),
		P95:               col(func(p *fleetdata.GraphReplicate) float64 { return q(p).P95 }),
		P99:               col(func(p *fleetdata.GraphReplicate) float64 { return q(p).P99 }),
		Steps:             perStep,
	}}
}

// workersSeries is r's series as a worker fleet's, a point a second,
// averaged over replicates in replicate order.
func (r GraphResult) workersSeries() []fleetdata.WorkersPoint {
	if len(r.replicates) == 0 {
		return nil
	}
	g := &r.Graph
	w := g.edges()[0].To
	n := float64(len(r.replicates))
	pts := make([]fleetdata.WorkersPoint, len(r.replicates[0].Services[w].Series))
	deps := len(g.Services) - 1 // every service but the workers'
	for t := range pts {
		p := fleetdata.WorkersPoint{Run: g.Name, T: t, DepCalls: make([]float64, deps), DepInProgress: make([]float64, deps)}
		width := math.Min(1, g.Duration.Seconds()-float64(t))
		for i := range r.replicates {
			s := r.replicates[i].Services[w].Series[t]
			p.Arrivals += float64(s.Starts)
			p.Completions += float64(s.Successes)
			p.Dead += float64(s.Failures)
			p.Redeliveries += float64(s.RetriesSent)
			p.Backlog += s.Backlog / width
			p.OldestAge += s.Age
			p.InFlight += (s.Busy + r.replicates[i].Services[w].HeldSeries[t]) / width
			p.RetriesScheduled += s.Scheduled / width
			d := 0
			for v := range g.Services {
				if v == w {
					continue
				}
				sv := &r.replicates[i].Services[v]
				p.DepCalls[d] += float64(sv.CallSeries[t])
				p.DepInProgress[d] += sv.Series[t].Busy / width
				d++
			}
		}
		for _, x := range []*float64{&p.Arrivals, &p.Completions, &p.Dead, &p.Redeliveries, &p.Backlog, &p.OldestAge, &p.InFlight, &p.RetriesScheduled} {
			*x /= n
		}
		for d := range p.DepCalls {
			p.DepCalls[d] /= n
			p.DepInProgress[d] /= n
		}
		pts[t] = p
	}
	return pts
}
