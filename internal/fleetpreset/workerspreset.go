package fleetpreset

import (
	"fmt"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/jobqueue"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/waits"
)

// WorkersPresets lists the worker-fleet presets.
func WorkersPresets() []Preset[fleet.Workers] {
	return []Preset[fleet.Workers]{sidekiqOutage, sqsVisibility, backlogDrain, queueDefaults(jobqueue.River()),
		queueDefaults(jobqueue.Oban()), queueDefaults(jobqueue.Temporal())}
}

// LookupWorkersPreset returns the worker-fleet preset called name.
func LookupWorkersPreset(name string) (Preset[fleet.Workers], error) {
	return lookupPreset(WorkersPresets(), name, "want")
}

// queueClient is a job queue's redelivery with its defaults d and tries tries in all.
func queueClient(d jobqueue.Defaults, tries int) fleet.Client {
	c := fleet.DefaultConfig().Client
	c.Attempts, c.Backoff, c.Timeout = tries, d.Schedule, fleet.NoVisibility
	if d.Visibility > 0 {
		c.Timeout = d.Visibility
	}
	return c
}

// stepClient is a job's step's client: one try, a timeout of 10 s (the queue retries).
func stepClient() fleet.Client { return presetClient(1, 10*time.Second) }

// outageFleet is the presets' database outage (10 to 40 minutes in, cut to a shorter
// run), the queue redelivering a failed job of three steps, each a call to the database
// db, with client q.
func outageFleet(name string, d time.Duration, q fleet.Client) fleet.Workers {
	from, to := min(10*time.Minute, d/6), min(40*time.Minute, d*2/3)
	return fleet.Workers{Name: name, Duration: d, Net: time.Millisecond, Load: fleet.Shape{Kind: fleet.ConstantLoad, Rate: 10},
		Queue: q, WorkerCount: 20, QueueMax: limits.FleetQueue,
		Steps:        []fleet.WorkerStep{{To: "db", Client: stepClient()}, {To: "db", Client: stepClient()}, {To: "db", Client: stepClient()}},
		Dependencies: []fleet.Node{{Name: "db", Server: independentServer(5*time.Millisecond, 0), Outage: fleet.Outage{From: from, To: to, Mode: fleet.Fail}}}}
}

// sidekiqOutage is a 30-minute database outage under Sidekiq's retry: 3 retries, and 25.
var sidekiqOutage = Preset[fleet.Workers]{
	Name: "sidekiq-outage",
	Source: jobqueue.Sidekiq().Source + " " + jobqueue.Sidekiq().Version + ": 25 retries after the first try by default " +
		"(DEFAULT_MAX_RETRY_ATTEMPTS), the wait before retry c from 0 c^4 + 15 + rand(10 x (c + 1)) s (delay_for), then the dead set",
	About: "Runs retry_3 (Sidekiq's retry with retry: 3, 4 tries in all) and retry_25 (the default, 26 tries), each on Sidekiq's " +
		"schedule: 10 jobs a second of 3 steps on 20 workers, every step a call to a database (5 ms) that fails every call for " +
		"30 minutes, from 10 to 40 minutes in (a sixth to two thirds of a shorter run)",
	Duration:   time.Hour,
	Replicates: 5,
	Runs: func(d time.Duration) []fleet.Workers {
		sk := jobqueue.Sidekiq()
		return []fleet.Workers{outageFleet("retry_3", d, queueClient(sk, 1+3)), outageFleet("retry_25", d, queueClient(sk, sk.MaxAttempts))}
	},
}

// sqsMaxReceive is sqs-visibility's redrive policy's maxReceiveCount.
const sqsMaxReceive = 5

// sqsVisibility is SQS's default visibility timeout against a dependency that stalls past it.
var sqsVisibility = Preset[fleet.Workers]{
	Name: "sqs-visibility",
	Source: jobqueue.SQS().Source + " (" + jobqueue.SQS().Version + "): a visibility timeout of 30 s by default; a message " +
		"not deleted is received again once it runs out, even while its first consumer still works on it; with a redrive " +
		"policy it moves to the dead-letter queue after maxReceiveCount receives (here 5)",
	About: "Runs no_key (each receive charges the card again), lease (the workers' lease store, the delivery model's: a receive " +
		"finds the charge's lease held and leaves the message, or takes a lapsed lease over, and the charge of a receive no longer " +
		"holding it rolls back; leases of 30 s) and heartbeat (no store, the worker " +
		"extending the message's visibility while it holds it): 1 job a second of one step, a charge " +
		"at a payments service (200 ms) that stalls every call for 100 s from 2 minutes in, on 500 workers; SQS's 30 s visibility " +
		"timeout from a worker's receive (a failed receive reappears when it runs out), dead-letter queue after 5 receives",
	Duration:   10 * time.Minute,
	Replicates: 10,
	Runs: func(d time.Duration) []fleet.Workers {
		q := queueClient(jobqueue.SQS(), sqsMaxReceive)
		q.Backoff = backoff.Schedule{Kind: backoff.None}
		from := min(2*time.Minute, d/5)
		w := fleet.Workers{Name: "no_key", Duration: d, Net: time.Millisecond, Load: fleet.Shape{Kind: fleet.ConstantLoad, Rate: 1},
			Queue: q, EntrySettings: fleet.EntrySettings{RedeliverAtTimeout: true, TimeoutAtReceive: true}, WorkerCount: 500, QueueMax: limits.FleetQueue,
			Steps: []fleet.WorkerStep{{To: "payments", Client: func() fleet.Client { c := stepClient(); c.Timeout = 5 * time.Minute; return c }()}},
			Dependencies: []fleet.Node{{Name: "payments", Server: independentServer(200*time.Millisecond, 0),
				Outage: fleet.Outage{From: from, To: from + 100*time.Second, Mode: fleet.Stall}}}}
		keyed := w
		keyed.Name, keyed.Store = "lease", fleet.KeyStore{Mode: delivery.Lease, TTL: 24 * time.Hour, Lease: 30 * time.Second}
		beat := w
		beat.Name, beat.Heartbeat = "heartbeat", true
		return []fleet.Workers{w, keyed, beat}
	},
}

