package fleet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/waits"
	"github.com/retrysim/retrysim/schema"
)

// within99_9 reports whether want lies in the 99.9% Student t interval of
// the mean of xs: a false failure once in 1,000 comparisons when the model is
// right (for xs normal enough, which means of thousands of requests are).
func within99_9(xs []float64, want float64) (mean, lo, hi float64, ok bool) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - 0.001/2)
	half := t * math.Sqrt(ss/(n-1)/n)
	return mean, mean - half, mean + half, want >= mean-half && want <= mean+half
}

func run(t *testing.T, cfg Config, reps int) []fleetdata.Replicate {
	t.Helper()
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), []Config{cfg}, Options{Replicates: reps, Seed: 7, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return res[0].replicates
}

// A load-independent server that fails each call with probability f, and A
// tries with no timeouts: a request succeeds with probability 1 - f^A and
// makes 1 + f + ... + f^(A-1) = (1 - f^A)/(1 - f) calls. Six comparisons at
// 1/1,000 each: a false failure of the family under 0.6%.
func TestIndependentServerClosedForms(t *testing.T) {
	for _, tc := range []struct {
		f        float64
		attempts int
	}{{0.3, 3}, {0.5, 1}, {0.8, 5}} {
		cfg := Config{
			Name: "independent", Duration: 10 * time.Second,
			Load:   Shape{Kind: ConstantLoad, Rate: 500},
			Server: Server{Kind: IndependentServer, Base: 10 * time.Millisecond, PFail: tc.f},
			Client: Client{Clients: 1, Timeout: 60 * time.Second, Attempts: tc.attempts},
			Net:    1 * time.Millisecond,
		}
		reps := run(t, cfg, 20)
		succ, calls := make([]float64, len(reps)), make([]float64, len(reps))
		for i, r := range reps {
			succ[i] = float64(r.Succeeded) / float64(r.Requests)
			calls[i] = float64(r.Calls) / float64(r.Requests)
			if r.Timeouts != 0 || r.Duplicates != 0 || r.Succeeded+r.Failed != r.Requests {
				t.Errorf("f=%g A=%d: timeouts %d, duplicates %d, %d+%d of %d requests; want 0, 0 and all",
					tc.f, tc.attempts, r.Timeouts, r.Duplicates, r.Succeeded, r.Failed, r.Requests)
			}
		}
		fA := math.Pow(tc.f, float64(tc.attempts))
		if m, lo, hi, ok := within99_9(succ, 1-fA); !ok {
			t.Errorf("f=%g A=%d: success %g [%g, %g]; want 1 - f^A = %g", tc.f, tc.attempts, m, lo, hi, 1-fA)
		}
		if m, lo, hi, ok := within99_9(calls, (1-fA)/(1-tc.f)); !ok {
			t.Errorf("f=%g A=%d: calls a request %g [%g, %g]; want (1 - f^A)/(1 - f) = %g", tc.f, tc.attempts, m, lo, hi, (1-fA)/(1-tc.f))
		}
	}
}

// erlangCWait is the M/M/c queue's mean wait before service, from Erlang's C
// formula: with a = λ/μ, C = (a^c/c! c/(c-a)) / (sum_{k<c} a^k/k! + a^c/c! c/(c-a)),
// and W = C / (cμ - λ).
func erlangCWait(c int, lambda, mu float64) float64 {
	a := lambda / mu
	term, sum := 1.0, 0.0 // term = a^k/k!
	for k := range c {
		sum += term
		term *= a / float64(k+1)
	}
	top := term * float64(c) / (float64(c) - a)
	return top / (sum + top) / (float64(c)*mu - lambda)
}

// c workers, Poisson arrivals, exponential service and an unbounded queue:
// the mean wait is Erlang C's. The queue starts empty; at ρ = 2/3 it forgets
// that within seconds, which over an hour biases the mean by well under its
// interval. Two comparisons at 1/1,000: a family rate under 0.2%.
func TestQueueErlangC(t *testing.T) {
	for _, tc := range []struct {
		c          int
		lambda, mu float64
	}{{3, 2, 1}, {1, 0.5, 1}} {
		cfg := Config{
			Name: "mmc", Duration: limits.FleetDuration * time.Second,
			Load: Shape{Kind: ConstantLoad, Rate: tc.lambda},
			Server: Server{Kind: QueueServer, Workers: tc.c, QueueMax: limits.FleetQueue,
				Service: Service{Dist: ExponentialService, Median: time.Duration(float64(time.Second) / tc.mu)}},
			Client: Client{Clients: 1, Timeout: limits.FleetSeconds * time.Second, Attempts: 1},
		}
		reps := run(t, cfg, 20)
		waits := make([]float64, len(reps))
		for i, r := range reps {
			waits[i] = r.Wait / float64(r.Entered)
		}
		want := erlangCWait(tc.c, tc.lambda, tc.mu)
		if m, lo, hi, ok := within99_9(waits, want); !ok {
			t.Errorf("M/M/%d λ=%g μ=%g: mean wait %g [%g, %g]; want Erlang C %g", tc.c, tc.lambda, tc.mu, m, lo, hi, want)
		}
	}
}

