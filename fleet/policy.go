package fleet

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/schema"
)

// Policy is a client's guard against retries amplifying an outage: a retry
// budget, a circuit breaker or an adaptive throttle. It decides whether a
// retry or hedge may go at all, beside the client's attempts; the wait
// before one is the client's backoff.Policy, and a step's retry settings
// in the job and delivery models are provider.Policy. The engine tells it of
// every request start, every attempt sent, every reply and every attempt's
// outcome, and asks it before each retry or hedge; a policy that can refuse
// a request's first attempt (a breaker that is open, a throttle) says so
// from Start.
//
// Every call carries now, the virtual time in seconds, which never goes
// back: windowed policies expire what they have counted by it. Start and
// Retry also get u, a uniform draw in [0, 1) for a policy that decides at
// random (the engine draws it only for such kinds, so the others' runs do not
// move the random stream, and it is 0 for them). The policy never reads a
// clock or a random source itself, so its decisions are a pure function of
// the sequence of calls. A Policy is used by one replicate, from one
// goroutine.
type Policy interface {
	// Start is told of a new request and says whether its first attempt
	// may go out; a refused request fails at once without calling the
	// server (a local rejection).
	Start(now, u float64) bool
	// Retry is asked whether the request may send another attempt after
	// one failed (timeout says whether it timed out): when the retry is
	// decided, or, for a kind AskedAtSend, when it would go out after its
	// backoff; and before each hedge (timeout false). When it allows the attempt it charges it
	// and returns its cost, which the engine hands back to Success if the
	// attempt's round succeeds.
	Retry(now float64, timeout bool, u float64) (ok bool, cost float64)
	// Sent is told of an attempt leaving the client: a first attempt at
	// once, a retry when its backoff ends, a hedge when its delay ends.
	// retry is false only for a request's first attempt.
	Sent(now float64, retry bool)
	// Answered is told of each reply that reaches the client in time,
	// before its Success or Failure; overload says it was an overload
	// rejection (a full queue or the rate limit), not a served call or
	// another error.
	Answered(now float64, overload bool)
	// Success is told of an attempt that succeeded; cost is what the Retry
	// that started its round returned, 0 for the first round.
	Success(now float64, retry bool, cost float64)
	// Failure is told of an attempt that failed: an error reply (failure,
	// rejection, throttling, outage, conflict), or a timeout when timeout.
	Failure(now float64, retry, timeout bool)
	// Cancel is told of an attempt the client stops waiting for without an
	// outcome: a hedge's other copies once one of them succeeded.
	Cancel(now float64, retry bool)
}

// PolicyKind names a policy.
type PolicyKind uint8

