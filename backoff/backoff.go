// Package backoff names the wait between retry attempts: the AWS Architecture Blog's
// policies, gRPC's, and four job queues' default schedules, each computed by one rule
// from the attempt, the previous wait and a uniform draw.
package backoff

import (
	"fmt"
	"time"

	"github.com/retrysim/retrysim/internal/backoffkind"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/schema"
)

// Kind is a backoff policy.
type Kind int

// The policies, with e = min(Cap, Base x 2^n) the exponential wait of
// retry n and u a uniform draw in [0, 1).
const (
	None         Kind = iota // no wait
	Constant                 // Base before every retry
	Exponential              // e
	FullJitter               // u x e
	EqualJitter              // e/2 + u x e/2
	Decorrelated             // min(Cap, Base + u x (3 x the previous wait - Base))
	// Sidekiq is Sidekiq 8's job retry schedule (lib/sidekiq/job_retry.rb, v8.0.0 to v8.1.7):
	// retry c (from 0) waits c^4 + 15 + rand(10 x (c + 1)) seconds.
	Sidekiq
	// River is River's DefaultClientRetryPolicy (v0.43.0): the retry after the n-th error
	// waits n^4 seconds times a random factor in [0.9, 1.1).
	River
	// GRPC is gRPC's retry backoff (proposal A6, grpc-go from v1.69.0): retry n (from 0)
	// waits min(base x 2^n, cap) x random(0.8, 1.2).
	GRPC
	// Oban is Oban.Worker's default backoff (v2.23.1, lib/oban/backoff.ex): after attempt a
	// (from 1) the job waits t + trunc(0.1 x u x t) seconds, t = 15 + 2^a, as for
	// max_attempts up to 20.
	Oban
	// Temporal is Temporal's default activity retry policy (server v1.31.2,
	// common/retrypolicy/retry_policy.go; sdk-go v1.48.0): retry n (from 0) waits
	// min(100 s, 2^n s), with no jitter.
	Temporal
)

// kinds names the policies as scenario files and reports spell them.
var kinds = enum.New[Kind]("backoff", "none", "constant", "exponential", "full-jitter", "equal-jitter", "decorrelated", "sidekiq", "river", "grpc", "oban", "temporal")

// String names the kind as scenario files spell it.
func (k Kind) String() string { return kinds.String(k) }

// MarshalText is the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return kinds.MarshalText(k) }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(text []byte) error { return kinds.UnmarshalText(text, k) }

// Schedule is a backoff policy with its base and cap; the zero value waits nothing.
type Schedule struct {
	Kind Kind
	// Base is the first wait (the constant wait, for Constant).
	Base time.Duration
	// Cap bounds every wait, not below Base; 0 means no cap.
	Cap time.Duration
}

// Check reports the first thing wrong with p as a *schema.FieldError naming its field
// (policy, cap): an unknown kind, or a cap below the base.
func (p Schedule) Check() error {
	if err := kinds.Check(p.Kind); err != nil {
		return &schema.FieldError{Field: "policy", Msg: err.Error()}
	}
	baseWhy, capWhy := backoffkind.Unread(p.Kind.String())
	if baseWhy == "" && capWhy == "" && p.Cap != 0 && p.Cap < p.Base {
		return &schema.FieldError{Field: "cap", Msg: fmt.Sprintf("%v is below the base %v (0 means no cap)", p.Cap, p.Base)}
	}
	return nil
}