func TestErlangCReference(t *testing.T) {
	// M/M/1: C = ρ, W = ρ/(μ - λ); and the hand-worked c = 3, a = 2: C = 4/9.
	if got, want := erlangCWait(1, 0.5, 1), 1.0; math.Abs(got-want) > 1e-12 { // ρ/(μ - λ) = 0.5/0.5
		t.Errorf("erlangCWait(1, 0.5, 1) = %g; want %g", got, want)
	}
	if got, want := erlangCWait(3, 2, 1), 4.0/9; math.Abs(got-want) > 1e-12 {
		t.Errorf("erlangCWait(3, 2, 1) = %g; want %g", got, want)
	}
}

// littleConfigs cover every server kind, both outage modes, keys and backoff.
func littleConfigs() []Config {
	base := Config{
		Duration: 60 * time.Second,
		Load:     Shape{Kind: SpikeLoad, Rate: 40, Peak: 90, From: 20 * time.Second, To: 30 * time.Second},
		Server:   Server{Kind: LatencyServer, Base: 500 * time.Millisecond, Slope: 10 * time.Millisecond},
		Client:   Client{Clients: 4, Timeout: 2 * time.Second, Attempts: 3, Backoff: backoff.Schedule{Kind: backoff.FullJitter, Base: time.Second, Cap: 10 * time.Second}},
		Net:      50 * time.Millisecond,
	}
	var out []Config
	add := func(name string, f func(*Config)) {
		c := base
		c.Name = name
		f(&c)
		out = append(out, c)
	}
	add("latency", func(*Config) {})
	add("latency-same-key", func(c *Config) { c.Client.Keys = schema.SameKey })
	add("queue-lognormal", func(c *Config) {
		c.Server = Server{Kind: QueueServer, Workers: 4, QueueMax: 50, Service: Service{Dist: LognormalService, Median: 80 * time.Millisecond, Sigma: 1}, PFail: 0.05}
	})
	add("queue-exp-same-key", func(c *Config) {
		c.Server = Server{Kind: QueueServer, Workers: 2, QueueMax: 1000, Service: Service{Dist: ExponentialService, Median: 50 * time.Millisecond}}
		c.Client.Keys = schema.SameKey
	})
	add("ratelimit", func(c *Config) {
		c.Server = Server{Kind: RateLimitServer, Base: 200 * time.Millisecond, Limit: 50, Burst: 10}
	})
	add("independent-stall", func(c *Config) {
		c.Server = Server{Kind: IndependentServer, Base: 300 * time.Millisecond, PFail: 0.2}
		c.Outage = Outage{From: 10 * time.Second, To: 15 * time.Second, Mode: Stall}
	})
	add("latency-fail-outage-ramp", func(c *Config) {
		c.Load = Shape{Kind: RampLoad, Rate: 20, Peak: 70, From: 5 * time.Second, To: 45 * time.Second}
		c.Outage = Outage{From: 30 * time.Second, To: 33 * time.Second, Mode: Fail}
	})
	return out
}

// Little's law, L = λW, over a run that ends empty: the time average of the
// calls in progress (their integral over [0, End], added up event by event)
// equals the arrival rate of calls into the server times their mean time in
// it (departure minus arrival times, added up call by call). Exact but for
// rounding; and every request ends succeeded or failed.
func TestLittlesLaw(t *testing.T) {
	for _, cfg := range littleConfigs() {
		t.Run(cfg.Name, func(t *testing.T) {
			for i, r := range run(t, cfg, 3) {
				L := r.Area / r.End
				lambdaW := float64(r.Entered) / r.End * (r.Sojourn / float64(r.Entered))
				if math.Abs(L-lambdaW) > 1e-9*L || L == 0 {
					t.Errorf("replicate %d: L = %g; λW = %g", i, L, lambdaW)
				}
				if r.Succeeded+r.Failed != r.Requests {
					t.Errorf("replicate %d: %d succeeded + %d failed; want %d requests", i, r.Succeeded, r.Failed, r.Requests)
				}
				var busy float64
				for _, s := range r.Series {
					busy += s.Busy
				}
				if busy > r.Area*(1+1e-12) {
					t.Errorf("replicate %d: the series' integral %g exceeds the run's %g", i, busy, r.Area)
				}
			}
		})
	}
}

