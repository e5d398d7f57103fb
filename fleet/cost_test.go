package fleet

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/schema"
)

// footprint is the bytes a finished replicate's state holds: every slice and
// ring at its largest capacity (none shrinks), the policy states, the
// series and the sim itself. It is what Cost.Bytes bounds.
func footprint(s *sim) float64 {
	b := unsafe.Sizeof(*s) + uintptr(cap(s.reqs))*unsafe.Sizeof(request{}) + uintptr(cap(s.free))*4 + uintptr(s.h.bytes()) +
		uintptr(cap(s.edges))*unsafe.Sizeof(edgeSim{}) + uintptr(cap(s.svcs))*unsafe.Sizeof(svcSim{}) + uintptr(cap(s.arrivals))*unsafe.Sizeof(arrival{}) +
		uintptr(cap(s.tq))*unsafe.Sizeof(fifo[event]{}) + uintptr(cap(s.up))*4 + uintptr(cap(s.jobs))*unsafe.Sizeof(job{}) + uintptr(cap(s.freeJobs))*4 +
		uintptr(cap(s.keys))*unsafe.Sizeof(keyRecord{}) + uintptr(cap(s.books))*unsafe.Sizeof(jobBook{}) + uintptr(cap(s.leased))*2
	for i := range s.tq {
		b += uintptr(len(s.tq[i].buf)) * unsafe.Sizeof(event{})
	}
	var pols []Policy
	for i := range s.svcs {
		v := &s.svcs[i]
		b += uintptr(len(v.queue.buf))*unsafe.Sizeof(waiter{}) + uintptr(cap(v.series))*unsafe.Sizeof(fleetdata.Second{})
	}
	for i := range s.edges {
		b += uintptr(cap(s.edges[i].pols)) * 16
		pols = append(pols, s.edges[i].pols...)
	}
	for _, p := range pols {
		switch p := p.(type) {
		case *finagleBudget:
			b += unsafe.Sizeof(*p) + uintptr(len(p.log.buf))*unsafe.Sizeof(stamped{})
		case *slidingBreaker:
			b += unsafe.Sizeof(*p) + uintptr(len(p.log.buf))*unsafe.Sizeof(stamped{})
		case *sreThrottle:
			b += unsafe.Sizeof(*p) + uintptr(len(p.requests.buf)+len(p.accepts.buf))*8
		case *grpcAdaptive:
			b += unsafe.Sizeof(*p) + uintptr(len(p.accepts.bins.buf)+len(p.throttles.bins.buf))*unsafe.Sizeof(stamped{})
		case unlimited:
		default:
			b += reflect.TypeOf(p).Elem().Size()
		}
	}
	return float64(b)
}

// checkCost runs one replicate of c and fails t if a count or the memory it
// held passes its bound.
func checkCost(t *testing.T, c Config, seed uint64) {
	t.Helper()
	e := c.cost()
	s := newSim(&c, rng.ReplicateSeed(seed, 0))
	r, _ := s.run(context.Background())
	for _, b := range []struct {
		what      string
		got, want float64
	}{
		{"requests", float64(r.Requests), e.Requests},
		{"calls", float64(r.Calls), e.Calls},
		{"events", float64(r.Events), e.Events},
		{"request slots", float64(len(s.reqs)), e.InFlight},
		{"bytes", footprint(s), e.Bytes},
	} {
		if b.got > b.want {
			t.Errorf("%s: %s = %g; bound %g", c.Name, b.what, b.got, b.want)
		}
	}
}

// The request slot is 48 bytes (56 before its effects counter became a
// byte and pending moved before the bytes): the figure Cost multiplies by
// the requests in flight.
func TestRequestSlotBytes(t *testing.T) {
	if n := unsafe.Sizeof(request{}); n != 48 {
		t.Errorf("a request slot is %d bytes; want 48", n)
	}
}