const (
	// Unlimited retries up to the attempts, whatever happens.
	Unlimited PolicyKind = iota
	// TokenBucket is M. Brooker's "adaptive" client, as his retry_sim's
	// AdaptiveRetryStrategy: every request adds Rate tokens up to Size (full
	// at the start); a retry costs 1 and is allowed while more than 1
	// remains.
	TokenBucket
	// AWSQuota is the standard retry quota of aws-sdk-go-v2 (v1.47.8, the
	// last release before v1.48.0 made its 2026 retry behaviour the
	// default): Tokens (500) at the start and at most; a retry costs Cost
	// (5), TimeoutCost (10) after a timeout, and is refused when fewer
	// remain; every attempt that succeeds returns 1 token (its
	// NoRetryIncrement), and one that was a retry also returns that retry's
	// cost.
	AWSQuota
	// GRPCThrottle is gRPC's retry throttling: tokens start at MaxTokens; a
	// failure takes 1 (floored at 0), a success adds Ratio (up to
	// MaxTokens); no retry while tokens are at or below MaxTokens/2.
	GRPCThrottle
	// Breaker is M. Brooker's retry circuit breaker, as his retry_sim's
	// CircuitBreakerRetryCall counts: a retry is allowed only while the
	// client's failed attempts (retries' included) over its requests (first
	// attempts), since the start of the run, are at most Threshold.
	Breaker
	// FinagleBudget is Finagle's RetryBudget: each request deposits, each
	// retry withdraws, and deposits and withdrawals expire after TTL; a
	// retry is allowed while the retries of the last TTL
	// stay within BudgetRatio of its requests plus a reserve of MinRate
	// retries a second (MinRate x TTL), as Finagle's leaky bucket counts in
	// thousandths: a request deposits 1000, a retry costs 1000/BudgetRatio
	// (truncated), and a retry goes while the balance is at least its cost.
	// The window is exact here, where Finagle's is cut into slices.
	FinagleBudget
	// EnvoyBudget is Envoy's retry budget (v1.39.0): a retry is allowed while
	// the retries outstanding are fewer than max(MinConcurrency, BudgetRatio
	// x the attempts in flight) (truncated). A retry is outstanding from when
	// it is allowed, through its backoff, to its attempt's outcome; a request
	// waiting out its backoff has no attempt in flight (Envoy #30205).
	EnvoyBudget
	// SlidingBreaker is the circuit breaker of resilience4j and Polly: its
	// window holds the outcomes of the last Window attempts (or, with
	// WindowTime > 0, those of the last WindowTime); once it
	// holds at least MinCalls of them and their failure rate is at least
	// FailureRate, the breaker opens: every attempt, first ones included,
	// is refused for OpenTime. The next attempt after that half-opens it:
	// HalfOpenCalls attempts go, the rest are refused, and once as many
	// outcomes are in (whichever attempts they belong to) it opens again if
	// their failure rate is at least FailureRate, or closes with an empty
	// window. Outcomes that arrive while it is open are not counted, nor are
	// hedges abandoned. As resilience4j without its automatic transition to
	// half-open, and without slow-call counting.
	SlidingBreaker
	// SREThrottle is the client-side adaptive throttling of Google's SRE
	// book ("Handling overload", 2016): over the last SREWindow
	// it counts requests (every attempt the client wanted to send, refused
	// ones included) and accepts (replies that were not an overload
	// rejection: successes, load-independent errors and conflicts alike),
	// and refuses an attempt, first or retry, with probability max(0,
	// (requests - K x accepts)/(requests + 1)). A request counts once its
	// outcome is known (its reply, timeout or refusal, or its abandonment as
	// a hedge), as grpc-go counts, so a call in flight is in neither count.
	SREThrottle
	// AttemptBreaker is Breaker with attempts for requests: a retry is
	// allowed only while the client's failed attempts over its attempts
	// (first ones and retries allowed), since the start of the run, are at
	// most Threshold.
	AttemptBreaker
	// AWSSpecQuota is AWSQuota with the refund of the AWS SDKs' retry
	// specification, which aws-sdk-go-v2 follows from v1.48.0: a success on
	// a first attempt returns 1 token, a success on a retry only that
	// retry's cost.
	AWSSpecQuota
	// GRPCAdaptive is grpc-go's adaptive throttler (v1.83.1,
	// balancer/rls/internal/adaptive) with its fixed defaults: over 30 s
	// of history in 100 bins it counts accepts (replies that were not an
	// overload rejection) and throttles (overload rejections, and attempts
	// it refused itself), both when they happen, and refuses an attempt,
	// first or retry, with probability (requests - 2 x accepts)/(requests
	// + 8), requests = accepts + throttles. A timeout is neither. grpc-go
	// v1.83.1 registers no response with it, so which replies are throttles
	// is this model's choice, the SRE book's accepts.
	GRPCAdaptive
)

var policyNames = [...]string{"unlimited", "token-bucket", "aws", "grpc", "breaker",
	"finagle-budget", "envoy-budget", "sliding-breaker", "sre-throttle", "attempt-breaker", "aws-spec", "grpc-adaptive"}

// String is the policy's name, as UnmarshalText reads it.
func (k PolicyKind) String() string { return enumName(policyNames[:], "PolicyKind", k) }

// MarshalText is the policy's name.
func (k PolicyKind) MarshalText() ([]byte, error) { return enumText(policyNames[:], "PolicyKind", k) }

// UnmarshalText reads a policy's name.
func (k *PolicyKind) UnmarshalText(text []byte) error { return parseText(k, text, parsePolicy) }

// GuardsFirst says whether the kind may refuse a request's first attempt
// too, so it is asked even when nothing is retried or hedged.
func (k PolicyKind) GuardsFirst() bool {
	return k == SlidingBreaker || k == SREThrottle || k == GRPCAdaptive
}