// Arrivals by thinning have the shape's integral as their mean: for
// Brooker's ramp over 80 s, ∫ max(0, 80 - 1.6|t - 25|) dt = 1500 + 2000, and
// for the spike 40 x 75 + 80 x 5. The requests of 20 replicates are Poisson
// with 20 times that mean; |z| < 3.29 fails falsely once in 1,000, twice in
// the family: 0.2%.
func TestArrivalsFollowShape(t *testing.T) {
	runs := collapseRuns(80 * time.Second)
	for _, tc := range []struct {
		cfg  Config
		want float64
	}{{runs[0], 3500}, {runs[2], 3400}} {
		var n int64
		reps := run(t, tc.cfg, 20)
		for _, r := range reps {
			n += r.Requests
		}
		mean := tc.want * float64(len(reps))
		if z := (float64(n) - mean) / math.Sqrt(mean); math.Abs(z) > 3.29 {
			t.Errorf("%s: %d requests in %d replicates; want %g (z = %.2f)", tc.cfg.Name, n, len(reps), mean, z)
		}
	}
}

func TestBrookerShapes(t *testing.T) {
	runs := collapseRuns(80 * time.Second)
	for _, x := range []float64{0, 10, 24.5, 25, 37, 50, 60, 75, 79.9} {
		if got, want := runs[0].Load.At(x), math.Max(0, 80-1.6*math.Abs(x-25)); math.Abs(got-want) > 1e-12 {
			t.Errorf("ramp.At(%g) = %g; want 80 - 1.6|t - 25| = %g", x, got, want)
		}
		want := 40.0
		if x >= 20 && x < 25 {
			want = 80
		}
		if got := runs[2].Load.At(x); got != want {
			t.Errorf("spike.At(%g) = %g; want %g", x, got, want)
		}
	}
	// Brooker's backoff: uniform in [0, b], b = 20 s on the first retry, 40 s on the second.
	p := runs[1].Client.Backoff
	for attempt, b := range []time.Duration{20 * time.Second, 40 * time.Second} {
		if got := waits.Delay(p, attempt, 0, 0.5); got != b/2 {
			t.Errorf("Delay(%d, u=0.5) = %v; want %v", attempt, got, b/2)
		}
	}
}

// Same key: a retry that arrives while its first attempt is still in the
// server is a conflict, and no request's work is done twice; with no key the
// same run repeats work. A slow server (4 s) and a 1 s timeout force both.
func TestKeys(t *testing.T) {
	cfg := Config{
		Name: "keys", Duration: 30 * time.Second,
		Load:   Shape{Kind: ConstantLoad, Rate: 20},
		Server: Server{Kind: IndependentServer, Base: 4 * time.Second},
		Client: Client{Clients: 1, Timeout: 1 * time.Second, Attempts: 4, Backoff: backoff.Schedule{Kind: backoff.Constant, Base: 2 * time.Second}},
	}
	for _, r := range run(t, cfg, 2) {
		// Attempts at 0, 3, 6, 9 s; the first finishes at 4 s: the second is
		// done twice, no attempt sees a reply in time, every request fails.
		if r.Succeeded != 0 || r.Duplicated != r.Requests || r.Duplicates != 3*r.Requests {
			t.Errorf("no key: %d succeeded, %d duplicated requests, %d duplicates of %d requests; want 0, all, 3 each",
				r.Succeeded, r.Duplicated, r.Duplicates, r.Requests)
		}
	}
	cfg.Client.Keys = schema.SameKey
	for _, r := range run(t, cfg, 2) {
		// The second attempt (3 s) conflicts with the first (0-4 s); the
		// third and fourth get the stored reply at once and succeed.
		if r.Duplicates != 0 || r.Conflicts != r.Requests || r.Stored != r.Requests || r.Succeeded != r.Requests {
			t.Errorf("same key: %d duplicates, %d conflicts, %d stored, %d succeeded of %d; want 0, then all",
				r.Duplicates, r.Conflicts, r.Stored, r.Succeeded, r.Requests)
		}
	}
}

