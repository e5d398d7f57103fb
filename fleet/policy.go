package fleet

import (
	"math"
	"slices"
	"time"
)

// Policy is a client's guard against retries amplifying an outage: it may
// refuse a retry, a hedge or, from Start, a first attempt. now is virtual
// time in seconds and u a uniform draw in [0, 1); a Policy is used from one
// goroutine (docs/fleet.md, A policy of your own).
type Policy interface {
	// Start says whether a new request's first attempt may go out.
	Start(now, u float64) bool
	// Retry says whether a retry or hedge may go, and what it cost.
	Retry(now float64, timeout bool, u float64) (ok bool, cost float64)
	// Sent is told of an attempt leaving the client.
	Sent(now float64, retry bool)
	// Answered is told of a reply that came in time.
	Answered(now float64, overload bool)
	// Success is told of an attempt that succeeded, with its Retry's cost.
	Success(now float64, retry bool, cost float64)
	// Failure is told of an attempt that failed or timed out.
	Failure(now float64, retry, timeout bool)
	// Cancel is told of an attempt given up without an outcome.
	Cancel(now float64, retry bool)
}

// PolicyKind names a policy (docs/fleet.md).
type PolicyKind uint8

// The policies.
const (
	Unlimited      PolicyKind = iota // retries up to the attempts
	TokenBucket                      // Brooker's adaptive client
	AWSQuota                         // aws-sdk-go-v2's retry quota (v1.47.8)
	GRPCThrottle                     // gRPC's retry throttling
	Breaker                          // Brooker's breaker: failures over requests
	FinagleBudget                    // Finagle's RetryBudget
	EnvoyBudget                      // Envoy's retry budget (v1.39.0)
	SlidingBreaker                   // resilience4j's and Polly's circuit breaker
	SREThrottle                      // the SRE book's client-side throttling
	AttemptBreaker                   // Breaker over attempts, not requests
	AWSSpecQuota                     // AWSQuota with the AWS SDKs' spec refund
	GRPCAdaptive                     // grpc-go's adaptive throttler (v1.83.1)
)

var policies = enumOf[PolicyKind]("PolicyKind", "policy", "", "unlimited", "token-bucket", "aws", "grpc", "breaker",
	"finagle-budget", "envoy-budget", "sliding-breaker", "sre-throttle", "attempt-breaker", "aws-spec", "grpc-adaptive")

// String is the policy's name, as UnmarshalText reads it.
func (k PolicyKind) String() string { return policies.name(k) }

// MarshalText is the policy's name.
func (k PolicyKind) MarshalText() ([]byte, error) { return policies.text(k) }

// UnmarshalText reads a policy's name.
func (k *PolicyKind) UnmarshalText(text []byte) error { return policies.set(k, text) }

// GuardsFirst says whether the kind may refuse a request's first attempt.
func (k PolicyKind) GuardsFirst() bool {
	return k == SlidingBreaker || k == SREThrottle || k == GRPCAdaptive
}

// random says whether the kind decides with a draw u.
func (k PolicyKind) random() bool { return k == SREThrottle || k == GRPCAdaptive }

// PolicyConfig chooses a policy and its parameters (docs/fleet.md, From Go);
// start from DefaultPolicy. Own runs a program's own policy; Shared makes
// one state serve the whole fleet, not one a client.
type PolicyConfig struct {
	Kind   PolicyKind
	Own    *PolicyFactory
	Shared bool
	// The kinds' parameters.
	Rate, Size                           float64
	Tokens, Cost, TimeoutCost            float64
	MaxTokens, Ratio                     float64
	Threshold                            float64
	BudgetRatio, MinRate, MinConcurrency float64
	TTL                                  time.Duration
	FailureRate                          float64
	Window, MinCalls, HalfOpenCalls      int
	WindowTime, OpenTime                 time.Duration
	K                                    float64
	SREWindow                            time.Duration
}

// DefaultPolicy is Unlimited with every kind's parameters at their sources'
// defaults.
func DefaultPolicy() PolicyConfig {
	return PolicyConfig{
		Rate: 0.1, Size: 5,
		Tokens: 500, Cost: 5, TimeoutCost: 10,
		MaxTokens: 10, Ratio: 0.1,
		Threshold:   0.1,
		BudgetRatio: 0.2, TTL: 10 * time.Second, MinRate: 10, MinConcurrency: 3,
		FailureRate: 0.5, Window: 100, MinCalls: 100, OpenTime: time.Minute, HalfOpenCalls: 10,
		K: 2, SREWindow: 2 * time.Minute,
	}
}

// policyParams names the parameters each kind reads, by their paths.
var policyParams = [...][]string{
	Unlimited:      nil,
	TokenBucket:    {"client.policy.rate", "client.policy.size"},
	AWSQuota:       {"client.policy.tokens", "client.policy.cost", "client.policy.timeout_cost"},
	GRPCThrottle:   {"client.policy.max_tokens", "client.policy.ratio"},
	Breaker:        {"client.policy.threshold"},
	FinagleBudget:  {"client.policy.budget_ratio", "client.policy.ttl", "client.policy.min_rate"},
	EnvoyBudget:    {"client.policy.budget_ratio", "client.policy.min_concurrency"},
	SlidingBreaker: {"client.policy.failure_rate", "client.policy.window", "client.policy.window_time", "client.policy.min_calls", "client.policy.open_time", "client.policy.half_open_calls"},
	SREThrottle:    {"client.policy.k", "client.policy.sre_window"},
	AttemptBreaker: {"client.policy.threshold"},
	AWSSpecQuota:   {"client.policy.tokens", "client.policy.cost", "client.policy.timeout_cost"},
	GRPCAdaptive:   nil,
}

