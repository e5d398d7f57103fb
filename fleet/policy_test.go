package fleet

import (
	"math"
	"testing"
)

// The policies against their definitions, driven by forced sequences of
// calls; the expected counts follow from the definitions by hand.
func TestPolicyDefinitions(t *testing.T) {
	// retries counts the retries p allows when every attempt fails, each
	// retry asked right after its failure, until the first refusal.
	retries := func(p Policy, timeout bool) int {
		p.Start()
		for n := 0; ; n++ {
			p.Failure(timeout)
			if ok, _ := p.Retry(timeout); !ok {
				return n
			}
		}
	}
	t.Run("token-bucket", func(t *testing.T) {
		// Full at 5: retries take it to 4, 3, 2, 1, and 1 is not more than 1.
		p := PolicyConfig{Kind: TokenBucket, Rate: 0.5, Size: 5}.New()
		if n := retries(p, false); n != 4 {
			t.Errorf("full bucket of 5: %d retries; want 4", n)
		}
		// Three more starts (and the one retries makes) add 4 x 0.5: 3 tokens, 2 retries.
		p.Start()
		p.Start()
		p.Start()
		if n := retries(p, false); n != 2 {
			t.Errorf("1 + 4 x 0.5 tokens: %d retries; want 2", n)
		}
		// The size caps what starts add: 100 starts from 1 fill it to 5, not 51.
		for range 100 {
			p.Start()
		}
		if n := retries(p, false); n != 4 {
			t.Errorf("after 100 starts: %d retries; want 4 (capped at 5)", n)
		}
	})
	t.Run("aws", func(t *testing.T) {
		cfg := PolicyConfig{Kind: AWSQuota, Tokens: 500, Cost: 5, TimeoutCost: 10}
		if n := retries(cfg.New(), false); n != 100 {
			t.Errorf("a failure at every call: %d retries; want 500/5 = 100", n)
		}
		if n := retries(cfg.New(), true); n != 50 {
			t.Errorf("a timeout at every call: %d retries; want 500/10 = 50", n)
		}
		// Drain to 0, then a success after a retry returns its cost (5: one
		// retry more), and a success on a first attempt returns 1.
		p := cfg.New()
		retries(p, false)
		p.Success(5)
		if n := retries(p, false); n != 1 {
			t.Errorf("after a success that retried: %d retries; want 1", n)
		}
		for range 4 {
			p.Success(0)
		}
		if n := retries(p, false); n != 0 {
			t.Errorf("after 4 first-attempt successes (4 tokens): %d retries; want 0", n)
		}
		p.Success(0)
		if n := retries(p, false); n != 1 {
			t.Errorf("after 5 first-attempt successes (5 tokens): %d retries; want 1", n)
		}
		// Successes never fill it past 500.
		p = cfg.New()
		for range 1000 {
			p.Success(10)
		}
		if n := retries(p, false); n != 100 {
			t.Errorf("after 1000 successes: %d retries; want 100 (capped at 500)", n)
		}
	})
	t.Run("grpc", func(t *testing.T) {
		// maxTokens 10: failures take it to 9, 8, 7, 6 (retries allowed)
		// and 5 = maxTokens/2 (stopped).
		p := PolicyConfig{Kind: GRPCThrottle, MaxTokens: 10, Ratio: 0.5}.New()
		if n := retries(p, false); n != 4 {
			t.Errorf("a failure at every call: %d retries; want 4", n)
		}
		if ok, _ := p.Retry(false); ok {
			t.Errorf("at 5 tokens: a retry allowed; want none at maxTokens/2")
		}
		// One success: 5.5 > 5, retries again; its failure takes it to 4.5.
		p.Success(0)
		if ok, _ := p.Retry(false); !ok {
			t.Errorf("at 5.5 tokens: no retry; want one")
		}
		p.Failure(false)
		// Failures floor at 0, so 20 successes (10 tokens) reopen from 0.
		for range 100 {
			p.Failure(false)
		}
		for range 11 {
			p.Success(0)
		}
		if ok, _ := p.Retry(false); !ok {
			t.Errorf("0 + 11 x 0.5 tokens: no retry; want one")
		}
	})
	t.Run("breaker", func(t *testing.T) {
		// Ten calls, one failed: 1/10 <= 0.1, so the retry goes (11 calls);
		// its failure makes 2/11 > 0.1, and retries stop.
		p := PolicyConfig{Kind: Breaker, Threshold: 0.1}.New()
		for range 9 {
			p.Start()
			p.Success(0)
		}
		if n := retries(p, false); n != 1 {
			t.Errorf("9 successes, then failures: %d retries; want 1", n)
		}
		// Successes bring the ratio back: 2 failures in 20 calls.
		for range 9 {
			p.Start()
			p.Success(0)
		}
		if ok, _ := p.Retry(false); !ok {
			t.Errorf("2 failures in 20 calls: no retry; want one")
		}
	})
}

// Policies inside the engine, with a server failing every call, so the
// counts follow from the definitions: the engine serialises every decision,
// and no success ever returns a token.
func TestPolicyForcedFailures(t *testing.T) {
	base := Config{
		Name: "fail", Duration: 10,
		Load:   Shape{Kind: Constant, Rate: 100},
		Server: Server{Kind: Independent, Base: 0.01, PFail: 1},
		Client: Client{Clients: 10, Timeout: 60, Attempts: 100},
		Net:    0.005,
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
		Name: "f=1", Duration: 100,
		Load:   Shape{Kind: Constant, Rate: 100},
		Server: Server{Kind: Independent, Base: 0, PFail: 1},
		Client: Client{Clients: 10, Timeout: 60, Attempts: 4, Policy: PolicyConfig{Kind: TokenBucket, Rate: r, Size: s}},
		Net:    0.01,
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
