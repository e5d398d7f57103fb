// Package jobqueue is, as data, what five job queues and workflow engines do by default
// with a job that fails: its tries, the wait before each retry (a backoff schedule), what
// becomes of it after the last, and for Amazon SQS the visibility timeout and retention.
// Each value names the upstream file or page and version it is read from.
package jobqueue

import (
	"time"

	"github.com/retrysim/retrysim/backoff"
)

// Unlimited is the MaxAttempts of a queue with no limit on tries (Temporal's 0).
const Unlimited = 0

// Defaults is a job queue's default handling of a failed job.
type Defaults struct {
	// Name is the queue as the presets spell it.
	Name string
	// Source is the upstream files or pages, Version the release, the values are read at.
	Source  string
	Version string
	// MaxAttempts is the tries a job gets in all, the first included, or Unlimited.
	MaxAttempts int
	// Schedule is the wait from a failed try to the next; none for SQS, which redelivers
	// once Visibility has passed.
	Schedule backoff.Schedule
	// Visibility is, for SQS, how long a received message stays hidden; 0 for the others.
	Visibility time.Duration
	// Retention is how long the queue keeps a message; 0 for no limit.
	Retention time.Duration
	// DeadLetter says what becomes of a job after its last try.
	DeadLetter string
	// DeadMax is the most jobs the dead set keeps, the oldest dropped first; 0 for no bound.
	DeadMax int
	// DeadFor is how long a dead job is kept; 0 until something deletes it.
	DeadFor time.Duration
}

// day is 24 hours, the unit the sources write their periods in.
const day = 24 * time.Hour

// Sidekiq is Sidekiq 8's default job retry (v8.1.7, job_retry.rb, config.rb): 25 retries
// after the first try on backoff.Sidekiq, then the dead set, which each death trims
// (send_to_morgue) to jobs dead under 180 days and to 9,999 jobs.
func Sidekiq() Defaults {
	return Defaults{
		Name:        "sidekiq",
		Source:      "github.com/sidekiq/sidekiq lib/sidekiq/job_retry.rb, lib/sidekiq/config.rb",
		Version:     "v8.1.7",
		MaxAttempts: 26,
		Schedule:    backoff.Schedule{Kind: backoff.Sidekiq},
		DeadLetter:  "the dead set (the morgue), unless the job sets dead: false",
		DeadMax:     9_999,
		DeadFor:     180 * day,
	}
}

// River is River's default (v0.43.0): MaxAttempts 25 on backoff.River, kept discarded 7 days.
func River() Defaults {
	return Defaults{
		Name: "river",
		Source: "github.com/riverqueue/river internal/rivercommon/river_common.go, internal/jobexecutor/job_executor.go, " +
			"internal/retrypolicy/default.go, rivershared/riversharedmaintenance/river_shared_maintenance.go",
		Version:     "v0.43.0",
		MaxAttempts: 25,
		Schedule:    backoff.Schedule{Kind: backoff.River},
		DeadLetter:  "discarded (state discarded)",
		DeadFor:     7 * day,
	}
}

// Oban is Oban's default worker (v2.23.1): max_attempts 20 on backoff.Oban, then discarded.
func Oban() Defaults {
	return Defaults{
		Name:        "oban",
		Source:      "github.com/oban-bg/oban lib/oban/worker.ex, lib/oban/backoff.ex, lib/oban/job.ex, lib/oban/queue/executor.ex, lib/oban/config.ex",
		Version:     "v2.23.1",
		MaxAttempts: 20,
		Schedule:    backoff.Schedule{Kind: backoff.Oban},
		DeadLetter:  "discarded (state discarded)",
	}
}

// Temporal is Temporal's default activity retry policy (server v1.31.2, sdk-go v1.48.0):
// no limit on the tries, on backoff.Temporal; a last failure goes back to the workflow.
func Temporal() Defaults {
	return Defaults{
		Name: "temporal",
		Source: "github.com/temporalio/temporal common/retrypolicy/retry_policy.go, common/backoff/retry.go, service/history/workflow/retry.go; " +
			"github.com/temporalio/sdk-go internal/client.go (RetryPolicy)",
		Version:     "server v1.31.2, sdk-go v1.48.0",
		MaxAttempts: Unlimited,
		Schedule:    backoff.Schedule{Kind: backoff.Temporal},
		DeadLetter:  "the activity fails to its workflow",
	}
}

// SQS is an Amazon SQS standard queue as created with no attributes: a visibility timeout
// of 30 s, a retention period of 4 days, and no redrive policy.
func SQS() Defaults {
	return Defaults{
		Name: "sqs",
		Source: "Amazon SQS API Reference, SetQueueAttributes (VisibilityTimeout, MessageRetentionPeriod, DelaySeconds, RedrivePolicy); " +
			"Amazon SQS Developer Guide, Configuring a dead-letter queue (console)",
		Version:     "AWS documentation as read on 2026-12-01",
		MaxAttempts: Unlimited,
		Visibility:  30 * time.Second,
		Retention:   4 * day,
		DeadLetter:  "deleted when its retention period runs out; with a redrive policy, moved to the dead-letter queue after maxReceiveCount receives",
	}
}