// The heap pops every event it was given, earliest first: checked against a
// sort, with pops interleaved with pushes and many ties.
func TestHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h eventQueue
	var want []event
	check := func(when string) {
		slices.SortFunc(want, func(a, b event) int { return cmp.Compare(a.t, b.t) })
		got := h.pop()
		i := slices.Index(want, got)
		if i < 0 || got.t != want[0].t {
			t.Fatalf("%s: pop = %+v; want an event at t = %g", when, got, want[0].t)
		}
		want = slices.Delete(want, i, i+1)
	}
	for i := range 2000 {
		e := event{t: float64(r.IntN(300)) / 8, slot: int32(i)}
		h.push(e)
		want = append(want, e)
		if i%7 == 0 {
			check(fmt.Sprintf("push %d", i))
		}
	}
	for len(want) > 0 {
		check("drain")
	}
	if h.len() != 0 {
		t.Errorf("%d events left", h.len())
	}
}

func TestRecovery(t *testing.T) {
	spike := &Config{Load: Shape{Kind: SpikeLoad, Rate: 10, Peak: 20, From: 5 * time.Second, To: 10 * time.Second}}
	constant := &Config{Load: Shape{Kind: ConstantLoad, Rate: 10}}
	outage := &Config{Load: Shape{Kind: ConstantLoad, Rate: 10}, Outage: Outage{From: 5 * time.Second, To: 10 * time.Second}}
	healthy := fleetdata.Second{Starts: 10, Successes: 10, Served: 10}
	dead := fleetdata.Second{Starts: 10}
	series := func(n int, bad ...int) []fleetdata.Second {
		s := slices.Repeat([]fleetdata.Second{healthy}, n)
		for _, b := range bad {
			s[b] = dead
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		cfg     *Config
		series  []fleetdata.Second
		want    float64
		verdict fleetdata.Verdict
	}{
		{"never degraded", spike, series(40), 0, fleetdata.Recovered},
		// Window [s, s+10) holds 9 successes in 10 s only if one second is
		// dead; two make it 80%: unhealthy. Dead at 14 and 15: the windows
		// starting at 6..14 hold both, those from 15 on one at most: healthy
		// from 15, 5 s after the spike's end at 10.
		{"dip", spike, series(40, 14, 15), 5, fleetdata.Recovered},
		{"dead at the end", spike, series(40, 38, 39), math.NaN(), fleetdata.Down},
		// Issue 21 item 10: a constant run has nothing to recover from,
		// however its windows look; a run whose series ends before a whole
		// window after the spike (10 + 10 > 19) cannot be judged.
		{"constant, healthy", constant, series(40), math.NaN(), fleetdata.NoTrigger},
		{"constant, dead at the end", constant, series(40, 38, 39), math.NaN(), fleetdata.NoTrigger},
		{"outage", outage, series(40, 12, 13), 3, fleetdata.Recovered}, // healthy from the window at 13
		{"spike, too short", spike, series(19), math.NaN(), fleetdata.TooShort},
		{"spike, one window", spike, series(20), 0, fleetdata.Recovered},
	} {
		got, verdict := recovery(tc.cfg, tc.series)
		if (got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want))) || verdict != tc.verdict {
			t.Errorf("%s: recovery = %g, %v; want %g, %v", tc.name, got, verdict, tc.want, tc.verdict)
		}
	}
}

