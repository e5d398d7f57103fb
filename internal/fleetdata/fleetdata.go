// Package fleetdata holds what fleet's engine writes of a run (replicates, per-second
// series, recovery's verdicts) and the rows and points a run is summed up as: the shard's
// and the renderers' input, not API.
package fleetdata

import (
	"fmt"
	"reflect"

	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Second is one second of a replicate's time series.
type Second struct {
	// RetriesDecided counts retries when decided (as Brooker counts), RetriesSent when sent.
	Starts, Successes, RetriesDecided, RetriesSent, Timeouts, Conflicts int64
	// Served counts the requests that arrived in the second and succeeded, whenever they did.
	Served int64
	// Failures counts requests that failed (a job queue's entry: jobs dead-lettered).
	Failures int64
	// Busy is the integral of calls in progress over the second.
	Busy float64
	// Backlog integrates the calls waiting for a worker, Age is the oldest one's greatest age
	// (seconds), Scheduled integrates the requests waiting out a backoff.
	Backlog, Age, Scheduled float64
}

// Counts are a replicate's totals over every request that arrived, each field an int64
// (Add sums them all).
type Counts struct {
	Requests, Succeeded, Failed int64
	// Calls counts attempts that reached the server, refused ones included.
	Calls   int64
	Retries int64
	// Timeouts counts attempts the client gave up waiting for; Errors the error replies.
	Timeouts, Errors int64
	// Conflicts, Rejected and Stored count attempts refused for a key in progress, for
	// overload, and answered with a stored reply.
	Conflicts, Rejected, Stored int64
	// Denied counts requests that failed because the Policy refused an attempt left.
	Denied int64
	// LocalRejected counts requests the Policy refused before any call.
	LocalRejected int64
	// Hedges counts the extra copies hedging sent.
	Hedges int64
	// Late counts replies that came after their attempt's timeout or their request moved on.
	Late int64
	// Duplicates counts effects beyond their request's first; Duplicated requests with two+.
	Effects, Duplicates, Duplicated int64
	// PeakInProgress is the most calls the server held at once.
	PeakInProgress int64
}

// Add adds o's counts to c's, field by field.
func (c *Counts) Add(o *Counts) {
	cv, ov := reflect.ValueOf(c).Elem(), reflect.ValueOf(o).Elem()
	for i := range cv.NumField() {
		cv.Field(i).SetInt(cv.Field(i).Int() + ov.Field(i).Int())
	}
}

// Replicate is one seeded simulation of a run.
type Replicate struct {
	Counts
	// P50, P95 and P99 are successful requests' latency quantiles in seconds (NaN: none).
	P50, P95, P99 float64
	// Recovery is the seconds until goodput is back for good when Recovered; NaN otherwise.
	Recovery float64
	Verdict  Verdict
	// Little's law's terms over [0, End]: integral in progress, summed sojourns, admissions.
	End, Area, Sojourn float64
	Entered            int64
	// Wait sums the queue server's waits before service.
	Wait float64
	// Events counts the events processed, stale timeouts included.
	Events int64
	Series []Second
}

// Edge is an entry (From -1) or a call (From the caller), Index its own, To the callee.
type Edge struct {
	From, Index, To int
}

// GraphReplicate is one seeded simulation of a graph.
type GraphReplicate struct {
	// Services holds each service's figures, in Graph.Services order.
	Services []ServiceReplicate
	// Edges holds each edge's client figures, in Graph.Edges order: entries first.
	Edges []EdgeReplicate
	// End is the time of the last event, a stale timeout's included; Events counts events.
	End    float64
	Events int64
}

// ServiceReplicate is a service's figures: its Counts' client side sums its callers' edges.
type ServiceReplicate struct {
	Counts
	// P50, P95 and P99 are the latency quantiles its callers saw, in seconds (NaN: none).
	P50, P95, P99 float64
	// Area, Sojourn and Entered are Little's law's terms, as in Replicate.
	Area, Sojourn float64
	Entered       int64
	// Wait sums a queue server's waits; Queued integrates the calls waiting there over the run.
	Wait, Queued float64
	// Series is the service's per-second series.
	Series []Second
	// PeakBacklog, PeakAge (seconds) and PeakScheduled are their series' greatest values.
	PeakBacklog   int64
	PeakAge       float64
	PeakScheduled int64
	// WaitingAtEnd and ScheduledAtEnd are those waiting when arrivals stop.
	WaitingAtEnd, ScheduledAtEnd int64
	// Drain is the seconds after the outages until its waiting requests are back to their
	// level before, when DrainVerdict is Recovered; NaN otherwise.
	Drain        float64
	DrainVerdict Verdict
	// CallSeries counts the calls reaching it a second; HeldSeries integrates those a stall held.
	CallSeries []int64
	HeldSeries []float64
}

// EdgeReplicate is an edge's client figures in a replicate; an entry's are end to end.
type EdgeReplicate struct {
	Counts
	// P50, P95 and P99 are the latency quantiles in seconds (NaN: none).
	P50, P95, P99 float64
	// Expired counts calls past their caller's deadline, never sent, and requests it failed.
	Expired int64
	// PushedBack counts requests failed on a "do not retry" reply their client honours.
	PushedBack int64
	// Orphaned counts a Parallel service's calls that finished after a sibling's failure.
	Orphaned int64
	// JobEffects counts the effects its requests did; JobDuplicates those beyond the first of
	// a request entering the graph (a job's step a second delivery did again).
	JobEffects, JobDuplicates int64
	// Crashes, RolledBack, Held and Lost are a job queue entry's: crashes, calls rolled back
	// for a lapsed lease, deliveries leaving a held lease, jobs done with a step's work lost.
	Crashes, RolledBack, Held, Lost int64
}

// RecoveryWindow is the seconds over which recovery compares goodput with the load (at 40
// a second a healthy window is judged unhealthy once in 1,500).
const RecoveryWindow = 10

// EndToEnd, then ": " and the entry's service, names a graph's end-to-end row.
const EndToEnd = "end to end"

// WorkersService is a worker fleet's own service's name in its graph.
const WorkersService = "workers"

// Verdict is what recovery found of a replicate.
type Verdict uint8

const (
	// NoTrigger is a run with no spike, ramp or outage: nothing to recover from.
	NoTrigger Verdict = iota
	// TooShort is a run with no RecoveryWindow after the load settles.
	TooShort
	// Down is a replicate not recovered when the run ended.
	Down
	// Recovered is a replicate whose goodput came back for good.
	Recovered
)

var verdictNames = [...]string{"no trigger", "too short", "down", "recovered"}

// String is "no trigger", "too short", "down" or "recovered".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", v)
}

