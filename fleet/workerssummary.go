package fleet

import (
	"math"

	"github.com/retrysim/retrysim/schema"
)

// WorkersRow is a worker fleet's row (a graph run read as one: its first
// entry the job queue, the service it sends to the workers, that service's
// calls the job's steps; see Workers): each figure a mean over replicates
// with its 95% Student t interval, but DrainedReplicates, a share with its
// Wilson interval.
type WorkersRow struct {
	Run        string
	Replicates int
	// Jobs counts the jobs that arrived, Completed those that succeeded,
	// Dead those that failed every try the queue gives (dead-lettered).
	// Deliveries counts the tries that reached the workers. Queued counts
	// the jobs still queued when arrivals stop (waiting for a worker, or
	// out a retry's wait: ServiceReplicate.WaitingAtEnd plus
	// ScheduledAtEnd); the run goes on until each has ended.
	Jobs, Completed, Dead, Queued, Deliveries schema.Estimate
	// Duplicates counts the side effects a job's steps did again (a step
	// done by a second delivery of the same job: EdgeReplicate's
	// JobDuplicates summed over the steps); LostWork the jobs that
	// completed with a step whose key in the workers' store says its work
	// was done and whose work no delivery did, as the delivery model counts
	// lost work (EdgeReplicate.Lost; 0 without a store); Late the deliveries
	// that finished after the queue had stopped waiting for them (their
	// visibility timeout had passed or another delivery had ended the
	// job): work whose result nobody read.
	Duplicates, LostWork, Late schema.Estimate
	// Conflicts counts deliveries the job's key refused because an earlier
	// one still held it; Crashes the workers' crashes (Workers.Crash);
	// RolledBack the steps' calls whose work rolled back because their
	// delivery no longer held the step's lease (KeyStore).
	Conflicts, Crashes, RolledBack schema.Estimate
	// DrainSeconds is the time the jobs waiting (for a worker, or out a
	// retry) took to first get back to their level before the outages,
	// over the replicates that drained (Graph.Drain; NaN when none did), and
	// DrainedReplicates the share of the replicates judged that drained
	// (N = 0 with no outage to drain from).
	DrainSeconds, DrainedReplicates schema.Estimate
	// PeakBacklog is the most jobs waiting for a worker at once,
	// PeakRetrying the most waiting out a retry at once
	// (ServiceReplicate.PeakScheduled), PeakAge the oldest job waiting for
	// a worker's greatest age, in seconds.
	PeakBacklog, PeakRetrying, PeakAge schema.Estimate
	// P50, P95 and P99 are completion times of the jobs that completed,
	// from enqueue to done, in seconds.
	P50, P95, P99 schema.Estimate
	// Steps are the job's steps, in order, each with its duplicates.
	Steps []WorkersStep
}

// WorkersStep is a job's step in a WorkersRow: its place (from 1), the
// dependency it calls, and the side effects deliveries of one job did
// again at it (EdgeReplicate.JobDuplicates), every step watched.
type WorkersStep struct {
	Step       int
	To         string
	Duplicates schema.Estimate
}

