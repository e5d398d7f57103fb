package fleet

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/schema"
)

// The policies against their definitions, driven by forced sequences of
// calls; the expected counts follow from the definitions by hand.
func TestPolicyDefinitions(t *testing.T) {
	// retries counts the retries p allows when every attempt fails, each
	// retry asked right after its failure, until the first refusal.
	retries := func(p Policy, timeout bool) int {
		p.Start(0, 0)
		for n := 0; ; n++ {
			p.Failure(0, true, timeout)
			if ok, _ := p.Retry(0, timeout, 0); !ok {
				return n
			}
		}
	}
	t.Run("token-bucket", func(t *testing.T) {
		// Full at 5: retries take it to 4, 3, 2, 1, and 1 is not more than 1.
		p := PolicyConfig{Kind: TokenBucket, Rate: 0.5, Size: 5}.newState()
		if n := retries(p, false); n != 4 {
			t.Errorf("full bucket of 5: %d retries; want 4", n)
		}
		// Three more starts (and the one retries makes) add 4 x 0.5: 3 tokens, 2 retries.
		p.Start(0, 0)
		p.Start(0, 0)
		p.Start(0, 0)
		if n := retries(p, false); n != 2 {
			t.Errorf("1 + 4 x 0.5 tokens: %d retries; want 2", n)
		}
		// The size caps what starts add: 100 starts from 1 fill it to 5, not 51.
		for range 100 {
			p.Start(0, 0)
		}
		if n := retries(p, false); n != 4 {
			t.Errorf("after 100 starts: %d retries; want 4 (capped at 5)", n)
		}
	})
	t.Run("aws", func(t *testing.T) {
		cfg := PolicyConfig{Kind: AWSQuota, Tokens: 500, Cost: 5, TimeoutCost: 10}
		if n := retries(cfg.newState(), false); n != 100 {
			t.Errorf("a failure at every call: %d retries; want 500/5 = 100", n)
		}
		if n := retries(cfg.newState(), true); n != 50 {
			t.Errorf("a timeout at every call: %d retries; want 500/10 = 50", n)
		}
		// Drain to 0, then a success after a retry returns its cost and 1
		// (6: one retry more, 1 left), and a success on a first attempt
		// returns 1 (TestAWSQuotaRefund traces both rules).
		p := cfg.newState()
		retries(p, false)
		p.Success(0, true, 5)
		if n := retries(p, false); n != 1 {
			t.Errorf("after a success that retried: %d retries; want 1", n)
		}
		for range 3 {
			p.Success(0, false, 0)
		}
		if n := retries(p, false); n != 0 {
			t.Errorf("after 3 first-attempt successes (4 tokens): %d retries; want 0", n)
		}
		p.Success(0, false, 0)
		if n := retries(p, false); n != 1 {
			t.Errorf("after 5 first-attempt successes (5 tokens): %d retries; want 1", n)
		}
		// Successes never fill it past 500.
		p = cfg.newState()
		for range 1000 {
			p.Success(0, true, 10)
		}
		if n := retries(p, false); n != 100 {
			t.Errorf("after 1000 successes: %d retries; want 100 (capped at 500)", n)
		}
	})
	t.Run("grpc", func(t *testing.T) {
		// maxTokens 10: failures take it to 9, 8, 7, 6 (retries allowed)
		// and 5 = maxTokens/2 (stopped).
		p := PolicyConfig{Kind: GRPCThrottle, MaxTokens: 10, Ratio: 0.5}.newState()
		if n := retries(p, false); n != 4 {
			t.Errorf("a failure at every call: %d retries; want 4", n)
		}
		if ok, _ := p.Retry(0, false, 0); ok {
			t.Errorf("at 5 tokens: a retry allowed; want none at maxTokens/2")
		}
		// One success: 5.5 > 5, retries again; its failure takes it to 4.5.
		p.Success(0, false, 0)
		if ok, _ := p.Retry(0, false, 0); !ok {
			t.Errorf("at 5.5 tokens: no retry; want one")
		}
		p.Failure(0, true, false)
		// Failures floor at 0, so 20 successes (10 tokens) reopen from 0.
		for range 100 {
			p.Failure(0, true, false)
		}
		for range 11 {
			p.Success(0, false, 0)
		}
		if ok, _ := p.Retry(0, false, 0); !ok {
			t.Errorf("0 + 11 x 0.5 tokens: no retry; want one")
		}
	})
	t.Run("breaker", func(t *testing.T) {
		// Brooker's rule, from retry_sim/retry_strategy.py in
		// github.com/mbrooker/simulator_example (commit 7e5a117, unchanged
		// to bbfe394): CircuitBreakerRetryCall.start does
		// "self.cbrs.calls += 1.0" once a request, and should_retry, asked
		// after every failed attempt, does "self.cbrs.failures += 1.0" and
		// refuses if "(self.cbrs.failures / self.cbrs.calls) >
		// self.cbrs.max_rate". Retries are not calls. 91 requests succeed;
		// 10 fail once and retry (k/(91 + k) <= 10/101 < 0.1); the next
		// one's failure makes 11/102 > 0.1: refused, where counting the 10
		// retries as calls would make 11/112 < 0.1.
		p := PolicyConfig{Kind: Breaker, Threshold: 0.1}.newState()
		a := PolicyConfig{Kind: AttemptBreaker, Threshold: 0.1}.newState()
		names := [...]string{"breaker", "attempt-breaker"}
		for i, p := range []Policy{p, a} {
			for range 91 {
				p.Start(0, 0)
				p.Success(0, false, 0)
			}
			for k := 1; k <= 10; k++ {
				p.Start(0, 0)
				p.Failure(0, false, false)
				if ok, _ := p.Retry(0, false, 0); !ok {
					t.Fatalf("%s: failure %d after %d requests refused; want a retry", names[i], k, 91+k)
				}
				p.Success(0, true, 0)
			}
			p.Start(0, 0)
			p.Failure(0, false, false)
		}
		if ok, _ := p.Retry(0, false, 0); ok {
			t.Errorf("breaker: 11 failed attempts in 102 requests: a retry allowed; want none (11/102 > 0.1)")
		}
		if ok, _ := a.Retry(0, false, 0); !ok {
			t.Errorf("attempt-breaker: 11 failed attempts in 112 attempts: no retry; want one (11/112 <= 0.1)")
		}
		// Ten requests, one failed: 1/10 <= 0.1, so the retry goes; its
		// failure makes 2/10 > 0.1 (2/11 counting attempts), and retries
		// stop.
		p = PolicyConfig{Kind: Breaker, Threshold: 0.1}.newState()
		a = PolicyConfig{Kind: AttemptBreaker, Threshold: 0.1}.newState()
		for i, p := range []Policy{p, a} {
			for range 9 {
				p.Start(0, 0)
				p.Success(0, false, 0)
			}
			if n := retries(p, false); n != 1 {
				t.Errorf("%s: 9 successes, then failures: %d retries; want 1", names[i], n)
			}
			// Successes bring the ratio down: 2 failures in 19 requests
			// (2/19 > 0.1), in 20 attempts (2/20 <= 0.1).
			for range 9 {
				p.Start(0, 0)
				p.Success(0, false, 0)
			}
		}
		if ok, _ := p.Retry(0, false, 0); ok {
			t.Errorf("breaker: 2 failures in 19 requests: a retry allowed; want none")
		}
		if ok, _ := a.Retry(0, false, 0); !ok {
			t.Errorf("attempt-breaker: 2 failures in 20 attempts: no retry; want one")
		}
	})
}

