// Package strategy holds the ways one delivery of a job can drive its steps:
// what is retried (each step, or the whole job), how many attempts, which
// idempotency key goes with each call, and whether a local store skips steps that
// already finished.
//
// It decides what to call and when to give up; it draws nothing itself. Outcomes
// come from package provider, and counting over many jobs is package sim's work.
package strategy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/provider"
)

// Strategy drives one delivery of a job. Users of the Go packages can implement
// their own and hand it to the engine.
type Strategy interface {
	// Name is the label shown in outputs.
	Name() string
	// Run makes the job's calls and reports whether the job succeeded.
	Run(j *provider.Job) bool
}

// Straight is implemented by strategies that call each step once, in order,
// for as long as calls succeed. The engine then settles a job's clean start
// from its draws alone: a job with no failure at all without calling the
// strategy, and a job whose first failure comes at step k by resuming there.
type Straight interface {
	Strategy
	// Resume drives a delivery whose steps before from were each called once
	// and succeeded; j has counted those calls already (provider.Job.Settle).
	// Resume(j, 0) must equal Run(j).
	Resume(j *provider.Job, from int) bool
}

// Scope is what a retry repeats.
type Scope int

const (
	// EachStep retries a failing step on its own.
	EachStep Scope = iota
	// WholeJob runs the workflow again from its first step.
	WholeJob
)

// KeyMode is which idempotency key a call sends to a provider that honours keys.
type KeyMode int

const (
	// NoKeys sends no key.
	NoKeys KeyMode = iota
	// FreshKeys sends a new key on every call, which protects nothing.
	FreshKeys
	// SameKey sends the key of the business action, unchanged on every attempt.
	SameKey
)

// actionKey is the key of "this step of this job"; provider memory is per job and
// per step, so one constant names every action. Fresh keys count up from above it.
const actionKey provider.Key = 1

// Retry is the composable strategy: any scope, attempts, key mode and store.
type Retry struct {
	Scope Scope
	// Attempts is the number of calls a retry allows, the first included (at least 1).
	Attempts int
	Keys     KeyMode
	// SkipFinished keeps a store of the job's finished steps and skips them when
	// the whole job runs again. A step whose call errored is not finished, even if
	// its work was done: the store cannot see a lost reply.
	SkipFinished bool
	// Label is the name shown in outputs; Name derives one when it is empty.
	Label string
}

var _ Straight = Retry{}

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
	case NoKeys:
		parts = append(parts, "no key")
	case FreshKeys:
		parts = append(parts, "new key on every call")
	case SameKey:
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

// Run drives one delivery of the job.
func (r Retry) Run(j *provider.Job) bool { return r.Resume(j, 0) }

// Resume drives a delivery from step from on, as Straight describes. Until a
// call fails every scope calls each step once, in order, so only the first
// pass starts late; a whole-job retry's later attempts start from the top.
func (r Retry) Resume(j *provider.Job, from int) bool {
	// The key of every call: none, the action's, or fresh ones counted up
	// from the action's.
	var key provider.Key
	if r.Keys != NoKeys {
		key = actionKey
	}
	fresh := r.Keys == FreshKeys
	next := func() provider.Key {
		if fresh {
			key++
		}
		return key
	}
	n := j.Steps()
	if r.Scope == EachStep {
		for i := from; i < n; i++ {
			ok := false
			for a := 0; a < r.Attempts && !ok; a++ {
				ok = j.Call(i, next())
			}
			if !ok {
				return false
			}
		}
		return true
	}
	var finished uint64 // bit i: step i finished, when the store is on
	if r.SkipFinished {
		finished = 1<<from - 1
	}
	for range r.Attempts {
		ok := true
		for i := from; i < n; i++ {
			if finished&(1<<i) != 0 {
				continue
			}
			if !j.Call(i, next()) {
				ok = false
				break
			}
			if r.SkipFinished {
				finished |= 1 << i
			}
		}
		if ok {
			return true
		}
		from = 0
	}
	return false
}

// defaultIDs are the article's five rows, in its order.
var defaultIDs = []string{"step-nokey", "step-newkey", "step-samekey", "job-samekey", "job-samekey-skip"}

// DefaultIDs are the article's five rows, in its order: a fresh slice, so no
// importer can change what another gets.
func DefaultIDs() []string { return slices.Clone(defaultIDs) }

// Parse builds the strategy a short name describes: scope-keys[-skip], with scope
// step or job and keys nokey, newkey or samekey (for example job-samekey-skip).
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
			r.Keys = NoKeys
		case "newkey":
			r.Keys = FreshKeys
		case "samekey":
			r.Keys = SameKey
		default:
			ok = false
		}
	}
	if !ok {
		return Retry{}, fmt.Errorf("unknown strategy %q (want scope-keys[-skip], scope step or job, keys nokey, newkey or samekey: %s)",
			id, strings.Join(defaultIDs, ", "))
	}
	return r, nil
}
