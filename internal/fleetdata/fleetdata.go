// Package fleetdata holds what fleet's engine writes of a run and what is
// derived from it: the replicates (a run's, a graph's, its services' and
// edges'), their per-second series, recovery's verdicts, and the rows and
// points a run is summed up as. It is the engine's side of the shard and
// the renderers' input, not API: fleet's Result reads it through its public
// Summary and Series, internal/fleetrun reaches it from a fleet.Result.
package fleetdata

import (
	"fmt"

	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Second is one second of a replicate's time series.
type Second struct {
	// Starts counts new requests. RetriesDecided counts retries when the
	// client decides them (an attempt failed or timed out, an attempt is
	// left and the policy, if asked then, allows it), as Brooker's
	// simulations count them; RetriesSent counts attempts after the first
	// when they leave the client, after their backoff. A retry refused at
	// its send is decided and not sent.
	Starts, Successes, RetriesDecided, RetriesSent, Timeouts, Conflicts int64
	// Served counts the requests that arrived in the second and succeeded,
	// whenever they did: goodput by arrival, which recovery judges.
	Served int64
	// Failures counts requests that failed (for a job queue's entry: jobs
	// dead-lettered).
	Failures int64
	// Busy is the integral of calls in progress over the second, so its
	// value is their time average.
	Busy float64
	// Backlog is the integral over the second of calls waiting at the
	// service for a worker (in a queue server's queue, or held by a stall
	// outage), so its value is their time average; Age is the age of the
	// oldest waiting call at its greatest in the second, in seconds (0 when
	// none waited). Scheduled is the integral of requests to the service
	// waiting out a backoff before their next attempt: retries scheduled.
	Backlog, Age, Scheduled float64
}

// Counts are a replicate's totals over every request that arrived.
type Counts struct {
	Requests, Succeeded, Failed int64
	// Calls counts attempts that reached the server, refused ones included.
	Calls   int64
	Retries int64
	// Timeouts counts attempts the client gave up waiting for; Errors the
	// error replies it saw (failures, rejections, throttling, outages,
	// conflicts).
	Timeouts, Errors int64
	// Conflicts counts attempts refused because their key was in progress,
	// Rejected those refused by a full queue or the rate limit, Stored those
	// answered with a completed key's stored reply.
	Conflicts, Rejected, Stored int64
	// Denied counts requests that called the server and failed because
	// the client's Policy refused an attempt the attempts allowed (its last,
	// for a kind whose refusals are retried).
	Denied int64
	// LocalRejected counts requests the Policy refused (an open breaker, a
	// throttle) before any call: they failed without calling the server.
	LocalRejected int64
	// Hedges counts the extra copies of attempts sent by hedging; Calls
	// includes those that reached the server.
	Hedges int64
	// Late counts replies that came after their attempt's timeout, or after
	// the request had moved on: answers, often to work done, the client
	// never saw.
	Late int64
	// Effects counts side effects done; Duplicates those beyond the first of
	// their request, and Duplicated the requests with two or more.
	Effects, Duplicates, Duplicated int64
	// PeakInProgress is the most calls the server held at once.
	PeakInProgress int64
}

// Add adds o's counts to c's, field by field.
func (c *Counts) Add(o *Counts) {
	c.Requests += o.Requests
	c.Succeeded += o.Succeeded
	c.Failed += o.Failed
	c.Calls += o.Calls
	c.Retries += o.Retries
	c.Timeouts += o.Timeouts
	c.Errors += o.Errors
	c.Conflicts += o.Conflicts
	c.Rejected += o.Rejected
	c.Stored += o.Stored
	c.Denied += o.Denied
	c.LocalRejected += o.LocalRejected
	c.Hedges += o.Hedges
	c.Late += o.Late
	c.Effects += o.Effects
	c.Duplicates += o.Duplicates
	c.Duplicated += o.Duplicated
	c.PeakInProgress += o.PeakInProgress
}

// Replicate is one seeded simulation of a run.
type Replicate struct {
	Counts
	// P50, P95 and P99 are latency quantiles of successful requests, from
	// their first attempt to the reply, in seconds (NaN with no success).
	P50, P95, P99 float64
	// Recovery is how long after the load settles goodput is back for good,
	// in seconds, when Verdict is Recovered; NaN otherwise (see RecoveryWindow).
	Recovery float64
	// Verdict says whether the replicate recovered, stayed down, or could
	// not be judged (no trigger, or too short).
	Verdict Verdict
	// Little's law's terms over the whole run, [0, End]: Area is the integral
	// of calls in progress, Sojourn the sum of the times calls spent in the
	// server (summed as departure times minus arrival times), Entered the
	// calls that went in (not refused).
	End, Area, Sojourn float64
	Entered            int64
	// Wait sums the queue server's waits before service; Wait/Entered is
	// the mean wait.
	Wait float64
	// Events counts the events the replicate processed, stale timeouts
	// included: the unit of the engine's speed.
	Events int64
	Series []Second
}

// Edge names an edge of a graph: an entry (From -1, Index the entry's
// index) or a call (From the calling service's index, Index the call's
// index in its Calls); To is the called service's index.
type Edge struct {
	From, Index, To int
}

// GraphReplicate is one seeded simulation of a graph.
type GraphReplicate struct {
	// Services holds each service's figures, in Graph.Services order.
	Services []ServiceReplicate
	// Edges holds each edge's client figures, in Graph.Edges order: the
	// entries first (their end-to-end figures), then the calls.
	Edges []EdgeReplicate
	// End is the time of the replicate's last event, a stale timeout's
	// included (so up to the longest timeout past the last request's end);
	// Events counts the events the replicate processed (the unit of the
	// engine's speed).
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
	// Wait sums a queue server's waits before service. Queued is the
	// integral of calls waiting at the service (in its queue or held by a
	// stall outage) over the whole run: Little's law for the waiting line
	// makes it Wait plus the time stalls held calls.
	Wait, Queued float64
	// Series is the service's per-second series: Starts, Successes,
	// RetriesDecided, RetriesSent, Timeouts and Scheduled of the requests
	// to it, Conflicts, Busy (calls in progress), Backlog and Age at it.
	Series []Second
	// PeakBacklog is the most calls that waited at the service at once (in
	// a queue server's queue or held by a stall outage), PeakAge the
	// greatest age a waiting call reached there, in seconds, over the whole
	// run. PeakScheduled is the most requests to it waiting out a backoff
	// at once (what the series' Scheduled integrates, at its greatest): for
	// a job queue's workers, the most jobs waiting out a retry.
	PeakBacklog   int64
	PeakAge       float64
	PeakScheduled int64
	// WaitingAtEnd is the calls waiting at the service (queued or held)
	// that their requests still wait for when the run's duration ends and
	// arrivals stop, and ScheduledAtEnd
	// the requests to it then waiting out a backoff before their next
	// attempt: for a job queue's workers, the jobs still queued.
	WaitingAtEnd, ScheduledAtEnd int64
	// Drain is how long after the graph's outages end the requests
	// waiting for the service (its backlog and those waiting out a
	// backoff) are first back to their level before them (see
	// fleet's drain), in seconds, when DrainVerdict is Recovered (drained);
	// NaN otherwise: Down when it never drained in the run's duration,
	// NoTrigger without an outage, TooShort with no second after it.
	Drain        float64
	DrainVerdict Verdict
	// CallSeries counts the calls that reached the service (attempts and
	// hedges, refused ones included, as Counts.Calls) in each second of
	// Series. HeldSeries is the integral over each second of Series of the
	// calls a stall outage held at the service: the part of its Backlog not
	// in progress (Busy).
	CallSeries []int64
	HeldSeries []float64
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
	// Expired counts calls their caller's deadline had passed for
	// (Graph.Deadlines): calls not made, the deadline having passed when
	// the caller would start them (not in Requests or Failed, never sent),
	// and requests that failed because it passed before a retry could go
	// out (in Requests and Failed).
	Expired int64
	// PushedBack counts requests that failed because an attempt was
	// answered "do not retry" (Server.Pushback) and the client honours it
	// (Client.HonourPushback), on any attempt, the last included (where
	// it ends only the hedged copies still out).
	PushedBack int64
	// Orphaned counts requests of a Parallel service's calls that finished
	// after the service had answered the request they served, because a
	// sibling call failed: work nobody waited for. Calls still out when
	// the service's own caller gives up are not counted (the service has
	// not answered yet).
	Orphaned int64
	// JobEffects counts the side effects the edge's requests did at the
	// service it calls; JobDuplicates those beyond the first of the same
	// request entering the graph: for a job queue's entry (see Workers), a
	// step a job's second delivery did again, which the step's own key
	// (a request's, made anew by each delivery) does not catch. Both 0 on
	// a graph whose services make no calls.
	JobEffects, JobDuplicates int64
	// Crashes, RolledBack, Held and Lost are an entry's with a KeyStore or
	// Crashes (0 otherwise): its workers' crashes; calls whose work rolled
	// back because their delivery no longer held the step's lease;
	// deliveries that found a step's lease held by another and left the
	// job unacked; and the jobs that completed with a step whose key says
	// its work was done (Lease: a done status) and whose work no delivery
	// did (the delivery model's lost work, a failed job counted as failed
	// only).
	Crashes, RolledBack, Held, Lost int64
}

// RecoveryWindow is the span, in seconds, over which recovery compares
// goodput with the offered load. Successes trail the arrivals they answer by
// a latency, so over a window the two differ by the arrivals at its two ends;
// at Brooker's 40 requests a second that difference has a standard deviation
// of about 13 requests, and 10 s makes the 10% margin (40 requests) 3 of
// them: a healthy window is judged unhealthy about once in 1,500.
const RecoveryWindow = 10

// EndToEnd begins the Service of a graph's row that sums up an entry's
// requests from end to end, followed by ": " and the service the entry
// sends to.
const EndToEnd = "end to end"

// WorkersService is the name of a worker fleet's own service in its graph
// (fleet.Workers.Graph): the workers.
const WorkersService = "workers"

// Verdict is what recovery found of a replicate.
type Verdict uint8

const (
	// NoTrigger is a run with no spike, ramp or outage: constant load has
	// nothing to recover from, so recovery is not judged.
	NoTrigger Verdict = iota
	// TooShort is a run with a trigger but no RecoveryWindow after the load
	// settles in which requests arrived: too short to judge.
	TooShort
	// Down is a replicate whose last window is unhealthy: it had not
	// recovered when the run ended.
	Down
	// Recovered is a replicate whose goodput came back for good.
	Recovered
)

var verdictNames = [...]string{"no trigger", "too short", "down", "recovered"}

// String is what the verdict says: "no trigger", "too short", "down" or
// "recovered".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", v)
}

