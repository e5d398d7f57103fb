package queue

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/sqlitecheck"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// want are the check's outcomes, from its text, by case.
var want = map[string]struct {
	charges uint32
	lost    bool
}{
	"sequential pair, check-then-insert":    {1, false},
	"race, check-then-insert":               {2, false},
	"race, claim":                           {1, false},
	"crash after the work, record after":    {2, false},
	"crash after the claim, claim":          {0, true},
	"TTL 1 s, redelivery after 2 s, claim":  {2, false},
	"TTL 60 s, redelivery after 2 s, claim": {1, false},
}

func charge() provider.Scenario { return sqlitecheck.Charge() }

func runOnce(cfg delivery.Config, r strategy.Retry, sc provider.Scenario, seed uint64) (Outcome, *jobsim.Job) {
	stream := rng.NewStream(rng.PCGGenerator().New(seed, 0))
	j := jobsim.New(sc, stream)
	x := NewRunner(cfg, r, sc, j, stream, rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(seed), 0)))
	defer x.Close()
	return x.Run(), j
}

// A step's own attempts and backoff replace the run's in its retry loop,
// and only there: a step that always fails, 10 ms a call, with three
// attempts 1 s apart of its own, takes 3 x 10 ms + 2 x 1 s under a run of
// one attempt and 1 min waits; the run's waits are the whole job's.
func TestStepPolicyTimes(t *testing.T) {
	sec := backoff.Policy{Kind: backoff.Constant, Base: time.Second, Cap: time.Second}
	sc := provider.Scenario{Name: "one", Watched: []provider.Watch{{Step: 0}}, Steps: []provider.Step{{Name: "a", PFail: 1, Latency: provider.Latency{Median: 10 * time.Millisecond},
		Policy: provider.Policy{Attempts: 3, Backoff: &sec}}}}
	cfg := delivery.Defaults()
	cfg.Visibility = time.Hour
	cfg.Backoff = backoff.Policy{Kind: backoff.Constant, Base: time.Minute, Cap: time.Minute}
	for _, c := range []struct {
		r     strategy.Retry
		calls int64
		took  time.Duration
	}{
		{strategy.Retry{Scope: strategy.EachStep, Attempts: 1}, 3, 2*time.Second + 30*time.Millisecond},
		{strategy.Retry{Scope: strategy.WholeJob, Attempts: 2}, 2, time.Minute + 20*time.Millisecond},
	} {
		out, j := runOnce(cfg, c.r, sc, 1)
		if !out.Failed || j.Calls() != c.calls || out.Completion != c.took {
			t.Errorf("%s: failed %v, %d calls, took %v; want failed, %d calls, %v", c.r.Name(), out.Failed, j.Calls(), out.Completion, c.calls, c.took)
		}
	}
}

// The SQLite check's seven steps, forced, and the lease fix in each of them.
func TestForcedCasesReproduceTheCheck(t *testing.T) {
	r := strategy.Retry{Scope: strategy.EachStep, Attempts: 3}
	cases := sqlitecheck.Cases()
	if len(cases) != len(want) {
		t.Fatalf("%d cases; want %d", len(cases), len(want))
	}
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			w, ok := want[tt.Name]
			if !ok {
				t.Fatalf("no expected outcome for %q", tt.Name)
			}
			for seed := range uint64(20) {
				out, j := runOnce(tt.Config, r, charge(), seed)
				if got := j.Done(0); got != w.charges || out.Lost != w.lost {
					t.Fatalf("seed %d: %d charges, lost %v; want %d, %v (outcome %+v)", seed, got, out.Lost, w.charges, w.lost, out)
				}
			}
			lease := tt.Config
			lease.Store = delivery.Lease
			for seed := range uint64(20) {
				out, j := runOnce(lease, r, charge(), seed)
				if got := j.Done(0); got != 1 || out.Lost || out.Failed {
					t.Fatalf("lease, seed %d: %d charges, lost %v, failed %v; want 1 charge, nothing lost", seed, got, out.Lost, out.Failed)
				}
			}
		})
	}
}