// Policies inside the engine, with a server failing every call, so the
// counts follow from the definitions: the engine serialises every decision,
// and no success ever returns a token.
func TestPolicyForcedFailures(t *testing.T) {
	base := Config{
		Name: "fail", Duration: 10 * time.Second,
		Load:   Shape{Kind: ConstantLoad, Rate: 100},
		Server: Server{Kind: IndependentServer, Base: 10 * time.Millisecond, PFail: 1},
		Client: Client{Clients: 10, Timeout: 60 * time.Second, Attempts: 100},
		Net:    5 * time.Millisecond,
	}
	for _, tc := range []struct {
		name    string
		policy  PolicyConfig
		retries int64
	}{
		{"aws shared drains after 100 retries", PolicyConfig{Kind: AWSQuota, Shared: true, Tokens: 500, Cost: 5, TimeoutCost: 10}, 100},
		{"aws per client, 10 clients", PolicyConfig{Kind: AWSQuota, Tokens: 500, Cost: 5, TimeoutCost: 10}, 1000},
		{"grpc shared stops at maxTokens/2", PolicyConfig{Kind: GRPCThrottle, Shared: true, MaxTokens: 10, Ratio: 0.1}, 4},
		{"grpc per client", PolicyConfig{Kind: GRPCThrottle, MaxTokens: 10, Ratio: 0.1}, 40},
		{"breaker never retries at 100% failures", PolicyConfig{Kind: Breaker, Threshold: 0.1}, 0},
	} {
		cfg := base
		cfg.Client.Policy = tc.policy
		for _, r := range run(t, cfg, 2) {
			if r.Retries != tc.retries || r.Succeeded != 0 || r.Failed != r.Requests || r.Denied != r.Requests {
				t.Errorf("%s: %d retries, %d succeeded, %d failed, %d denied of %d requests; want %d retries, 0, all, all",
					tc.name, r.Retries, r.Succeeded, r.Failed, r.Denied, r.Requests, tc.retries)
			}
		}
	}
}