// RunRow is a fleet run's row: each figure a mean over replicates with its 95%
// Student t interval.
type RunRow struct {
	Run        string
	Replicates int
	Requests   schema.Estimate
	// Succeeded is the share of requests that succeeded, Goodput the
	// successes a second of the run's duration, Amplification the server
	// calls a request.
	Succeeded, Goodput, Amplification schema.Estimate
	Timeouts, Conflicts, Duplicates   schema.Estimate
	// LocalRejected counts requests the policy refused before any call,
	// Hedges the extra copies hedging sent.
	LocalRejected, Hedges schema.Estimate
	P50, P95, P99         schema.Estimate
	PeakInProgress        schema.Estimate
	// Trigger says whether the run has a spike, ramp or outage to recover
	// from; without one the recovery figures are empty.
	Trigger bool
	// RecoveredShare is the share of the replicates judged (all of them,
	// less those too short to judge) that recovered, with its Wilson
	// interval (its Count the replicates that recovered); N = 0 when none
	// was judged.
	RecoveredShare schema.Estimate
	// Recovery is the time to recover over the replicates that recovered
	// (RecoveredShare.Count() of them), its interval cut at 0; NaN when
	// none did.
	Recovery schema.Estimate
	// RecoveryTime is the time to recover over every judged replicate, the
	// Kaplan-Meier quartiles with those still down censored at the run's
	// end (Result.RecoveryCurve): its median NaN when fewer than half
	// recovered.
	RecoveryTime stats.Quartiles
}

