package incident

import (
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetrun"
)

// The sidekiq-480-retry-herd replay's values, every one assumed: a trickle
// and a herd of jobs, each one query to a database (Brooker's latency server)
// under the job's timeout skTimeout.
const (
	skTrickle  = 1.0
	skHerd     = 300.0
	skFrom     = 20 * time.Second
	skHerdFor  = 2 * time.Second
	skBase     = 500 * time.Millisecond
	skSlope    = 40 * time.Millisecond
	skTimeout  = 3 * time.Second
	skWorkers  = 100
	skTries    = 6
	skDuration = 10 * time.Minute
)

// The runs' retry schedules: none randomized, the same with a splay, and Sidekiq's today.
var (
	skNoSplay = backoff.Schedule{Kind: backoff.Exponential, Base: 15 * time.Second}
	skSplay   = backoff.Schedule{Kind: backoff.EqualJitter, Base: 15 * time.Second}
	skToday   = backoff.Schedule{Kind: backoff.Sidekiq}
)

// skFleet is the replay's run with retry schedule b, w workers and a herd of herd jobs a second.
func skFleet(name string, b backoff.Schedule, w int, herd float64) fleet.Workers {
	f := latencyWorkers(name, fleet.Shape{Kind: fleet.SpikeLoad, Rate: skTrickle, Peak: herd, From: skFrom, To: skFrom + skHerdFor},
		skTries, fleet.NoVisibility, w, "db", skTimeout, skBase, skSlope)
	f.Duration, f.Queue.Backoff = skDuration, b
	return f
}

// deadJobs is the outcome that a job used up its retries.
func deadJobs(rep *Report, i, r int) bool {
	return fleetrun.Fleet().GraphReplicates(rep.Graph[i])[r].Edges[0].Failed > 0
}

// sidekiq480 is Sidekiq's issue #480: jobs failing together, retried together.
func sidekiq480() Incident {
	return Incident{
		Name: "sidekiq-480-retry-herd",
		Kind: Workers,
		Source: Source{
			Title: "Similar retry times for multiple failed jobs causes jobs to fail again (issue #480, a user's report; " +
				"fixed by pull request #483, Added a splay to the delay time for retried jobs)",
			Organisation: "Sidekiq's issue tracker",
			Date:         "2012-10-30",
			Link:         "https://github.com/sidekiq/sidekiq/issues/480",
			Quote: "some of them time out because the combined load on the db causes the queries to either lock on one another or " +
				"just take much longer in general. [...] Since they are all retried around the same time, the exact same issue " +
				"happens, and the cycle continues.",
		},
		Story: "A Sidekiq user had a full queue of jobs that were heavy on the database. Run together, the jobs' queries locked on " +
			"one another or took much longer, so some jobs ran past their timeout and went to the retry queue. Sidekiq's retry " +
			"time then had no random part, so the jobs that had failed together were retried together, met " +
			"the same load, and failed again, round after round. The user proposed a random splay on the retry time; pull request " +
			"#483 added one, growing with the job's failures (at most 30 s x (failures + 1)), and was merged. " +
			"Sidekiq's schedule has a random term today (rand(10 x (count + 1)) s in Sidekiq 8).",
		Outcome: "a job used up its retries (dead) in the replicate",
		FixText: "splay: the same schedule with a random splay, a wait uniform in [e/2, e) where the schedule waits e (equal " +
			"jitter, values assumed: pull request #483's splay was up to 30 s x (failures + 1) on Sidekiq's own schedule of then); " +
			"sidekiq_8: Sidekiq's schedule as it ships today, c^4 + 15 + rand(10 x (c + 1)) s before retry c from 0. Everything " +
			"else the same",
		Assumptions: []Assumption{
			{"jobs", "1 a second, and the full queue a herd of 300 a second for 2 s from 20 s in (about 600 jobs)"},
			{"a job", "one query to the database, its own timeout 3 s (Sidekiq's timeout option then)"},
			{"the database", "Brooker's latency server: 0.5 s + 40 ms a query in progress (a query abandoned at its timeout " +
				"runs on)"},
			{"workers", "100 (a query finding more than 62 in progress outlasts the timeout)"},
			{"tries", "6 in all (retry: 5; Sidekiq's default, 25, would spread the rounds over days)"},
			{"schedule without splay", "15 s doubling, no randomness (Sidekiq's own schedule of 2012 is not in the source; " +
				"what matters, that jobs failing together wait alike, is the same)"},
			{"network", "1 ms each way"},
			{"run", "10 minutes, 20 replicates"},
		},
		Runs: []Run{
			{Name: "no_splay", Scenario: "examples/incidents/sidekiq-480-retry-herd.yaml"},
			{Name: "splay", Fix: true, Scenario: "examples/incidents/sidekiq-480-retry-herd-splay.yaml"},
			{Name: "sidekiq_8", Fix: true, Scenario: "examples/incidents/sidekiq-480-retry-herd-sidekiq-8.yaml"},
		},
		Duration: skDuration,
		workers: []fleet.Workers{skFleet("no_splay", skNoSplay, skWorkers, skHerd), skFleet("splay", skSplay, skWorkers, skHerd),
			skFleet("sidekiq_8", skToday, skWorkers, skHerd)},
		bad: deadJobs,
	}
}