// random says whether the kind decides at random, so the engine draws a u
// for each Start and Retry.
func (k PolicyKind) random() bool { return k == SREThrottle || k == GRPCAdaptive }

// parsePolicy reads a policy name.
func parsePolicy(s string) (PolicyKind, error) {
	for i, n := range policyNames {
		if n == s {
			return PolicyKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown policy %q (want one of %s)", s, strings.Join(policyNames[:], ", "))
}

// PolicyConfig chooses a policy and its parameters; the fields a kind does
// not read are ignored. A zero PolicyConfig is Unlimited; a literal that
// sets only Kind (and Shared), leaving every parameter 0, is refused by
// Check for a kind that reads any: start from DefaultPolicy and set Kind.
type PolicyConfig struct {
	Kind PolicyKind
	// Own, when not nil, is a Go program's own policy, run instead of a
	// built-in one: Kind must then be Unlimited, and only Shared of the
	// fields below is read.
	Own *PolicyFactory
	// Shared makes one policy state serve the whole fleet, as one SDK
	// client shared by every goroutine; otherwise each client has its own.
	Shared bool
	// TokenBucket: Rate tokens a request, Size at most.
	Rate, Size float64
	// AWSQuota and AWSSpecQuota: Tokens at the start and at most, Cost a
	// retry, TimeoutCost a retry after a timeout.
	Tokens, Cost, TimeoutCost float64
	// GRPCThrottle: MaxTokens and the TokenRatio a success adds.
	MaxTokens, Ratio float64
	// Breaker and AttemptBreaker: the largest ratio of failed attempts to
	// requests (Breaker) or to attempts (AttemptBreaker) at which a retry is
	// allowed.
	Threshold float64
	// FinagleBudget and EnvoyBudget: BudgetRatio, the retries allowed a
	// request (Finagle) or a retry outstanding an attempt in flight (Envoy).
	// FinagleBudget: TTL, MinRate retries a second. EnvoyBudget:
	// MinConcurrency retries outstanding.
	BudgetRatio, MinRate, MinConcurrency float64
	TTL                                  time.Duration
	// SlidingBreaker: FailureRate, Window attempts or a WindowTime (when
	// above 0), MinCalls, OpenTime, HalfOpenCalls.
	FailureRate                     float64
	Window, MinCalls, HalfOpenCalls int
	WindowTime, OpenTime            time.Duration
	// SREThrottle: K and the SREWindow.
	K         float64
	SREWindow time.Duration
}

// DefaultPolicy is Unlimited with every kind's parameters at the defaults
// of the clients they come from: Brooker's post (r = 0.1, s = 5; 10%), the
// AWS SDKs (500, 5, 10), gRPC's example (10, 0.1), Finagle (20%, 10 s, 10
// a second), Envoy (20%, 3), resilience4j (50%, 100 calls, at least 100,
// 60 s open, 10 half-open) and the SRE book (K = 2, 2 minutes). Flags and
// scenario files start from it.
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

// policyPaths lists every policy parameter's path, each once, in the order
// of the kinds.
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

// newState makes a fresh policy state of the configuration.
func (p PolicyConfig) newState() Policy {
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

var (
	_ Policy = unlimited{}
	_ Policy = (*tokenBucket)(nil)
	_ Policy = (*awsQuota)(nil)
	_ Policy = (*grpcThrottle)(nil)
	_ Policy = (*breaker)(nil)
	_ Policy = (*finagleBudget)(nil)
	_ Policy = (*envoyBudget)(nil)
	_ Policy = (*slidingBreaker)(nil)
	_ Policy = (*sreThrottle)(nil)
	_ Policy = (*grpcAdaptive)(nil)
)

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

// breaker counts the client's failed attempts, and in calls its requests,
// and its retries too when perAttempt; Retry comes after a Start, so calls >
// 0 when it divides.
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

// parseScope reads a policy's scope as PolicyConfig.Shared holds it:
// client (a state per client) or fleet (one state shared by every client).
func parseScope(s string) (shared bool, err error) {
	switch s {
	case "client":
		return false, nil
	case "fleet":
		return true, nil
	}
	return false, fmt.Errorf("unknown scope %q (want client or fleet)", s)
}

// scopeName is the name parseScope reads as shared.
func scopeName(shared bool) string {
	if shared {
		return "fleet"
	}
	return "client"
}
