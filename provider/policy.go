package provider

import (
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/schema"
)

// StepRetry is a step's own retry settings. Its zero value keeps the run's: a
// field set overrides the run's for this step only. Of the module's three
// StepRetry types it is the one that says how often and how a step retries:
// backoff.StepRetry is only the wait between attempts (held in Backoff), and
// fleet.StepRetry a fleet client's guard that may refuse a retry.
type StepRetry struct {
	// Attempts bounds the step's own retry loop, the first call included
	// (1 to 1000); 0 keeps the run's.
	Attempts int
	// Keys is the key mode of the step's calls; nil keeps the run's.
	Keys *schema.KeyMode
	// Backoff is the wait between the step's own attempts, in the delivery
	// model; nil keeps the run's.
	Backoff *backoff.Schedule
}