// TestSummaryRecovered: a row's share counts the replicates judged (a too
// short one is not), and its recovery time is over those that recovered,
// with an interval that does not go below 0 (Student t on 0 and 4 s: 2 ±
// 25.4 s, cut to [0, 27.4]).
func TestSummaryRecovered(t *testing.T) {
	spike := Config{Duration: 40 * time.Second, Load: Shape{Kind: SpikeLoad, Rate: 10, Peak: 20, From: 5 * time.Second, To: 10 * time.Second}}
	nan := math.NaN()
	r := Result{Config: spike, replicates: []fleetdata.Replicate{
		{Recovery: 0, Verdict: fleetdata.Recovered}, {Recovery: nan, Verdict: fleetdata.Down}, {Recovery: 4, Verdict: fleetdata.Recovered},
		{Recovery: nan, Verdict: fleetdata.Down}, {Recovery: nan, Verdict: fleetdata.TooShort},
	}}
	s := r.summary()
	if sh := s.RecoveredShare; sh.Count() != 2 || sh.N != 4 || sh.Value != 0.5 {
		t.Errorf("RecoveredShare = %+v; want 2 of 4", sh)
	}
	if e := s.Recovery; e.Value != 2 || e.N != 2 || e.Lo != 0 || math.Abs(e.Hi-(2+12.7062*2)) > 1e-3 {
		t.Errorf("Recovery = %+v; want 2 over 2, [0, 27.41]", e)
	}
	if !s.Trigger {
		t.Errorf("a spike run: Trigger false")
	}
	r.Config.Load = Shape{Kind: ConstantLoad, Rate: 10}
	if s := r.summary(); s.Trigger {
		t.Errorf("a constant run: Trigger true")
	}
}

// Memory follows the requests in flight: a run ten times longer reuses the
// same request slots.
func TestSlotsReused(t *testing.T) {
	cfg := collapseRuns(80 * time.Second)[3]
	short, long := cfg, cfg
	short.Duration, long.Duration = 100*time.Second, 1000*time.Second
	s1 := newSim(&short, 1)
	s1.run(context.Background())
	s2 := newSim(&long, 1)
	s2.run(context.Background())
	if len(s2.reqs) > 2*len(s1.reqs) {
		t.Errorf("request slots: %d for 100 s, %d for 1000 s; want about the same", len(s1.reqs), len(s2.reqs))
	}
}

func TestCheck(t *testing.T) {
	good := collapseRuns(80 * time.Second)[0]
	if err := good.Check(); err != nil {
		t.Fatalf("brooker ramp: %v", err)
	}
	// with is the default policy of kind k, changed by f.
	with := func(k PolicyKind, f func(*PolicyConfig)) PolicyConfig {
		p := DefaultPolicy()
		p.Kind = k
		f(&p)
		return p
	}
	for k := range PolicyKind(len(policies.names)) {
		c := good
		c.Client.Policy = with(k, func(*PolicyConfig) {})
		if err := c.Check(); err != nil {
			t.Errorf("%s at its defaults: %v", k, err)
		}
	}
	for _, tc := range []struct {
		path string
		f    func(*Config)
	}{
		{"duration", func(c *Config) { c.Duration = 0 }},
		{"duration", func(c *Config) { c.Duration = (limits.FleetDuration + 1) * time.Second }},
		{"load.rate", func(c *Config) { c.Load.Rate = math.NaN() }},
		{"load.to", func(c *Config) { c.Load.To = c.Load.From }},
		{"duration", func(c *Config) { c.Load.Peak = limits.FleetRate; c.Duration = time.Hour }},
		{"client.timeout", func(c *Config) { c.Client.Timeout = -time.Second }},
		{"client.attempts", func(c *Config) { c.Client.Attempts = limits.FleetAttempts + 1 }},
		{"server.p_fail", func(c *Config) { c.Server.PFail = 1.5 }},
		{"server.workers", func(c *Config) { c.Server.Kind = QueueServer; c.Server.Service.Median = time.Second }},
		{"client.clients", func(c *Config) { c.Client.Clients = -1 }},
		{"client.policy.size", func(c *Config) { c.Client.Policy = PolicyConfig{Kind: TokenBucket, Size: math.NaN()} }},
		{"client.policy.rate", func(c *Config) { c.Client.Policy = PolicyConfig{Kind: TokenBucket, Rate: -1} }},
		{"client.policy.cost", func(c *Config) { c.Client.Policy = PolicyConfig{Kind: AWSQuota, Tokens: 500, TimeoutCost: 10} }},
		{"client.policy.ratio", func(c *Config) { c.Client.Policy = PolicyConfig{Kind: GRPCThrottle, MaxTokens: 10} }},
		{"client.policy.threshold", func(c *Config) { c.Client.Policy = PolicyConfig{Kind: Breaker, Threshold: 1.5} }},
		{"client.policy.ttl", func(c *Config) {
			c.Client.Policy = with(FinagleBudget, func(p *PolicyConfig) { p.TTL = 61 * time.Second })
		}},
		{"client.policy.budget_ratio", func(c *Config) { c.Client.Policy = with(FinagleBudget, func(p *PolicyConfig) { p.BudgetRatio = 1001 }) }},
		{"client.policy.budget_ratio", func(c *Config) { c.Client.Policy = with(EnvoyBudget, func(p *PolicyConfig) { p.BudgetRatio = 1.5 }) }},
		{"client.policy.min_concurrency", func(c *Config) { c.Client.Policy = with(EnvoyBudget, func(p *PolicyConfig) { p.MinConcurrency = -1 }) }},
		{"client.policy.failure_rate", func(c *Config) { c.Client.Policy = with(SlidingBreaker, func(p *PolicyConfig) { p.FailureRate = 0 }) }},
		{"client.policy.window", func(c *Config) { c.Client.Policy = with(SlidingBreaker, func(p *PolicyConfig) { p.Window = 0 }) }},
		{"client.policy.half_open_calls", func(c *Config) {
			c.Client.Policy = with(SlidingBreaker, func(p *PolicyConfig) { p.HalfOpenCalls = limits.PolicyWindow + 1 })
		}},
		{"client.policy.open_time", func(c *Config) {
			c.Client.Policy = with(SlidingBreaker, func(p *PolicyConfig) { p.OpenTime = -1 })
		}},
		{"client.policy.k", func(c *Config) { c.Client.Policy = with(SREThrottle, func(p *PolicyConfig) { p.K = 0 }) }},
		{"client.policy.sre_window", func(c *Config) {
			c.Client.Policy = with(SREThrottle, func(p *PolicyConfig) { p.SREWindow = 500 * time.Millisecond })
		}},
		{"client.backoff.base", func(c *Config) { c.Client.Backoff.Base = 8760 * time.Hour }}, // issue 21, item 13: help says up to a day
		{"client.backoff.base", func(c *Config) { c.Client.Backoff.Base = -1 }},
		{"client.backoff.cap", func(c *Config) { c.Client.Backoff.Cap = limits.FleetSeconds*time.Second + 1 }},
		{"client.backoff.cap", func(c *Config) { c.Client.Backoff.Cap = -1 }},
		{"client.hedges", func(c *Config) { c.Client.Hedges = limits.FleetHedges + 1 }},
		{"client.hedge_delay", func(c *Config) { c.Client.Hedges = 1 }},
	} {
		c := good
		tc.f(&c)
		err := c.Check()
		var fe *schema.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.path || !strings.HasPrefix(err.Error(), tc.path+": ") {
			t.Errorf("Check() = %v; want a *schema.FieldError naming %s", err, tc.path)
		}
	}
}

