package jobsim

import (
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// StepAttempts is a step's own attempts p.Attempts, or run's when p keeps the run's.
func StepAttempts(p provider.StepRetry, run int) int {
	if p.Attempts == 0 {
		return run
	}
	return p.Attempts
}

// StepKeys is a step's own key mode p.Keys, or run's when p keeps the run's.
func StepKeys(p provider.StepRetry, run schema.KeyMode) schema.KeyMode {
	if p.Keys == nil {
		return run
	}
	return *p.Keys
}

// StepBackoff is a step's own backoff p.Backoff, or run's when p keeps the run's.
func StepBackoff(p provider.StepRetry, run backoff.Schedule) backoff.Schedule {
	if p.Backoff == nil {
		return run
	}
	return *p.Backoff
}
