package delivery

import (
	"errors"
	"slices"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/scenariocheck"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// init makes settings the queue's declarations, decl.Settings[Config].
func init() {
	decl.Register(func() []decl.Setting[Config] { return slices.Clone(settings) })
}

func probability(name, key string, where func(*Config) *float64) decl.Setting[Config] {
	return decl.New(name, key, enum.Probability, where, limits.Probability)
}

func duration(name, key string, where func(*Config) *time.Duration) decl.Setting[Config] {
	return decl.New(name, key, enum.Duration, where, limits.Duration)
}

// settings declares every setting of the queue once, in the order reports list them.
var settings = []decl.Setting[Config]{
	decl.OneOf("backoff", "backoff.policy", func(c *Config) *backoff.Kind { return &c.Backoff.Kind }).With(
		"the `policy` of the wait between attempts: "+decl.BackoffKindsDoc,
		"full-jitter", nil),
	duration("backoff.base", "backoff.base", func(c *Config) *time.Duration { return &c.Backoff.Base }).With(
		"the backoff's base `duration`", "100ms", nil),
	duration("backoff.cap", "backoff.cap", func(c *Config) *time.Duration { return &c.Backoff.Cap }).With(
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
	decl.OneOf("store", "store", func(c *Config) *Store { return &c.Store }).With(
		"the `mode` in which the worker writes a step's key: none, after (check, work, record), loose (check, insert, work), claim (unique insert first) or lease (claim with status, release and takeover)",
		"claim", nil),
	duration("ttl", "ttl", func(c *Config) *time.Duration { return &c.TTL }).With(
		"keys expire this `duration` after they are written (0: never)", "24h", nil),
	duration("lease", "lease", func(c *Config) *time.Duration { return &c.Lease }).With(
		"a lease holds this `duration` before another delivery may take it over, even from a live, slow holder (more than 0; queue.store lease only)",
		"30s", func(c Config) error { return limits.Lease(c.Lease) }),
	duration("visibility", "visibility", func(c *Config) *time.Duration { return &c.Visibility }).With(
		"the queue's visibility timeout: an unacked message comes back after this `duration`", "30s",
		func(c Config) error {
			if c.Visibility == 0 {
				return errors.New("the visibility timeout must be longer than 0s")
			}
			return nil
		}),
	decl.Whole("max_deliveries", "max_deliveries", 1, limits.DeliveryDeliveries, func(c *Config) *int { return &c.MaxDeliveries }).With(
		"dead-letter a message after `n` deliveries, 1 to 1000", "10", nil),
	probability("repeat", "repeat", func(c *Config) *float64 { return &c.RepeatP }).With(
		"`probability` that a request is sent twice", "0.01", nil),
	decl.New("repeat_delay", "repeat_delay", enum.Latency, func(c *Config) *provider.Latency { return &c.RepeatDelay }, scenariocheck.Latency).With(
		"the second copy arrives this `d` (or lognormal median:p99, median above 0) after the first; needs queue.repeat",
		"{median: 2s, p99: 60s}", nil),
	probability("crash", "crash", func(c *Config) *float64 { return &c.CrashP }).With(
		"`probability` that a worker dies at queue.crash_at, each time a step passes it", "0.001", nil),
	decl.OneOf("crash_at", "crash_at", func(c *Config) *CrashPoint { return &c.CrashAt }).With(
		"the `point` where workers die: before-key, after-key (between the key and the work), after-work (between the work and the key record) or before-ack; needs queue.crash",
		"after-key", nil),
	decl.Whole("max_crashes", "max_crashes", 0, limits.DeliveryCrashes, func(c *Config) *int { return &c.MaxCrashes }).With(
		"at most `n` crashes a job, 0 to 1000 (0: no bound); needs queue.crash", "3", nil),
}