// backlogDrain is workers down, then draining their backlog into a rate-limited downstream.
var backlogDrain = Preset[fleet.Workers]{
	Name: "backlog-drain",
	Source: "A workflow engine's workers down for a while (a public chaos-engineering write-up: 80 minutes): " +
		"the backlog keeps growing, and draining it at full speed overloads the downstream service; capping the workers' " +
		"concurrency at what the downstream takes is the usual remedy",
	About: "Runs uncapped (200 workers) and capped (5 workers, each job's steps taking about 60 ms: under the downstream's 100 a second): 20 jobs a second of " +
		"2 steps, a database (5 ms) and an API limited to 100 calls a second (burst 100, 50 ms), the workers down (jobs wait) from " +
		"5 to 20 minutes in (a twelfth to a third of a shorter run); the queue tries a job 10 times, 10 s apart",
	Duration:   time.Hour,
	Replicates: 5,
	Runs: func(d time.Duration) []fleet.Workers {
		q := fleet.DefaultConfig().Client
		q.Attempts, q.Timeout, q.Backoff = 10, fleet.NoVisibility, backoff.Schedule{Kind: backoff.Constant, Base: 10 * time.Second}
		api := fleet.DefaultConfig().Server
		api.Kind, api.Base, api.Limit, api.Burst = fleet.RateLimitServer, 50*time.Millisecond, 100, 100
		w := fleet.Workers{Name: "uncapped", Duration: d, Net: time.Millisecond, Load: fleet.Shape{Kind: fleet.ConstantLoad, Rate: 20},
			Queue: q, WorkerCount: 200, QueueMax: limits.FleetQueue,
			Down:  fleet.Outage{From: min(5*time.Minute, d/12), To: min(20*time.Minute, d/3), Mode: fleet.Stall},
			Steps: []fleet.WorkerStep{{To: "db", Client: stepClient()}, {To: "api", Client: stepClient()}},
			Dependencies: []fleet.Node{{Name: "db", Server: independentServer(5*time.Millisecond, 0)},
				{Name: "api", Server: api}}}
		capped := w
		capped.Name, capped.WorkerCount = "capped", 5
		return []fleet.Workers{w, capped}
	},
}

// unlimitedTries cuts a queue's unlimited tries (Temporal's): 25 on its schedule span
// 1827 s, past the 30-minute outage, and keep a replicate within limits.FleetBytes.
const unlimitedTries = 25

// queueDefaults is the preset of job queue d's defaults through sidekiq-outage's outage.
func queueDefaults(d jobqueue.Defaults) Preset[fleet.Workers] {
	tries, note := d.MaxAttempts, fmt.Sprintf("%d tries in all", d.MaxAttempts)
	if tries == jobqueue.Unlimited {
		total := waits.Longest(d.Schedule, unlimitedTries-1) // Temporal's schedule draws nothing: its waits, not a bound
		tries, note = unlimitedTries, fmt.Sprintf("no limit on the tries, cut here at %d, whose %d waits add up to %s", unlimitedTries, unlimitedTries-1, human.Duration(total))
	}
	return Preset[fleet.Workers]{
		Name:   fmt.Sprintf("%s-defaults", d.Name),
		Source: d.Source + " " + d.Version,
		About: fmt.Sprintf("Runs %s_defaults (%s's default retry: %s on its %s schedule, then %s) through sidekiq-outage's fleet: "+
			"10 jobs a second of 3 steps on 20 workers, the database failing every call for 30 minutes", d.Name, d.Name, note, d.Schedule.Kind, d.DeadLetter),
		Duration:   time.Hour,
		Replicates: 5,
		Runs: func(dur time.Duration) []fleet.Workers {
			return []fleet.Workers{outageFleet(d.Name+"_defaults", dur, queueClient(d, tries))}
		},
	}
}