// Slots of requests a policy refuses at the start are reused: a breaker
// held open refuses nearly every request, and the slots held stay near the
// few let through, where each refused request kept its slot for good.
func TestRefusedRequestFreesSlot(t *testing.T) {
	c := DefaultConfig()
	c.Load.Rate = 1000
	c.Duration = 20 * time.Second
	c.Server = Server{Kind: IndependentServer, Base: 1 * time.Millisecond, PFail: 1}
	c.Net = 0
	c.Client.Policy = PolicyConfig{Kind: SlidingBreaker, Shared: true, FailureRate: 0.5, Window: 10,
		MinCalls: 10, OpenTime: 1000 * time.Second, HalfOpenCalls: 1}
	s := newSim(&c, 1)
	r, _ := s.run(context.Background())
	if r.LocalRejected < 19_000 {
		t.Fatalf("local rejections = %d; want nearly all of 20,000 requests", r.LocalRejected)
	}
	if len(s.reqs) > 10 {
		t.Errorf("slots = %d for %d requests, %d refused; want at most 10", len(s.reqs), r.Requests, r.LocalRejected)
	}
}

// The reproducers of issue 21 are refused before any work, naming the
// setting that makes them costly.
func TestCheckCostRefuses(t *testing.T) {
	big := func(f func(c *Config)) []Config {
		c := DefaultConfig()
		c.Server = Server{Kind: IndependentServer, Base: 10 * time.Millisecond}
		c.Net = 0
		f(&c)
		if err := c.Check(); err != nil {
			t.Fatal(err)
		}
		return []Config{c}
	}
	for _, tc := range []struct {
		name string
		cfgs []Config
		opt  Options
		want string
	}{
		// 24 h timeouts at 100,000 a second for 100 s: 2.2 GB measured.
		{"timeout 24h", big(func(c *Config) { c.Client.Timeout, c.Load.Rate, c.Duration = 24*time.Hour, 1e5, 100*time.Second }),
			Options{Replicates: 1, Workers: 1}, "client.timeout: 24h x 3 attempts at up to 100000 requests a second keeps up to 1e+07 requests in flight"},
		// The latency server at 27,000 a second for an hour: 4 GB in a minute.
		{"latency server", func() []Config {
			c := DefaultConfig()
			c.Load.Rate, c.Duration = 27000, 3600*time.Second
			return []Config{c}
		}(), Options{Replicates: 1, Workers: 1}, "server.slope: a latency of 1s + 10ms a call in progress at up to 27000 requests a second keeps up to 9.73e+07 requests in flight"},
		// One sre-throttle for the fleet keeps every attempt of a day.
		{"sre window 24h", big(func(c *Config) {
			c.Client.Policy = PolicyConfig{Kind: SREThrottle, Shared: true, K: 2, SREWindow: 24 * time.Hour}
			c.Load.Rate, c.Duration = 1e5, 1000*time.Second
		}), Options{Replicates: 1, Workers: 1}, "client.policy.sre_window: the sre-throttle policy's states (1 client, client.policy.shared fleet)"},
		// 100 attempts x 16 copies failing: 1,600 calls a request. Up to
		// 1e6 + 12 x 1e3 + 60 = 1,012,060 requests, each 1 + 1600 x 4 +
		// 100 x 15 = 7,901 events, 10 times: 7.996e10.
		{"attempts x hedges", big(func(c *Config) {
			c.Client.Attempts, c.Client.Hedges, c.Server.PFail = 100, 15, 1
			c.Load.Rate, c.Duration = 1000, 1000*time.Second
		}), Options{Replicates: 10, Workers: 2}, "client.attempts: up to 100 attempts x 16 copies (1 + client.hedges) a request, 10 replicates of up to 1.01e+06 requests can take up to 8e+10 events"},
		// Series: 1000 runs x 100 replicates x 3600 s x 96 bytes are 32 GiB,
		// at 1 request a second (5.6e9 events at most).
		{"series", func() []Config {
			c := DefaultConfig()
			c.Server = Server{Kind: IndependentServer, Base: 10 * time.Millisecond}
			c.Load.Rate, c.Duration = 1, 3600*time.Second
			cfgs := make([]Config, 1000)
			for i := range cfgs {
				cfgs[i] = c
			}
			return cfgs
		}(), Options{Replicates: 100, Workers: 2}, "replicates: 1000 runs x 100 replicates of 1h keep 32."}, // 3.6e8 seconds x 96 bytes (a Second of eight counters and four time integrals or ages: 19.x GiB before Failures, Backlog, Age and Scheduled came, 29.x before Served), and the points
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkCosts(tc.cfgs, tc.opt)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("CheckCost = %v; want one line starting %q", err, tc.want)
			}
		})
	}
}