// Totals are a run's counts summed over its replicates, as Brooker's retry
// runs report them.
type Totals struct {
	Run         string
	Clients     int
	FailureRate float64
	// Calls counts server calls.
	Requests, Succeeded, Calls int64
}

// Point is one second of a run's series, averaged over replicates.
type Point struct {
	Run string
	T   int // the second's start
	// RetriesDecided and RetriesSent count retries when decided and when
	// sent, as Second does.
	Starts, Successes, RetriesDecided, RetriesSent, Timeouts, Conflicts float64
	InProgress                                                          float64 // time average
}

// Add adds a replicate's second s, width seconds long, to p's sums.
func (p *Point) Add(s *Second, width float64) {
	p.Starts += float64(s.Starts)
	p.Successes += float64(s.Successes)
	p.RetriesDecided += float64(s.RetriesDecided)
	p.RetriesSent += float64(s.RetriesSent)
	p.Timeouts += float64(s.Timeouts)
	p.Conflicts += float64(s.Conflicts)
	p.InProgress += s.Busy / width
}

// Divide makes p's sums over n replicates their means.
func (p *Point) Divide(n float64) {
	p.Starts /= n
	p.Successes /= n
	p.RetriesDecided /= n
	p.RetriesSent /= n
	p.Timeouts /= n
	p.Conflicts /= n
	p.InProgress /= n
}

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
	// over the replicates that drained (fleet's drain; NaN when none did), and
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
