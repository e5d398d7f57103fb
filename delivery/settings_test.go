package delivery

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// Check refuses, for every setting of the table, a value outside what its
// kind and bounds allow, or what its own rule refuses, as a
// *schema.FieldError naming the setting's key; the defaults pass.
func TestCheckEverySetting(t *testing.T) {
	if err := Defaults().Check(); err != nil {
		t.Fatalf("Defaults().Check() = %v; want nil", err)
	}
	for _, tt := range []struct {
		change func(*Config)
		want   string
	}{
		{func(c *Config) { c.Backoff.Kind = 11 }, "backoff.policy: 11 is not a backoff (want one of none, constant, exponential, full-jitter, equal-jitter, decorrelated, sidekiq, river, grpc, oban, temporal)"},
		{func(c *Config) { c.Backoff.Base = -time.Second }, "backoff.base: -1s is negative"},
		{func(c *Config) { c.Backoff.Cap = 8761 * time.Hour }, "backoff.cap: 8761h is longer than the 8760h (365 days) a duration may be"},
		{func(c *Config) { c.Backoff.Cap = 50 * time.Millisecond }, "backoff.cap: 50ms is below the base 100ms (0 means no cap)"},
		{func(c *Config) { c.Store = 9 }, "store: 9 is not a store (want one of none, after, loose, claim, lease)"},
		{func(c *Config) { c.TTL = -time.Hour }, "ttl: -1h is negative"},
		{func(c *Config) { c.Lease = 0 }, "lease: a lease must be longer than 0s (one that ran out at once would hold nothing)"},
		{func(c *Config) { c.Visibility = 0 }, "visibility: the visibility timeout must be longer than 0s"},
		{func(c *Config) { c.MaxDeliveries = 0 }, "max_deliveries: 0 is not a whole number from 1 to 1000"},
		{func(c *Config) { c.MaxDeliveries = 1001 }, "max_deliveries: 1001 is not a whole number from 1 to 1000"},
		{func(c *Config) { c.RepeatP = 1.5 }, "repeat: 1.5 is not a probability in [0, 1]"},
		{func(c *Config) { c.RepeatDelay = provider.Latency{P99: time.Second} }, "repeat_delay: a p99 (1s) needs a median above 0"},
		{func(c *Config) { c.CrashP = math.NaN() }, "crash: NaN is not a probability in [0, 1]"},
		{func(c *Config) { c.CrashAt = -1 }, "crash_at: -1 is not a crash point (want one of before-key, after-key, after-work, before-ack)"},
		{func(c *Config) { c.MaxCrashes = -1 }, "max_crashes: -1 is not a whole number from 0 to 1000"},
	} {
		c := Defaults()
		tt.change(&c)
		err := c.Check()
		var fe *schema.FieldError
		if err == nil || err.Error() != tt.want || !errors.As(err, &fe) {
			t.Errorf("Check() = %v; want the *schema.FieldError %s", err, tt.want)
		}
	}
}

// A setting's Set takes a value of its field's type only, and Get reads it back.
func TestSettingSetGet(t *testing.T) {
	for _, s := range decl.Settings[Config]() {
		var c Config
		v := s.Get(Defaults())
		if !s.Set(&c, v) || s.Get(c) != v {
			t.Errorf("%s: Set(Get(Defaults())) then Get = %v; want %v", s.Name, s.Get(c), v)
		}
		if s.Set(&c, "text") {
			t.Errorf("%s: Set took a string", s.Name)
		}
	}
	var c Config
	if err := decl.Settings[Config]()[0].SetText(&c, "grpc"); err != nil || c.Backoff.Kind != backoff.GRPC {
		t.Errorf("backoff SetText(grpc) = %v, %v; want the grpc policy", c.Backoff.Kind, err)
	}
}