// With no store, no repeats, no crashes and no time, a job is one delivery
// that calls like the Part 5 model.
func TestOneDeliveryWhenNothingHappens(t *testing.T) {
	out, j := runOnce(delivery.Defaults(), strategy.Retry{Scope: strategy.EachStep, Attempts: 3}, provider.Signup(0, 0), 1)
	if out.Deliveries != 1 || out.Failed || j.Calls() != 10 || out.Completion != 0 {
		t.Errorf("outcome %+v, calls %d; want 1 delivery, success, 10 calls, completion 0", out, j.Calls())
	}
}

// A slow job outlives its visibility timeout: the queue delivers it again
// while the first delivery still runs, and without a key both charge.
func TestVisibilityTimeoutOverlap(t *testing.T) {
	sc := charge()
	sc.Steps[0].Latency = provider.Latency{Median: 45 * time.Second}
	cfg := delivery.Defaults()
	out, j := runOnce(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: 1}, sc, 1)
	if out.Deliveries != 2 || j.Done(0) != 2 {
		t.Errorf("%d deliveries, %d charges; want 2 and 2", out.Deliveries, j.Done(0))
	}
	cfg.Store = delivery.Claim
	out, j = runOnce(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: 1}, sc, 1)
	if out.Deliveries != 2 || j.Done(0) != 1 {
		t.Errorf("claim: %d deliveries, %d charges; want 2 and 1", out.Deliveries, j.Done(0))
	}
	// A lease shorter than the call: the second delivery takes it over, and
	// the first, no longer the holder when its call ends, does not commit.
	cfg.Store = delivery.Lease
	out, j = runOnce(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: 1}, sc, 1)
	if j.Done(0) != 1 || out.Lost || out.Failed {
		t.Errorf("lease: %d charges, lost %v, failed %v; want 1 charge", j.Done(0), out.Lost, out.Failed)
	}
}

// The simulated chance that a repeated request charges again, against its
// closed form, with a constant backoff and a lognormal repeat delay R. The
// first delivery records its key at T_k = (k+1)L + kB after k failures
// (probability p^k (1-p), k < A); the copy charges again if it arrives before
// the key exists (R < T_k) or after it expired (R >= T_k + TTL), and then its
// own attempts succeed (1 - p^A).
func TestRepeatAfterExpiryClosedForm(t *testing.T) {
	const (
		p    = 0.3
		a    = 3
		lat  = 100 * time.Millisecond
		wait = time.Second
		ttl  = 2 * time.Second
		jobs = 200_000
	)
	delay := provider.Latency{Median: 2500 * time.Millisecond, P99: 20 * time.Second}
	sc := charge()
	sc.Steps[0].PFail, sc.Steps[0].Latency = p, provider.Latency{Median: lat}
	cfg := delivery.Defaults()
	cfg.Store, cfg.TTL, cfg.RepeatP, cfg.RepeatDelay = delivery.After, ttl, 1, delay
	cfg.Backoff = backoff.Policy{Kind: backoff.Constant, Base: wait}
	cfg.Visibility = time.Hour

	sigma := math.Log(float64(delay.P99)/float64(delay.Median)) / 2.3263478740408408
	R := distuv.LogNormal{Mu: math.Log(delay.Median.Seconds()), Sigma: sigma}
	want := 0.0
	for k := range a {
		tk := (float64(k+1)*lat.Seconds() + float64(k)*wait.Seconds())
		want += math.Pow(p, float64(k)) * (1 - p) * (R.CDF(tk) + 1 - R.CDF(tk+ttl.Seconds()))
	}
	want *= 1 - math.Pow(p, a)

	stream := rng.NewStream(rng.PCGGenerator().New(7, 0))
	j := jobsim.New(sc, stream)
	x := NewRunner(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: a}, sc, j, stream, rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(7), 0)))
	twice := 0
	for range jobs {
		x.Run()
		if j.Done(0) == 2 {
			twice++
		}
	}
	sd := math.Sqrt(jobs * want * (1 - want))
	if d := math.Abs(float64(twice) - jobs*want); d > 4*sd {
		t.Errorf("charged twice in %d of %d jobs; closed form %.1f ± 4 × %.1f", twice, jobs, jobs*want, sd)
	}
}

