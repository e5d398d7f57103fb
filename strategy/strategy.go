// Package strategy holds the ways one delivery of a job can drive its steps: what is
// retried, how many attempts, which idempotency key goes with each call, and whether a
// store skips finished steps. It draws nothing itself: outcomes come from package provider.
package strategy

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// Strategy drives one delivery of a job, in any engine, through Calls.
//
// A run calls one Strategy value from several goroutines at once (its workers, each with
// its own Calls), so Run must be safe for concurrent use: a strategy that keeps state
// guards it (package sync/atomic, a mutex) or keeps it on Run's stack. The built-in Retry
// keeps none.
//
// A panic in Run does not crash the program: the run stops and returns a
// *schema.PanicError naming the strategy, the job and the step.
type Strategy interface {
	// Name is the label shown in outputs.
	Name() string
	// Run makes one delivery's calls and reports whether the job succeeded, ending after a
	// bounded number of failed calls.
	Run(c Calls) bool
	// UsesStore reports whether the strategy wants the Part 5 store of finished steps (the
	// delivery model's After) even where the run configures none; an interface method, so
	// that a strategy embedding another keeps its store.
	UsesStore() bool
}

// Calls is one delivery of a job as a strategy sees it: the engine supplies providers, the
// key store, fresh keys and time (in the delivery model a Backoff or a Call takes virtual
// time, while other deliveries of the job may run). Once a delivery's worker has died,
// Enter reports false, Call reports provider.NoReply, and neither does anything.
//
// Once the run is stopped (its context cancelled, or another strategy panicked), every
// method of a Calls given to a strategy other than Retry panics with ErrStopped, which the
// engine recovers, and the run returns the context's error. A strategy that recovers
// panics must panic again with ErrStopped. A Calls is used by the one Run it is given to,
// on that Run's goroutine.
type Calls interface {
	// Steps is the number of steps in the scenario.
	Steps() int
	// Retries are the steps' own retry settings, one a step, nil when none sets any; callers
	// must not modify the slice.
	Retries() []provider.StepRetry
	// Enter starts step i before its first call in each pass; the strategy skips the step
	// when it reports it handled (the key store holds it as done).
	Enter(i int) (handled bool)
	// Guarded reports whether Enter can do anything in this delivery; when not, a strategy
	// may leave Enter out, as Retry does.
	Guarded() bool
	// Call calls the provider of step i with key and reports what the caller saw.
	// provider.StepKey is the step's own key, the same on every call of the step (what
	// schema.SameKey sends); FreshKey gives keys no call has sent; provider.NoKey sends none.
	Call(i int, key provider.Key) provider.Reply
	// FreshKey returns a key that no call of the job has sent.
	FreshKey() provider.Key
	// Backoff waits before retry n (0 for the first) of step i's loop, or the job's when i is -1.
	Backoff(i, n int)
}

// ErrStopped is what a Calls method panics with once the run is stopped; no run returns it.
var ErrStopped = errors.New("strategy: the run is stopped")

// Straight is a strategy that calls each step once, in order, for as long as calls
// succeed, with the Resume that says so: the explicit opt-in to the engines' fast path,
// which settles a job's clean start from its draws alone (the skip engine runs only such
// strategies). The engines take it for a Retry and a Straight value only: a type
// embedding either is run through its own Run.
type Straight struct {
	Strategy
	// Resume drives a delivery whose steps before from were each called once and succeeded
	// (c has counted them); Resume(c, 0) must equal Strategy.Run(c).
	Resume func(c Calls, from int) bool
}

// Scope is what a retry repeats.
type Scope int

const (
	// EachStep retries a failing step on its own.
	EachStep Scope = iota
	// WholeJob runs the workflow again from its first step.
	WholeJob
)

// scopes names the scopes as strategy ids spell them (Parse).
var scopes = enum.New[Scope]("scope", "step", "job")

// String names the scope as strategy ids spell it.
func (s Scope) String() string { return scopes.String(s) }

// MarshalText is the scope's name.
func (s Scope) MarshalText() ([]byte, error) { return scopes.MarshalText(s) }

// UnmarshalText reads a scope's name.
func (s *Scope) UnmarshalText(text []byte) error { return scopes.UnmarshalText(text, s) }

// Retry is the composable strategy: any scope, attempts, key mode and store. A step's own
// Policy overrides Attempts (its own retry loop, under EachStep) and Keys for that step.
type Retry struct {
	Scope Scope
	// Attempts is the number of calls a retry allows, the first included (at least 1).
	Attempts int
	Keys     schema.KeyMode
	// SkipFinished skips the job's finished steps when the whole job runs again; a step
	// whose reply was lost is not finished.
	SkipFinished bool
	// Label is the name shown in outputs; Name derives one when it is empty.
	Label string
}

// Name returns r.Label, or a description built from the fields.
func (r Retry) Name() string {
	if r.Label != "" {
		return r.Label
	}
	parts := []string{"Retry each step"}
	if r.Scope == WholeJob {
		parts[0] = "Retry the whole job"
	}
	switch r.Keys {
	case schema.NoKeys:
		parts = append(parts, "no key")
	case schema.FreshKeys:
		parts = append(parts, "new key on every call")
	case schema.SameKey:
		if r.Scope == WholeJob {
			parts = append(parts, "same key")
		} else {
			parts = append(parts, "same key every time")
		}
	}
	if r.SkipFinished {
		parts = append(parts, "skip finished steps")
	}
	return strings.Join(parts, ", ")
}