// At failure rate 1 the token bucket's retries a request converge to r: a
// client's tokens are s at the start, gain at most r a request and lose 1 a
// retry, and never go below 0, so retries <= C s + r N for N requests of C
// clients; and its retries keep its tokens at most 1 + r x (its requests
// started within a round trip), so retries >= r N - C (1 + 3r) - C r
// unless some client starts over 30 requests within one round trip
// (probability far below 1e-12 at 10 requests a second a client and 20 ms
// round trips). So |retries/N - r| <= C (s + 2)/N, which at 10 clients,
// s = 5 and N near 10,000 is 0.007: the test fails only if the model is
// wrong. A bucket shared by the fleet has s tokens in all, not C s, so it
// makes fewer retries by about (C - 1)(s - 1): the clients are distinct.
func TestTokenBucketConvergesToRate(t *testing.T) {
	const r, s = 0.1, 5.0
	cfg := Config{
		Name: "f=1", Duration: 100 * time.Second,
		Load:   Shape{Kind: ConstantLoad, Rate: 100},
		Server: Server{Kind: IndependentServer, Base: 0, PFail: 1},
		Client: Client{Clients: 10, Timeout: 60 * time.Second, Attempts: 4, Policy: PolicyConfig{Kind: TokenBucket, Rate: r, Size: s}},
		Net:    10 * time.Millisecond,
	}
	per := run(t, cfg, 3)
	cfg.Client.Policy.Shared = true
	shared := run(t, cfg, 3)
	for i, rep := range per {
		n := float64(rep.Requests)
		got := float64(rep.Retries) / n
		if tol := 10 * (s + 2) / n; math.Abs(got-r) > tol {
			t.Errorf("replicate %d: %g retries a request; want r = %g within %g", i, got, r, tol)
		}
		// Same seed, same arrivals: the per-client buckets hold 10 x 5
		// tokens at the start, the shared one 5.
		extra := float64(rep.Retries - shared[i].Retries)
		if extra < 9*(s-2) || extra > 10*s {
			t.Errorf("replicate %d: per-client buckets make %g retries more than a shared one; want from %g to %g", i, extra, 9*(s-2), 10*s)
		}
	}
}