func TestParseNames(t *testing.T) {
	for i, n := range enum.Names[delivery.Store]() {
		if s, err := enum.Parse[delivery.Store](n); err != nil || s != delivery.Store(i) || s.String() != n {
			t.Errorf("Stores().Parse(%q) = %v, %v", n, s, err)
		}
	}
	for i, n := range enum.Names[delivery.CrashPoint]() {
		if c, err := enum.Parse[delivery.CrashPoint](n); err != nil || c != delivery.CrashPoint(i) || c.String() != n {
			t.Errorf("CrashPoints().Parse(%q) = %v, %v", n, c, err)
		}
	}
	if _, err := enum.Parse[delivery.Store]("unique"); err == nil {
		t.Error("Stores().Parse(unique) succeeded")
	}
}

// A new key on every call protects nothing, across overlapping deliveries
// too: the same draws give the same charges as no key at all.
func TestFreshKeysAreNoKeys(t *testing.T) {
	sc := charge()
	sc.Steps[0].PFail, sc.Steps[0].HonoursKeys = 0.5, true
	cfg := delivery.Defaults()
	cfg.RepeatP = 1 // two deliveries at the same instant
	for seed := range uint64(200) {
		_, fresh := runOnce(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.FreshKeys}, sc, seed)
		_, none := runOnce(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.NoKeys}, sc, seed)
		if fresh.Done(0) != none.Done(0) {
			t.Fatalf("seed %d: %d charges with fresh keys, %d with none", seed, fresh.Done(0), none.Done(0))
		}
	}
}

// Each step's retry loop starts fresh, so with decorrelated jitter the first
// wait of every step is uniform on [base, 3 base], whatever an earlier step
// waited. The mean time of a job that succeeds then has a closed form. A step
// that fails k times before succeeding (probability p^k (1-p), k < 3, given
// success divided by 1 - p^3) takes (k+1) L of calls and k waits: W1 =
// base + u (3 base - base), mean 2 base, and W2 = base + u (3 W1 - base),
// mean base/2 + 1.5 E[W1] = 3.5 base (at most 900 ms, under the cap, here).
// The ten steps are independent given success. Carrying the previous step's
// last wait into the next step's first retry raises the mean by about 20 ms,
// some 40 standard errors at these settings. The test allows 4.5 standard
// errors: a false failure about once in 150,000 runs (one comparison).
func TestDecorrelatedBackoffStartsFreshEachStep(t *testing.T) {
	const (
		p    = 0.05
		lat  = 20 * time.Millisecond
		base = 100 * time.Millisecond
		jobs = 100_000
	)
	sc := provider.Signup(p, 0)
	for i := range sc.Steps {
		sc.Steps[i].Latency = provider.Latency{Median: lat}
	}
	cfg := delivery.Defaults()
	cfg.Backoff = backoff.Policy{Kind: backoff.Decorrelated, Base: base, Cap: time.Second}

	L, b := lat.Seconds(), base.Seconds()
	step := (1 - p) * (L + p*(2*L+2*b) + p*p*(3*L+5.5*b)) / (1 - p*p*p)
	want := float64(len(sc.Steps)) * step

	stream := rng.NewStream(rng.PCGGenerator().New(7, 0))
	j := jobsim.New(sc, stream)
	x := NewRunner(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey}, sc, j, stream,
		rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(7), 0)))
	var n, sum, sumSq float64
	for range jobs {
		out := x.Run()
		if out.Failed {
			continue
		}
		s := out.Completion.Seconds()
		n, sum, sumSq = n+1, sum+s, sumSq+s*s
	}
	mean := sum / n
	se := math.Sqrt((sumSq/n - mean*mean) / n)
	if math.Abs(mean-want) > 4.5*se {
		t.Errorf("mean time of a succeeded job = %.5f s; want %.5f s ± 4.5 × %.5f (the closed form of a fresh loop per step)", mean, want, se)
	}
}

