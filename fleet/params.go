package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/testhook"
	"github.com/retrysim/retrysim/schema"
)

// Param is one setting of a Config: the one place that names it, says what
// it means and bounds it, and reaches its field. Path names it by its Go
// fields, lower case with _ between words and . between fields
// (client.policy.budget_ratio for Config.Client.Policy.BudgetRatio): errors
// (FieldError) and Unread name settings by it. Key is its short name, the
// last part of Path with - for _ unless set (budget-ratio; the server's
// kind is server): a command names its flag so, and a scenario file's
// fleet section its key, with _ for - (a file may give every setting).
// Usage says what it means, naming other settings by their paths (a
// command's help names them as its flags, with ReplacePaths). Field
// returns the setting in c: a *float64 (a probability when Probability,
// else a number in [Lo, Hi]), an *int in [Lo, Hi], a *time.Duration (a
// time, up to MaxSeconds), or, for a setting that is one of a list of
// names, a value that reads and writes it as text (encoding.TextMarshaler
// and encoding.TextUnmarshaler).
type Param struct {
	Path, Key, Usage string
	Field            func(c *Config) any
	Lo, Hi           float64
	Probability      bool
}

// Params lists the settings of one run, in the order a command's help
// groups them: the load, the server, the client, its policy and hedges.
// What runs it (the duration, replicates, seed) is not a model setting.
func Params() []Param {
	ps := []Param{
		{Path: "load.kind", Key: "shape", Field: func(c *Config) any { return nameField(&c.Load.Kind, ParseShape, ShapeKind.String) },
			Usage: "the `shape` of the arrival rate over time: constant, spike (load.peak in [load.from, load.to), brooker-collapse's spike unless they are given) or ramp (from load.rate at load.from up to load.peak, at least load.rate, midway and down at the same slope, load.rate again at load.to, floored at 0)"},
		{Path: "load.rate", Field: func(c *Config) any { return &c.Load.Rate }, Lo: 0, Hi: MaxRate,
			Usage: "the base arrival `rate`, requests a second (Poisson)"},
		{Path: "load.peak", Field: func(c *Config) any { return &c.Load.Peak }, Lo: 0, Hi: MaxRate,
			Usage: "the spike's or the ramp's top `rate`, requests a second"},
		{Path: "load.from", Field: func(c *Config) any { return &c.Load.From },
			Usage: "the spike or ramp starts at this `time`"},
		{Path: "load.to", Field: func(c *Config) any { return &c.Load.To },
			Usage: "the spike or ramp ends at this `time`; recovery is measured from it"},
		{Path: "load.first_call", Field: func(c *Config) any { return nameField(&c.Load.FirstCall, ParseSwitch, SwitchName) },
			Usage: "`true` gives every client a first request at an exponential time of mean net from the start, besides the Poisson arrivals, as Brooker's retry_sim starts its clients: true or false"},
		{Path: "outage.mode", Key: "outage-mode", Field: func(c *Config) any { return nameField(&c.Outage.Mode, ParseOutageMode, OutageMode.String) },
			Usage: "the outage's `mode`: fail (an error at once) or stall (held until the window ends)"},
		{Path: "server.kind", Key: "server", Field: func(c *Config) any { return nameField(&c.Server.Kind, ParseServer, ServerKind.String) },
			Usage: "the `kind` of server: latency (server.base + server.slope x calls in progress, Brooker's), queue (server.workers workers, at most server.queue_max waiting, server.service.median times), ratelimit (server.limit a second, server.burst; server.base each) or independent (server.base each, whatever the load)"},
		{Path: "server.base", Field: func(c *Config) any { return &c.Server.Base },
			Usage: "the server's base latency, a `duration`"},
		{Path: "server.slope", Field: func(c *Config) any { return &c.Server.Slope },
			Usage: "the latency server's extra latency, a `duration`, a call in progress"},
		{Path: "server.workers", Key: "capacity", Field: func(c *Config) any { return &c.Server.Workers }, Lo: 1, Hi: MaxWorkers,
			Usage: "the queue server has `n` workers"},
		{Path: "server.queue_max", Key: "queue", Field: func(c *Config) any { return &c.Server.QueueMax }, Lo: 0, Hi: MaxQueue,
			Usage: "the queue server holds at most `n` waiting calls; a call beyond is rejected at once"},
		{Path: "server.service.median", Key: "service", Field: func(c *Config) any { return &c.Server.Service.Median },
			Usage: "the queue server's median (lognormal) or mean (exp) service time, a `duration`"},
		{Path: "server.service.dist", Key: "service-dist", Field: func(c *Config) any { return nameField(&c.Server.Service.Dist, ParseDist, Dist.String) },
			Usage: "the `distribution` of the queue server's service times: lognormal or exp"},
		{Path: "server.service.sigma", Key: "service-sigma", Field: func(c *Config) any { return &c.Server.Service.Sigma }, Lo: 0, Hi: 4,
			Usage: "the lognormal service times' log-sd `sigma`, 0 to 4 (0: every call takes server.service.median)"},
		{Path: "server.limit", Field: func(c *Config) any { return &c.Server.Limit }, Lo: 0, Hi: MaxRate,
			Usage: "the rate limit, a `rate` in calls a second"},
		{Path: "server.burst", Field: func(c *Config) any { return &c.Server.Burst }, Lo: 1, Hi: MaxRate,
			Usage: "the rate limit's bucket holds `n` calls"},
		{Path: "server.p_fail", Field: func(c *Config) any { return &c.Server.PFail }, Probability: true,
			Usage: "`probability` that a call the server handles fails, doing nothing, whatever the load"},
		{Path: "server.pushback", Field: func(c *Config) any { return nameField(&c.Server.Pushback, ParseSwitch, SwitchName) },
			Usage: "`true` makes the server's overload refusals (a full queue, the rate limit) say \"do not retry\", as Envoy's x-envoy-overloaded and gRPC's server pushback do: true or false"},
		{Path: "net", Field: func(c *Config) any { return &c.Net },
			Usage: "the mean one-way network delay, an exponential `duration` (0: none)"},
		{Path: "client.clients", Field: func(c *Config) any { return &c.Client.Clients }, Lo: 1, Hi: MaxClients,
			Usage: "`n` clients share the load"},
		{Path: "client.timeout", Field: func(c *Config) any { return &c.Client.Timeout },
			Usage: "the client waits this `duration` for one attempt's reply; a later reply is ignored"},
		{Path: "client.attempts", Field: func(c *Config) any { return &c.Client.Attempts }, Lo: 1, Hi: MaxAttempts,
			Usage: "`n` tries a request in all, the first included"},
		{Path: "client.backoff.kind", Key: "backoff", Field: func(c *Config) any { return nameField(&c.Client.Backoff.Kind, backoff.ParseKind, backoff.Kind.String) },
			Usage: "the `policy` of the wait before a retry: " + backoff.KindsDoc()},
		{Path: "client.backoff.base", Key: "backoff-base", Field: func(c *Config) any { return &c.Client.Backoff.Base },
			Usage: "the backoff's base `duration`"},
		{Path: "client.backoff.cap", Key: "backoff-cap", Field: func(c *Config) any { return &c.Client.Backoff.Cap },
			Usage: "the backoff's cap `duration` (0: no cap)"},
		{Path: "client.keys", Field: func(c *Config) any { return nameField(&c.Client.Keys, schema.ParseKeyMode, schema.KeyMode.String) },
			Usage: "the key `mode`: none (a retry repeats completed work), fresh (a new key an attempt, which a hedge's copies share: the server catches duplicate copies, not retries) or same (the server stores a key's reply; an attempt while its key is in progress is a conflict)"},
		{Path: "client.policy.kind", Key: "policy", Field: func(c *Config) any { return nameField(&c.Client.Policy.Kind, ParsePolicy, PolicyKind.String) },
			Usage: "the client `policy` that may refuse a retry or a hedge: unlimited, token-bucket (client.policy.rate, client.policy.size), aws (aws-sdk-go-v2 v1.47.8's quota: client.policy.tokens, client.policy.cost, client.policy.timeout_cost), aws-spec (the same with the AWS retry spec's refund, as aws-sdk-go-v2 from v1.48.0), grpc (client.policy.max_tokens, client.policy.ratio), breaker or attempt-breaker (client.policy.threshold), finagle-budget (Finagle 24.5.0's RetryBudget: client.policy.budget_ratio, client.policy.ttl, client.policy.min_rate), envoy-budget (Envoy v1.39.0's retry budget: client.policy.budget_ratio, client.policy.min_concurrency); or, refusing first attempts too, sliding-breaker (resilience4j 2.4.0's and Polly 8.7.0's breaker: client.policy.failure_rate, client.policy.window, client.policy.window_time, client.policy.min_calls, client.policy.open_time, client.policy.half_open_calls), sre-throttle (the SRE book's: client.policy.k, client.policy.sre_window) or grpc-adaptive (grpc-go v1.83.1's adaptive throttler: 30 s in 100 bins, ratio for accepts 2, padding 8)"},
		{Path: "client.policy.shared", Key: "policy-scope", Field: func(c *Config) any { return nameField(&c.Client.Policy.Shared, ParseScope, ScopeName) },
			Usage: "the policy's state is kept per `scope`: client (each of client.clients has its own) or fleet (one shared by all)"},
		{Path: "client.policy.rate", Key: "bucket-rate", Field: func(c *Config) any { return &c.Client.Policy.Rate }, Lo: 0, Hi: MaxTokens,
			Usage: "token-bucket: each new request adds `r` tokens, 0 to 1e6"},
		{Path: "client.policy.size", Key: "bucket-size", Field: func(c *Config) any { return &c.Client.Policy.Size }, Lo: 0, Hi: MaxTokens,
			Usage: "token-bucket: the bucket holds at most `s` tokens (full at the start), 0 to 1e6; a retry costs 1 and goes while more than 1 remains"},
		{Path: "client.policy.tokens", Key: "quota", Field: func(c *Config) any { return &c.Client.Policy.Tokens }, Lo: 0, Hi: MaxTokens,
			Usage: "aws, aws-spec: the retry quota holds `n` tokens (full at the start), 0 to 1e6"},
		{Path: "client.policy.cost", Key: "quota-cost", Field: func(c *Config) any { return &c.Client.Policy.Cost }, Lo: 1, Hi: MaxTokens,
			Usage: "aws, aws-spec: a retry costs `n` tokens, 1 to 1e6; a success returns 1 and its retry's cost (aws-spec: its retry's cost, or 1 on a first attempt)"},
		{Path: "client.policy.timeout_cost", Key: "quota-timeout-cost", Field: func(c *Config) any { return &c.Client.Policy.TimeoutCost }, Lo: 1, Hi: MaxTokens,
			Usage: "aws, aws-spec: a retry after a timeout costs `n` tokens, 1 to 1e6"},
		{Path: "client.policy.max_tokens", Key: "grpc-max-tokens", Field: func(c *Config) any { return &c.Client.Policy.MaxTokens }, Lo: 0, Hi: MaxTokens,
			Usage: "grpc: tokens start at `n`, 0 to 1e6; a failure takes 1, and no retry goes while tokens are at or below n/2"},
		{Path: "client.policy.ratio", Key: "grpc-token-ratio", Field: func(c *Config) any { return &c.Client.Policy.Ratio }, Lo: 0, Hi: MaxTokens,
			Usage: "grpc: a success adds `r` tokens, above 0 and at most client.policy.max_tokens"},
		{Path: "client.policy.threshold", Key: "breaker-threshold", Field: func(c *Config) any { return &c.Client.Policy.Threshold }, Lo: 0, Hi: 1,
			Usage: "breaker: a retry goes only while the client's failed attempts over its requests (attempt-breaker: over its attempts) are at most `ratio`, 0 to 1"},
		{Path: "client.policy.budget_ratio", Field: func(c *Config) any { return &c.Client.Policy.BudgetRatio }, Lo: 0, Hi: MaxBudgetRatio,
			Usage: "finagle-budget: retries at most `r` of the requests of the last client.policy.ttl, 0 to 1000 (Finagle's percentCanRetry); envoy-budget: retries outstanding (allowed, in backoff or in flight) fewer than r x the attempts in flight, 0 to 1 (budget_percent/100)"},
		{Path: "client.policy.ttl", Key: "budget-ttl", Field: func(c *Config) any { return &c.Client.Policy.TTL },
			Usage: "finagle-budget: requests and retries count for this `duration`, 1s to 1m"},
		{Path: "client.policy.min_rate", Key: "budget-min-rate", Field: func(c *Config) any { return &c.Client.Policy.MinRate }, Lo: 0, Hi: MaxTokens,
			Usage: "finagle-budget: a reserve of `n` retries a second over client.policy.ttl, 0 to 1e6"},
		{Path: "client.policy.min_concurrency", Key: "budget-min-concurrency", Field: func(c *Config) any { return &c.Client.Policy.MinConcurrency }, Lo: 0, Hi: MaxTokens,
			Usage: "envoy-budget: at least `n` retries may be outstanding, 0 to 1e6"},
		{Path: "client.policy.failure_rate", Key: "cb-failure-rate", Field: func(c *Config) any { return &c.Client.Policy.FailureRate }, Lo: 0, Hi: 1,
			Usage: "sliding-breaker: opens when the window's failed attempts over its attempts are at least `ratio`, above 0 to 1"},
		{Path: "client.policy.window", Key: "cb-window", Field: func(c *Config) any { return &c.Client.Policy.Window }, Lo: 1, Hi: MaxWindow,
			Usage: "sliding-breaker: the window holds the outcomes of the last `n` attempts, 1 to 1e6"},
		{Path: "client.policy.window_time", Key: "cb-window-time", Field: func(c *Config) any { return &c.Client.Policy.WindowTime },
			Usage: "sliding-breaker: the window holds the outcomes of the last `duration` instead (0: client.policy.window attempts), up to 24h"},
		{Path: "client.policy.min_calls", Key: "cb-min-calls", Field: func(c *Config) any { return &c.Client.Policy.MinCalls }, Lo: 1, Hi: MaxWindow,
			Usage: "sliding-breaker: opens only with at least `n` outcomes in the window, 1 to 1e6"},
		{Path: "client.policy.open_time", Key: "cb-open", Field: func(c *Config) any { return &c.Client.Policy.OpenTime },
			Usage: "sliding-breaker: stays open, refusing every attempt, for this `duration`, up to 24h"},
		{Path: "client.policy.half_open_calls", Key: "cb-half-open", Field: func(c *Config) any { return &c.Client.Policy.HalfOpenCalls }, Lo: 1, Hi: MaxWindow,
			Usage: "sliding-breaker: then lets `n` attempts through and closes if their failure rate is under client.policy.failure_rate, 1 to 1e6"},
		{Path: "client.policy.k", Key: "sre-k", Field: func(c *Config) any { return &c.Client.Policy.K }, Lo: 0, Hi: MaxK,
			Usage: "sre-throttle: refuses an attempt with probability max(0, (requests - `K` x accepts)/(requests + 1)), requests counted once their outcome is known, accepts the replies that were not an overload rejection; K above 0 to 1000"},
		{Path: "client.policy.sre_window", Field: func(c *Config) any { return &c.Client.Policy.SREWindow },
			Usage: "sre-throttle: requests and accepts count for this `duration`, 1s to 24h"},
		{Path: "client.hedges", Field: func(c *Config) any { return &c.Client.Hedges }, Lo: 0, Hi: MaxHedges,
			Usage: fmt.Sprintf("send up to `h` extra copies of an attempt, one each client.hedge_delay without a success, 0 to %d; each is asked of client.policy.kind as a retry is", MaxHedges)},
		{Path: "client.hedge_delay", Field: func(c *Config) any { return &c.Client.HedgeDelay },
			Usage: "the hedges' `duration` apart"},
		{Path: "client.honour_pushback", Field: func(c *Config) any { return nameField(&c.Client.HonourPushback, ParseSwitch, SwitchName) },
			Usage: "`true` makes the client give a request up, without a retry, when an attempt is answered \"do not retry\" (server.pushback): true or false"},
	}
	if extra, ok := testhook.FleetParams().([]Param); ok { // a test's own settings
		ps = append(ps, extra...)
	}
	for i, p := range ps {
		if p.Key == "" {
			ps[i].Key = strings.ReplaceAll(p.Path[strings.LastIndex(p.Path, ".")+1:], "_", "-")
		}
	}
	return ps
}

