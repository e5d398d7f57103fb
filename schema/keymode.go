package schema

// KeyMode is which idempotency key an attempt carries, in every model: the
// job model's steps, the delivery model's and the fleet's requests.
type KeyMode int

const (
	// NoKeys sends no key: every attempt that reaches the server does the
	// work again.
	NoKeys KeyMode = iota
	// FreshKeys sends a new key on every attempt, which protects nothing
	// against a retry; in the fleet a hedge's copies of one attempt share
	// its key.
	FreshKeys
	// SameKey sends the key of the business action, unchanged on every
	// attempt: the server stores a completed key's reply and returns it.
	SameKey
)

// KeyModes is the enumeration of the key modes, named as scenario files
// spell them: none, fresh, same.
func KeyModes() Enum[KeyMode] { return keyModes }

var keyModes = NewEnum[KeyMode]("key mode", "none", "fresh", "same")

// String names the key mode as scenario files spell it.
func (k KeyMode) String() string { return keyModes.String(k) }

// MarshalText is the key mode's name.
func (k KeyMode) MarshalText() ([]byte, error) { return keyModes.MarshalText(k) }

// UnmarshalText reads a key mode's name.
func (k *KeyMode) UnmarshalText(text []byte) error { return keyModes.UnmarshalText(text, k) }