// RunRow is a fleet run's row: each figure a mean with its 95% Student t interval, its
// tag the key json and csv write it under (RunFigures).
type RunRow struct {
	Run        string
	Replicates int
	Requests   schema.Estimate `figure:"requests"`
	// Goodput is the successes a second, Amplification the server calls a request.
	Succeeded      schema.Estimate `figure:"succeeded"`
	Goodput        schema.Estimate `figure:"goodput"`
	Amplification  schema.Estimate `figure:"amplification"`
	Timeouts       schema.Estimate `figure:"timeouts"`
	Conflicts      schema.Estimate `figure:"conflicts"`
	Duplicates     schema.Estimate `figure:"duplicates"`
	LocalRejected  schema.Estimate `figure:"local_rejected"`
	Hedges         schema.Estimate `figure:"hedges"`
	P50            schema.Estimate `figure:"latency_p50"`
	P95            schema.Estimate `figure:"latency_p95"`
	P99            schema.Estimate `figure:"latency_p99"`
	PeakInProgress schema.Estimate `figure:"peak_in_progress"`
	// Trigger says whether the run has a spike, ramp or outage to recover from.
	Trigger bool
	// RecoveredShare is the share of judged replicates that recovered (Wilson; N 0: none).
	RecoveredShare schema.Estimate `figure:"recovered_share"`
	// Recovery is the time to recover over the replicates that recovered; NaN when none did.
	Recovery schema.Estimate `figure:"recovery_seconds"`
	// RecoveryTime is the Kaplan-Meier quartiles of the time to recover.
	RecoveryTime stats.Quartiles
}

// Totals are a run's counts summed over its replicates, as Brooker's runs report them.
type Totals struct {
	Run         string
	Clients     int
	FailureRate float64
	// Calls counts server calls.
	Requests, Succeeded, Calls int64
}

// Point is one second of a run's series, averaged over replicates, its figures tagged as
// RunRow's.
type Point struct {
	Run            string
	T              int     // the second's start
	Starts         float64 `figure:"starts"`
	Successes      float64 `figure:"successes"`
	RetriesDecided float64 `figure:"retries_decided"`
	RetriesSent    float64 `figure:"retries_sent"`
	Timeouts       float64 `figure:"timeouts"`
	Conflicts      float64 `figure:"conflicts"`
	InProgress     float64 `figure:"in_progress"` // time average
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
	for _, x := range []*float64{&p.Starts, &p.Successes, &p.RetriesDecided, &p.RetriesSent, &p.Timeouts, &p.Conflicts, &p.InProgress} {
		*x /= n
	}
}