// M/M/1/K: one worker, at most K-1 waiting, ρ = λ/μ. By PASTA an arrival is
// rejected with the probability that K calls are in the system,
// (1 - ρ) ρ^K / (1 - ρ^(K+1)). One comparison at 1/1,000.
func TestQueueBlocking(t *testing.T) {
	const lambda, mu, waiting = 1.0, 1.25, 3
	cfg := Config{
		Name: "mm1k", Duration: limits.FleetDuration * time.Second,
		Load: Shape{Kind: ConstantLoad, Rate: lambda},
		Server: Server{Kind: QueueServer, Workers: 1, QueueMax: waiting,
			Service: Service{Dist: ExponentialService, Median: time.Duration(float64(time.Second) / mu)}},
		Client: Client{Clients: 1, Timeout: limits.FleetSeconds * time.Second, Attempts: 1},
	}
	reps := run(t, cfg, 20)
	blocked := make([]float64, len(reps))
	for i, r := range reps {
		blocked[i] = float64(r.Rejected) / float64(r.Calls)
	}
	rho, k := lambda/mu, float64(waiting+1)
	want := (1 - rho) * math.Pow(rho, k) / (1 - math.Pow(rho, k+1))
	if m, lo, hi, ok := within99_9(blocked, want); !ok {
		t.Errorf("M/M/1/%g: rejected %g [%g, %g]; want %g", k, m, lo, hi, want)
	}
}

