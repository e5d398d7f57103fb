package retrysim_test

import (
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/limits"
)

// TestBackoffOneContract holds every model to backoff.Policy.Check: a step's
// own policy, the delivery model's queue and a fleet client accept and
// refuse the same policies, and a Cap of 0 is no cap in each. Before, a cap
// of 0 passed delivery and failed the fleet ("NoCap is no cap"), and a cap
// below the base failed delivery and passed the fleet.
func TestBackoffOneContract(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    backoff.Policy
		ok   bool
	}{
		{"cap 0 is no cap", backoff.Policy{Kind: backoff.Exponential, Base: time.Second}, true},
		{"cap below the base", backoff.Policy{Kind: backoff.Exponential, Base: time.Second, Cap: time.Millisecond}, false},
		{"cap above the base", backoff.Policy{Kind: backoff.FullJitter, Base: time.Second, Cap: 2 * time.Second}, true},
		{"a constant reads no cap", backoff.Policy{Kind: backoff.Constant, Base: time.Second, Cap: time.Millisecond}, true},
		{"kind 99", backoff.Policy{Kind: 99, Base: time.Second}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := delivery.Defaults()
			d.Backoff = tc.p
			f := fleet.DefaultConfig()
			f.Client.Attempts, f.Client.Backoff = 3, tc.p
			for _, m := range []struct {
				model string
				err   error
			}{
				{"backoff.Policy.Check", tc.p.Check()},
				{"limits.Backoff", limits.Backoff(tc.p)},
				{"delivery.Config.Check", d.Check()},
				{"fleet.Config.Check", f.Check()},
			} {
				if (m.err == nil) != tc.ok {
					t.Errorf("%s(%+v) = %v; want accepted %v", m.model, tc.p, m.err, tc.ok)
				}
			}
		})
	}
}