// LookupParam returns the setting whose path is path.
func LookupParam(path string) (Param, bool) {
	for _, p := range Params() {
		if p.Path == path {
			return p, true
		}
	}
	return Param{}, false
}

// LookupKey returns the setting whose Key is key.
func LookupKey(key string) (Param, bool) {
	for _, p := range Params() {
		if p.Key == key {
			return p, true
		}
	}
	return Param{}, false
}

// ReplacePaths is msg with every setting's path in it replaced by name(p),
// as a command writes an error in its own words (a path as its flag).
func ReplacePaths(msg string, name func(Param) string) string {
	ps := Params()
	slices.SortStableFunc(ps, func(a, b Param) int { return len(b.Path) - len(a.Path) }) // the longest path first
	var pairs []string
	for _, p := range ps {
		if strings.Contains(p.Path, ".") { // a bare word (net) could be the word, not the setting
			pairs = append(pairs, p.Path, name(p))
		}
	}
	return strings.NewReplacer(pairs...).Replace(msg)
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

// ParseSwitch reads a setting that is on or off: true or false.
func ParseSwitch(s string) (bool, error) {
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("unknown switch %q (want true or false)", s)
}

// SwitchName is an on-or-off setting's name, as ParseSwitch reads it.
func SwitchName(on bool) string {
	if on {
		return "true"
	}
	return "false"
}