// A token bucket of B tokens refilled at L a second, under arrivals at four
// times L, lets through B + L x D calls at most over D seconds, and at least
// L x D less what accrues after the last arrival (an exponential wait of
// mean 1/(4L)): the margin of 5 calls is 20 mean waits, missed with
// probability e^-20.
func TestRateLimit(t *testing.T) {
	const limit, burst, d = 50.0, 10.0, 20.0
	cfg := Config{
		Name: "ratelimit", Duration: d * time.Second,
		Load:   Shape{Kind: ConstantLoad, Rate: 4 * limit},
		Server: Server{Kind: RateLimitServer, Base: 10 * time.Millisecond, Limit: limit, Burst: burst},
		Client: Client{Clients: 1, Timeout: 10 * time.Second, Attempts: 1},
	}
	for _, r := range run(t, cfg, 3) {
		passed := float64(r.Calls - r.Rejected)
		if passed > burst+limit*d || passed < limit*d-5 {
			t.Errorf("%g calls passed; want from %g to %g", passed, limit*d-5, burst+limit*d)
		}
		if r.Succeeded != r.Calls-r.Rejected {
			t.Errorf("%d succeeded; want the %d that passed", r.Succeeded, r.Calls-r.Rejected)
		}
	}
}

// An outage that fails every call fails every request and does no work; one
// that stalls holds the calls until it ends, then answers them all.
func TestOutages(t *testing.T) {
	cfg := Config{
		Name: "outage", Duration: 10 * time.Second,
		Load:   Shape{Kind: ConstantLoad, Rate: 30},
		Server: Server{Kind: IndependentServer, Base: 100 * time.Millisecond},
		Client: Client{Clients: 1, Timeout: 60 * time.Second, Attempts: 1},
		Outage: Outage{From: 0, To: 10 * time.Second, Mode: Fail},
	}
	for _, r := range run(t, cfg, 2) {
		if r.Succeeded != 0 || r.Errors != r.Requests || r.Effects != 0 {
			t.Errorf("fail outage: %d succeeded, %d errors, %d effects of %d requests; want 0, all, 0", r.Succeeded, r.Errors, r.Effects, r.Requests)
		}
	}
	cfg.Outage = Outage{From: 0, To: 5 * time.Second, Mode: Stall}
	for _, r := range run(t, cfg, 2) {
		var early, held int64
		for s, sec := range r.Series {
			if s < 5 {
				early += sec.Successes
				held += sec.Starts
			}
		}
		if r.Succeeded != r.Requests || early != 0 || r.Series[5].Successes < held {
			t.Errorf("stall outage: %d of %d succeeded, %d before 5 s, %d in the sixth second for %d held; want all, 0, at least the held",
				r.Succeeded, r.Requests, early, r.Series[5].Successes, held)
		}
	}
}

// The FIFO keeps push order across its growth and wrap-around.
func TestFIFO(t *testing.T) {
	var q fifo[int]
	next, want := 0, 0
	for round := range 50 {
		for range round % 7 * 5 {
			q.push(next)
			next++
		}
		for range round % 5 * 3 {
			if q.len() == 0 {
				break
			}
			if got := q.pop(); got != want {
				t.Fatalf("round %d: pop = %d; want %d", round, got, want)
			}
			want++
		}
	}
	for q.len() > 0 {
		if got := q.pop(); got != want {
			t.Fatalf("drain: pop = %d; want %d", got, want)
		}
		want++
	}
	if want != next {
		t.Errorf("popped %d; pushed %d", want, next)
	}
}

// A ramp rises from its rate to its peak: one whose peak is below its rate
// would, past -to, go on "down at the same slope" upwards without bound (to
// 500 a second at 60 s for a 100 -> 50 ramp over 10 s to 20 s), a load the
// arrivals, thinned from the shape's largest rate, never follow. Check
// refuses it, naming load.peak; every shape it accepts stays within the rate
// the arrivals are thinned from, so arrivals follow At, the plotted load.
func TestRampPeakBelowRate(t *testing.T) {
	c := DefaultConfig()
	c.Load = Shape{Kind: RampLoad, Rate: 100, Peak: 50, From: 10 * time.Second, To: 20 * time.Second}
	err := c.Check()
	want := "load.peak: 50 is below load.rate 100"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Check() = %v; want an error starting %q", err, want)
	}
	for _, kind := range []ShapeKind{ConstantLoad, SpikeLoad, RampLoad} {
		for _, rate := range []float64{0, 40, 100} {
			for _, peak := range []float64{0, 40, 100} {
				c.Load = Shape{Kind: kind, Rate: rate, Peak: peak, From: 10 * time.Second, To: 20 * time.Second}
				if c.Check() != nil {
					continue
				}
				for i := 0; i <= 600; i++ {
					at := float64(i) / 10
					if got := c.Load.At(at); got > c.Load.max() {
						t.Errorf("%+v: At(%g) = %g; above the arrivals' rate %g", c.Load, at, got, c.Load.max())
					}
				}
			}
		}
	}
}
