package fleet

import (
	"fmt"

	"github.com/retrysim/retrysim/backoff"
)

// Param is one setting of a Config by the name the fleet command's flag
// gives it (a scenario file's key is the name with _ for -, and Check and
// Unread name settings so too): what it means, for -help, and where it
// lives. Field returns the setting in c: a *float64 (a time in seconds when
// Seconds, a probability when Probability, else a number in [Lo, Hi]), an
// *int in [Lo, Hi], a *time.Duration, or, for a setting that is one of a
// list of names, a value that reads and writes it as text
// (encoding.TextMarshaler and encoding.TextUnmarshaler).
type Param struct {
	Name, Usage          string
	Field                func(c *Config) any
	Lo, Hi               float64
	Seconds, Probability bool
}

// Params lists the settings of one run, in the order -help groups them:
// the load, the server, the client, its policy and hedges. What runs it
// (the duration, replicates, seed) is not a model setting.
func Params() []Param {
	return []Param{
		{Name: "shape", Field: func(c *Config) any { return nameField(&c.Load.Kind, ParseShape, ShapeKind.String) },
			Usage: "the `shape` of the arrival rate over time: constant, spike (-peak in [-from, -to), brooker-collapse's spike unless they are given) or ramp (from -rate at -from up to -peak, at least -rate, midway and down at the same slope, -rate again at -to, floored at 0)"},
		{Name: "rate", Field: func(c *Config) any { return &c.Load.Rate }, Lo: 0, Hi: MaxRate,
			Usage: "the base arrival `rate`, requests a second (Poisson)"},
		{Name: "peak", Field: func(c *Config) any { return &c.Load.Peak }, Lo: 0, Hi: MaxRate,
			Usage: "the spike's or the ramp's top `rate`, requests a second"},
		{Name: "from", Field: func(c *Config) any { return &c.Load.From }, Seconds: true,
			Usage: "the spike or ramp starts at this `time`"},
		{Name: "to", Field: func(c *Config) any { return &c.Load.To }, Seconds: true,
			Usage: "the spike or ramp ends at this `time`; recovery is measured from it"},
		{Name: "outage-mode", Field: func(c *Config) any { return nameField(&c.Outage.Mode, ParseOutageMode, OutageMode.String) },
			Usage: "the outage's `mode`: fail (an error at once) or stall (held until the window ends)"},
		{Name: "server", Field: func(c *Config) any { return nameField(&c.Server.Kind, ParseServer, ServerKind.String) },
			Usage: "the `kind` of server: latency (-base + -slope x calls in progress, Brooker's), queue (-capacity workers, at most -queue waiting, -service times), ratelimit (-limit a second, -burst; -base each) or independent (-base each, whatever the load)"},
		{Name: "base", Field: func(c *Config) any { return &c.Server.Base }, Seconds: true,
			Usage: "the server's base latency, a `duration`"},
		{Name: "slope", Field: func(c *Config) any { return &c.Server.Slope }, Seconds: true,
			Usage: "the latency server's extra latency, a `duration`, a call in progress"},
		{Name: "capacity", Field: func(c *Config) any { return &c.Server.Workers }, Lo: 1, Hi: MaxWorkers,
			Usage: "the queue server has `n` workers"},
		{Name: "queue", Field: func(c *Config) any { return &c.Server.QueueMax }, Lo: 0, Hi: MaxQueue,
			Usage: "the queue server holds at most `n` waiting calls; a call beyond is rejected at once"},
		{Name: "service", Field: func(c *Config) any { return &c.Server.Service.Median }, Seconds: true,
			Usage: "the queue server's median (lognormal) or mean (exp) service time, a `duration`"},
		{Name: "service-dist", Field: func(c *Config) any { return nameField(&c.Server.Service.Dist, ParseDist, Dist.String) },
			Usage: "the `distribution` of the queue server's service times: lognormal or exp"},
		{Name: "service-sigma", Field: func(c *Config) any { return &c.Server.Service.Sigma }, Lo: 0, Hi: 4,
			Usage: "the lognormal service times' log-sd `sigma`, 0 to 4 (0: every call takes -service)"},
		{Name: "limit", Field: func(c *Config) any { return &c.Server.Limit }, Lo: 0, Hi: MaxRate,
			Usage: "the rate limit, a `rate` in calls a second"},
		{Name: "burst", Field: func(c *Config) any { return &c.Server.Burst }, Lo: 1, Hi: MaxRate,
			Usage: "the rate limit's bucket holds `n` calls"},
		{Name: "p-fail", Field: func(c *Config) any { return &c.Server.PFail }, Probability: true,
			Usage: "`probability` that a call the server handles fails, doing nothing, whatever the load"},
		{Name: "net", Field: func(c *Config) any { return &c.Net }, Seconds: true,
			Usage: "the mean one-way network delay, an exponential `duration` (0: none)"},
		{Name: "clients", Field: func(c *Config) any { return &c.Client.Clients }, Lo: 1, Hi: MaxClients,
			Usage: "`n` clients share the load"},
		{Name: "timeout", Field: func(c *Config) any { return &c.Client.Timeout }, Seconds: true,
			Usage: "the client waits this `duration` for one attempt's reply; a later reply is ignored"},
		{Name: "attempts", Field: func(c *Config) any { return &c.Client.Attempts }, Lo: 1, Hi: MaxAttempts,
			Usage: "`n` tries a request in all, the first included"},
		{Name: "backoff", Field: func(c *Config) any { return nameField(&c.Client.Backoff.Kind, backoff.ParseKind, backoff.Kind.String) },
			Usage: "the `policy` of the wait before a retry: none, constant, exponential, full-jitter, equal-jitter, decorrelated, grpc (min(cap, base x 2^n) x random(0.8, 1.2) for retry n from 0, gRPC's A6 since 2024), or a job queue's schedule: sidekiq (c^4 + 15 + rand(10 x (c + 1)) s for retry c from 0, Sidekiq 8) or river (n^4 s x random(0.9, 1.1) after the n-th error)"},
		{Name: "backoff-base", Field: func(c *Config) any { return &c.Client.Backoff.Base },
			Usage: "the backoff's base `duration`"},
		{Name: "backoff-cap", Field: func(c *Config) any { return &c.Client.Backoff.Cap },
			Usage: "the backoff's cap `duration` (0: no cap)"},
		{Name: "keys", Field: func(c *Config) any { return nameField(&c.Client.Keys, ParseKeyMode, KeyMode.String) },
			Usage: "the key `mode`: none (a retry repeats completed work) or same (the server stores a key's reply; an attempt while its key is in progress is a conflict)"},
		{Name: "policy", Field: func(c *Config) any { return nameField(&c.Client.Policy.Kind, ParsePolicy, PolicyKind.String) },
			Usage: "the client `policy` that may refuse a retry or a hedge: unlimited, token-bucket (-bucket-rate, -bucket-size), aws (aws-sdk-go-v2 v1.47.8's quota: -quota, -quota-cost, -quota-timeout-cost), aws-spec (the same with the AWS retry spec's refund, as aws-sdk-go-v2 from v1.48.0), grpc (-grpc-max-tokens, -grpc-token-ratio), breaker or attempt-breaker (-breaker-threshold), finagle-budget (Finagle 24.5.0's RetryBudget: -budget-ratio, -budget-ttl, -budget-min-rate), envoy-budget (Envoy v1.39.0's retry budget: -budget-ratio, -budget-min-concurrency); or, refusing first attempts too, sliding-breaker (resilience4j 2.4.0's and Polly 8.7.0's breaker: -cb-*), sre-throttle (the SRE book's: -sre-k, -sre-window) or grpc-adaptive (grpc-go v1.83.1's adaptive throttler: 30 s in 100 bins, ratio for accepts 2, padding 8)"},
		{Name: "policy-scope", Field: func(c *Config) any { return nameField(&c.Client.Policy.Shared, ParseScope, ScopeName) },
			Usage: "the policy's state is kept per `scope`: client (each of -clients has its own) or fleet (one shared by all)"},
		{Name: "bucket-rate", Field: func(c *Config) any { return &c.Client.Policy.Rate }, Lo: 0, Hi: MaxTokens,
			Usage: "token-bucket: each new request adds `r` tokens, 0 to 1e6"},
		{Name: "bucket-size", Field: func(c *Config) any { return &c.Client.Policy.Size }, Lo: 0, Hi: MaxTokens,
			Usage: "token-bucket: the bucket holds at most `s` tokens (full at the start), 0 to 1e6; a retry costs 1 and goes while more than 1 remains"},
		{Name: "quota", Field: func(c *Config) any { return &c.Client.Policy.Tokens }, Lo: 0, Hi: MaxTokens,
			Usage: "aws, aws-spec: the retry quota holds `n` tokens (full at the start), 0 to 1e6"},
		{Name: "quota-cost", Field: func(c *Config) any { return &c.Client.Policy.Cost }, Lo: 1, Hi: MaxTokens,
			Usage: "aws, aws-spec: a retry costs `n` tokens, 1 to 1e6; a success returns 1 and its retry's cost (aws-spec: its retry's cost, or 1 on a first attempt)"},
		{Name: "quota-timeout-cost", Field: func(c *Config) any { return &c.Client.Policy.TimeoutCost }, Lo: 1, Hi: MaxTokens,
			Usage: "aws, aws-spec: a retry after a timeout costs `n` tokens, 1 to 1e6"},
		{Name: "grpc-max-tokens", Field: func(c *Config) any { return &c.Client.Policy.MaxTokens }, Lo: 0, Hi: MaxTokens,
			Usage: "grpc: tokens start at `n`, 0 to 1e6; a failure takes 1, and no retry goes while tokens are at or below n/2"},
		{Name: "grpc-token-ratio", Field: func(c *Config) any { return &c.Client.Policy.Ratio }, Lo: 0, Hi: MaxTokens,
			Usage: "grpc: a success adds `r` tokens, above 0 and at most -grpc-max-tokens"},
		{Name: "breaker-threshold", Field: func(c *Config) any { return &c.Client.Policy.Threshold }, Lo: 0, Hi: 1,
			Usage: "breaker: a retry goes only while the client's failed attempts over its requests (attempt-breaker: over its attempts) are at most `ratio`, 0 to 1"},
		{Name: "budget-ratio", Field: func(c *Config) any { return &c.Client.Policy.BudgetRatio }, Lo: 0, Hi: MaxBudgetRatio,
			Usage: "finagle-budget: retries at most `r` of the requests of the last -budget-ttl, 0 to 1000 (Finagle's percentCanRetry); envoy-budget: retries outstanding (allowed, in backoff or in flight) fewer than r x the attempts in flight, 0 to 1 (budget_percent/100)"},
		{Name: "budget-ttl", Field: func(c *Config) any { return &c.Client.Policy.TTL }, Seconds: true,
			Usage: "finagle-budget: requests and retries count for this `duration`, 1s to 1m"},
		{Name: "budget-min-rate", Field: func(c *Config) any { return &c.Client.Policy.MinRate }, Lo: 0, Hi: MaxTokens,
			Usage: "finagle-budget: a reserve of `n` retries a second over -budget-ttl, 0 to 1e6"},
		{Name: "budget-min-concurrency", Field: func(c *Config) any { return &c.Client.Policy.MinConcurrency }, Lo: 0, Hi: MaxTokens,
			Usage: "envoy-budget: at least `n` retries may be outstanding, 0 to 1e6"},
		{Name: "cb-failure-rate", Field: func(c *Config) any { return &c.Client.Policy.FailureRate }, Lo: 0, Hi: 1,
			Usage: "sliding-breaker: opens when the window's failed attempts over its attempts are at least `ratio`, above 0 to 1"},
		{Name: "cb-window", Field: func(c *Config) any { return &c.Client.Policy.Window }, Lo: 1, Hi: MaxWindow,
			Usage: "sliding-breaker: the window holds the outcomes of the last `n` attempts, 1 to 1e6"},
		{Name: "cb-window-time", Field: func(c *Config) any { return &c.Client.Policy.WindowSeconds }, Seconds: true,
			Usage: "sliding-breaker: the window holds the outcomes of the last `duration` instead (0: -cb-window attempts), up to 24h"},
		{Name: "cb-min-calls", Field: func(c *Config) any { return &c.Client.Policy.MinCalls }, Lo: 1, Hi: MaxWindow,
			Usage: "sliding-breaker: opens only with at least `n` outcomes in the window, 1 to 1e6"},
		{Name: "cb-open", Field: func(c *Config) any { return &c.Client.Policy.OpenSeconds }, Seconds: true,
			Usage: "sliding-breaker: stays open, refusing every attempt, for this `duration`, up to 24h"},
		{Name: "cb-half-open", Field: func(c *Config) any { return &c.Client.Policy.HalfOpenCalls }, Lo: 1, Hi: MaxWindow,
			Usage: "sliding-breaker: then lets `n` attempts through and closes if their failure rate is under -cb-failure-rate, 1 to 1e6"},
		{Name: "sre-k", Field: func(c *Config) any { return &c.Client.Policy.K }, Lo: 0, Hi: MaxK,
			Usage: "sre-throttle: refuses an attempt with probability max(0, (requests - `K` x accepts)/(requests + 1)), requests counted once their outcome is known, accepts the replies that were not an overload rejection; K above 0 to 1000"},
		{Name: "sre-window", Field: func(c *Config) any { return &c.Client.Policy.SREWindow }, Seconds: true,
			Usage: "sre-throttle: requests and accepts count for this `duration`, 1s to 24h"},
		{Name: "hedges", Field: func(c *Config) any { return &c.Client.Hedges }, Lo: 0, Hi: MaxHedges,
			Usage: fmt.Sprintf("send up to `h` extra copies of an attempt, one each -hedge-delay without a success, 0 to %d; each is asked of -policy as a retry is", MaxHedges)},
		{Name: "hedge-delay", Field: func(c *Config) any { return &c.Client.HedgeDelay }, Seconds: true,
			Usage: "the hedges' `duration` apart"},
	}
}

// LookupParam returns the setting called name.
func LookupParam(name string) (Param, bool) {
	for _, p := range Params() {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// nameField reads and writes *p as one of the names parse reads and text
// writes.
func nameField[T any](p *T, parse func(string) (T, error), text func(T) string) names[T] {
	return names[T]{p, parse, text}
}

// names is a setting read and written as one of a list of names.
type names[T any] struct {
	p     *T
	parse func(string) (T, error)
	text  func(T) string
}

func (n names[T]) MarshalText() ([]byte, error) { return []byte(n.text(*n.p)), nil }

func (n names[T]) UnmarshalText(b []byte) error {
	v, err := n.parse(string(b))
	if err == nil {
		*n.p = v
	}
	return err
}
