package fleet

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/schema"
)

// memorylessConfig is a small Memoryless run: two workers, three queue
// places, exponential timeouts and backoffs.
func memorylessConfig() Config {
	c := DefaultConfig()
	c.Duration = 30 * time.Second
	c.Load = Shape{Kind: ConstantLoad, Rate: 1.8}
	c.Server = Server{Kind: QueueServer, Workers: 2, QueueMax: 3, Service: Service{Dist: ExponentialService, Median: time.Second}}
	c.Net = 0
	c.Client.Attempts = limits.FleetAttempts
	c.memoryless = fleetdata.Memoryless{On: true, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 6}
	return c
}

// span is one span a Tracer showed.
type span struct {
	from, to float64
	st       fleetdata.MarkovState
}

// spansOf runs tr to its end (or stopAfter spans, then resumes, repeatedly)
// and returns the spans it showed.
func spansOf(t *testing.T, tr fleetdata.Tracer, stopEvery int) []span {
	t.Helper()
	var out []span
	for {
		stopped, err := tr.Run(context.Background(), func(from, to float64, st fleetdata.MarkovState) bool {
			out = append(out, span{from, to, st})
			return stopEvery > 0 && len(out)%stopEvery == 0
		})
		if err != nil {
			t.Fatal(err)
		}
		if !stopped {
			return out
		}
	}
}

// A Tracer shows contiguous spans from 0 to +Inf, never an empty one, with
// the orbit within its cap; stopping and resuming it changes nothing; it
// starts from the streams Run gives the seed's replicate.
func TestTracerStopsAndResumes(t *testing.T) {
	cfg := memorylessConfig()
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	whole := spansOf(t, newTracer(&cfg, 7), 0)
	if len(whole) < 100 || whole[0].from != 0 || whole[len(whole)-1].to < 1e308 {
		t.Fatalf("%d spans, from %v to %v", len(whole), whole[0], whole[len(whole)-1])
	}
	orbit := 0
	for i, s := range whole {
		if s.to <= s.from || (i > 0 && s.from != whole[i-1].to) || s.st.Orbit < 0 || s.st.Orbit > cfg.memoryless.Orbit {
			t.Fatalf("span %d: %+v after %+v", i, s, whole[max(i-1, 0)])
		}
		orbit = max(orbit, s.st.Orbit)
	}
	if orbit == 0 {
		t.Errorf("the orbit never held a request")
	}
	if got := spansOf(t, newTracer(&cfg, 7), 13); !slices.Equal(got, whole) {
		t.Errorf("stopped every 13 spans and resumed: %d spans, not the %d of one run", len(got), len(whole))
	}
	if got := spansOf(t, newTracer(&cfg, 8), 0); slices.Equal(got, whole) {
		t.Errorf("seeds 7 and 8 gave the same trace")
	}
}

// A split goes on from the state it was split in: two splits with the same
// seed show the same spans, splits with another seed other ones, and each,
// as the original, goes on from the end of the span the original stopped in.
func TestTracerSplit(t *testing.T) {
	cfg := memorylessConfig()
	tr := newTracer(&cfg, 3)
	var at float64 // the end of the span the original stopped in
	if _, err := tr.Run(context.Background(), func(_, to float64, st fleetdata.MarkovState) bool {
		at = to
		return st.Orbit >= 2
	}); err != nil {
		t.Fatal(err)
	}
	a, b, c := tr.Split(100), tr.Split(100), tr.Split(101)
	ta, tb, tc := spansOf(t, a, 0), spansOf(t, b, 0), spansOf(t, c, 0)
	if !slices.Equal(ta, tb) || slices.Equal(ta, tc) {
		t.Errorf("splits with seed 100 agree: %v; with 100 and 101: %v", slices.Equal(ta, tb), slices.Equal(ta, tc))
	}
	rest := spansOf(t, tr, 0)
	if ta[0].from != at || tc[0].from != at || rest[0].from != at {
		t.Errorf("the splits go on from %g and %g and the original from %g; want %g, where the span the original stopped in ends",
			ta[0].from, tc[0].from, rest[0].from, at)
	}
}

// Check refuses a Memoryless run whose law is not the chain's with a
// *schema.FieldError naming memoryless, or its field at fault, and the settings
// it needs by their paths.
func TestMemorylessCheck(t *testing.T) {
	for _, tt := range []struct {
		change      func(*Config)
		field, want string
	}{
		{func(c *Config) { c.Server.Kind = LatencyServer }, "memoryless", "memoryless: needs server.kind queue with server.service.dist exp, not latency with exp"},
		{func(c *Config) { c.Server.Service.Dist = LognormalService }, "memoryless", "memoryless: needs server.kind queue with server.service.dist exp, not queue with lognormal"},
		{func(c *Config) { c.Net = 100 * time.Millisecond }, "memoryless", "memoryless: needs net 0, not 100ms"},
		{func(c *Config) { c.Client.Hedges = 1 }, "memoryless", "memoryless: needs client.hedges 0, client.keys none and client.policy.kind unlimited"},
		{func(c *Config) { c.Client.Keys = schema.SameKey }, "memoryless", "memoryless: needs client.hedges 0, client.keys none and client.policy.kind unlimited"},
		{func(c *Config) { c.Outage = Outage{From: time.Second, To: 2 * time.Second} }, "memoryless", "memoryless: needs no outage"},
		{func(c *Config) { c.memoryless.RetryProb = 1.5 }, "memoryless.retry_prob", "memoryless.retry_prob: 1.5 is not a probability in [0, 1]"},
		{func(c *Config) { c.memoryless.Orbit = -1 }, "memoryless.orbit", "memoryless.orbit: -1 is not from 0 to 1000000"},
		{func(c *Config) { c.memoryless.TimeoutRate = 0 }, "memoryless.timeout_rate", "memoryless.timeout_rate: 0 is not a rate above 0 and at most 1e+06 a second"},
		{func(c *Config) { c.memoryless.BackoffRate = 2e6 }, "memoryless.backoff_rate", "memoryless.backoff_rate: 2e+06 is not a rate above 0 and at most 1e+06 a second"},
	} {
		c := memorylessConfig()
		tt.change(&c)
		err := c.Check()
		var fe *schema.FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || err.Error() != tt.want {
			t.Errorf("Check() = %v; want a *schema.FieldError for %s: %s", err, tt.field, tt.want)
		}
	}
}
