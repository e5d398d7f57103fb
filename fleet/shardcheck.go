package fleet

import (
	"fmt"
	"math"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/stats"
)

// checkReplicate reports why r is no replicate a run of c can produce, for
// a merge of shards to refuse: a wrong length, a negative count, totals
// that do not add up, quantiles out of order or a wrong recovery.
func (c *Config) checkReplicate(r *fleetdata.Replicate) error {
	if n := int(math.Ceil(c.Duration.Seconds())); len(r.Series) != n {
		return fmt.Errorf("series: %d seconds; the run has %d", len(r.Series), n)
	}
	n := r.Counts
	if err := checkCounts(&n, r.Entered, r.Events); err != nil {
		return err
	}
	if err := checkSeconds("end", r.End, "area", r.Area, "sojourn", r.Sojourn, "wait", r.Wait); err != nil {
		return err
	}
	switch {
	case n.Succeeded > n.Requests || n.Failed > n.Requests-n.Succeeded:
		return fmt.Errorf("succeeded %d and failed %d: more than the %d requests", n.Succeeded, n.Failed, n.Requests)
	case n.Duplicates > n.Effects || n.Duplicated > n.Duplicates:
		return fmt.Errorf("duplicates %d of %d requests: more than the %d side effects", n.Duplicates, n.Duplicated, n.Effects)
	case r.Entered > n.Calls:
		return fmt.Errorf("entered: %d calls, more than the %d that reached the server", r.Entered, n.Calls)
	case max(n.Timeouts, n.Errors, n.Conflicts, n.Rejected, n.Retries, n.PeakInProgress) > n.Calls:
		return fmt.Errorf("timeouts %d, errors %d, conflicts %d, rejected %d, retries %d, peak in progress %d: one is more than the %d calls",
			n.Timeouts, n.Errors, n.Conflicts, n.Rejected, n.Retries, n.PeakInProgress, n.Calls)
	}
	if b := c.cost(); float64(n.Requests) > b.Requests || float64(n.Calls) > b.Calls || float64(r.Events) > b.Events {
		return fmt.Errorf("requests %d, calls %d, events %d: beyond what a run of these settings reaches (%.0f, %.0f, %.0f)", n.Requests, n.Calls, r.Events, b.Requests, b.Calls, b.Events)
	}
	if err := checkQuantiles(r.P50, r.P95, r.P99, r.End); err != nil {
		return err
	}
	var starts, served, successes int64
	for i, s := range r.Series {
		if s.Served < 0 || s.Served > s.Starts {
			return fmt.Errorf("series[%d]: %d of its %d requests served", i, s.Served, s.Starts)
		}
		served, successes = served+s.Served, successes+s.Successes
		for _, v := range []int64{s.Starts, s.Successes, s.RetriesDecided, s.RetriesSent, s.Timeouts, s.Conflicts, s.Failures} {
			if v < 0 || v > n.Requests+n.Calls {
				return fmt.Errorf("series[%d]: a count of %d, not from 0 to the run's requests and calls", i, v)
			}
		}
		for _, v := range []float64{s.Busy, s.Backlog, s.Age, s.Scheduled} {
			if !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Errorf("series[%d]: %g is not a finite number, 0 or more", i, v)
			}
		}
		starts += s.Starts
	}
	if starts != n.Requests {
		return fmt.Errorf("series: %d requests start in it, but the replicate counts %d", starts, n.Requests)
	}
	if served > n.Succeeded || successes > n.Succeeded {
		return fmt.Errorf("series: %d requests served and %d successes in it, but the replicate counts %d succeeded", served, successes, n.Succeeded)
	}
	rec, verdict := recovery(c, r.Series)
	if verdict != r.Verdict || math.Float64bits(rec) != math.Float64bits(r.Recovery) {
		return fmt.Errorf("recovery: %g s (verdict %d), but its series gives %g s (verdict %d)", r.Recovery, r.Verdict, rec, verdict)
	}
	return nil
}

// checkCounts refuses a negative count of n, entered or events.
func checkCounts(n *fleetdata.Counts, entered, events int64) error {
	for _, v := range []struct {
		name string
		v    int64
	}{{"requests", n.Requests}, {"succeeded", n.Succeeded}, {"failed", n.Failed}, {"calls", n.Calls}, {"retries", n.Retries},
		{"timeouts", n.Timeouts}, {"errors", n.Errors}, {"conflicts", n.Conflicts}, {"rejected", n.Rejected}, {"stored", n.Stored},
		{"denied", n.Denied}, {"local_rejected", n.LocalRejected}, {"hedges", n.Hedges}, {"late", n.Late}, {"effects", n.Effects},
		{"duplicates", n.Duplicates}, {"duplicated", n.Duplicated}, {"peak_in_progress", n.PeakInProgress},
		{"entered", entered}, {"events", events}} {
		if v.v < 0 {
			return fmt.Errorf("%s: %d is negative", v.name, v.v)
		}
	}
	return nil
}

// checkSeconds refuses, of its pairs of a name and a value, a value that is
// not finite and 0 or more.
func checkSeconds(pairs ...any) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := pairs[i+1].(float64); !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("%s: %g is not a finite number, 0 or more", pairs[i], v)
		}
	}
	return nil
}

