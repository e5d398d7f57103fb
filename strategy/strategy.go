// Package strategy holds the ways one delivery of a job can drive its steps:
// what is retried (each step, or the whole job), how many attempts, which
// idempotency key goes with each call, and whether a local store skips steps that
// already finished.
//
// It decides what to call and when to give up; it draws nothing itself. Outcomes
// come from package provider, and counting over many jobs is package sim's work.
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

// Strategy drives one delivery of a job. Users of the Go packages can implement
// their own and hand it to any engine: the Part 5 engines and the delivery
// model both run it through Calls.
//
// A run calls one Strategy value from several goroutines at once (its
// workers, each on its own jobs and with its own Calls), so Run must be safe
// for concurrent use: a strategy that keeps state across calls guards it
// (package sync/atomic, a mutex) or keeps it per delivery, on Run's stack.
// The built-in Retry keeps none. One value shared by the workers, rather
// than one made per worker by a factory, keeps a strategy a plain value that
// a caller lists, compares and labels, and costs the built-ins nothing.
//
// A panic in Run does not crash the program: the run stops and returns a
// *schema.PanicError naming the strategy, the job and the step.
type Strategy interface {
	// Name is the label shown in outputs.
	Name() string
	// Run makes one delivery's calls and reports whether the job succeeded.
	// It must end after a bounded number of failed calls, as with a
	// provider that always fails. It is called from several goroutines at
	// once, as Strategy says.
	Run(c Calls) bool
	// UsesStore reports whether the strategy wants a key store of the job's
	// finished steps even where the run configures none: the Part 5 store,
	// which records a step once its call succeeded (the delivery model's
	// After), so that Calls.Enter reports it handled. It is part of the
	// interface, not an option, so that a strategy that wraps another by
	// embedding keeps its store.
	UsesStore() bool
}

// Calls is one delivery of a job as a strategy sees it. The engine behind it
// supplies the providers, the key store, fresh keys and time: the Part 5
// engines have no time and keep the Part 5 store only for a strategy that
// asks for it (UsesStore); the delivery model runs the store its
// configuration names, and a Backoff or a Call takes virtual time, during
// which other deliveries of the job may run. Once a delivery's worker has
// died, Enter reports false, Call reports provider.NoReply, and neither does
// anything.
//
// Once the run is stopped (its context cancelled, or another strategy of
// the run panicked), every method of a Calls given to a strategy other than
// Retry panics with ErrStopped, which unwinds the strategy however it loops;
// the engine recovers it and the run returns the context's error. A
// strategy that recovers panics itself must panic again with ErrStopped.
// A Calls is used by the one Run it is given to, on that Run's goroutine.
type Calls interface {
	// Steps is the number of steps in the scenario.
	Steps() int
	// Retries are the steps' own retry settings, overriding the run's
	// where set, one a step; nil when no step sets any. Callers must not
	// modify the slice.
	Retries() []provider.StepRetry
	// Enter starts step i: a strategy calls it before the first call of the
	// step in each pass over the steps, and skips the step, with no call,
	// when it reports the step handled (the key store holds it as done).
	Enter(i int) (handled bool)
	// Guarded reports whether Enter can do anything in this delivery (a key
	// store, or a crash point before the key): when it cannot, Enter
	// reports false at no cost to the model, and a strategy may leave it
	// out, as Retry does on its hot path.
	Guarded() bool
	// Call calls the provider of step i with key and reports what the
	// caller saw: provider.ReplyOK, provider.ReplyError (the call did
	// nothing) or provider.NoReply (a lost reply or a timeout: the call may
	// have done its work). Key provider.StepKey is the step's own key, the
	// same on every call of the step (what schema.SameKey sends); FreshKey gives
	// keys no call has sent; provider.NoKey sends none.
	Call(i int, key provider.Key) provider.Reply
	// FreshKey returns a key that no call of the job has sent.
	FreshKey() provider.Key
	// Backoff waits before retry n (0 for the first) of a loop: step i's
	// own, or the whole job's when i is -1, whose policy is the run's.
	Backoff(i, n int)
}

