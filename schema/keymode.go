package schema

import "github.com/retrysim/retrysim/internal/enum"

// KeyMode is which idempotency key an attempt carries, in every model.
type KeyMode int

const (
	// NoKeys sends no key: every attempt that reaches the server does the work again.
	NoKeys KeyMode = iota
	// FreshKeys sends a new key on every attempt (a hedge's copies share their attempt's key).
	FreshKeys
	// SameKey sends the business action's key on every attempt; the server stores its reply.
	SameKey
)

// keyModes names the key modes as scenario files spell them.
var keyModes = enum.New[KeyMode]("key mode", "none", "fresh", "same")

// String names the key mode as scenario files spell it.
func (k KeyMode) String() string { return keyModes.String(k) }

// MarshalText is the key mode's name.
func (k KeyMode) MarshalText() ([]byte, error) { return keyModes.MarshalText(k) }

// UnmarshalText reads a key mode's name.
func (k *KeyMode) UnmarshalText(text []byte) error { return keyModes.UnmarshalText(text, k) }
