// Package delivery runs one job the way an at-least-once queue does, in virtual time:
// messages, deliveries, calls and waits that take time, and a worker key store shared by
// deliveries that interleave operation by operation, where races come from. A delivery
// runs any strategy.Strategy; this package never reads a clock.
package delivery

import (
	"fmt"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/waits"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// Store is where a delivery writes a step's key in the worker's store.
type Store int

const (
	// NoStore keeps no keys.
	NoStore Store = iota
	// After checks the key, does the work, then records the key: the Part 5
	// store. A crash between the work and the record repeats the work.
	After
	// Loose checks the key, then inserts it without a unique constraint, then
	// does the work: two overlapping deliveries both pass the check.
	Loose
	// Claim inserts the key atomically before the work; the loser takes it as handled, a
	// crash after the claim loses the work, and a failed call does not release it.
	Claim
	// Lease claims with a status and an expiry: released when the job fails, taken over
	// once the holder's lease expires (a slow holder's work then rolls back), skipped once
	// done; the work commits with its done status while the lease holds, and done keys
	// outlive the redelivery window: the check's three fixes together.
	Lease
)

// stores names the store modes as scenario files and reports spell them.
var stores = enum.New[Store]("store", "none", "after", "loose", "claim", "lease")

// String names the store mode as scenario files spell it.
func (s Store) String() string { return stores.String(s) }

// MarshalText is the store mode's name.
func (s Store) MarshalText() ([]byte, error) { return stores.MarshalText(s) }

// UnmarshalText reads a store mode's name.
func (s *Store) UnmarshalText(text []byte) error { return stores.UnmarshalText(text, s) }

// CrashPoint is where in a step a worker may die.
type CrashPoint int

const (
	// BeforeKey is before the step's store operation.
	BeforeKey CrashPoint = iota
	// AfterKey is between the key write and the side effect.
	AfterKey
	// AfterWork is between the side effect and the key record.
	AfterWork
	// BeforeAck is after the job's last step, before the queue's ack.
	BeforeAck
)

// crashPoints names the crash points as scenario files and reports spell them.
var crashPoints = enum.New[CrashPoint]("crash point", "before-key", "after-key", "after-work", "before-ack")

// String names the crash point.
func (c CrashPoint) String() string { return crashPoints.String(c) }

// MarshalText is the crash point's name.
func (c CrashPoint) MarshalText() ([]byte, error) { return crashPoints.MarshalText(c) }

// UnmarshalText reads a crash point's name.
func (c *CrashPoint) UnmarshalText(text []byte) error { return crashPoints.UnmarshalText(text, c) }

// Config is the queue, worker and store around the jobs.
type Config struct {
	Store Store
	// TTL is how long a key lives after it is written; 0 keeps keys forever.
	TTL time.Duration
	// Lease is how long a lease holds before another delivery may take over; above 0.
	Lease time.Duration
	// Visibility is how long a received message stays hidden before it is delivered again.
	Visibility time.Duration
	// MaxDeliveries bounds a message's deliveries, 1 to limits.DeliveryDeliveries, past which
	// it is dead-lettered.
	MaxDeliveries int
	// RepeatP is the probability that a job's request is sent twice, RepeatDelay apart.
	RepeatP     float64
	RepeatDelay provider.Latency
	// CrashP is the probability that a delivery's worker dies each time it passes CrashAt;
	// MaxCrashes bounds a job's crashes (0: no bound; at most limits.DeliveryCrashes).
	CrashP     float64
	CrashAt    CrashPoint
	MaxCrashes int
	// Backoff is the wait between attempts.
	Backoff backoff.Schedule
}

// Defaults are a 30 s visibility timeout and lease, 10 deliveries and keys kept 24 hours.
func Defaults() Config {
	return Config{
		TTL:           24 * time.Hour,
		Lease:         30 * time.Second,
		Visibility:    30 * time.Second,
		MaxDeliveries: 10,
		Backoff:       backoff.Schedule{Kind: backoff.FullJitter, Base: 100 * time.Millisecond, Cap: 2 * time.Second},
	}
}

// Check reports the first thing wrong with c, in the order of Settings, as a
// *schema.FieldError naming its field under queue:; a Config it accepts runs.
func (c Config) Check() error {
	for _, s := range settings {
		if err := s.Check(c); err != nil {
			return err
		}
	}
	return nil
}

// Warning says in one line where c lets the queue or the lease store overtake a delivery
// still running, for sc run through strategies, or "" if nothing does; a strategy other
// than Retry is held to one call a step, so its silence is no promise.
func (c Config) Warning(sc provider.Scenario, strategies []strategy.Strategy) string {
	var delivery, hold time.Duration
	for _, st := range sc.Steps {
		call := slowest(st.Latency)
		delivery = limits.Later(delivery, call)
		hold = max(hold, call)
		retries := st.PFail > 0 || (st.CanLoseReply && st.LostReply > 0)
		for _, s := range strategies {
			if r, ok := s.(strategy.Retry); ok && r.Scope == strategy.EachStep && retries {
				a := jobsim.StepAttempts(st.Retry, r.Attempts)
				hold = max(hold, limits.Later(limits.Times(call, a), waits.Longest(jobsim.StepBackoff(st.Retry, c.Backoff), a-1)))
			}
		}
	}
	var w []string
	if c.Store == Lease && c.Lease < hold {
		w = append(w, fmt.Sprintf("lease %s is shorter than a step can hold it (%s), so a live, slow holder is taken over and its work rolled back", human.Duration(c.Lease), human.Duration(hold)))
	}
	if c.Visibility < delivery {
		w = append(w, fmt.Sprintf("visibility timeout %s is shorter than a delivery can take (%s), so a message comes back while its delivery still runs", human.Duration(c.Visibility), human.Duration(delivery)))
	}
	return strings.Join(w, "; ")
}

// slowest is the longest a call of latency l takes: fixed, or a lognormal's p99.
func slowest(l provider.Latency) time.Duration {
	if rng.LognormalDrawn(l.Median, l.P99) {
		return l.P99
	}
	return l.Median
}