// The windowed policies against their definitions, driven by forced
// sequences of calls at chosen times; every expected count is worked out by
// hand from the definition in the comment beside it.
func TestWindowedPolicyDefinitions(t *testing.T) {
	// retriesAt counts the retries p allows at time now, each asked after
	// a failure of the one before, until the first refusal (at most 10,000).
	retriesAt := func(p Policy, now float64) int {
		for n := 0; n < 10_000; n++ {
			if ok, _ := p.Retry(now, false, 0); !ok {
				return n
			}
		}
		return 10_000
	}
	t.Run("finagle-budget share", func(t *testing.T) {
		// No reserve: retries within the TTL are exactly floor(ratio x
		// requests): a request deposits 1000, a retry costs 1000/0.2 = 5000.
		for n := range 60 {
			p := PolicyConfig{Kind: FinagleBudget, BudgetRatio: 0.2, TTL: 10 * time.Second}.newState()
			for range n {
				p.Start(1, 0)
			}
			if got := retriesAt(p, 2); got != n/5 {
				t.Errorf("%d requests: %d retries; want floor(0.2 x %d) = %d", n, got, n, n/5)
			}
		}
		// 0.3: a retry costs 3333 thousandths, so 10 requests buy 3.
		p := PolicyConfig{Kind: FinagleBudget, BudgetRatio: 0.3, TTL: 10 * time.Second}.newState()
		for range 10 {
			p.Start(0, 0)
		}
		if got := retriesAt(p, 0); got != 3 {
			t.Errorf("ratio 0.3, 10 requests: %d retries; want 3", got)
		}
	})
	t.Run("finagle-budget window", func(t *testing.T) {
		// Finagle's defaults: 20%, 10 s, 10 retries a second: a reserve of
		// 10 x 10 = 100 retries before any request.
		cfg := PolicyConfig{Kind: FinagleBudget, BudgetRatio: 0.2, TTL: 10 * time.Second, MinRate: 10}
		p := cfg.newState()
		if got := retriesAt(p, 0); got != 100 {
			t.Errorf("no requests: %d retries; want the reserve, 10/s x 10 s = 100", got)
		}
		// 50 requests at t = 5 add 10 more; at t = 9.9 the withdrawals of
		// t = 0 still count.
		for range 50 {
			p.Start(5, 0)
		}
		if got := retriesAt(p, 9.9); got != 10 {
			t.Errorf("50 requests at 5 s, reserve spent at 0 s: %d retries at 9.9 s; want 10", got)
		}
		// At t = 10 the 100 withdrawals of t = 0 expire: the reserve is back
		// (the 50 deposits of t = 5 and the 10 withdrawals of 9.9 still count).
		if got := retriesAt(p, 10); got != 100 {
			t.Errorf("at 10 s: %d retries; want 100", got)
		}
		// At t = 19.9 only 9.9's withdrawals (110 retries) are in the window:
		// 100 + 0 - 110 < 1, none; at 20 s all have expired: the reserve again.
		if got := retriesAt(p, 19.9); got != 0 {
			t.Errorf("at 19.9 s: %d retries; want 0", got)
		}
		if got := retriesAt(p, 20.001); got != 100 {
			t.Errorf("at 20.001 s: %d retries; want 100", got)
		}
	})
	t.Run("envoy-budget", func(t *testing.T) {
		// 10 first attempts in flight: the limit is max(3, floor(0.2 x
		// (10 + r))) = 3 for r < 5, so 3 retries go.
		send := func(p Policy, firsts int) int {
			for range firsts {
				p.Sent(0, false)
			}
			n := 0
			for ; n < 10_000; n++ {
				if ok, _ := p.Retry(0, false, 0); !ok {
					break
				}
				p.Sent(0, true)
			}
			return n
		}
		cfg := PolicyConfig{Kind: EnvoyBudget, BudgetRatio: 0.2, MinConcurrency: 3}
		if got := send(cfg.newState(), 10); got != 3 {
			t.Errorf("10 in flight: %d retries; want the minimum 3", got)
		}
		// 100 in flight: r goes on while r < floor(0.2 (100 + r)): at r = 23
		// the limit is floor(24.6) = 24, at r = 24 it is floor(24.8) = 24.
		p := cfg.newState()
		if got := send(p, 100); got != 24 {
			t.Errorf("100 in flight: %d retries; want 24", got)
		}
		// A retry that ends (either way) frees its place: one more goes.
		p.Failure(0, true, false)
		if got := send(p, 0); got != 1 {
			t.Errorf("after a retry failed: %d retries; want 1", got)
		}
		// Retries allowed but not yet sent (waiting out a backoff) count:
		// Envoy v1.39.0 increments retries() when it decides, before the
		// backoff (router/retry_state_impl.cc RetryStateImpl::shouldRetry:
		// "cluster_.resourceManager(priority_).retries().inc();" then
		// "enableBackoffTimer();"), so with nothing in flight only
		// min_retry_concurrency 3 go.
		q := cfg.newState()
		if got := retriesAt(q, 0); got != 3 {
			t.Errorf("retries never sent: %d allowed; want min_retry_concurrency 3", got)
		}
	})
	t.Run("envoy-budget trace", func(t *testing.T) {
		// Envoy v1.39.0 (8eea328, 2026-07-14), worked by hand:
		//  - a retry counts from shouldRetry's "retries().inc()", before
		//    "enableBackoffTimer()", to resetRetry's "retries().dec()", which
		//    the next shouldRetry of its request calls first (its attempt's
		//    reply, reset or timeout) or ~RetryStateImpl at the request's end;
		//    router.cc doRetry, the retry leaving, touches neither;
		//  - upstream/resource_manager_impl.h RetryBudgetImpl: canCreate is
		//    "count() < max()", max is "std::max<uint64_t>(budget_percent /
		//    100.0 * requests_for_budget, min_retry_concurrency)" with
		//    "requests_for_budget = requests_.count() +
		//    pending_requests_.count()" (budget_interval 0, its default): the
		//    upstream requests, first attempts and retries, in flight; a
		//    request waiting out its backoff has none.
		p := PolicyConfig{Kind: EnvoyBudget, BudgetRatio: 0.2, MinConcurrency: 3}.newState()
		ask := func(step string, want bool) {
			t.Helper()
			if ok, _ := p.Retry(0, false, 0); ok != want {
				t.Errorf("%s: retry allowed %v; want %v", step, ok, want)
			}
		}
		for range 20 {
			p.Sent(0, false) // 20 first attempts in flight
		}
		// Four fail in turn, each retry decided and waiting out its backoff:
		// in flight 19, 18, 17, 16, limit max(3, floor(0.2 x that)) = 3, and
		// the retries counted before each ask 0, 1, 2, then 3: not < 3.
		for i, want := range []bool{true, true, true, false} {
			p.Failure(0, false, false)
			ask(fmt.Sprintf("failure %d of a first attempt", i+1), want)
		}
		// The three retries go out: in flight 16 + 3 = 19, limit 3, count 3.
		for range 3 {
			p.Sent(0, true)
		}
		p.Failure(0, false, false) // in flight 18, limit 3, count 3
		ask("with 3 retries out", false)
		// One retry fails: its count ends (resetRetry) before the ask:
		// count 2 < 3, allowed, count 3 again, in flight 17.
		p.Failure(0, true, false)
		ask("after a retry failed", true)
		// 10 more first attempts (27 in flight, the retry in backoff not
		// among them): limit max(3, floor(5.4)) = 5, count 3: two go.
		for range 10 {
			p.Sent(0, false)
		}
		ask("27 in flight, count 3", true)
		ask("27 in flight, count 4", true)
		ask("27 in flight, count 5", false)
		// A retry succeeds: count 4, in flight 26, limit floor(5.2) = 5.
		p.Success(0, true, 0)
		ask("after a retry succeeded", true)
		ask("count 5 of 5", false)
	})
	t.Run("sliding-breaker count window", func(t *testing.T) {
		// resilience4j's defaults: 50%, a window of 100 calls, at least 100,
		// open 60 s, 10 calls half-open.
		cfg := PolicyConfig{Kind: SlidingBreaker, FailureRate: 0.5, Window: 100, MinCalls: 100, OpenTime: time.Minute, HalfOpenCalls: 10}
		p := cfg.newState()
		for range 99 {
			p.Failure(1, false, false)
		}
		if !p.Start(1, 0) {
			t.Fatal("99 failures, fewer than the minimum 100 calls: open; want closed")
		}
		p.Failure(2, false, false) // 100 failures of 100: open at t = 2
		if p.Start(2, 0) || p.Start(61.9, 0) {
			t.Error("100 failures of 100: a call went before 2 + 60 s; want open")
		}
		if ok, _ := p.Retry(61.9, false, 0); ok {
			t.Error("open: a retry went; want it refused too")
		}
		// At 62 s it half-opens: 10 calls go, the 11th does not.
		for i := range 10 {
			if !p.Start(62, 0) {
				t.Fatalf("half-open call %d refused; want 10 let through", i+1)
			}
		}
		if p.Start(62, 0) {
			t.Error("an 11th half-open call went; want 10 only")
		}
		// 5 of the 10 fail: 50% >= 50%, open again at 63 s.
		for i := range 10 {
			if i < 5 {
				p.Failure(63, false, false)
			} else {
				p.Success(63, false, 0)
			}
		}
		if p.Start(122.9, 0) || !p.Start(123, 0) {
			t.Error("5 of 10 probes failed at 63 s: want open until 123 s, then half-open")
		}
		// 9 more probes, 4 failures of the 10: closed, with an empty window.
		for range 9 {
			p.Start(123, 0)
		}
		for i := range 10 {
			if i < 4 {
				p.Failure(124, false, false)
			} else {
				p.Success(124, false, 0)
			}
		}
		// The window slides: 51 successes then 49 failures stay closed (49%),
		// and one more failure pushes the oldest success out: 50%, open.
		for range 51 {
			p.Success(125, false, 0)
		}
		for range 49 {
			p.Failure(125, false, false)
		}
		if !p.Start(125, 0) {
			t.Fatal("49 failures in 100: open; want closed")
		}
		p.Failure(126, false, false)
		if p.Start(126, 0) {
			t.Error("50 failures in the last 100: closed; want open")
		}
	})
	t.Run("sliding-breaker time window", func(t *testing.T) {
		// Polly's defaults: a ratio of 0.1 over 30 s, at least 100 calls,
		// open 5 s, one probe.
		cfg := PolicyConfig{Kind: SlidingBreaker, FailureRate: 0.1, Window: 1, WindowTime: 30 * time.Second, MinCalls: 100, OpenTime: 5 * time.Second, HalfOpenCalls: 1}
		p := cfg.newState()
		for range 100 {
			p.Success(0, false, 0)
		}
		// At 31 s the successes of 0 s have left the window: 11 failures and
		// 88 successes are 99 calls, under the minimum; the 89th success
		// makes 100 with 11% failures: open.
		for range 11 {
			p.Failure(31, false, false)
		}
		for range 88 {
			p.Success(31, false, 0)
		}
		if !p.Start(31, 0) {
			t.Fatal("99 calls in the window: open; want closed")
		}
		p.Success(31, false, 0)
		if p.Start(35.9, 0) {
			t.Error("11 failures in 100: a call went within 5 s; want open")
		}
		if !p.Start(36, 0) || p.Start(36, 0) {
			t.Error("at 36 s: want one probe, then refusals")
		}
		p.Success(36.5, false, 0)
		if first, second := p.Start(36.5, 0), p.Start(36.5, 0); !first || !second {
			t.Error("the probe succeeded: want closed")
		}
	})
	t.Run("sre-throttle", func(t *testing.T) {
		// K = 2 over 120 s. A request counts once its outcome is known:
		// a reply (an accept unless an overload rejection), a timeout, a
		// hedge abandoned, or a refusal here.
		cfg := PolicyConfig{Kind: SREThrottle, K: 2, SREWindow: 2 * time.Minute}
		p := cfg.newState()
		const eps = 1e-9
		if !p.Start(0, 0) {
			t.Fatal("no history: refused at u = 0; want p = 0")
		}
		for range 3 {
			p.Answered(1, false)
		}
		for range 5 {
			p.Answered(1, true)
		}
		// 8 requests, 3 accepts; then 2 timeouts: 10 requests, p = (10 - 6)/11.
		p.Failure(1, false, true)
		p.Failure(1, false, true)
		if p.Start(2, 4.0/11-eps) {
			t.Error("10 requests, 3 accepts: u just under 4/11 let through; want refused")
		}
		// The refused one counted: 11 requests, so p = 5/12; retries too.
		if ok, _ := p.Retry(2, false, 5.0/12-eps); ok {
			t.Error("11 requests, 3 accepts: u just under 5/12 let through; want refused")
		}
		// One let through is not counted until its outcome: still 12.
		if ok, _ := p.Retry(2, false, 6.0/13+eps); !ok {
			t.Error("12 requests, 3 accepts: u just over 6/13 refused; want let through")
		}
		if p.Start(2, 6.0/13-eps) {
			t.Error("12 requests, 3 accepts: u just under 6/13 let through; want refused")
		}
		// An abandoned hedge counts: 14 requests, p = 8/15.
		p.Cancel(3, true)
		if !p.Start(3, 8.0/15+eps) || p.Start(3, 8.0/15-eps) {
			t.Error("14 requests, 3 accepts: want p = 8/15")
		}
		// At 121 s what was counted at 1 s has left the window: the 3
		// refusals of 2 s and the hedge and refusal of 3 s, p = 5/6.
		if p.Start(121, 5.0/6-eps) || !p.Start(121, 6.0/7+eps) {
			t.Error("at 121 s: want p = 5/6, then 6/7")
		}
	})
}