// reads says whether the kind reads the parameter whose path is path.
func (k PolicyKind) reads(path string) bool {
	return int(k) < len(policyParams) && slices.Contains(policyParams[k], path)
}

// policyPaths lists every policy parameter's path once.
func policyPaths() []string {
	var out []string
	for _, ps := range policyParams {
		for _, p := range ps {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// newState makes a fresh policy state of the configuration, the program's
// own if it runs one.
func (p PolicyConfig) newState() Policy {
	if p.Own != nil {
		return p.Own.make()
	}
	switch p.Kind {
	case TokenBucket:
		return &tokenBucket{rate: p.Rate, size: p.Size, tokens: p.Size}
	case AWSQuota, AWSSpecQuota:
		return &awsQuota{max: p.Tokens, tokens: p.Tokens, cost: p.Cost, timeoutCost: p.TimeoutCost,
			spec: p.Kind == AWSSpecQuota}
	case GRPCThrottle:
		return &grpcThrottle{max: p.MaxTokens, tokens: p.MaxTokens, ratio: p.Ratio}
	case Breaker, AttemptBreaker:
		return &breaker{threshold: p.Threshold, perAttempt: p.Kind == AttemptBreaker}
	case FinagleBudget:
		return newFinagleBudget(p.BudgetRatio, p.TTL.Seconds(), p.MinRate)
	case EnvoyBudget:
		return &envoyBudget{ratio: p.BudgetRatio, min: p.MinConcurrency}
	case SlidingBreaker:
		return &slidingBreaker{rate: p.FailureRate, size: p.Window, seconds: p.WindowTime.Seconds(),
			minCalls: p.MinCalls, open: p.OpenTime.Seconds(), probes: p.HalfOpenCalls}
	case SREThrottle:
		return &sreThrottle{k: p.K, window: p.SREWindow.Seconds()}
	case GRPCAdaptive:
		return &grpcAdaptive{}
	}
	return unlimited{}
}

// quiet gives a policy the calls it ignores.
type quiet struct{}

func (quiet) Start(float64, float64) bool    { return true }
func (quiet) Sent(float64, bool)             {}
func (quiet) Answered(float64, bool)         {}
func (quiet) Success(float64, bool, float64) {}
func (quiet) Failure(float64, bool, bool)    {}
func (quiet) Cancel(float64, bool)           {}

// unlimited allows every retry.
type unlimited struct{ quiet }

func (unlimited) Retry(float64, bool, float64) (bool, float64) { return true, 0 }

// tokenBucket keeps 0 <= tokens <= size.
type tokenBucket struct {
	quiet
	rate, size, tokens float64
}

func (b *tokenBucket) Start(float64, float64) bool {
	b.tokens = math.Min(b.size, b.tokens+b.rate)
	return true
}
func (b *tokenBucket) Retry(float64, bool, float64) (bool, float64) {
	if b.tokens <= 1 {
		return false, 0
	}
	b.tokens--
	return true, 1
}

// awsQuota keeps 0 <= tokens <= max, as aws-sdk-go-v2's retry token bucket;
// spec says a successful retry returns only its cost.
type awsQuota struct {
	quiet
	max, tokens, cost, timeoutCost float64
	spec                           bool
}

func (q *awsQuota) Retry(_ float64, timeout bool, _ float64) (bool, float64) {
	c := q.cost
	if timeout {
		c = q.timeoutCost
	}
	if q.tokens < c {
		return false, 0
	}
	q.tokens -= c
	return true, c
}
func (q *awsQuota) Success(_ float64, _ bool, cost float64) {
	if cost == 0 || !q.spec {
		cost++ // the no-retry increment
	}
	q.tokens = math.Min(q.max, q.tokens+cost)
}

// grpcThrottle keeps 0 <= tokens <= max, as gRPC's retryThrottler.
type grpcThrottle struct {
	quiet
	max, tokens, ratio float64
}

func (g *grpcThrottle) Failure(float64, bool, bool)    { g.tokens = math.Max(0, g.tokens-1) }
func (g *grpcThrottle) Success(float64, bool, float64) { g.tokens = math.Min(g.max, g.tokens+g.ratio) }
func (g *grpcThrottle) Retry(float64, bool, float64) (bool, float64) {
	return g.tokens > g.max/2, 0
}

// breaker counts the client's failed attempts, and in calls its requests
// (and retries when perAttempt): calls > 0 once Start is called.
type breaker struct {
	quiet
	threshold       float64
	perAttempt      bool
	calls, failures int64
}

func (b *breaker) Start(float64, float64) bool { b.calls++; return true }
func (b *breaker) Failure(float64, bool, bool) { b.failures++ }
func (b *breaker) Retry(float64, bool, float64) (bool, float64) {
	if float64(b.failures)/float64(b.calls) > b.threshold {
		return false, 0
	}
	if b.perAttempt {
		b.calls++
	}
	return true, 0
}