// UsesStore reports whether r skips finished steps.
func (r Retry) UsesStore() bool { return r.SkipFinished }

// Run drives one delivery of the job.
func (r Retry) Run(c Calls) bool { return r.resumeAt(c, 0) }

// init hands the engines Retry's fast path (jobsim.RetryResume).
func init() {
	jobsim.SetRetryResume(func(r any) any {
		if p, ok := r.(*Retry); ok {
			return p.resumeAt
		}
		return r.(Retry).resumeAt
	})
}

// resumeAt drives a delivery from step from on, as Straight.Resume does: the one
// definition of what Retry does, whatever engine runs it.
func (r Retry) resumeAt(c Calls, from int) bool {
	if j, ok := c.(*jobsim.Job); ok {
		return (&r).resumeJob(j, from)
	}
	return (&r).resume(c, from)
}

// resume is resumeAt over any Calls.
func (r *Retry) resume(c Calls, from int) bool {
	n, own, guarded := c.Steps(), c.Retries(), c.Guarded()
	if r.Scope == EachStep {
		for i := from; i < n; i++ {
			if guarded && c.Enter(i) {
				continue
			}
			attempts, keys := r.Attempts, r.Keys
			if own != nil {
				attempts, keys = jobsim.StepAttempts(own[i], attempts), jobsim.StepKeys(own[i], keys)
			}
			key := r.key(c, keys)
			ok := c.Call(i, key) == provider.ReplyOK
			for a := 1; a < attempts && !ok; a++ {
				c.Backoff(i, a-1)
				if keys == schema.FreshKeys {
					key = c.FreshKey()
				}
				ok = c.Call(i, key) == provider.ReplyOK
			}
			if !ok {
				return false
			}
		}
		return true
	}
	for a := range r.Attempts {
		if a > 0 {
			c.Backoff(-1, a-1)
		}
		ok := true
		for i := from; i < n && ok; i++ {
			if guarded && c.Enter(i) {
				continue
			}
			keys := r.Keys
			if own != nil {
				keys = jobsim.StepKeys(own[i], keys)
			}
			ok = c.Call(i, r.key(c, keys)) == provider.ReplyOK
		}
		if ok {
			return true
		}
		from = 0
	}
	return false
}

// resumeJob is resume over *jobsim.Job, the same body with c's type known, so that the
// compiler inlines the small methods: through the interface they cost the skip engine a
// fifth of its speed. TestResumeJobIsResume holds the two bodies equal.
func (r *Retry) resumeJob(c *jobsim.Job, from int) bool {
	n, own, guarded := c.Steps(), c.Retries(), c.Guarded()
	if r.Scope == EachStep {
		for i := from; i < n; i++ {
			if guarded && c.Enter(i) {
				continue
			}
			attempts, keys := r.Attempts, r.Keys
			if own != nil {
				attempts, keys = jobsim.StepAttempts(own[i], attempts), jobsim.StepKeys(own[i], keys)
			}
			key := r.key(c, keys)
			ok := c.Call(i, key) == provider.ReplyOK
			for a := 1; a < attempts && !ok; a++ {
				c.Backoff(i, a-1)
				if keys == schema.FreshKeys {
					key = c.FreshKey()
				}
				ok = c.Call(i, key) == provider.ReplyOK
			}
			if !ok {
				return false
			}
		}
		return true
	}
	for a := range r.Attempts {
		if a > 0 {
			c.Backoff(-1, a-1)
		}
		ok := true
		for i := from; i < n && ok; i++ {
			if guarded && c.Enter(i) {
				continue
			}
			keys := r.Keys
			if own != nil {
				keys = jobsim.StepKeys(own[i], keys)
			}
			ok = c.Call(i, r.key(c, keys)) == provider.ReplyOK
		}
		if ok {
			return true
		}
		from = 0
	}
	return false
}

// key is the key of a step's first call in a pass under mode.
func (r *Retry) key(c Calls, mode schema.KeyMode) provider.Key {
	switch mode {
	case schema.SameKey:
		return provider.StepKey
	case schema.FreshKeys:
		return c.FreshKey()
	}
	return provider.NoKey
}

// defaultIDs are the article's five rows, in its order.
var defaultIDs = []string{"step-nokey", "step-newkey", "step-samekey", "job-samekey", "job-samekey-skip"}

// DefaultIDs are the article's five rows, in its order, in a fresh slice.
func DefaultIDs() []string { return slices.Clone(defaultIDs) }

// keyIDs are the key modes as strategy ids spell them.
var keyIDs = []string{schema.NoKeys: "nokey", schema.FreshKeys: "newkey", schema.SameKey: "samekey"}

// Parse builds the strategy a short name describes: scope-keys, then skip for one that
// skips a done step, scope step or job, keys nokey, newkey or samekey (job-samekey-skip).
func Parse(id string, attempts int) (Retry, error) {
	parts := strings.Split(id, "-")
	if len(parts) == 2 || len(parts) == 3 && parts[2] == "skip" {
		scope, err := scopes.Parse(parts[0])
		if keys := slices.Index(keyIDs, parts[1]); err == nil && keys >= 0 {
			return Retry{Scope: scope, Attempts: attempts, Keys: schema.KeyMode(keys), SkipFinished: len(parts) == 3}, nil
		}
	}
	return Retry{}, fmt.Errorf("unknown strategy %q (want scope-keys or scope-keys-skip, scope step or job, keys nokey, newkey or samekey: %s)",
		id, strings.Join(defaultIDs, ", "))
}