// Policies that need the clock, inside the engine, where the counts follow
// from the definitions exactly.
func TestWindowedPoliciesInEngine(t *testing.T) {
	t.Run("finagle-budget drains to its share", func(t *testing.T) {
		// Every call fails and the TTL (60 s) outlasts the run, so nothing
		// expires: the last request's failure asks until the balance is
		// under one retry, so retries = 600 (the reserve, 10/s x 60 s) +
		// floor(requests/5).
		cfg := Config{
			Name: "fail", Duration: 10 * time.Second,
			Load:   Shape{Kind: ConstantLoad, Rate: 100},
			Server: Server{Kind: IndependentServer, Base: 10 * time.Millisecond, PFail: 1},
			Client: Client{Clients: 10, Timeout: 60 * time.Second, Attempts: 100,
				Policy: PolicyConfig{Kind: FinagleBudget, Shared: true, BudgetRatio: 0.2, TTL: time.Minute, MinRate: 10}},
			Net: 5 * time.Millisecond,
		}
		for _, r := range run(t, cfg, 2) {
			if want := 600 + r.Requests/5; r.Retries != want || r.Denied != r.Requests {
				t.Errorf("%d requests: %d retries, %d denied; want 600 + %d/5 = %d, all", r.Requests, r.Retries, r.Denied, r.Requests, want)
			}
		}
	})
	t.Run("sliding-breaker stops first attempts", func(t *testing.T) {
		// The server answers at once (no latency, no network), so each
		// outcome is in before the next request: the shared breaker opens on
		// the 10th failure, and stays open past the run; every later request
		// is rejected locally, never reaching the server.
		cfg := Config{
			Name: "fail", Duration: 100 * time.Second,
			Load:   Shape{Kind: ConstantLoad, Rate: 10},
			Server: Server{Kind: IndependentServer, PFail: 1},
			Client: Client{Clients: 3, Timeout: 1 * time.Second, Attempts: 1,
				Policy: PolicyConfig{Kind: SlidingBreaker, Shared: true, FailureRate: 0.5, Window: 10, MinCalls: 10, OpenTime: 1000 * time.Second, HalfOpenCalls: 1}},
		}
		for _, r := range run(t, cfg, 2) {
			if r.Calls != 10 || r.LocalRejected != r.Requests-10 || r.Failed != r.Requests {
				t.Errorf("%d requests: %d calls, %d rejected locally, %d failed; want 10, %d, all", r.Requests, r.Calls, r.LocalRejected, r.Failed, r.Requests-10)
			}
		}
	})
	t.Run("sre-throttle against an overloaded server", func(t *testing.T) {
		// A rate limit of 0 with a bucket of 1 serves the first call and
		// rejects every other as overload, answering at once; the window
		// (120 s) outlasts the run. So the n-th request meets n - 1 requests
		// and 1 accept and goes with probability 1 - max(0, (n - 3)/n): 1
		// up to n = 3, then 3/n, on its own draw. The calls of a replicate
		// of N requests are a sum of independent Bernoullis of mean 2 + 3
		// sum_{n=3..N} 1/n and variance sum_{n=4..N} (3/n)(1 - 3/n).
		// Bernstein's inequality bounds the total over 400 replicates at a
		// false-failure rate of 1e-4 (one comparison): about 250 calls
		// around 5,200 (N about 100), where counting each request before
		// deciding it (3/(n + 1) from n = 3) would take about 390 away.
		cfg := Config{
			Name: "overloaded", Duration: 10 * time.Second,
			Load:   Shape{Kind: ConstantLoad, Rate: 10},
			Server: Server{Kind: RateLimitServer, Limit: 0, Burst: 1},
			Client: Client{Clients: 1, Timeout: 1 * time.Second, Attempts: 1, Policy: PolicyConfig{Kind: SREThrottle, K: 2, SREWindow: 2 * time.Minute}},
		}
		var calls, mean, v float64
		for _, r := range run(t, cfg, 400) {
			calls += float64(r.Calls)
			for n := 1; n <= int(r.Requests); n++ {
				pGo := math.Min(1, 3/float64(n))
				mean += pGo
				v += pGo * (1 - pGo)
			}
			if r.Calls+r.LocalRejected != r.Requests {
				t.Errorf("%d calls + %d rejected locally; want the %d requests", r.Calls, r.LocalRejected, r.Requests)
			}
		}
		l := math.Log(2 / 1e-4)
		if tol := l/3 + math.Sqrt(l/3*l/3+2*l*v); math.Abs(calls-mean) > tol {
			t.Errorf("%g calls over 400 replicates; want sum H_N = %.1f within %.1f", calls, mean, tol)

		}
	})
	t.Run("sre-throttle never rejects a healthy server", func(t *testing.T) {
		// Every attempt succeeds, so accepts = requests (but for those in
		// flight) and (r - 2a)/(r + 1) < 0 once a is over r/2.
		cfg := Config{
			Name: "ok", Duration: 20 * time.Second,
			Load:   Shape{Kind: ConstantLoad, Rate: 100},
			Server: Server{Kind: IndependentServer},
			Client: Client{Clients: 1, Timeout: 1 * time.Second, Attempts: 1, Policy: PolicyConfig{Kind: SREThrottle, K: 2, SREWindow: 2 * time.Minute}},
		}
		for _, r := range run(t, cfg, 2) {
			if r.LocalRejected != 0 || r.Succeeded != r.Requests {
				t.Errorf("%d requests: %d rejected locally, %d succeeded; want 0, all", r.Requests, r.LocalRejected, r.Succeeded)
			}
		}
	})
}