// checkReplicate reports why r is no replicate a run of g can produce, as
// Config's does; g must have passed Check.
func (g *Graph) checkReplicate(r *fleetdata.GraphReplicate) error {
	secs := int(math.Ceil(g.Duration.Seconds()))
	switch {
	case len(r.Services) != len(g.Services) || len(r.Edges) != len(g.edges()):
		return fmt.Errorf("%d services and %d edges; the graph has %d and %d", len(r.Services), len(r.Edges), len(g.Services), len(g.edges()))
	case r.Events < 0 || float64(r.Events) > g.cost().Events:
		return fmt.Errorf("events: %d, not from 0 to what a run of these settings reaches (%.0f)", r.Events, g.cost().Events)
	}
	if err := checkSeconds("end", r.End); err != nil {
		return err
	}
	for i := range r.Edges {
		e := &r.Edges[i]
		if err := checkCounts(&e.Counts, 0, 0); err != nil {
			return fmt.Errorf("edges[%d].%w", i, err)
		}
		if min(e.Expired, e.PushedBack, e.Orphaned, e.JobEffects, e.JobDuplicates, e.Crashes, e.RolledBack, e.Held, e.Lost) < 0 {
			return fmt.Errorf("edges[%d]: a negative count", i)
		}
		if e.Succeeded > e.Requests || e.Failed > e.Requests-e.Succeeded || e.JobDuplicates > e.JobEffects {
			return fmt.Errorf("edges[%d]: succeeded %d and failed %d of %d requests, %d duplicates of %d effects", i, e.Succeeded, e.Failed, e.Requests, e.JobDuplicates, e.JobEffects)
		}
		if err := checkQuantiles(e.P50, e.P95, e.P99, r.End); err != nil {
			return fmt.Errorf("edges[%d]: %w", i, err)
		}
	}
	for i := range r.Services {
		s := &r.Services[i]
		if len(s.Series) != secs || len(s.CallSeries) != secs || len(s.HeldSeries) != secs {
			return fmt.Errorf("services[%d]: series of %d, %d and %d seconds; the run has %d", i, len(s.Series), len(s.CallSeries), len(s.HeldSeries), secs)
		}
		if err := checkCounts(&s.Counts, s.Entered, min(s.PeakBacklog, s.PeakScheduled, s.WaitingAtEnd, s.ScheduledAtEnd)); err != nil {
			return fmt.Errorf("services[%d].%w", i, err)
		}
		if s.Succeeded > s.Requests || s.Failed > s.Requests-s.Succeeded {
			return fmt.Errorf("services[%d]: succeeded %d and failed %d of %d requests", i, s.Succeeded, s.Failed, s.Requests)
		}
		if err := checkSeconds("area", s.Area, "sojourn", s.Sojourn, "wait", s.Wait, "queued", s.Queued, "peak_age", s.PeakAge); err != nil {
			return fmt.Errorf("services[%d].%w", i, err)
		}
		if err := checkQuantiles(s.P50, s.P95, s.P99, r.End); err != nil {
			return fmt.Errorf("services[%d]: %w", i, err)
		}
		if d, verdict := g.drain(s.Series); verdict != s.DrainVerdict || math.Float64bits(d) != math.Float64bits(s.Drain) {
			return fmt.Errorf("services[%d]: drained in %g s (verdict %d), but its series gives %g s (verdict %d)", i, s.Drain, s.DrainVerdict, d, verdict)
		}
		for k, x := range s.Series {
			if min(x.Starts, x.Successes, x.RetriesDecided, x.RetriesSent, x.Timeouts, x.Conflicts, x.Failures, x.Served, s.CallSeries[k]) < 0 {
				return fmt.Errorf("services[%d].series[%d]: a negative count", i, k)
			}
			if err := checkSeconds("busy", x.Busy, "backlog", x.Backlog, "age", x.Age, "scheduled", x.Scheduled, "held", s.HeldSeries[k]); err != nil {
				return fmt.Errorf("services[%d].series[%d].%w", i, k, err)
			}
		}
	}
	return nil
}

// checkQuantiles refuses latency quantiles not all NaN or in order in [0, end].
func checkQuantiles(p50, p95, p99, end float64) error {
	nan := math.IsNaN(p50)
	if nan && math.IsNaN(p95) && math.IsNaN(p99) {
		return nil
	}
	if nan || !(0 <= p50 && p50 <= p95 && p95 <= p99 && p99 <= end) {
		return fmt.Errorf("p50, p95, p99: %g, %g, %g s are not in order from 0 to the run's end, %g s", p50, p95, p99, end)
	}
	return nil
}

// checkObservations reports why obs are not the recoveries of at most
// replicates replicates of c, as metastable.RunMap keeps them.
func (c *Config) checkObservations(obs []stats.Observation, replicates int) error {
	if len(obs) > replicates {
		return fmt.Errorf("%d replicates; the run has %d", len(obs), replicates)
	}
	settled := c.settledAt()
	end := math.Max(0, math.Ceil(c.Duration.Seconds())-settled)
	for i, o := range obs {
		switch {
		case !o.Recovered && o.Time != end:
			return fmt.Errorf("observations[%d]: down at %g s; a replicate down at the end is censored at %g s", i, o.Time, end)
		case !(o.Time >= 0 && o.Time <= end):
			return fmt.Errorf("observations[%d]: recovered at %g s, not from 0 to %g s", i, o.Time, end)
		}
	}
	return nil
}