// ErrStopped is what a Calls method panics with once the run is stopped, as
// Calls says; a run never returns it.
var ErrStopped = errors.New("strategy: the run is stopped")

// Straight is a strategy that calls each step once, in order, for as long as
// calls succeed, together with the Resume that says so: the explicit opt-in
// to the engines' fast path. The engine then settles a job's clean start
// from its draws alone: a job with no failure at all without calling the
// strategy, and a job whose first failure comes at step k by resuming
// there (and the skip engine runs only such strategies).
//
// The engines take the fast path for a Retry and for a Straight value,
// and for no other type: a type that embeds a Retry or a
// Straight is a type of its own, which the engines run through its Run, so
// that overriding Run by embedding can never be bypassed.
type Straight struct {
	Strategy
	// Resume drives a delivery whose steps before from were each called
	// once and succeeded; c has counted those calls already. Resume(c, 0)
	// must equal Strategy.Run(c), and, like Run, it is called from several
	// goroutines at once.
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

// Retry is the composable strategy: any scope, attempts, key mode and store.
// A step's own Policy overrides Attempts and Keys for that step: its
// attempts bound its own retry loop, so they apply when each step is
// retried (a whole-job retry calls each step once a pass, and its Attempts
// count passes); its key mode applies to its calls under either scope.
type Retry struct {
	Scope Scope
	// Attempts is the number of calls a retry allows, the first included (at least 1).
	Attempts int
	Keys     schema.KeyMode
	// SkipFinished keeps a store of the job's finished steps and skips them when
	// the whole job runs again. A step whose call errored is not finished, even if
	// its work was done: the store cannot see a lost reply.
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

// resumeAt drives a delivery from step from on, as Straight.Resume does: the
// fast path the engines take for a Retry. It is the one definition of what
// Retry does, whatever engine runs it. Until a call fails every scope calls
// each step once, in order, so only the first pass starts late; a whole-job
// retry's later passes start from the top, skipping the steps Enter reports
// handled.
func (r Retry) resumeAt(c Calls, from int) bool {
	if j, ok := c.(*jobsim.Job); ok {
		return (&r).resumeJob(j, from)
	}
	return (&r).resume(c, from)
}

// resume is resumeAt over any Calls, one method call through the interface
// each.
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

// resumeJob is resume over the Part 5 engines' *jobsim.Job: the same body,
// with c's type known, so that the compiler calls its methods directly and
// inlines the small ones (Steps, Policies, Guarded, Enter, FreshKey, Backoff).
// Through the interface they cost the skip engine a fifth of its speed.
// TestResumeJobIsResume holds the two bodies equal, token for token.
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

// DefaultIDs are the article's five rows, in its order: a fresh slice, so no
// importer can change what another gets.
func DefaultIDs() []string { return slices.Clone(defaultIDs) }

// Parse builds the strategy a short name describes: scope-keys, or
// scope-keys-skip for one that skips a done step, with scope step or job and
// keys nokey, newkey or samekey (for example job-samekey-skip).
func Parse(id string, attempts int) (Retry, error) {
	parts := strings.Split(id, "-")
	r := Retry{Attempts: attempts}
	ok := len(parts) == 2 || len(parts) == 3 && parts[2] == "skip"
	if ok {
		r.SkipFinished = len(parts) == 3
		switch parts[0] {
		case "step":
			r.Scope = EachStep
		case "job":
			r.Scope = WholeJob
		default:
			ok = false
		}
		switch parts[1] {
		case "nokey":
			r.Keys = schema.NoKeys
		case "newkey":
			r.Keys = schema.FreshKeys
		case "samekey":
			r.Keys = schema.SameKey
		default:
			ok = false
		}
	}
	if !ok {
		return Retry{}, fmt.Errorf("unknown strategy %q (want scope-keys or scope-keys-skip, scope step or job, keys nokey, newkey or samekey: %s)",
			id, strings.Join(defaultIDs, ", "))
	}
	return r, nil
}
