package fleet

import (
	"math"
	"testing"
	"time"
)

// The AWS quota's refund, traced by hand from aws-sdk-go-v2's code. At
// v1.47.8 its attempt middleware releases, after each attempt,
// "releaseRetryToken(err)" and then, under "if !newRetries2026() ||
// attemptNum == 1" (true without the 2026 opt-in), "releaseAttemptToken(err)"
// (aws/retry/middleware.go, handleAttempt); Standard.GetAttemptToken is
// "return s.GetInitialToken(), nil" for every attempt, whose release adds
// NoRetryIncrement (DefaultNoRetryIncrement 1) on success, and a retry
// token's release is "t.bucket.Refund(t.tokenCost)", capped at the initial
// capacity (aws/retry/standard.go, aws/ratelimit). So a successful retry
// returns its cost plus 1. From v1.48.0 GetAttemptToken returns nopRelease
// when "md.AttemptNum > 1" ("A successful retry refunds the cost of its retry
// token instead"): the specification's rule, aws-spec.
func TestAWSQuotaRefund(t *testing.T) {
	type step struct {
		what string
		do   func(p Policy)
		sdk  float64 // tokens after it, aws-sdk-go-v2 v1.47.8
		spec float64 // tokens after it, the specification (v1.48.0's refund)
	}
	retry := func(timeout bool) func(Policy) {
		return func(p Policy) { p.Retry(0, timeout, 0) }
	}
	steps := []step{
		{"an error, a retry (cost 5)", retry(false), 495, 495},
		{"an error, a second retry (cost 5)", retry(false), 490, 490},
		{"the second retry succeeds", func(p Policy) { p.Success(0, true, 5) }, 496, 495},
		{"a timeout, a retry (cost 10)", retry(true), 486, 485},
		{"that retry succeeds", func(p Policy) { p.Success(0, true, 10) }, 497, 495},
		{"a first attempt succeeds", func(p Policy) { p.Success(0, false, 0) }, 498, 496},
		{"an error, a retry (cost 5)", retry(false), 493, 491},
		{"that retry succeeds", func(p Policy) { p.Success(0, true, 5) }, 499, 496},
	}
	for _, kind := range []PolicyKind{AWSQuota, AWSSpecQuota} {
		p := PolicyConfig{Kind: kind, Tokens: 500, Cost: 5, TimeoutCost: 10}.newState()
		q := p.(*awsQuota)
		for i, s := range steps {
			s.do(p)
			want := s.sdk
			if kind == AWSSpecQuota {
				want = s.spec
			}
			if q.tokens != want {
				t.Errorf("%s, step %d (%s): %g tokens; want %g", kind, i+1, s.what, q.tokens, want)
			}
		}
		q.tokens = 498
		p.Success(0, true, 5)
		if q.tokens != 500 {
			t.Errorf("%s: a successful retry at 498 tokens leaves %g; want the capacity, 500", kind, q.tokens)
		}
	}
}

// The SRE book's accepts ("Handling overload", Site Reliability Engineering,
// 2016: "accepts: The number of requests accepted by the backend") are every
// reply but an overload rejection, so a server failing every call for a
// reason of its own, answering at once, accepts every request: the n-th meets
// n - 1 requests and n - 1 accepts, p = max(0, (1 - K)(n - 1)/n) = 0, and no
// request is refused. Counting only successes as accepts refused most. And
// a request counts once its outcome is known, so a server that takes 2 s to
// serve every call is never throttled either: each request counted is an
// accept. Counting requests when attempted refused most of the first
// seconds' (the window begins empty and no reply is in for 2 s), and those
// refusals, counted, kept refusing.
func TestSREThrottleAcceptsErrors(t *testing.T) {
	for _, server := range []Server{{Kind: Independent, PFail: 1}, {Kind: Independent, Base: 2 * time.Second}} {
		cfg := Config{
			Name: "errors", Duration: 10 * time.Second,
			Load:   Shape{Kind: Constant, Rate: 10},
			Server: server,
			Client: Client{Clients: 1, Timeout: 5 * time.Second, Attempts: 1, Policy: PolicyConfig{Kind: SREThrottle, K: 2, SREWindow: 2 * time.Minute}},
		}
		for _, r := range run(t, cfg, 4) {
			if r.LocalRejected != 0 || r.Calls != r.Requests {
				t.Errorf("%+v: %d requests: %d refused locally, %d calls; want 0 refused, every request called", server, r.Requests, r.LocalRejected, r.Calls)
			}
		}
	}
}