// The events bound counts what the engine counts: a request whose every
// call fails, with hedges and a backoff, reaches it but for the Poisson
// slack, where each call's events are at the server, done, reply, timeout
// (stale) and a hedge, and each retry's a send.
func TestCostEventsExact(t *testing.T) {
	c := DefaultConfig()
	c.Server = Server{Kind: IndependentServer, Base: 1 * time.Millisecond, PFail: 1}
	c.Net = 0
	c.Load.Rate, c.Duration = 100, 10*time.Second
	c.Client.Attempts, c.Client.Hedges, c.Client.HedgeDelay = 4, 2, 100*time.Microsecond
	c.Client.Backoff = backoff.Schedule{Kind: backoff.Constant, Base: time.Millisecond}
	s := newSim(&c, 1)
	r, _ := s.run(context.Background())
	// The hedges leave 0.1 ms apart, and each call fails 1 ms after it
	// left, so every attempt sends its 3 copies. A request: 1 arrival, 3
	// sends, 4 attempts x 3 copies x 4 events (at the server, done, reply,
	// stale timeout) and 4 x 2 hedge events.
	perRequest := float64(1 + 3 + 12*4 + 4*2)
	if got := float64(r.Events) / float64(r.Requests); got != perRequest {
		t.Errorf("events a request = %g; want %g", got, perRequest)
	}
	e := c.cost()
	if want := e.Requests * perRequest; e.Events != want {
		t.Errorf("Cost().Events = %g; want %g requests x %g", e.Events, e.Requests, perRequest)
	}
	checkCost(t, c, 1)
}

// FuzzCostBound builds a fleet configuration from the fuzzer's numbers
// through the public types, and any that passes Check and whose cost is
// small enough to run in a moment must stay within its bounds: requests,
// calls, events, request slots held and bytes held.
func FuzzCostBound(f *testing.F) {
	f.Add(uint16(40), uint8(60), uint8(0), uint16(1000), uint16(10), uint16(3000), uint8(3), uint8(0), uint16(50), uint8(0), uint8(0), false, uint16(1), uint16(100), uint8(0), uint8(0), uint8(0), uint16(0), uint64(1))
	f.Add(uint16(500), uint8(10), uint8(3), uint16(1), uint16(0), uint16(60000), uint8(100), uint8(15), uint16(10), uint8(3), uint8(8), true, uint16(3), uint16(0), uint8(255), uint8(1), uint8(1), uint16(5), uint64(2))
	f.Add(uint16(300), uint8(30), uint8(1), uint16(100), uint16(0), uint16(200), uint8(4), uint8(2), uint16(20), uint8(5), uint8(7), false, uint16(50), uint16(20), uint8(128), uint8(2), uint8(0), uint16(2), uint64(3))
	f.Add(uint16(200), uint8(20), uint8(2), uint16(10), uint16(5), uint16(500), uint8(26), uint8(1), uint16(5), uint8(6), uint8(5), true, uint16(2), uint16(5), uint8(64), uint8(1), uint8(3), uint16(9), uint64(4))
	f.Fuzz(func(t *testing.T, rate uint16, dur uint8, server uint8, baseMs, slopeMs, timeoutMs uint16, attempts, hedges uint8,
		hedgeMs uint16, backoffKind, policy uint8, shared bool, clients, netMs uint16, pFail uint8, shape, outage uint8, window uint16, seed uint64) {
		c := DefaultConfig()
		c.Name = "fuzz"
		c.Duration = time.Duration(dur%120+1) * time.Second
		c.Load = Shape{Kind: ShapeKind(shape % 3), Rate: float64(rate % 2000), Peak: float64(rate%2000) * 2, From: time.Second, To: c.Duration / 2}
		c.Server.Kind = ServerKind(server % 4)
		c.Server.Base, c.Server.Slope = time.Duration(baseMs)*time.Millisecond, time.Duration(slopeMs%100)*time.Millisecond
		c.Server.Workers, c.Server.QueueMax = int(clients%64)+1, int(window%200)
		c.Server.Service.Median = time.Duration(baseMs%500+1) * time.Millisecond
		c.Server.Limit, c.Server.Burst = float64(rate%500), float64(window%50)+1
		c.Server.PFail = float64(pFail) / 255
		c.Net = time.Duration(netMs%200) * time.Millisecond
		if outage%4 != 0 {
			c.Outage = Outage{From: c.Duration / 4, To: c.Duration / 2, Mode: OutageMode(outage % 2)}
		}
		c.Client.Clients = int(clients%2000) + 1
		c.Client.Timeout = time.Duration(timeoutMs)*time.Millisecond + time.Millisecond
		c.Client.Attempts = int(attempts%100) + 1
		c.Client.Hedges = int(hedges % 16)
		c.Client.HedgeDelay = time.Duration(hedgeMs)*time.Millisecond + time.Millisecond
		c.Client.Keys = schema.KeyMode(pFail % 2)
		c.Client.Backoff = backoff.Schedule{Kind: backoff.Kind(backoffKind % backoffKinds()), Base: time.Duration(baseMs) * time.Millisecond}
		p := DefaultPolicy()
		p.Kind, p.Shared = PolicyKind(policy%uint8(len(policies.names))), shared
		p.TTL = time.Duration(window%60+1) * time.Second
		p.Window, p.MinCalls, p.WindowTime = int(window)+1, int(window%100)+1, time.Duration(window%3)*time.Duration(window)*100*time.Millisecond
		p.SREWindow = time.Duration(window+1) * time.Second
		c.Client.Policy = p
		if c.Check() != nil {
			return
		}
		e := c.cost()
		if e.Events > 3e5 || e.Bytes > 64<<20 {
			return // too big to run in a moment
		}
		checkCost(t, c, seed)
	})
}

