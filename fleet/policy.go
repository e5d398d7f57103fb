package fleet

import (
	"fmt"
	"math"
	"strings"
)

// Policy is a client's guard against retries amplifying an outage: a retry
// budget or a circuit breaker. The engine tells it of every request start and
// of every attempt's outcome, and asks it before each retry; it never sees
// the clock or a random source, so its decisions are a pure function of the
// sequence of calls. A Policy is used by one replicate, from one goroutine.
type Policy interface {
	// Start is told of a new request (its first attempt goes out).
	Start()
	// Failure is told of an attempt that failed: an error reply (failure,
	// rejection, throttling, outage, conflict), or a timeout when timeout.
	Failure(timeout bool)
	// Retry is asked, after Failure, whether the request may send another
	// attempt; timeout says whether the last one timed out. When it allows
	// the retry it charges it and returns its cost, which the engine hands
	// back to Success if that retry succeeds.
	Retry(timeout bool) (ok bool, cost float64)
	// Success is told of an attempt that succeeded; cost is what the Retry
	// that sent it returned, 0 for a first attempt.
	Success(cost float64)
}

// PolicyKind names a policy.
type PolicyKind uint8

const (
	// Unlimited retries up to the attempts, whatever happens.
	Unlimited PolicyKind = iota
	// TokenBucket is M. Brooker's "adaptive" client: every request adds
	// Rate tokens up to Size (full at the start); a retry costs 1 and is
	// allowed while more than 1 remains.
	TokenBucket
	// AWSQuota is the AWS SDKs' standard retry quota: Tokens (500) at the
	// start and at most; a retry costs Cost (5), TimeoutCost (10) after a
	// timeout, and is refused when fewer remain; a success on a first attempt
	// returns 1 token, a success on a retry returns that retry's cost.
	AWSQuota
	// GRPCThrottle is gRPC's retry throttling: tokens start at MaxTokens; a
	// failure takes 1 (floored at 0), a success adds Ratio (up to
	// MaxTokens); no retry while tokens are at or below MaxTokens/2.
	GRPCThrottle
	// Breaker is M. Brooker's circuit breaker: a retry is allowed only while
	// the failed attempts over all attempts the client has sent, since the
	// start of the run, are at most Threshold.
	Breaker
)

var policyNames = [...]string{"unlimited", "token-bucket", "aws", "grpc", "breaker"}

func (k PolicyKind) String() string { return policyNames[k] }