// grpc-go's adaptive throttler (v1.83.1, balancer/rls/internal/adaptive):
// "defaultDuration = 30 * time.Second", "defaultBins = 100",
// "defaultRatioForAccepts = 2.0", "defaultRequestsPadding = 8.0"; ShouldThrottle
// computes "requests := accepts + throttles", "throttleProbability :=
// (requests - t.ratioForAccepts*accepts) / (requests + t.requestsPadding)",
// lets the request go "if throttleProbability <= randomProbability", and
// otherwise "t.throttles.add(now, 1)"; RegisterBackendResponse(throttled)
// adds 1 to throttles or to accepts. The lookback's bin is "t.UnixNano() /
// l.width.Nanoseconds()" with width 30 s / 100 = 0.3 s, and a sum keeps the
// last 100 bins up to the head.
func TestGRPCAdaptiveDefinition(t *testing.T) {
	const eps = 1e-9
	p := PolicyConfig{Kind: GRPCAdaptive}.newState()
	if !p.Start(0, 0) {
		t.Fatal("no history: refused at u = 0; want p = 0/8 = 0, which u = 0 is not under")
	}
	for range 3 {
		p.Answered(0, false)
	}
	for range 5 {
		p.Answered(0.1, true)
	}
	// 8 requests, 3 accepts: p = (8 - 6)/(8 + 8) = 1/8.
	if p.Start(0.2, 1.0/8-eps) {
		t.Error("8 requests, 3 accepts: u just under 1/8 let through; want refused")
	}
	// The refusal is a throttle: 9 requests, p = 3/17; retries alike.
	if ok, _ := p.Retry(0.2, false, 3.0/17); !ok {
		t.Error("9 requests, 3 accepts: u = 3/17 refused; want let through (p <= u)")
	}
	if ok, _ := p.Retry(0.2, false, 3.0/17-eps); ok {
		t.Error("9 requests, 3 accepts: u just under 3/17 let through; want refused")
	}
	// A let-through attempt counts nothing until its reply: still 10
	// requests (3 accepts, 7 throttles), p = 4/18.
	if !p.Start(0.2, 4.0/18) || p.Start(0.2, 4.0/18-eps) {
		t.Error("10 requests, 3 accepts: want p = 4/18")
	}
	// An accept at 15 s (bin 50). At 29.99 s (bin 99) bin 0 is still in
	// the last 100: 12 requests, 4 accepts, p = 4/20.
	p.Answered(15, false)
	if !p.Start(29.99, 4.0/20) || p.Start(29.99, 4.0/20-eps) {
		t.Error("at 29.99 s: want p = (12 - 8)/20, bin 0 still counted")
	}
	// At 30 s (bin 100) bin 0 has left: 1 request, 1 accept, p < 0. The
	// refusal at 29.99 s (bin 99) is still there: 2 requests, p = 0.
	if !p.Start(30, 0) {
		t.Error("at 30 s: refused at u = 0; want p = (2 - 2)/10 = 0")
	}
}

// grpc-adaptive in the engine, against an overloaded server: a rate limit
// of 0 with a bucket of 1 serves the first call and rejects every other as
// overload, at once. Whether an earlier request was refused by the server or
// by the throttle itself, it counts as a throttle, so the n-th request meets
// n - 1 requests and 1 accept and goes with probability 1 - max(0, (n - 3)/(n
// + 7)): 1 up to n = 3, then 10/(n + 7), on its own draw. Calls are a sum of
// independent Bernoullis; Bernstein's inequality bounds their total over 400
// replicates at a false-failure rate of 1e-4 (one comparison). A load-
// independent error is an accept, so a server failing every call that way is
// never throttled.
func TestGRPCAdaptiveInEngine(t *testing.T) {
	cfg := Config{
		Name: "overloaded", Duration: 10 * time.Second,
		Load:   Shape{Kind: Constant, Rate: 10},
		Server: Server{Kind: RateLimit, Limit: 0, Burst: 1},
		Client: Client{Clients: 1, Timeout: 1 * time.Second, Attempts: 1, Policy: PolicyConfig{Kind: GRPCAdaptive}},
	}
	var calls, mean, v float64
	for _, r := range run(t, cfg, 400) {
		calls += float64(r.Calls)
		for n := 1; n <= int(r.Requests); n++ {
			pGo := math.Min(1, 10/float64(n+7))
			mean += pGo
			v += pGo * (1 - pGo)
		}
	}
	l := math.Log(2 / 1e-4)
	if tol := l/3 + math.Sqrt(l/3*l/3+2*l*v); math.Abs(calls-mean) > tol {
		t.Errorf("%g calls over 400 replicates; want %.1f within %.1f", calls, mean, tol)
	}
	cfg.Server = Server{Kind: Independent, PFail: 1}
	for _, r := range run(t, cfg, 4) {
		if r.LocalRejected != 0 || r.Calls != r.Requests {
			t.Errorf("load-independent errors: %d requests, %d refused locally, %d calls; want 0 refused", r.Requests, r.LocalRejected, r.Calls)
		}
	}
}
