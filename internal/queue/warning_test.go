package queue

import (
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// wrapped retries exactly as the strategy.Retry it embeds, but is not one,
// as a strategy written outside the module is not.
type wrapped struct{ strategy.Retry }

// The lease and visibility conditions are the queue's, not strategy.Retry's:
// the livelock (TestOvertakenLeaseCallsCount: a 20 ms lease, a 30 ms
// visibility timeout, ten calls of 50 ms) happens just the same under a
// strategy that is not a strategy.Retry, 19 calls for a job of 10 steps, so
// Warning says so for any strategy: at least one call a step for the lease,
// every step's call once for the visibility timeout, with no strategy at all
// too.
func TestWarningCoversEveryStrategy(t *testing.T) {
	ms := time.Millisecond
	sc := provider.Signup(0, 0)
	for i := range sc.Steps {
		sc.Steps[i].Latency = provider.Latency{Median: 50 * ms}
	}
	cfg := delivery.Defaults()
	cfg.Store, cfg.Lease, cfg.Visibility = delivery.Lease, 20*ms, 30*ms
	s := wrapped{strategy.Retry{Scope: strategy.EachStep, Attempts: 3}}

	stream := rng.NewStream(rng.PCGGenerator().New(1, 0))
	j := jobsim.New(sc, stream)
	x := NewRunner(cfg, s, sc, j, stream, rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(1), 0)))
	out := x.Run()
	x.Close()
	if j.Calls() != 19 || out.Deliveries != 10 {
		t.Fatalf("%d calls, %d deliveries; want the livelock's 19 and 10", j.Calls(), out.Deliveries)
	}

	const want = "lease 20ms is shorter than a step can hold it (50ms), so a live, slow holder is taken over and its work rolled back; " +
		"visibility timeout 30ms is shorter than a delivery can take (500ms), so a message comes back while its delivery still runs"
	for _, tt := range []struct {
		name       string
		strategies []strategy.Strategy
	}{
		{"not a strategy.Retry", []strategy.Strategy{s}},
		{"no strategy", nil},
		{"strategy.Retry", []strategy.Strategy{s.Retry}},
	} {
		if got := cfg.Warning(sc, tt.strategies); got != want {
			t.Errorf("%s: Warning() = %q; want %q", tt.name, got, want)
		}
	}

	// Where a step can fail, a strategy.Retry's own retry loop holds the
	// lease for 3 calls and the longest 100 and 200 ms waits, 450 ms; any
	// other strategy's is its own business, held to the one call.
	failing := provider.Signup(0.01, 0)
	for i := range failing.Steps {
		failing.Steps[i].Latency = provider.Latency{Median: 50 * ms}
	}
	cfg.Lease, cfg.Visibility = 449*ms, time.Minute
	if got, want := cfg.Warning(failing, []strategy.Strategy{s.Retry}), "lease 449ms is shorter than a step can hold it (450ms), so a live, slow holder is taken over and its work rolled back"; got != want {
		t.Errorf("strategy.Retry, steps that fail: Warning() = %q; want %q", got, want)
	}
	if got := cfg.Warning(failing, []strategy.Strategy{s}); got != "" {
		t.Errorf("not a strategy.Retry, a lease of more than one call: Warning() = %q; want none", got)
	}
}