// Hedges against their definition: with no network delay and a server that
// takes 0.25 s, a copy goes out at 0.1 s and at 0.2 s (the next, at 0.3 s,
// comes after the first reply), so 2 hedges and 3 calls a request, whatever
// the number of hedges allowed from 2 up; the copies do the work again
// without keys (2 duplicates a request) and are conflicts with the same key
// (the first copy holds it till 0.25 s). With 1 hedge allowed: 1 and 2
// calls. With a server failing every call the attempt fails once all 3
// copies have, at 0.45 s. A delay longer than the server's time sends none.
func TestHedges(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		hedges                int
		delay, pFail          float64
		keys                  schema.KeyMode
		perReq                int64 // hedges, and duplicates or conflicts, a request
		duplicates, conflicts bool
		succeed               bool
	}{
		{"5 allowed, no keys", 5, 0.1, 0, schema.NoKeys, 2, true, false, true},
		{"2 allowed, same key", 2, 0.1, 0, schema.SameKey, 2, false, true, true},
		{"1 allowed, no keys", 1, 0.1, 0, schema.NoKeys, 1, true, false, true},
		{"delay past the reply", 3, 0.3, 0, schema.NoKeys, 0, false, false, true},
		{"every call fails", 2, 0.1, 1, schema.NoKeys, 2, false, false, false},
		// A policy is asked before each hedge as before a retry: a token
		// bucket holding 1 token, never refilled, refuses them all.
		{"refused by the policy", 5, 0.1, 0, schema.NoKeys, 0, false, false, true},
	} {
		cfg := Config{
			Name: "hedge", Duration: 20 * time.Second,
			Load:   Shape{Kind: ConstantLoad, Rate: 10},
			Server: Server{Kind: IndependentServer, Base: 250 * time.Millisecond, PFail: tc.pFail},
			Client: Client{Clients: 1, Timeout: 5 * time.Second, Attempts: 1, Keys: tc.keys, Hedges: tc.hedges, HedgeDelay: time.Duration(tc.delay * float64(time.Second))},
		}
		if tc.name == "refused by the policy" {
			cfg.Client.Policy = PolicyConfig{Kind: TokenBucket, Rate: 0, Size: 1}
		}
		for _, r := range run(t, cfg, 2) {
			n := r.Requests
			var dup, conf int64
			if tc.duplicates {
				dup = tc.perReq * n
			}
			if tc.conflicts {
				conf = tc.perReq * n
			}
			succeeded := n
			if !tc.succeed {
				succeeded = 0
			}
			if r.Hedges != tc.perReq*n || r.Calls != (1+tc.perReq)*n || r.Duplicates != dup || r.Conflicts != conf || r.Succeeded != succeeded {
				t.Errorf("%s: %d requests: %d hedges, %d calls, %d duplicates, %d conflicts, %d succeeded; want %d, %d, %d, %d, %d",
					tc.name, n, r.Hedges, r.Calls, r.Duplicates, r.Conflicts, r.Succeeded, tc.perReq*n, (1+tc.perReq)*n, dup, conf, succeeded)
			}
		}
	}
}

