package fleet

import (
	"context"
	"math"
	"slices"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/schema"
)

// checkMemoryless refuses a Memoryless run whose law is not the chain's.
func (c *Config) checkMemoryless() error {
	m := c.memoryless
	if !m.On {
		return nil
	}
	rate := func(path string, v float64) error {
		if math.IsNaN(v) || v <= 0 || v > limits.FleetRate {
			return pathtext.Errorf(path, "%g is not a rate above 0 and at most %g a second", v, float64(limits.FleetRate))
		}
		return nil
	}
	switch {
	case c.Server.Kind != QueueServer || c.Server.Service.Dist != ExponentialService:
		return pathtext.Errorf("memoryless", "needs %s %v with %s %v, not %v with %v", pathtext.Path("server.kind"), QueueServer, pathtext.Path("server.service.dist"), ExponentialService, c.Server.Kind, c.Server.Service.Dist)
	case c.Net != 0:
		return pathtext.Errorf("memoryless", "needs net 0, not %s", human.Duration(c.Net))
	case c.Client.Hedges != 0 || c.Client.Keys != schema.NoKeys || c.Client.Policy.Kind != Unlimited:
		return pathtext.Errorf("memoryless", "needs %s 0, %s %v and %s %v", pathtext.Path("client.hedges"), pathtext.Path("client.keys"), schema.NoKeys, pathtext.Path("client.policy.kind"), Unlimited)
	case c.Outage.On():
		return pathtext.Errorf("memoryless", "needs no outage")
	case math.IsNaN(m.RetryProb) || m.RetryProb < 0 || m.RetryProb > 1:
		return pathtext.Errorf("memoryless.retry_prob", "%g is not a probability in [0, 1]", m.RetryProb)
	case m.Orbit < 0 || m.Orbit > limits.FleetOrbit:
		return pathtext.Errorf("memoryless.orbit", "%d is not from 0 to %d", m.Orbit, limits.FleetOrbit)
	}
	if err := rate("memoryless.timeout_rate", m.TimeoutRate); err != nil {
		return err
	}
	return rate("memoryless.backoff_rate", m.BackoffRate)
}

// retryMemoryless is retry under Memoryless: to the orbit, if it has room,
// with probability RetryProb, else a failure.
func (s *sim) retryMemoryless(slot int32, timeout bool) {
	m := &s.mem
	r := &s.reqs[slot]
	if s.rnd.Float64() >= m.RetryProb || s.orbit >= m.Orbit {
		s.fail(slot, false)
		return
	}
	s.orbit++
	r.timedOut = timeout
	s.second(s.edges[0].series, s.now).RetriesDecided++
	s.backoffs(&s.edges[0], 1)
	s.push(event{t: s.now + s.exp(1/m.BackoffRate), slot: slot, kind: evSend})
}

// tracer is fleetdata.Tracer on the engine.
type tracer struct {
	s     *sim
	shown float64
}

// newTracer starts replicate seed of cfg, which must have passed Check with
// Memoryless on, on Run's streams.
func newTracer(cfg *Config, seed uint64) *tracer {
	return &tracer{s: newSim(cfg, seed)}
}

// Run is fleetdata.Tracer's.
func (t *tracer) Run(ctx context.Context, f func(from, to float64, st fleetdata.MarkovState) bool) (stopped bool, err error) {
	s := t.s
	s.watch = func(from, to float64) bool {
		if to <= t.shown {
			return false
		}
		t.shown = to
		stopped = f(from, to, fleetdata.MarkovState{InServer: int(s.svcs[0].n), Orbit: s.orbit})
		return stopped
	}
	defer func() { s.watch = nil }()
	err = s.simulate(ctx)
	return stopped, err
}

// Split is fleetdata.Tracer's.
func (t *tracer) Split(seed uint64) fleetdata.Tracer {
	s := *t.s
	s.h = t.s.h.clone()
	s.tq = slices.Clone(t.s.tq)
	for i := range s.tq {
		s.tq[i].buf = slices.Clone(s.tq[i].buf)
	}
	s.reqs = slices.Clone(t.s.reqs)
	s.fresh = slices.Clone(t.s.fresh)
	s.free = slices.Clone(t.s.free)
	s.edges = slices.Clone(t.s.edges)
	s.svcs = slices.Clone(t.s.svcs)
	for v := range s.svcs {
		s.svcs[v].queue.buf = slices.Clone(s.svcs[v].queue.buf)
		s.svcs[v].heldAt.buf = slices.Clone(s.svcs[v].heldAt.buf)
		s.svcs[v].series = slices.Clone(s.svcs[v].series)
	}
	for i := range s.edges {
		s.edges[i].series = s.svcs[s.edges[i].to].series
	}
	s.arrivals = slices.Clone(t.s.arrivals)
	g := rng.PCGGenerator()
	s.arrivals[0].src.Reset(g.New(seed, 0))
	s.rnd.Reset(g.New(seed, 1))
	return &tracer{s: &s, shown: t.shown}
}

// Events is fleetdata.Tracer's.
func (t *tracer) Events() int64 { return t.s.events }

// splitPathSlack bounds what a Memoryless path holds beyond simFixed and its
// series (TestSplitBytesBoundAPath).
const splitPathSlack = 16 << 10

// pathBytes bounds the memory of one tracer on cfg, a path of a splitting.
func pathBytes(cfg *Config) float64 { return simFixed + cfg.cost().Series + splitPathSlack }