// WorkersRows sums up r's replicates as a worker fleet's: one row for the
// run, its first entry the queue.
func (r GraphResult) WorkersRows() []WorkersRow {
	g := &r.Graph
	edges := g.Edges()
	w := edges[0].To // the workers' service
	var steps []int  // the edges of its calls
	for i, e := range edges {
		if e.From == w {
			steps = append(steps, i)
		}
	}
	col := func(f func(*GraphReplicate) float64) schema.Estimate { return column(r.Replicates, f) }
	q := func(p *GraphReplicate) *EdgeReplicate { return &p.Edges[0] }
	ws := func(p *GraphReplicate) *ServiceReplicate { return &p.Services[w] }
	drained, secs := r.Drain(w)
	var perStep []WorkersStep
	for k, i := range steps {
		perStep = append(perStep, WorkersStep{Step: k + 1, To: g.Services[edges[i].To].Name,
			Duplicates: col(func(p *GraphReplicate) float64 { return float64(p.Edges[i].JobDuplicates) })})
	}
	return []WorkersRow{{
		Run: g.Name, Replicates: len(r.Replicates),
		Jobs:       col(func(p *GraphReplicate) float64 { return float64(q(p).Requests) }),
		Completed:  col(func(p *GraphReplicate) float64 { return float64(q(p).Succeeded) }),
		Dead:       col(func(p *GraphReplicate) float64 { return float64(q(p).Failed) }),
		Queued:     col(func(p *GraphReplicate) float64 { return float64(ws(p).WaitingAtEnd + ws(p).ScheduledAtEnd) }),
		Deliveries: col(func(p *GraphReplicate) float64 { return float64(ws(p).Calls) }),
		Duplicates: col(func(p *GraphReplicate) float64 {
			var n int64
			for _, i := range steps {
				n += p.Edges[i].JobDuplicates
			}
			return float64(n)
		}),
		LostWork:          col(func(p *GraphReplicate) float64 { return float64(q(p).Lost) }),
		Late:              col(func(p *GraphReplicate) float64 { return float64(q(p).Late) }),
		Conflicts:         col(func(p *GraphReplicate) float64 { return float64(ws(p).Conflicts) }),
		Crashes:           col(func(p *GraphReplicate) float64 { return float64(q(p).Crashes) }),
		RolledBack:        col(func(p *GraphReplicate) float64 { return float64(q(p).RolledBack) }),
		DrainSeconds:      secs,
		DrainedReplicates: drained,
		PeakBacklog:       col(func(p *GraphReplicate) float64 { return float64(ws(p).PeakBacklog) }),
		PeakRetrying:      col(func(p *GraphReplicate) float64 { return float64(ws(p).PeakScheduled) }),
		PeakAge:           col(func(p *GraphReplicate) float64 { return ws(p).PeakAge }),
		P50:               col(func(p *GraphReplicate) float64 { return q(p).P50 }),
		P95:               col(func(p *GraphReplicate) float64 { return q(p).P95 }),
		P99:               col(func(p *GraphReplicate) float64 { return q(p).P99 }),
		Steps:             perStep,
	}}
}

// WorkersPoint is one second of a worker fleet's series, averaged over
// replicates: the workers' arrivals, completions, dead-lettered jobs,
// redeliveries (the tries after a job's first, when the queue sends them:
// the workers' Second.RetriesSent; a hedge's copies not counted), backlog,
// oldest age, jobs in flight (InFlight: the time average of the jobs
// delivered to the workers and not yet answered, on a worker or waiting
// for one, held while the workers are down included, so at least Backlog)
// and retries scheduled, and each dependency's calls (attempts that
// reached it, ServiceReplicate.CallSeries) and calls in progress (DepCalls
// and DepInProgress, in Graph.Services order, the workers left out).
type WorkersPoint struct {
	Run                          string
	T                            int
	Arrivals, Completions, Dead  float64
	Redeliveries                 float64
	Backlog, OldestAge, InFlight float64
	RetriesScheduled             float64
	DepCalls, DepInProgress      []float64
}

// WorkersSeries is r's series as a worker fleet's, a point a second,
// averaged over replicates in replicate order.
func (r GraphResult) WorkersSeries() []WorkersPoint {
	if len(r.Replicates) == 0 {
		return nil
	}
	g := &r.Graph
	w := g.Edges()[0].To
	n := float64(len(r.Replicates))
	pts := make([]WorkersPoint, len(r.Replicates[0].Services[w].Series))
	for t := range pts {
		p := WorkersPoint{Run: g.Name, T: t}
		width := math.Min(1, g.Duration.Seconds()-float64(t))
		for v := range g.Services {
			if v != w {
				p.DepCalls = append(p.DepCalls, 0)
				p.DepInProgress = append(p.DepInProgress, 0)
			}
		}
		for i := range r.Replicates {
			s := r.Replicates[i].Services[w].Series[t]
			p.Arrivals += float64(s.Starts)
			p.Completions += float64(s.Successes)
			p.Dead += float64(s.Failures)
			p.Redeliveries += float64(s.RetriesSent)
			p.Backlog += s.Backlog / width
			p.OldestAge += s.Age
			p.InFlight += (s.Busy + r.Replicates[i].Services[w].HeldSeries[t]) / width
			p.RetriesScheduled += s.Scheduled / width
			d := 0
			for v := range g.Services {
				if v == w {
					continue
				}
				sv := &r.Replicates[i].Services[v]
				p.DepCalls[d] += float64(sv.CallSeries[t])
				p.DepInProgress[d] += sv.Series[t].Busy / width
				d++
			}
		}
		p.Arrivals /= n
		p.Completions /= n
		p.Dead /= n
		p.Redeliveries /= n
		p.Backlog /= n
		p.OldestAge /= n
		p.InFlight /= n
		p.RetriesScheduled /= n
		for d := range p.DepCalls {
			p.DepCalls[d] /= n
			p.DepInProgress[d] /= n
		}
		pts[t] = p
	}
	return pts
}