// ParsePolicy reads a policy name.
func ParsePolicy(s string) (PolicyKind, error) {
	for i, n := range policyNames {
		if n == s {
			return PolicyKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown policy %q (want one of %s)", s, strings.Join(policyNames[:], ", "))
}

// PolicyConfig chooses a policy and its parameters; the fields a kind does
// not read are ignored.
type PolicyConfig struct {
	Kind PolicyKind
	// Shared makes one policy state serve the whole fleet, as one SDK
	// client shared by every goroutine; otherwise each client has its own.
	Shared bool
	// TokenBucket: Rate tokens a request, Size at most.
	Rate, Size float64
	// AWSQuota: Tokens at the start and at most, Cost a retry, TimeoutCost
	// a retry after a timeout.
	Tokens, Cost, TimeoutCost float64
	// GRPCThrottle: MaxTokens and the TokenRatio a success adds.
	MaxTokens, Ratio float64
	// Breaker: the largest failures/calls ratio at which a retry is allowed.
	Threshold float64
}

// Limits on the policies' parameters.
const (
	// MaxTokens bounds every token count and cost.
	MaxTokens = 1e6
)

// check refuses parameters outside their limits, naming the flag.
func (p PolicyConfig) check(bad func(name, format string, args ...any)) {
	tokens := func(name string, v float64, lo float64) {
		if math.IsNaN(v) || v < lo || v > MaxTokens {
			bad(name, "%g is not from %g to %g tokens", v, lo, float64(MaxTokens))
		}
	}
	switch p.Kind {
	case TokenBucket:
		tokens("bucket-rate", p.Rate, 0)
		tokens("bucket-size", p.Size, 0)
	case AWSQuota:
		tokens("quota", p.Tokens, 0)
		tokens("quota-cost", p.Cost, 1)
		tokens("quota-timeout-cost", p.TimeoutCost, 1)
	case GRPCThrottle:
		tokens("grpc-max-tokens", p.MaxTokens, 0)
		if math.IsNaN(p.Ratio) || p.Ratio <= 0 || p.Ratio > p.MaxTokens {
			bad("grpc-token-ratio", "%g is not above 0 and at most -grpc-max-tokens", p.Ratio)
		}
	case Breaker:
		if math.IsNaN(p.Threshold) || p.Threshold < 0 || p.Threshold > 1 {
			bad("breaker-threshold", "%g is not a ratio in [0, 1]", p.Threshold)
		}
	}
}

// New makes a fresh policy state of the configuration.
func (p PolicyConfig) New() Policy {
	switch p.Kind {
	case TokenBucket:
		return &tokenBucket{rate: p.Rate, size: p.Size, tokens: p.Size}
	case AWSQuota:
		return &awsQuota{max: p.Tokens, tokens: p.Tokens, cost: p.Cost, timeoutCost: p.TimeoutCost}
	case GRPCThrottle:
		return &grpcThrottle{max: p.MaxTokens, tokens: p.MaxTokens, ratio: p.Ratio}
	case Breaker:
		return &breaker{threshold: p.Threshold}
	}
	return unlimited{}
}

var (
	_ Policy = unlimited{}
	_ Policy = (*tokenBucket)(nil)
	_ Policy = (*awsQuota)(nil)
	_ Policy = (*grpcThrottle)(nil)
	_ Policy = (*breaker)(nil)
)

// unlimited allows every retry.
type unlimited struct{}

func (unlimited) Start()                     {}
func (unlimited) Failure(bool)               {}
func (unlimited) Retry(bool) (bool, float64) { return true, 0 }
func (unlimited) Success(float64)            {}

// tokenBucket keeps 0 <= tokens <= size.
type tokenBucket struct{ rate, size, tokens float64 }

func (b *tokenBucket) Start()       { b.tokens = math.Min(b.size, b.tokens+b.rate) }
func (b *tokenBucket) Failure(bool) {}
func (b *tokenBucket) Retry(bool) (bool, float64) {
	if b.tokens <= 1 {
		return false, 0
	}
	b.tokens--
	return true, 1
}
func (b *tokenBucket) Success(float64) {}

// awsQuota keeps 0 <= tokens <= max, as aws-sdk-go-v2's retry token bucket.
type awsQuota struct{ max, tokens, cost, timeoutCost float64 }

func (q *awsQuota) Start()       {}
func (q *awsQuota) Failure(bool) {}
func (q *awsQuota) Retry(timeout bool) (bool, float64) {
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
func (q *awsQuota) Success(cost float64) {
	if cost == 0 {
		cost = 1
	}
	q.tokens = math.Min(q.max, q.tokens+cost)
}

// grpcThrottle keeps 0 <= tokens <= max, as gRPC's retryThrottler.
type grpcThrottle struct{ max, tokens, ratio float64 }

func (g *grpcThrottle) Start()          {}
func (g *grpcThrottle) Failure(bool)    { g.tokens = math.Max(0, g.tokens-1) }
func (g *grpcThrottle) Success(float64) { g.tokens = math.Min(g.max, g.tokens+g.ratio) }
func (g *grpcThrottle) Retry(bool) (bool, float64) {
	return g.tokens > g.max/2, 0
}

// breaker counts the client's attempts (calls) and failed attempts; Retry
// comes after a Start, so calls > 0 when it divides.
type breaker struct {
	threshold       float64
	calls, failures int64
}

func (b *breaker) Start()          { b.calls++ }
func (b *breaker) Failure(bool)    { b.failures++ }
func (b *breaker) Success(float64) {}
func (b *breaker) Retry(bool) (bool, float64) {
	if float64(b.failures)/float64(b.calls) > b.threshold {
		return false, 0
	}
	b.calls++
	return true, 0
}
