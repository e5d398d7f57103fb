package provider

import (
	"fmt"

	"github.com/retrysim/retrysim/backoff"
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

var keyModeNames = [...]string{"none", "fresh", "same"}

// String names the key mode as scenario files spell it.
func (k KeyMode) String() string {
	if k < 0 || int(k) >= len(keyModeNames) {
		return fmt.Sprintf("KeyMode(%d)", int(k))
	}
	return keyModeNames[k]
}

// ParseKeyMode reads a key mode name: none, fresh or same.
func ParseKeyMode(s string) (KeyMode, error) {
	for i, n := range keyModeNames {
		if n == s {
			return KeyMode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown key mode %q (want none, fresh or same)", s)
}

// MaxAttempts bounds the calls any retry loop may make, a step's own included,
// so that no counter can overflow.
const MaxAttempts = 1000

// Policy is a step's own retry settings. Its zero value keeps the run's: a
// field set overrides the run's for this step only.
type Policy struct {
	// Attempts bounds the step's own retry loop, the first call included
	// (1 to MaxAttempts); 0 keeps the run's.
	Attempts int
	// Keys is the key mode of the step's calls; nil keeps the run's.
	Keys *KeyMode
	// Backoff is the wait between the step's own attempts, in the delivery
	// model; nil keeps the run's.
	Backoff *backoff.Policy
}

// AttemptsOr is p's attempts, or run's when p keeps the run's.
func (p Policy) AttemptsOr(run int) int {
	if p.Attempts == 0 {
		return run
	}
	return p.Attempts
}

// KeysOr is p's key mode, or run's when p keeps the run's.
func (p Policy) KeysOr(run KeyMode) KeyMode {
	if p.Keys == nil {
		return run
	}
	return *p.Keys
}

// BackoffOr is p's backoff, or run's when p keeps the run's.
func (p Policy) BackoffOr(run backoff.Policy) backoff.Policy {
	if p.Backoff == nil {
		return run
	}
	return *p.Backoff
}

// Check reports the first thing wrong with p, naming its field.
func (p Policy) Check() error {
	if p.Attempts < 0 || p.Attempts > MaxAttempts {
		return fmt.Errorf("attempts: %d is not a whole number from 1 to %d", p.Attempts, MaxAttempts)
	}
	if p.Keys != nil && (*p.Keys < NoKeys || *p.Keys > SameKey) {
		return fmt.Errorf("keys: %v is not a key mode", *p.Keys)
	}
	if b := p.Backoff; b != nil {
		if !b.Kind.Valid() {
			return fmt.Errorf("backoff.policy: %d is not a backoff policy", b.Kind)
		}
		if err := CheckDuration(b.Base); err != nil {
			return fmt.Errorf("backoff.base: %v", err)
		}
		if err := CheckDuration(b.Cap); err != nil {
			return fmt.Errorf("backoff.cap: %v", err)
		}
	}
	return nil
}