// GraphRow is a graph run's row for a service, or an entry's end to end ("end to end: NAME"),
// its figures tagged as RunRow's.
type GraphRow struct {
	Run, Service string
	// Depth is the service's depth (1: an entry sends to it).
	Depth      int
	Replicates int
	Requests   schema.Estimate `figure:"requests"`
	// Calls are the calls that reached it (an entry's: every service's).
	Calls         schema.Estimate `figure:"calls"`
	Amplification schema.Estimate `figure:"amplification"`
	Succeeded     schema.Estimate `figure:"succeeded"`
	Goodput       schema.Estimate `figure:"goodput"`
	Timeouts      schema.Estimate `figure:"timeouts"`
	Retries       schema.Estimate `figure:"retries"`
	// Rejected counts calls refused for overload; an entry's row sums it and Duplicates.
	Rejected   schema.Estimate `figure:"rejected"`
	Duplicates schema.Estimate `figure:"duplicates"`
	// InProgress (Little's L) and Sojourn (W, seconds) are NaN in an entry's row.
	InProgress schema.Estimate `figure:"in_progress"`
	Sojourn    schema.Estimate `figure:"sojourn_seconds"`
	P50        schema.Estimate `figure:"latency_p50"`
	P95        schema.Estimate `figure:"latency_p95"`
	P99        schema.Estimate `figure:"latency_p99"`
	// PeakInProgress is NaN in an entry's row.
	PeakInProgress schema.Estimate `figure:"peak_in_progress"`
	// ByDepth, in an entry's row, is the amplification at each depth d + 1; nil otherwise.
	ByDepth []schema.Estimate
}

// GraphPoint is one second of a service's series in a graph run, averaged over replicates.
type GraphPoint struct {
	Point
	Service string
	// Calls is the calls that reached the service (ServiceReplicate.CallSeries).
	Calls float64
}

// WorkersRow is a worker fleet's row, each figure a mean with its interval, tagged as
// RunRow's.
type WorkersRow struct {
	Run        string
	Replicates int
	Jobs       schema.Estimate `figure:"jobs"`
	Completed  schema.Estimate `figure:"completed"`
	Dead       schema.Estimate `figure:"dead"`
	// Queued is the jobs still queued when arrivals stop.
	Queued     schema.Estimate `figure:"queued_at_end"`
	Deliveries schema.Estimate `figure:"deliveries"`
	Duplicates schema.Estimate `figure:"duplicates"`
	// LostWork is the jobs completed with a step marked done whose work no delivery did, Late
	// the deliveries finished after the queue stopped waiting for them.
	LostWork  schema.Estimate `figure:"lost_work"`
	Late      schema.Estimate `figure:"late"`
	Conflicts schema.Estimate `figure:"conflicts"`
	Crashes   schema.Estimate `figure:"crashes"`
	// RolledBack counts the steps' calls rolled back for a lapsed lease.
	RolledBack schema.Estimate `figure:"rolled_back"`
	// DrainSeconds is the time the waiting jobs took to drain (NaN: none did).
	DrainSeconds      schema.Estimate `figure:"drain_seconds"`
	DrainedReplicates schema.Estimate `figure:"drained_replicates"`
	PeakBacklog       schema.Estimate `figure:"peak_backlog"`
	// PeakRetrying is the most jobs waiting out a retry at once; PeakAge in seconds.
	PeakRetrying schema.Estimate `figure:"peak_retrying"`
	PeakAge      schema.Estimate `figure:"peak_age_seconds"`
	// P50, P95 and P99 are the jobs' completion times, enqueue to done, in seconds.
	P50 schema.Estimate `figure:"completion_p50"`
	P95 schema.Estimate `figure:"completion_p95"`
	P99 schema.Estimate `figure:"completion_p99"`
	// Steps are the job's steps, in order, each with its duplicates.
	Steps []WorkersStep
}

// WorkersStep is a job's step in a WorkersRow (Step from 1) and its duplicates.
type WorkersStep struct {
	Step       int
	To         string
	Duplicates schema.Estimate
}

// WorkersPoint is one second of a worker fleet's series, averaged over replicates, its
// figures tagged as RunRow's; InFlight is the jobs delivered and not yet answered, DepCalls
// and DepInProgress each dependency's calls and calls in progress, in Graph.Services order.
type WorkersPoint struct {
	Run                     string
	T                       int
	Arrivals                float64 `figure:"arrivals"`
	Completions             float64 `figure:"completions"`
	Dead                    float64 `figure:"dead"`
	Redeliveries            float64 `figure:"redeliveries"`
	Backlog                 float64 `figure:"backlog"`
	OldestAge               float64 `figure:"oldest_age_seconds"`
	InFlight                float64 `figure:"in_flight"`
	RetriesScheduled        float64 `figure:"retries_scheduled"`
	DepCalls, DepInProgress []float64
}
