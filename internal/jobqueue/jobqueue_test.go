package jobqueue

import (
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/backoffkind"
	"github.com/retrysim/retrysim/internal/waits"
)

// Each queue's defaults against the values written here from its source,
// not from the code above:
//
//   - Sidekiq v8.1.7: job_retry.rb "DEFAULT_MAX_RETRY_ATTEMPTS = 25", and
//     "elsif count >= max_retry_attempts" with count the retry_count from
//     0: 25 retries, 26 tries; config.rb "dead_max_jobs: 10_000" and
//     "dead_timeout_in_seconds: 180 * 24 * 60 * 60, # 6 months";
//     send_to_morgue's zremrangebyrank("dead", 0, -10_000) keeps 9,999.
//   - River v0.43.0: river_common.go "MaxAttemptsDefault = 25";
//     job_executor.go discards when "jobRow.Attempt >= jobRow.MaxAttempts";
//     river_shared_maintenance.go "DiscardedJobRetentionPeriodDefault = 7 *
//     24 * time.Hour".
//   - Oban v2.23.1: job.ex "field :max_attempts, :integer, default: 20";
//     executor.ex exhausted "when job.attempt >= job.max_attempts";
//     config.ex "plugins: []", so no Pruner.
//   - Temporal server v1.31.2: retry_policy.go "MaximumAttempts: 0";
//     sdk-go v1.48.0 client.go "If not set or set to 0, it means unlimited".
//   - SQS, SetQueueAttributes: "VisibilityTimeout ... Valid values: An
//     integer from 0 to 43,200 (12 hours). Default: 30";
//     "MessageRetentionPeriod ... from 60 (1 minute) to 1,209,600 (14
//     days). Default: 345,600 (4 days)"; "DelaySeconds ... from 0 to 900
//     (15 minutes). Default: 0"; the console guide: "set Maximum receives
//     to a value between 1 and 1,000".
func TestDefaultsFromSources(t *testing.T) {
	want := []struct {
		name                string
		tries               int
		kind                backoff.Kind
		visibility, retains time.Duration
		deadMax             int
		deadFor             time.Duration
	}{
		{"sidekiq", 25 + 1, backoff.Sidekiq, 0, 0, 10_000 - 1, 180 * 24 * 60 * 60 * time.Second},
		{"river", 25, backoff.River, 0, 0, 0, 7 * 24 * time.Hour},
		{"oban", 20, backoff.Oban, 0, 0, 0, 0},
		{"temporal", 0, backoff.Temporal, 0, 0, 0, 0},
		{"sqs", 0, backoff.None, 30 * time.Second, 345_600 * time.Second, 0, 0},
	}
	all := All()
	if len(all) != len(want) {
		t.Fatalf("All() has %d queues; want %d", len(all), len(want))
	}
	for i, w := range want {
		d := all[i]
		if d.Name != w.name || d.MaxAttempts != w.tries || d.Schedule != (backoff.Schedule{Kind: w.kind}) ||
			d.Visibility != w.visibility || d.Retention != w.retains || d.DeadMax != w.deadMax || d.DeadFor != w.deadFor {
			t.Errorf("All()[%d] = %+v; want %+v", i, d, w)
		}
		if d.Source == "" || d.Version == "" || d.DeadLetter == "" {
			t.Errorf("%s: source %q, version %q, dead letter %q; want each said", d.Name, d.Source, d.Version, d.DeadLetter)
		}
		if err := d.Schedule.Check(); err != nil {
			t.Errorf("%s: schedule %v: %v", d.Name, d.Schedule, err)
		}
		if d.Schedule.Kind != backoff.None && (!backoffkind.Schedule(d.Schedule.Kind.String()) || d.Schedule.Kind.String() != d.Name) {
			t.Errorf("%s: schedule %v is not the backoff schedule of its name", d.Name, d.Schedule.Kind)
		}
	}
	if Unlimited != 0 {
		t.Errorf("Unlimited = %d; want Temporal's own 0", Unlimited)
	}
	for i, f := range []func() Defaults{Sidekiq, River, Oban, Temporal, SQS} {
		if d := f(); d != all[i] {
			t.Errorf("All()[%d] = %+v; its own function gives %+v", i, all[i], d)
		}
	}
	all[0].MaxAttempts = 3
	if Sidekiq().MaxAttempts != 26 || All()[0].MaxAttempts != 26 {
		t.Error("a caller's change to All()'s slice reached the next call")
	}
}