// A job's time runs until its last delivery stops, not until a visibility
// timer that fires after the ack. With one attempt, no backoff and every call
// taking L, a job that succeeds takes exactly 10 L, and one that fails at its
// k-th call gives up there, at k L: the 30 s timer nothing waits for is no
// part of either.
func TestCompletionIsWhenTheLastDeliveryEnds(t *testing.T) {
	const lat = 20 * time.Millisecond
	sc := provider.Signup(0.03, 0)
	for i := range sc.Steps {
		sc.Steps[i].Latency = provider.Latency{Median: lat}
	}
	stream := rng.NewStream(rng.PCGGenerator().New(1, 0))
	j := jobsim.New(sc, stream)
	x := NewRunner(delivery.Defaults(), strategy.Retry{Scope: strategy.EachStep, Attempts: 1}, sc, j, stream,
		rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(1), 0)))
	failed := 0
	for range 2000 {
		out := x.Run()
		if out.Failed {
			failed++
		}
		if want := time.Duration(j.Calls()) * lat; out.Completion != want {
			t.Fatalf("%d calls, failed %v: completion %v; want %v", j.Calls(), out.Failed, out.Completion, want)
		}
	}
	if failed == 0 {
		t.Fatal("no job failed; the test needs some")
	}
}

// A lease shorter than a call lets a live, slow holder be taken over, and
// the call it was making still counts. Every call takes 50 ms, the lease 20 ms,
// the visibility timeout 30 ms, up to 10 deliveries: delivery k (from 0)
// arrives at 30k ms, finds step 0's lease expired and takes it over before
// its predecessor's call ends (at 30(k-1) + 50 ms), which then cannot commit.
// Deliveries 0 to 8 each start one call and are overtaken; the message is
// dead-lettered at 300 ms, so delivery 9, from 270 ms, calls all ten steps
// and acks at 270 + 10 x 50 = 770 ms: 9 + 10 = 19 calls, each step's work once.
func TestOvertakenLeaseCallsCount(t *testing.T) {
	sc := provider.Signup(0, 0)
	for i := range sc.Steps {
		sc.Steps[i].Latency = provider.Latency{Median: 50 * time.Millisecond}
	}
	cfg := delivery.Defaults()
	cfg.Store, cfg.Lease, cfg.Visibility = delivery.Lease, 20*time.Millisecond, 30*time.Millisecond
	out, j := runOnce(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: 3}, sc, 1)
	if j.Calls() != 19 || out.Deliveries != 10 || out.Failed || out.Completion != 770*time.Millisecond {
		t.Errorf("%d calls, %d deliveries, failed %v, completion %v; want 19, 10, false, 770ms", j.Calls(), out.Deliveries, out.Failed, out.Completion)
	}
	for i := range sc.Steps {
		if j.Done(i) != 1 {
			t.Errorf("step %d done %d times; want once", i, j.Done(i))
		}
	}
}

