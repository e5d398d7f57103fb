package provider

import (
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/schema"
)

// StepRetry is a step's own retry settings; a field set overrides the run's for this step
// only, and the zero value keeps the run's.
type StepRetry struct {
	// Attempts bounds the step's own retry loop, the first call included; 0 keeps the run's.
	Attempts int
	// Keys is the key mode of the step's calls; nil keeps the run's.
	Keys *schema.KeyMode
	// Backoff is the wait between the step's own attempts; nil keeps the run's.
	Backoff *backoff.Schedule
}