// Every parameter a kind reads can be set by name, and lands in the field
// its kind's Check looks at: set out of its limits, Check names it.
func TestSetParam(t *testing.T) {
	for _, name := range policyPaths() {
		var kind PolicyKind
		for k := range PolicyKind(len(policies.names)) {
			if k.reads(name) {
				kind = k
				break
			}
		}
		p := DefaultPolicy()
		p.Kind = kind
		err := p.setParam(name, 2e6) // a count is refused here, the rest by Check
		if err == nil {
			err = p.Check()
		}
		var fe *schema.FieldError
		if !errors.As(err, &fe) || fe.Field != name {
			t.Errorf("%s at 2e6: %v; want an error naming %s", name, err, name)
		}
	}
	var p PolicyConfig
	if err := p.setParam("client.policy.window", 1.5); err == nil {
		t.Error("setParam(client.policy.window, 1.5) = nil; want an error: a count is whole")
	}
	if err := p.setParam("colour", 1); err == nil {
		t.Error("setParam(colour, 1) = nil; want an error")
	}
}

// setParam sets the policy parameter whose path is path to v, in seconds
// for a time; a count must be a whole number. Limits are Check's.
func (p *PolicyConfig) setParam(path string, v float64) error {
	prm, _ := decl.LookupParam[Config](path)
	if !slices.Contains(policyPaths(), path) {
		return &schema.FieldError{Field: path, Msg: "no policy has this parameter"}
	}
	c := Config{Client: Client{Policy: *p}}
	switch f := prm.Field(&c).(type) {
	case *float64:
		*f = v
	case *time.Duration:
		*f = time.Duration(math.Round(v * float64(time.Second)))
	case *int:
		if v != math.Trunc(v) || math.Abs(v) > limits.PolicyWindow+1 {
			return &schema.FieldError{Field: path, Msg: fmt.Sprintf("%g is not a whole number from 1 to %d", v, limits.PolicyWindow)}
		}
		*f = int(v)
	}
	*p = c.Client.Policy
	return nil
}
