package delivery

import (
	"errors"
	"fmt"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// Setting is one setting of a Config, declared once in Settings: its name,
// its key in a scenario file, what it means, what values it takes, an
// example, and its field in a Config. Override, a sweep's axes, the
// command's flags and help, the scenario file's queue section and its reference, and Check
// are all read from it; its default is its value in Defaults.
type Setting struct {
	// Name is the setting's path under the queue, as Override and a sweep
	// name it after "queue.": ttl, backoff.base, backoff (the backoff's policy).
	Name string
	// Key is its path in a scenario file's queue section, a dot for a
	// nested mapping: ttl, backoff.base, backoff.policy. Check's
	// *schema.FieldError names it.
	Key string
	// Doc says what it means, its argument's name in backquotes, as package
	// flag reads a flag's help; it names other settings by their full
	// paths, as Override takes them (queue.store), which a command's help
	// turns into its flags' names.
	Doc string
	// Kind is what values it takes.
	Kind schema.Kind
	// Min and Max bound a whole number (Kind schema.Whole).
	Min, Max int
	// Example is a value a scenario file may give it, as YAML.
	Example string

	// get is the setting's field in c, of its own type; set sets the field in c to v, of its own type, reporting false for a
	// value of another type; setText sets it from its name (a schema.OneOf).
	get     func(c Config) any
	set     func(c *Config, v any) bool
	setText func(c *Config, text string) error
	// bounds refuses the field's value in c where its kind bounds it; rule,
	// if not nil, refuses what the setting's own meaning does.
	bounds, rule func(c Config) error
}

// Settings declares every setting of the queue once, in the order reports
// list them: the backoff's policy, base and cap first, then the store and
// the queue's own. The result is a fresh slice.
func Settings() []Setting { return append([]Setting(nil), settings...) }

// Get is the setting's value in c, of the field's own type: a float64 for
// a probability, an int for a whole number, a time.Duration, a
// provider.Latency, or the enumeration's type (Store, backoff.Kind,
// CrashPoint).
func (s Setting) Get(c Config) any { return s.get(c) }

// Set sets the setting in c to v, of the field's own type (Get); it reports
// false, and changes nothing, for a value of another type.
func (s Setting) Set(c *Config, v any) bool { return s.set(c, v) }

// SetText sets a setting of kind schema.OneOf in c from its value's name,
// as a scenario file writes it; an unknown name is refused with the names
// allowed.
func (s Setting) SetText(c *Config, text string) error {
	if s.setText == nil {
		return fmt.Errorf("%s is not set by a name", s.Name)
	}
	return s.setText(c, text)
}

// check refuses the setting's value in c that Config.Check refuses, as a
// *schema.FieldError naming its Key.
func (s Setting) check(c Config) error {
	for _, check := range []func(Config) error{s.bounds, s.rule} {
		if check == nil {
			continue
		}
		if err := check(c); err != nil {
			return &schema.FieldError{Field: s.Key, Msg: err.Error()}
		}
	}
	return nil
}

// newSetting is the setting of kind k whose field where returns, bounded
// by check.
func newSetting[T any](name, key string, k schema.Kind, where func(*Config) *T, check func(T) error) Setting {
	return Setting{
		Name: name, Key: key, Kind: k,
		get: func(c Config) any { return *where(&c) },
		set: func(c *Config, v any) bool {
			x, ok := v.(T)
			if ok {
				*where(c) = x
			}
			return ok
		},
		bounds: func(c Config) error { return check(*where(&c)) },
	}
}

func probability(name, key string, where func(*Config) *float64) Setting {
	return newSetting(name, key, schema.Probability, where, limits.Probability)
}

func duration(name, key string, where func(*Config) *time.Duration) Setting {
	return newSetting(name, key, schema.Duration, where, limits.Duration)
}

func latency(name, key string, where func(*Config) *provider.Latency) Setting {
	return newSetting(name, key, schema.Latency, where, provider.Latency.Check)
}

func whole(name, key string, lo, hi int, where func(*Config) *int) Setting {
	s := newSetting(name, key, schema.Whole, where, func(n int) error {
		if n < lo || n > hi {
			return fmt.Errorf("%d is not a whole number from %d to %d", n, lo, hi)
		}
		return nil
	})
	s.Min, s.Max = lo, hi
	return s
}

func oneOf[T ~int](name, key string, e schema.Enum[T], where func(*Config) *T) Setting {
	s := newSetting(name, key, schema.OneOf, where, e.Check)
	s.setText = func(c *Config, text string) error { return e.UnmarshalText([]byte(text), where(c)) }
	return s
}

// with is s with its doc and example, and rule if not nil.
func (s Setting) with(doc, example string, rule func(Config) error) Setting {
	s.Doc, s.Example, s.rule = doc, example, rule
	return s
}

var settings = []Setting{
	oneOf("backoff", "backoff.policy", backoff.Kinds(), func(c *Config) *backoff.Kind { return &c.Backoff.Kind }).with(
		"the `policy` of the wait between attempts: "+backoff.KindsDoc(),
		"full-jitter", nil),
	duration("backoff.base", "backoff.base", func(c *Config) *time.Duration { return &c.Backoff.Base }).with(
		"the backoff's base `duration`", "100ms", nil),
	duration("backoff.cap", "backoff.cap", func(c *Config) *time.Duration { return &c.Backoff.Cap }).with(
		"the backoff's cap `duration`", "2s",
		// the backoff's own rule: a cap, where the policy reads one, is not
		// below the base
		func(c Config) error {
			var fe *schema.FieldError
			if err := c.Backoff.Check(); errors.As(err, &fe) && fe.Field == "cap" {
				return errors.New(fe.Msg)
			}
			return nil
		}),
	oneOf("store", "store", stores, func(c *Config) *Store { return &c.Store }).with(
		"the `mode` in which the worker writes a step's key: none, after (check, work, record), loose (check, insert, work), claim (unique insert first) or lease (claim with status, release and takeover)",
		"claim", nil),
	duration("ttl", "ttl", func(c *Config) *time.Duration { return &c.TTL }).with(
		"keys expire this `duration` after they are written (0: never)", "24h", nil),
	duration("lease", "lease", func(c *Config) *time.Duration { return &c.Lease }).with(
		"a lease holds this `duration` before another delivery may take it over, even from a live, slow holder (more than 0; queue.store lease only)",
		"30s", func(c Config) error { return limits.Lease(c.Lease) }),
	duration("visibility", "visibility", func(c *Config) *time.Duration { return &c.Visibility }).with(
		"the queue's visibility timeout: an unacked message comes back after this `duration`", "30s",
		func(c Config) error {
			if c.Visibility == 0 {
				return errors.New("the visibility timeout must be longer than 0s")
			}
			return nil
		}),
	whole("max_deliveries", "max_deliveries", 1, limits.DeliveryDeliveries, func(c *Config) *int { return &c.MaxDeliveries }).with(
		"dead-letter a message after `n` deliveries, 1 to 1000", "10", nil),
	probability("repeat", "repeat", func(c *Config) *float64 { return &c.RepeatP }).with(
		"`probability` that a request is sent twice", "0.01", nil),
	latency("repeat_delay", "repeat_delay", func(c *Config) *provider.Latency { return &c.RepeatDelay }).with(
		"the second copy arrives this `d` (or lognormal median:p99, median above 0) after the first; needs queue.repeat",
		"{median: 2s, p99: 60s}", nil),
	probability("crash", "crash", func(c *Config) *float64 { return &c.CrashP }).with(
		"`probability` that a worker dies at queue.crash_at, each time a step passes it", "0.001", nil),
	oneOf("crash_at", "crash_at", crashPoints, func(c *Config) *CrashPoint { return &c.CrashAt }).with(
		"the `point` where workers die: before-key, after-key (between the key and the work), after-work (between the work and the key record) or before-ack; needs queue.crash",
		"after-key", nil),
	whole("max_crashes", "max_crashes", 0, limits.DeliveryCrashes, func(c *Config) *int { return &c.MaxCrashes }).with(
		"at most `n` crashes a job, 0 to 1000 (0: no bound); needs queue.crash", "3", nil),
}
