package incident

import (
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/limits"
)

// The aws-us-east-1-2025-10-20 replay's values, every one assumed: lease work
// arriving at awsRate a second, each a call to the droplets (Brooker's latency
// server) under a lease of awsLease from a worker's receive; the workers
// stalled from awsDownFrom to awsDownTo; awsThrottled workers in the fix.
const (
	awsRate      = 30.0
	awsBase      = time.Second
	awsSlope     = 10 * time.Millisecond
	awsLease     = 2 * time.Second
	awsTries     = 5
	awsDownFrom  = 60 * time.Second
	awsDownTo    = 120 * time.Second
	awsWorkers   = 200
	awsThrottled = 80
	awsDuration  = 10 * time.Minute
)

// awsFleet is the replay's run with w workers and a lease of lease: a job is
// delivered again when its lease runs out, even while a worker still does it.
func awsFleet(name string, w int, lease time.Duration) fleet.Workers {
	f := latencyWorkers(name, fleet.Shape{Kind: fleet.ConstantLoad, Rate: awsRate}, awsTries, lease, w, "droplets", 5*time.Minute, awsBase, awsSlope)
	f.Duration, f.EntrySettings = awsDuration, fleet.EntrySettings{RedeliverAtTimeout: true, TimeoutAtReceive: true}
	f.Down = fleet.Outage{From: awsDownFrom, To: awsDownTo, Mode: fleet.Stall}
	return f
}

// latencyWorkers is a worker fleet of w workers taking jobs, load a second,
// from a queue of tries deliveries under timeout; each job is one call, one
// try under call, to dep, Brooker's latency server of base + slope a call in
// progress; 1 ms each way, for a Duration the caller sets.
func latencyWorkers(name string, load fleet.Shape, tries int, timeout time.Duration, w int, dep string, call, base, slope time.Duration) fleet.Workers {
	q, step, s := fleet.DefaultConfig().Client, fleet.DefaultConfig().Client, fleet.DefaultConfig().Server
	q.Attempts, q.Timeout = tries, timeout
	step.Attempts, step.Timeout = 1, call
	s.Kind, s.Base, s.Slope = fleet.LatencyServer, base, slope
	return fleet.Workers{Name: name, Net: time.Millisecond, Load: load, Queue: q, WorkerCount: w,
		QueueMax: limits.FleetQueue, Steps: []fleet.WorkerStep{{To: dep, Client: step}}, Dependencies: []fleet.Node{{Name: dep, Server: s}}}
}

// AWSCollapsedCalls is the calls a second that w busy workers make to
// Brooker's latency server: each call finds w in progress, so it takes base
// + slope x w.
func AWSCollapsedCalls(w int, base, slope time.Duration) float64 {
	return float64(w) / (base.Seconds() + slope.Seconds()*float64(w))
}

// AWSDrainClosedForm is how long w workers take, after a stall of down, to
// work off the backlog of arrivals at rate a second: rate x (down + t) = mu x
// t, mu = AWSCollapsedCalls, while each call ends inside its lease.
func AWSDrainClosedForm(rate float64, down time.Duration, w int, base, slope time.Duration) float64 {
	return rate * down.Seconds() / (AWSCollapsedCalls(w, base, slope) - rate)
}

// droplets is the index of the droplets' service in a replay's graphs.
const droplets = 1

// drainedNot is the outcome that the workers' backlog was not back to its
// level before the stall by the run's end.
func drainedNot(rep *Report, i, r int) bool {
	return fleetrun.Fleet().GraphReplicates(rep.Graph[i])[r].Services[0].DrainVerdict == fleetdata.Down
}

// meanDrain is run i's mean drain time over its replicates (NaN if one never drained).
func meanDrain(rep *Report, i int) float64 {
	var sum float64
	for _, r := range fleetrun.Fleet().GraphReplicates(rep.Graph[i]) {
		sum += r.Services[0].Drain
	}
	return sum / float64(len(fleetrun.Fleet().GraphReplicates(rep.Graph[i])))
}

// meanCalls is run i's mean calls a second to the droplets over its
// replicates and the seconds [from, to).
func meanCalls(rep *Report, i, from, to int) float64 {
	var sum int64
	for _, r := range fleetrun.Fleet().GraphReplicates(rep.Graph[i]) {
		for _, c := range r.Services[droplets].CallSeries[from:to] {
			sum += c
		}
	}
	return float64(sum) / float64(len(fleetrun.Fleet().GraphReplicates(rep.Graph[i]))*(to-from))
}