// Replicates that each fit but not all at once are accepted whatever the
// workers, and run fewer at a time: the workers never decide whether a run
// is refused (before, twelve workers refused what two accepted).
func TestWorkersNeverRefuse(t *testing.T) {
	c := DefaultConfig()
	c.Server = Server{Kind: IndependentServer, Base: 10 * time.Millisecond}
	c.Net = 0
	c.Client.Timeout, c.Load.Rate, c.Duration = time.Second, 1e5, 100*time.Second
	for _, w := range []int{1, 2, 12} {
		opt := Options{Replicates: 12, Workers: w}
		if err := checkCosts([]Config{c}, opt); err != nil {
			t.Errorf("-workers %d: CheckCost = %v; want nil", w, err)
		}
	}
	b := boundsOf([]Config{c}, Options{Replicates: 12, Workers: 12})
	n := b.atOnce(Options{Replicates: 12, Workers: 12})
	if n >= 12 || float64(n)*b.running+b.kept > limits.FleetBytes {
		t.Errorf("12 workers run %d replicates at once of %.3g bytes each; want fewer than 12 within %d bytes", n, b.running, int64(limits.FleetBytes))
	}
}

// Every policy state that keeps no window fits in unwindowedBytes, which the
// cost model counts for it; grpc-adaptive's lookbacks, counted apart, hold
// what 5,000 clients at 50,000 requests a second put in them (a state's two
// rings of 100 bins each, which its struct size alone misses by about 4 KB).
func TestPolicyStatesWithinTheirBound(t *testing.T) {
	for k := range len(policies.names) {
		p := DefaultPolicy()
		p.Kind = PolicyKind(k)
		switch p.Kind {
		case Unlimited, FinagleBudget, SlidingBreaker, SREThrottle, GRPCAdaptive:
			continue
		}
		if n := reflect.TypeOf(p.newState()).Elem().Size(); n > unwindowedBytes {
			t.Errorf("a %s state is %d bytes; the cost model counts %d", p.Kind, n, unwindowedBytes)
		}
	}
	c := DefaultConfig()
	c.Server = Server{Kind: IndependentServer, Base: 1 * time.Millisecond}
	c.Net, c.Load.Rate, c.Duration = 0, 50000, 31*time.Second
	c.Client.Clients, c.Client.Timeout = 5000, 10*time.Millisecond
	c.Client.Policy = PolicyConfig{Kind: GRPCAdaptive}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	checkCost(t, c, 1)
}

// backoffKinds counts the backoff kinds, so the fuzzer draws every one.
func backoffKinds() uint8 { return uint8(len(enum.Names[backoff.Kind]())) }