// The SQS bounds in seconds as the API Reference writes them, and the
// defaults inside them.
func TestSQSLimits(t *testing.T) {
	l := SQSLimits()
	want := Limits{
		VisibilityMax: 43_200 * time.Second,
		RetentionMin:  60 * time.Second,
		RetentionMax:  1_209_600 * time.Second,
		DelayMax:      900 * time.Second,
		MaxReceiveMin: 1,
		MaxReceiveMax: 1000,
	}
	if l != want {
		t.Errorf("SQSLimits() = %+v; want %+v", l, want)
	}
	d := SQS()
	if d.Visibility < 0 || d.Visibility > l.VisibilityMax || d.Retention < l.RetentionMin || d.Retention > l.RetentionMax {
		t.Errorf("SQS defaults %+v outside its limits %+v", d, l)
	}
}

// The schedules behind the tries: Sidekiq's 25 retries at the lowest draw
// wait sum_{c=0}^{24} (c^4 + 15) s, where sum_{c=0}^{24} c^4 = 24 x 25 x 49
// x (3 x 576 + 72 - 1)/30 = 1,763,020, plus 25 x 15 = 375; River's 24 at the middle draw sum_{n=1}^{24} n^4 =
// 1,763,020; Oban's 19 at the lowest, sum_{a=1}^{19} (15 + 2^a) = 285 +
// 2^20 - 2 = 1,048,859; Temporal's first 10, 1 + 2 + ... + 64 + 3 x 100 =
// 427 (it has no last retry).
func TestRetriesWait(t *testing.T) {
	for _, tt := range []struct {
		d    Defaults
		n    int
		u    float64
		want time.Duration
	}{
		{Sidekiq(), Sidekiq().MaxAttempts - 1, 0, (1_763_020 + 375) * time.Second},
		{River(), River().MaxAttempts - 1, 0.5, 1_763_020 * time.Second},
		{Oban(), Oban().MaxAttempts - 1, 0, 1_048_859 * time.Second},
		{Temporal(), 10, 0.5, 427 * time.Second},
	} {
		var sum time.Duration
		for a := range tt.n {
			sum += waits.Delay(tt.d.Schedule, a, 0, tt.u)
		}
		if diff := sum - tt.want; diff < -time.Microsecond || diff > time.Microsecond {
			t.Errorf("%s: %d retries at draw %v wait %v; want %v", tt.d.Name, tt.n, tt.u, sum, tt.want)
		}
	}
}

// All is every queue's defaults, in the order sidekiq, river, oban,
// temporal, sqs: a fresh slice each call.
func All() []Defaults {
	return []Defaults{Sidekiq(), River(), Oban(), Temporal(), SQS()}
}

// Limits are the bounds Amazon SQS puts on a queue's attributes, from the
// sources SQS names: each value is accepted from its Min to its Max, both
// included.
type Limits struct {
	// VisibilityMax is the longest visibility timeout (VisibilityTimeout,
	// 0 to 43,200 s); a message's timeout extended by
	// ChangeMessageVisibility cannot pass it either.
	VisibilityMax time.Duration
	// RetentionMin and RetentionMax bound MessageRetentionPeriod (60 to
	// 1,209,600 s).
	RetentionMin, RetentionMax time.Duration
	// DelayMax is the longest delay of a delay queue (DelaySeconds, 0 to
	// 900 s, 0 by default).
	DelayMax time.Duration
	// MaxReceiveMin and MaxReceiveMax bound a redrive policy's
	// maxReceiveCount, the receives a message gets before it moves to the
	// dead-letter queue.
	MaxReceiveMin, MaxReceiveMax int
}

// SQSLimits is the bounds of an SQS queue's attributes: the API
// Reference's SetQueueAttributes for the visibility timeout, retention and
// delay, the Developer Guide's "Configuring a dead-letter queue (console)"
// for maxReceiveCount ("a value between 1 and 1,000").
func SQSLimits() Limits {
	return Limits{
		VisibilityMax: 12 * time.Hour,
		RetentionMin:  time.Minute,
		RetentionMax:  14 * day,
		DelayMax:      15 * time.Minute,
		MaxReceiveMin: 1,
		MaxReceiveMax: 1000,
	}
}