// awsUSEast2025 is AWS's us-east-1 event of 2025-10-19/20.
func awsUSEast2025() Incident {
	collapsed := AWSCollapsedCalls(awsWorkers, awsBase, awsSlope)
	return Incident{
		Name: "aws-us-east-1-2025-10-20",
		Kind: Workers,
		Source: Source{
			Title:        "Summary of the Amazon DynamoDB Service Disruption in the Northern Virginia (US-EAST-1) Region",
			Organisation: "Amazon Web Services",
			Date:         "2025-10-19/20",
			Link:         "https://aws.amazon.com/message/101925/",
			Quote: "due to the large number of droplets, efforts to establish new droplet leases took long enough that the work could " +
				"not be completed before they timed out. Additional work was queued to reattempt establishing the droplet lease. At " +
				"this point, DWFM had entered a state of congestive collapse and was unable to make forward progress in recovering " +
				"droplet leases.",
		},
		Story: "A race in DynamoDB's DNS automation left its regional endpoint in us-east-1 with an empty record, and systems could not " +
			"reach DynamoDB from 11:48 PM PDT on October 19 to 2:40 AM on October 20. EC2's DropletWorkflow Manager (DWFM), which " +
			"keeps a lease on each physical server (droplet) and depends on DynamoDB for it, lost leases meanwhile. When DynamoDB " +
			"came back, re-establishing the leases of so many droplets took longer than the work's own timeout, and the timed-out " +
			"work was queued again: DWFM was in congestive collapse and made no progress. New EC2 instance launches failed from " +
			"2:25 AM to 10:36 AM. (The opening of AWS's summary, with the times, was read in a stored copy of the page; the DWFM " +
			"passage quoted here is as a Lemmy thread quotes it word for word. How AWS ended the collapse is not in what we read, " +
			"so the gallery does not say.)",
		Outcome: "stayed collapsed after the stall ended (the lease work's backlog not back to its level before the stall by the " +
			"run's end)",
		FixText: "throttled: the lease work throttled to 80 workers at once (assumed), so a call finds at most 80 in progress and " +
			"takes 1.8 s, inside its 2 s lease; everything else the same. This fix is the replay's, not one read in AWS's summary " +
			"(what we read does not say how the collapse ended): throttling throughout, it shows what a throttle keeps from " +
			"happening",
		Given: []Given{
			{What: "new EC2 instance launches failing (2:25 AM to 10:36 AM PDT)", Value: 491, Unit: "min",
				Replay: "unthrottled's time from the stall's end to the run's end", AtLeast: true,
				Note: "a run lasts 10 minutes, and how the source's collapse ended is not in what we read; that it did not " +
					"recover by itself is the outcome",
				figure: func(*Report) float64 { return (awsDuration - awsDownTo).Minutes() }},
			{What: "calls a second to the droplets while collapsed, closed form from the assumed values (not in the source): " +
				"200 workers / (1 s + 10 ms x 200)", Value: collapsed, Unit: "calls/s",
				Replay: "unthrottled's calls a second to the droplets from 3 to 10 minutes in, mean over replicates", Tolerance: 1,
				Note: "held by TestAWSMechanism: the calls come in waves of one every 3 s, so a 7-minute mean is within a call " +
					"a second of the closed form",
				figure: func(rep *Report) float64 { return meanCalls(rep, 0, 180, 600) }},
			{What: "the fix's drain after the stall, closed form from the assumed values (not in the source): 30 x 60 s / " +
				"(80 / 1.8 s - 30)", Value: AWSDrainClosedForm(awsRate, awsDownTo-awsDownFrom, awsThrottled, awsBase, awsSlope), Unit: "s",
				Replay: "throttled's drain time, mean over replicates", Tolerance: 5,
				Note: "held by TestAWSMechanism: 5 s is about 4 standard deviations of a mean of 20 replicates (the backlog's and " +
					"the arrivals' Poisson noise, 5.2 s a replicate)",
				figure: func(rep *Report) float64 { return meanDrain(rep, 1) }},
		},
		Assumptions: []Assumption{
			{"lease work", "30 jobs a second, each one call to the droplets"},
			{"the droplets' side", "Brooker's latency server: 1 s + 10 ms a call in progress, no limit"},
			{"DWFM's workers", "200, taking a job from the queue at once when free"},
			{"the work's lease", "2 s from a worker's receive; run out, the job is queued again while the first worker goes on"},
			{"deliveries", "5 at most, then the job is given up"},
			{"DynamoDB unreachable", "the workers stalled for 60 s from 1 minute in (the work waits)"},
			{"fix", "80 workers at once"},
			{"network", "1 ms each way"},
			{"run", "10 minutes, 20 replicates"},
		},
		Runs: []Run{
			{Name: "unthrottled", Scenario: "examples/incidents/aws-us-east-1-2025-10-20.yaml"},
			{Name: "throttled", Fix: true, Scenario: "examples/incidents/aws-us-east-1-2025-10-20-fix.yaml"},
		},
		Duration: awsDuration,
		workers:  []fleet.Workers{awsFleet("unthrottled", awsWorkers, awsLease), awsFleet("throttled", awsThrottled, awsLease)},
		bad:      drainedNot,
	}
}
