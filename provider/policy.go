package provider

import (
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/schema"
)

// Policy is a step's own retry settings. Its zero value keeps the run's: a
// field set overrides the run's for this step only. Of the module's three
// Policy types it is the one that says how often and how a step retries:
// backoff.Policy is only the wait between attempts (held in Backoff), and
// fleet.Policy a fleet client's guard that may refuse a retry.
type Policy struct {
	// Attempts bounds the step's own retry loop, the first call included
	// (1 to 1000); 0 keeps the run's.
	Attempts int
	// Keys is the key mode of the step's calls; nil keeps the run's.
	Keys *schema.KeyMode
	// Backoff is the wait between the step's own attempts, in the delivery
	// model; nil keeps the run's.
	Backoff *backoff.Policy
}

// check reports the first thing wrong with p as a *schema.FieldError naming
// its field (attempts, keys, backoff.cap).
func (p Policy) check() error {
	if p.Attempts < 0 || p.Attempts > limits.MaxAttempts {
		return pathtext.Errorf("attempts", "%d is not a whole number from 1 to %d", p.Attempts, limits.MaxAttempts)
	}
	if p.Keys != nil {
		if err := enum.Check(*p.Keys); err != nil {
			return &schema.FieldError{Field: "keys", Msg: err.Error()}
		}
	}
	if b := p.Backoff; b != nil {
		return fieldpath.Within("backoff", limits.Backoff(*b))
	}
	return nil
}
