package chain

import (
	"math"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
)

// near fails unless got is within tol of want, relative to max(1, |want|).
func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) || math.IsNaN(got) {
		t.Errorf("%s = %.15g; want %.15g (tolerance %g)", what, got, want, tol)
	}
}

func build(t *testing.T, m Model) *Chain {
	t.Helper()
	c, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func inServer(n int) Region {
	return func(s fleetdata.MarkovState) bool { return s.InServer == n }
}

// An M/M/1/1 server without timeouts or retries is a two-state chain: busy
// at time t with probability λ/(λ+μ) (1 - e^-(λ+μ)t) from idle, and, across
// a spike, p(t) = p∞ + (p(t0) - p∞) e^-(λ+μ)(t-t0) on each span of constant λ.
func TestTwoStateTransient(t *testing.T) {
	lam, mu := 0.7, 1.3
	c := build(t, Model{Rate: lam, Workers: 1, ServiceRate: mu, BackoffRate: 1})
	if c.Len() != 2 {
		t.Fatalf("states = %d; want 2", c.Len())
	}
	for _, tt := range []float64{0, 0.1, 1, 3, 20} {
		got, err := c.At(c.Empty(), tt, inServer(1))
		if err != nil {
			t.Fatal(err)
		}
		near(t, "P(busy)", got, lam/(lam+mu)*(1-math.Exp(-(lam+mu)*tt)), 1e-12)
	}
	peak := 4.0
	c = build(t, Model{Rate: lam, Peak: peak, From: 1, To: 2.5, Workers: 1, ServiceRate: mu, BackoffRate: 1})
	step := func(p0, l, dt float64) float64 {
		inf := l / (l + mu)
		return inf + (p0-inf)*math.Exp(-(l+mu)*dt)
	}
	p1 := step(0, lam, 1)
	p2 := step(p1, peak, 1.5)
	want := step(p2, lam, 4-2.5)
	got, err := c.At(c.Empty(), 4, inServer(1))
	if err != nil {
		t.Fatal(err)
	}
	near(t, "P(busy at 4) across the spike", got, want, 1e-12)
}

// The M/M/c/K queue without timeouts is a birth-death chain on the calls in
// the server: π_n ∝ a^n/n! for n <= c and a^c/c! ρ^(n-c) above, a = λ/μ,
// ρ = a/c.
func TestMMcKStationary(t *testing.T) {
	lam, mu, cw, k := 2.0, 1.0, 3, 5
	c := build(t, Model{Rate: lam, Workers: cw, Queue: k, ServiceRate: mu, BackoffRate: 1})
	if c.Len() != cw+k+1 {
		t.Fatalf("states = %d; want %d", c.Len(), cw+k+1)
	}
	pi, err := c.Stationary()
	if err != nil {
		t.Fatal(err)
	}
	a := lam / mu
	w := make([]float64, cw+k+1)
	var z float64
	for n := range w {
		w[n] = math.Pow(a, float64(n)) / math.Gamma(float64(n+1))
		if n > cw {
			w[n] = math.Pow(a, float64(cw)) / math.Gamma(float64(cw+1)) * math.Pow(a/float64(cw), float64(n-cw))
		}
		z += w[n]
	}
	for n := range w {
		near(t, "π_"+string(rune('0'+n)), mass(pi, c.in(inServer(n))), w[n]/z, 1e-12)
	}
}

// Erlang's C formula: in M/M/c, a call waits with probability
// C = (a^c/c! · c/(c-a)) / (Σ_{k<c} a^k/k! + a^c/c! · c/(c-a)), and its
// mean wait is C/(cμ-λ). The chain's queue is cut at MaxQueue calls, which
// at ρ = 0.4 holds all but 0.4^20 (1e-8) of the mass.
func TestErlangCMeanWait(t *testing.T) {
	lam, mu, cw := 1.6, 1.0, 4
	c := build(t, Model{Rate: lam, Workers: cw, Queue: MaxQueue, ServiceRate: mu, BackoffRate: 1})
	pi, err := c.Stationary()
	if err != nil {
		t.Fatal(err)
	}
	var lq, full float64
	for i, s := range c.States {
		lq += pi[i] * float64(s.Queued)
		if s.Queued == MaxQueue {
			full += pi[i]
		}
	}
	a := lam / mu
	top := math.Pow(a, float64(cw)) / math.Gamma(float64(cw+1)) * float64(cw) / (float64(cw) - a)
	var sum float64
	for k := range cw {
		sum += math.Pow(a, float64(k)) / math.Gamma(float64(k+1))
	}
	erlangC := top / (sum + top)
	near(t, "mean wait", lq/(lam*(1-full)), erlangC/(float64(cw)*mu-lam), 1e-6)
}

// M/M/1 with K places, from full to empty: the time to go from n calls to
// n-1 is m_N = 1/μ at the top (N = K+1) and m_n = (1 + λ m_{n+1})/μ below
// (a service ends first, or an arrival adds a climb from n+1); the time to
// empty is their sum.
func TestMM1HittingTime(t *testing.T) {
	lam, mu, k := 0.8, 1.0, 6
	c := build(t, Model{Rate: lam, Workers: 1, Queue: k, ServiceRate: mu, BackoffRate: 1})
	h, err := c.Mean(inServer(0))
	if err != nil {
		t.Fatal(err)
	}
	m, want := 1/mu, 0.0
	for n := k + 1; n >= 1; n-- {
		if n <= k {
			m = (1 + lam*m) / mu
		}
		want += m
	}
	full := c.Index(State{Live: 1, Queued: k, LiveMask: 1<<k - 1})
	near(t, "time to empty from full", h[full], want, 1e-10)
	// The distribution's hitting probability agrees with the mean: the time
	// to empty from one call is 1/(μ-λ) cut by the cap; from the empty
	// state it is 0.
	if h[c.Index(State{})] != 0 {
		t.Errorf("time to empty from empty = %g", h[c.Index(State{})])
	}
}

// One worker, no queue, timeouts and no retries: idle -λ-> live, live -μ->
// idle, live -θ-> abandoned, abandoned -μ-> idle. Balance: π_L (μ+θ) = λ π_I
// and π_A μ = θ π_L.
func TestAbandonedStationary(t *testing.T) {
	lam, mu, th := 1.5, 2.0, 0.7
	c := build(t, Model{Rate: lam, Workers: 1, ServiceRate: mu, TimeoutRate: th, BackoffRate: 1})
	if c.Len() != 3 {
		t.Fatalf("states = %d; want 3", c.Len())
	}
	pi, err := c.Stationary()
	if err != nil {
		t.Fatal(err)
	}
	l := lam / (mu + th)
	a := th / mu * l
	z := 1 + l + a
	near(t, "π_idle", pi[c.Index(State{})], 1/z, 1e-12)
	near(t, "π_live", pi[c.Index(State{Live: 1})], l/z, 1e-12)
	near(t, "π_abandoned", pi[c.Index(State{Abandoned: 1})], a/z, 1e-12)
}

// One worker, no queue, every rejection retried into an orbit of one:
// (busy, orbit) with (0,0) -λ-> (1,0) -μ-> (0,0), (1,0) -λ-> (1,1) -μ-> (0,1),
// (0,1) -λ-> (1,1) and (0,1) -ν-> (1,0). To empty the orbit from (1,1):
// x = 1/μ + y, y = (1 + λ x)/(λ+ν), so x = (λ+ν)/(νμ) + 1/ν. From (1,0) the
// server empties before the orbit fills with probability μ/(λ+μ).
func TestOrbitByHand(t *testing.T) {
	lam, mu, nu := 0.9, 1.7, 0.6
	c := build(t, Model{Rate: lam, Workers: 1, ServiceRate: mu, RetryProb: 1, BackoffRate: nu, Orbit: 1})
	if c.Len() != 4 {
		t.Fatalf("states = %d; want 4", c.Len())
	}
	h, err := c.Mean(func(s fleetdata.MarkovState) bool { return s.Orbit == 0 })
	if err != nil {
		t.Fatal(err)
	}
	near(t, "time to empty the orbit", h[c.Index(State{Live: 1, Orbit: 1})], (lam+nu)/(nu*mu)+1/nu, 1e-12)
	b, err := c.Before(func(s fleetdata.MarkovState) bool { return s == fleetdata.MarkovState{} },
		func(s fleetdata.MarkovState) bool { return s == fleetdata.MarkovState{InServer: 1, Orbit: 1} })
	if err != nil {
		t.Fatal(err)
	}
	near(t, "P(empty before full)", b[c.Index(State{Live: 1})], mu/(lam+mu), 1e-12)
}

// With timeouts and retries every pattern of live and abandoned calls is
// reachable: for each orbit size, (c+1)(c+2)/2 states of the workers with
// nothing queued, and c+1 with each of the 2^(q) patterns of q queued calls,
// q = 1 to K.
func TestStateCount(t *testing.T) {
	for _, tt := range []struct{ c, k, o int }{{1, 0, 0}, {2, 3, 4}, {3, 5, 2}, {1, 6, 1}} {
		c := build(t, Model{Rate: 1, Workers: tt.c, Queue: tt.k, ServiceRate: 1, TimeoutRate: 1, RetryProb: 0.5, BackoffRate: 1, Orbit: tt.o})
		want := ((tt.c+1)*(tt.c+2)/2 + (tt.c+1)*(1<<(tt.k+1)-2)) * (tt.o + 1)
		if c.Len() != want {
			t.Errorf("c=%d K=%d orbit %d: %d states; want %d", tt.c, tt.k, tt.o, c.Len(), want)
		}
	}
}

func TestLimits(t *testing.T) {
	_, err := Build(Model{Rate: 1, Workers: 4, Queue: 14, ServiceRate: 1, TimeoutRate: 1, RetryProb: 0.5, BackoffRate: 1, Orbit: 3})
	if err == nil || !strings.Contains(err.Error(), "MaxStates") {
		t.Errorf("a chain of 5 x 2^15 x 4 states: err = %v; want MaxStates", err)
	}
	_, err = Build(Model{Rate: 1, Workers: 2, Queue: 8, ServiceRate: 1, TimeoutRate: 1, RetryProb: 0.5, BackoffRate: 1})
	if err == nil || !strings.Contains(err.Error(), "orbit size 0 has 1536 states, more than 500 (MaxBlock)") {
		t.Errorf("a chain of 6 + 3 x 510 states an orbit size: err = %v; want MaxBlock", err)
	}
	// At rate 0 (a spike's load only) the orbit never fills at the base rate.
	spikeOnly := build(t, Model{Peak: 2, From: 1, To: 2, Workers: 1, ServiceRate: 1, TimeoutRate: 1, RetryProb: 1, BackoffRate: 1, Orbit: 2})
	if _, err := spikeOnly.Mean(func(s fleetdata.MarkovState) bool { return s.Orbit == 2 }); err == nil || !strings.HasSuffix(err.Error(), "never reaches the region") {
		t.Errorf("Mean at rate 0 of a full orbit: err = %v; want never reaches", err)
	}
	cfg := fleet.DefaultConfig()
	if _, err := FromConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), "memoryless.on:") {
		t.Errorf("FromConfig(default) err = %v", err)
	}
	*fleetrun.Fleet().Memoryless(&cfg) = fleetdata.Memoryless{On: true, TimeoutRate: 1, BackoffRate: 1}
	if _, err := FromConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), "memoryless: needs server.kind queue") {
		t.Errorf("FromConfig(default, memoryless) err = %v", err)
	}
	m := Model{Rate: 1, Peak: 3, From: 2, To: 4, Workers: 2, Queue: 3, ServiceRate: 2, PFail: 0.1,
		TimeoutRate: 0.5, RetryProb: 0.8, BackoffRate: 1.5, Orbit: 4}
	back, err := FromConfig(m.Config(10))
	if err != nil || back != m {
		t.Errorf("FromConfig(m.Config(10)) = %+v, %v; want %+v", back, err, m)
	}
	c := build(t, Model{Rate: 1, Workers: 1, ServiceRate: 1, BackoffRate: 1})
	for _, tt := range []float64{1e7, 1e300} {
		if _, err := c.At(c.Empty(), tt, inServer(1)); err == nil || !strings.Contains(err.Error(), "MaxSteps") {
			t.Errorf("At(%g) err = %v; want MaxSteps", tt, err)
		}
	}
	if _, err := c.Hit(c.Empty(), 2, 1, inServer(1)); err == nil || err.Error() != "times 2 to 1 are not finite with 0 <= from <= to" {
		t.Errorf("Hit(2, 1) err = %v", err)
	}
}