// The warning's bounds, worked by hand: a lease holds a step for every
// attempt (fixed latency or lognormal p99) and the longest waits between them
// when each step retries and can fail, one call when the whole job retries;
// a delivery takes every step's call once.
func TestWarning(t *testing.T) {
	ms := time.Millisecond
	signup := func(p float64, lat provider.Latency) provider.Scenario {
		sc := provider.Signup(p, 0)
		for i := range sc.Steps {
			sc.Steps[i].Latency = lat
		}
		return sc
	}
	each := []strategy.Strategy{strategy.Retry{Scope: strategy.EachStep, Attempts: 3}}
	whole := []strategy.Strategy{strategy.Retry{Scope: strategy.WholeJob, Attempts: 3}}
	fixed := provider.Latency{Median: 50 * ms}
	at := func(store delivery.Store, lease, vis time.Duration) delivery.Config {
		c := delivery.Defaults()
		c.Store, c.Lease, c.Visibility = store, lease, vis
		return c
	}
	leaseMsg := func(l, hold string) string {
		return "lease " + l + " is shorter than a step can hold it (" + hold + "), so a live, slow holder is taken over and its work rolled back"
	}
	visMsg := func(v, d string) string {
		return "visibility timeout " + v + " is shorter than a delivery can take (" + d + "), so a message comes back while its delivery still runs"
	}
	for _, tt := range []struct {
		name string
		cfg  delivery.Config
		sc   provider.Scenario
		rs   []strategy.Strategy
		want string
	}{
		{"the issue's livelock", at(delivery.Lease, 20*ms, 30*ms), signup(0, fixed), each, leaseMsg("20ms", "50ms") + "; " + visMsg("30ms", "500ms")},
		// 3 calls of 50 ms and full-jitter waits of at most 100 and 200 ms.
		{"each step, can fail", at(delivery.Lease, 449*ms, time.Minute), signup(0.01, fixed), each, leaseMsg("449ms", "450ms")},
		{"each step, lease enough", at(delivery.Lease, 450*ms, time.Minute), signup(0.01, fixed), each, ""},
		{"whole job claims per pass", at(delivery.Lease, 49*ms, time.Minute), signup(0.01, fixed), whole, leaseMsg("49ms", "50ms")},
		{"lognormal at its p99", at(delivery.Lease, 199*ms, 2*time.Second), signup(0, provider.Latency{Median: 20 * ms, P99: 200 * ms}), each, leaseMsg("199ms", "200ms")},
		{"no lease store", at(delivery.Claim, 20*ms, time.Minute), signup(0.01, fixed), each, ""},
		{"no time", delivery.Defaults(), signup(0.01, provider.Latency{}), each, ""},
		// 1000 calls of 8760h pass what a Duration holds: the hold saturates.
		{"saturated", at(delivery.Lease, limits.MaxDuration, limits.MaxDuration), signup(0.01, provider.Latency{Median: limits.MaxDuration}),
			[]strategy.Strategy{strategy.Retry{Scope: strategy.EachStep, Attempts: 1000}},
			leaseMsg("8760h", "2562047h47m16.854775807s") + "; " + visMsg("8760h", "87600h")},
	} {
		if got := tt.cfg.Warning(tt.sc, tt.rs); got != tt.want {
			t.Errorf("%s: Warning() = %q; want %q", tt.name, got, tt.want)
		}
	}
}

// Where a crash is drawn, as the README says: after-key before every call,
// so on every attempt; before-key once as a delivery enters a step, so once
// for all of a step's own retries. One step that always fails, 3 attempts,
// one delivery, c = 1/2: with a draw before each call the calls made are the
// attempts survived, E = sum over j = 1..3 of (1-c)^j = 0.875 (variance
// 1.109); with one draw for the step they are 3 or 0, E = 3 (1-c) = 1.5
// (variance 2.25). Each mean is held within 4.5 standard errors: a false
// failure about once in 150,000 runs per comparison, 1 in 75,000 for both.
func TestCrashDrawnPerPoint(t *testing.T) {
	const (
		c    = 0.5
		jobs = 20_000
	)
	sc := charge()
	sc.Steps[0].PFail = 1
	for _, tt := range []struct {
		at       delivery.CrashPoint
		mean, vr float64
	}{{delivery.AfterKey, 0.875, 1.875 - 0.875*0.875}, {delivery.BeforeKey, 1.5, 2.25}} {
		cfg := delivery.Defaults()
		cfg.CrashP, cfg.CrashAt, cfg.MaxDeliveries, cfg.Backoff = c, tt.at, 1, backoff.Policy{}
		stream := rng.NewStream(rng.PCGGenerator().New(3, 0))
		j := jobsim.New(sc, stream)
		x := NewRunner(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: 3}, sc, j, stream, rng.NewStream(rng.PCGGenerator().New(3, 1)))
		var calls int64
		for range jobs {
			x.Run()
			calls += j.Calls()
		}
		mean, se := float64(calls)/jobs, math.Sqrt(tt.vr/jobs)
		if math.Abs(mean-tt.mean) > 4.5*se {
			t.Errorf("crash %v: %.4f calls a job; want %.4f ± 4.5 × %.4f", tt.at, mean, tt.mean, se)
		}
	}
}
