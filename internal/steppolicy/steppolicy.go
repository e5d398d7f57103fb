// Package steppolicy reads a step's own retry settings (a provider.Policy)
// over the run's: each field the step sets overrides the run's.
package steppolicy

import (
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// Attempts is p's attempts, or run's when p keeps the run's.
func Attempts(p provider.Policy, run int) int {
	if p.Attempts == 0 {
		return run
	}
	return p.Attempts
}

// Keys is p's key mode, or run's when p keeps the run's.
func Keys(p provider.Policy, run schema.KeyMode) schema.KeyMode {
	if p.Keys == nil {
		return run
	}
	return *p.Keys
}

// Backoff is p's backoff, or run's when p keeps the run's.
func Backoff(p provider.Policy, run backoff.Policy) backoff.Policy {
	if p.Backoff == nil {
		return run
	}
	return *p.Backoff
}
