// Package jobqueue is, as data, what five job queues and workflow engines do
// by default with a job that fails: how many tries it gets, the wait before
// each retry, and what becomes of it after the last; for Amazon SQS also the
// visibility timeout, the retention period and the bounds of its queue
// attributes. Each value names the upstream file or page and the version it
// is read from, so that a model of a worker fleet can start from the real
// defaults and a test can hold them to their sources.
//
// The waits themselves are package backoff's schedules; this package holds
// what is not a wait (attempt limits, dead sets, leases, retention), which
// backoff, a set of pure functions from attempt and draw to a wait, does not
// model.
package jobqueue

import (
	"time"

	"github.com/retrysim/retrysim/backoff"
)

// Unlimited is the MaxAttempts of a queue that sets no limit on the count of
// tries, as Temporal writes its own (a MaximumAttempts of 0).
const Unlimited = 0

// Defaults is a job queue's default handling of a failed job.
type Defaults struct {
	// Name is the queue as the presets spell it: sidekiq, river, oban,
	// temporal or sqs.
	Name string
	// Source is the upstream repository and files, or documentation pages,
	// the values are read from.
	Source string
	// Version is the release (or, for a service, the documentation) the
	// values are read at.
	Version string
	// MaxAttempts is the tries a job gets in all, the first included;
	// Unlimited for no limit on their count.
	MaxAttempts int
	// Schedule is the wait from a failed try to the next; the zero Policy
	// (no wait) for SQS, where a message not deleted is received again once
	// Visibility has passed since its receive, whenever the try failed.
	Schedule backoff.Schedule
	// Visibility is, for SQS, how long a received message stays hidden
	// from other receives unless its consumer deletes it or extends the
	// timeout; 0 for the queues that schedule a retry when a try fails.
	Visibility time.Duration
	// Retention is how long the queue keeps a message, whatever becomes
	// of it, before it deletes it; 0 for no such limit.
	Retention time.Duration
	// DeadLetter says what becomes of a job after its last try.
	DeadLetter string
	// DeadMax is the most jobs the dead set keeps, the oldest dropped
	// first; 0 for no bound.
	DeadMax int
	// DeadFor is how long a dead job is kept; 0 for as long as nothing
	// deletes it.
	DeadFor time.Duration
}

// day is 24 hours, the unit the sources write their periods in.
const day = 24 * time.Hour

// Sidekiq is Sidekiq 8's default job retry (v8.1.7): 25 retries after the
// first try (job_retry.rb: DEFAULT_MAX_RETRY_ATTEMPTS = 25, a job whose
// retry_count, from 0, reaches it is exhausted) on backoff.Sidekiq, then
// the dead set (config.rb: dead_max_jobs 10_000, dead_timeout_in_seconds
// 180 days, "6 months"). Each death trims the set (job_retry.rb
// send_to_morgue): ZREMRANGEBYSCORE drops the jobs dead for more than 180
// days, and ZREMRANGEBYRANK dead 0 -10000, both ends included, the oldest
// until 9,999 remain: so the set keeps at most 9,999 jobs, and a job dead
// for 180 days goes at the next death, not at once.
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

// River is River's default (v0.43.0): MaxAttempts 25, the first try
// included (rivercommon.MaxAttemptsDefault; the executor discards a job
// whose Attempt reaches MaxAttempts) on backoff.River, then the job is
// discarded, and the job cleaner deletes discarded jobs after 7 days
// (DiscardedJobRetentionPeriod).
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

// Oban is Oban's default worker (v2.23.1): max_attempts 20, the first try
// included (Oban.Job's field default; a job whose attempt reaches
// max_attempts is exhausted) on backoff.Oban, then the job is discarded and
// kept: no plugin prunes it by default (Oban.Config's plugins: []).
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

// Temporal is Temporal's default activity retry policy (server v1.31.2,
// sdk-go v1.48.0): MaximumAttempts 0, no limit on the tries, which only the
// activity's ScheduleToCloseTimeout (unlimited by default) ends, on
// backoff.Temporal; a last failure goes back to the workflow, which decides.
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

// SQS is an Amazon SQS standard queue as created with no attributes: a
// visibility timeout of 30 s, a retention period of 4 days, and no redrive
// policy, so a message not deleted is received again every visibility
// timeout until its retention runs out; with a redrive policy it moves to
// the dead-letter queue once its receives exceed maxReceiveCount.
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
