package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/schema"
)

// init registers the declarations of a Config, an Entry and a Graph, and
// why a run never reads a setting of a Config (decl.UnreadWhy).
func init() {
	decl.Register(paramList)
	decl.Register(func() []decl.EntryParam[Entry] { return slices.Clone(entryParams) })
	decl.Register(func() []decl.GraphParam[Graph] { return slices.Clone(graphParams) })
	decl.RegisterUnread(Config.unreadWhy)
}

// paramList lists the settings of one run in the order help groups them,
// each with its Key: a fresh slice.
func paramList() []decl.Param[Config] {
	ps := slices.Clone(params)
	for i, p := range ps {
		if p.Key == "" {
			ps[i].Key = strings.ReplaceAll(p.Path[strings.LastIndex(p.Path, ".")+1:], "_", "-")
		}
	}
	return ps
}

// params declares every setting of a Config once (paramList).
var params = []decl.Param[Config]{
	{Path: "load.kind", Key: "shape", Field: func(c *Config) any { return nameField(&c.Load.Kind, shapes.parse, ShapeKind.String) },
		Usage: usage("the `shape` of the arrival rate over time: constant, spike (%s in [%s, %s), brooker-collapse's spike unless they are given) or ramp (from %s at %s up to %s, at least %s, midway and down at the same slope, %s again at %s, floored at 0)", "load.peak", "load.from", "load.to", "load.rate", "load.from", "load.peak", "load.rate", "load.rate", "load.to")},
	{Path: "load.rate", Field: func(c *Config) any { return &c.Load.Rate }, Lo: 0, Hi: limits.FleetRate,
		Usage: usage("the base arrival `rate`, requests a second (Poisson)")},
	{Path: "load.peak", Field: func(c *Config) any { return &c.Load.Peak }, Lo: 0, Hi: limits.FleetRate,
		Usage: usage("the spike's or the ramp's top `rate`, requests a second")},
	{Path: "load.from", Field: func(c *Config) any { return &c.Load.From },
		Usage: usage("the spike or ramp starts at this `time`")},
	{Path: "load.to", Field: func(c *Config) any { return &c.Load.To },
		Usage: usage("the spike or ramp ends at this `time`; recovery is measured from it")},
	{Path: "load.first_call", Field: func(c *Config) any { return nameField(&c.Load.FirstCall, switches.parse, switches.name) },
		Usage: usage("`true` gives every client a first request at an exponential time of mean net from the start, besides the Poisson arrivals, as Brooker's retry_sim starts its clients: true or false")},
	{Path: "outage.mode", Key: "outage-mode", Field: func(c *Config) any { return nameField(&c.Outage.Mode, outageModes.parse, OutageMode.String) },
		Usage: usage("the outage's `mode`: fail (an error at once) or stall (held until the window ends)")},
	{Path: "server.kind", Key: "server", Field: func(c *Config) any { return nameField(&c.Server.Kind, servers.parse, ServerKind.String) },
		Usage: usage("the `kind` of server: latency (%s + %s x calls in progress, Brooker's), queue (%s workers, at most %s waiting, %s times), ratelimit (%s a second, %s; %s each) or independent (%s each, whatever the load)", "server.base", "server.slope", "server.workers", "server.queue_max", "server.service.median", "server.limit", "server.burst", "server.base", "server.base")},
	{Path: "server.base", Field: func(c *Config) any { return &c.Server.Base },
		Usage: usage("the server's base latency, a `duration`")},
	{Path: "server.slope", Field: func(c *Config) any { return &c.Server.Slope },
		Usage: usage("the latency server's extra latency, a `duration`, a call in progress")},
	{Path: "server.workers", Key: "capacity", Field: func(c *Config) any { return &c.Server.Workers }, Lo: 1, Hi: limits.FleetWorkers,
		Usage: usage("the queue server has `n` workers")},
	{Path: "server.queue_max", Key: "queue", Field: func(c *Config) any { return &c.Server.QueueMax }, Lo: 0, Hi: limits.FleetQueue,
		Usage: usage("the queue server holds at most `n` waiting calls; a call beyond is rejected at once")},
	{Path: "server.service.median", Key: "service", Field: func(c *Config) any { return &c.Server.Service.Median },
		Usage: usage("the queue server's median (lognormal) or mean (exp) service time, a `duration`")},
	{Path: "server.service.dist", Key: "service-dist", Field: func(c *Config) any { return nameField(&c.Server.Service.Dist, dists.parse, Dist.String) },
		Usage: usage("the `distribution` of the queue server's service times: lognormal or exp")},
	{Path: "server.service.sigma", Key: "service-sigma", Field: func(c *Config) any { return &c.Server.Service.Sigma }, Lo: 0, Hi: 4,
		Usage: usage("the lognormal service times' log-sd `sigma`, 0 to 4 (0: every call takes %s)", "server.service.median")},
	{Path: "server.limit", Field: func(c *Config) any { return &c.Server.Limit }, Lo: 0, Hi: limits.FleetRate,
		Usage: usage("the rate limit, a `rate` in calls a second")},
	{Path: "server.burst", Field: func(c *Config) any { return &c.Server.Burst }, Lo: 1, Hi: limits.FleetRate,
		Usage: usage("the rate limit's bucket holds `n` calls")},
	{Path: "server.p_fail", Field: func(c *Config) any { return &c.Server.PFail }, Probability: true,
		Usage: usage("`probability` that a call the server handles fails, doing nothing, whatever the load")},
	{Path: "server.pushback", Field: func(c *Config) any { return nameField(&c.Server.Pushback, switches.parse, switches.name) },
		Usage: usage("`true` makes the server's overload refusals (a full queue, the rate limit) say \"do not retry\", as Envoy's x-envoy-overloaded and gRPC's server pushback do: true or false")},
	{Path: "net", Field: func(c *Config) any { return &c.Net },
		Usage: usage("the mean one-way network delay, an exponential `duration` (0: none)")},
	{Path: "client.clients", Field: func(c *Config) any { return &c.Client.Clients }, Lo: 1, Hi: limits.FleetClients,
		Usage: usage("`n` clients share the load")},
	{Path: "client.timeout", Field: func(c *Config) any { return &c.Client.Timeout },
		Usage: usage("the client waits this `duration` for one attempt's reply; a later reply is ignored")},
	{Path: "client.attempts", Field: func(c *Config) any { return &c.Client.Attempts }, Lo: 1, Hi: limits.FleetAttempts,
		Usage: usage("`n` tries a request in all, the first included")},
	{Path: "client.backoff.kind", Key: "backoff", Field: func(c *Config) any {
		return nameField(&c.Client.Backoff.Kind, enum.Parse[backoff.Kind], backoff.Kind.String)
	},
		Usage: usage("the `policy` of the wait before a retry: " + decl.BackoffKindsDoc)},
	{Path: "client.backoff.base", Key: "backoff-base", Field: func(c *Config) any { return &c.Client.Backoff.Base },
		Usage: usage("the backoff's base `duration`")},
	{Path: "client.backoff.cap", Key: "backoff-cap", Field: func(c *Config) any { return &c.Client.Backoff.Cap },
		Usage: usage("the backoff's cap `duration` (0: no cap)")},
	{Path: "client.keys", Field: func(c *Config) any {
		return nameField(&c.Client.Keys, enum.Parse[schema.KeyMode], schema.KeyMode.String)
	},
		Usage: usage("the key `mode`: none (a retry repeats completed work), fresh (a new key an attempt, which a hedge's copies share: the server catches duplicate copies, not retries) or same (the server stores a key's reply; an attempt while its key is in progress is a conflict)")},
	{Path: "client.policy.kind", Key: "policy", Field: func(c *Config) any { return policyKindField{&c.Client.Policy} },
		Usage: usage("the client `policy` that may refuse a retry or a hedge: unlimited, token-bucket (%s, %s), aws (aws-sdk-go-v2 v1.47.8's quota: %s, %s, %s), aws-spec (the same with the AWS retry spec's refund, as aws-sdk-go-v2 from v1.48.0), grpc (%s, %s), breaker or attempt-breaker (%s), finagle-budget (Finagle 24.5.0's RetryBudget: %s, %s, %s), envoy-budget (Envoy v1.39.0's retry budget: %s, %s); or, refusing first attempts too, sliding-breaker (resilience4j 2.4.0's and Polly 8.7.0's breaker: %s, %s, %s, %s, %s, %s), sre-throttle (the SRE book's: %s, %s) or grpc-adaptive (grpc-go v1.83.1's adaptive throttler: 30 s in 100 bins, ratio for accepts 2, padding 8)", "client.policy.rate", "client.policy.size", "client.policy.tokens", "client.policy.cost", "client.policy.timeout_cost", "client.policy.max_tokens", "client.policy.ratio", "client.policy.threshold", "client.policy.budget_ratio", "client.policy.ttl", "client.policy.min_rate", "client.policy.budget_ratio", "client.policy.min_concurrency", "client.policy.failure_rate", "client.policy.window", "client.policy.window_time", "client.policy.min_calls", "client.policy.open_time", "client.policy.half_open_calls", "client.policy.k", "client.policy.sre_window")},
	{Path: "client.policy.shared", Key: "policy-scope", Field: func(c *Config) any { return nameField(&c.Client.Policy.Shared, scopes.parse, scopes.name) },
		Usage: usage("the policy's state is kept per `scope`: client (each of %s has its own) or fleet (one shared by all)", "client.clients")},
	{Path: "client.policy.rate", Key: "bucket-rate", Field: func(c *Config) any { return &c.Client.Policy.Rate }, Lo: 0, Hi: limits.PolicyTokens,
		Usage: usage("token-bucket: each new request adds `r` tokens, 0 to 1e6")},
	{Path: "client.policy.size", Key: "bucket-size", Field: func(c *Config) any { return &c.Client.Policy.Size }, Lo: 0, Hi: limits.PolicyTokens,
		Usage: usage("token-bucket: the bucket holds at most `s` tokens (full at the start), 0 to 1e6; a retry costs 1 and goes while more than 1 remains")},
	{Path: "client.policy.tokens", Key: "quota", Field: func(c *Config) any { return &c.Client.Policy.Tokens }, Lo: 0, Hi: limits.PolicyTokens,
		Usage: usage("aws, aws-spec: the retry quota holds `n` tokens (full at the start), 0 to 1e6")},
	{Path: "client.policy.cost", Key: "quota-cost", Field: func(c *Config) any { return &c.Client.Policy.Cost }, Lo: 1, Hi: limits.PolicyTokens,
		Usage: usage("aws, aws-spec: a retry costs `n` tokens, 1 to 1e6; a success returns 1 and its retry's cost (aws-spec: its retry's cost, or 1 on a first attempt)")},
	{Path: "client.policy.timeout_cost", Key: "quota-timeout-cost", Field: func(c *Config) any { return &c.Client.Policy.TimeoutCost }, Lo: 1, Hi: limits.PolicyTokens,
		Usage: usage("aws, aws-spec: a retry after a timeout costs `n` tokens, 1 to 1e6")},
	{Path: "client.policy.max_tokens", Key: "grpc-max-tokens", Field: func(c *Config) any { return &c.Client.Policy.MaxTokens }, Lo: 0, Hi: limits.PolicyTokens,
		Usage: usage("grpc: tokens start at `n`, 0 to 1e6; a failure takes 1, and no retry goes while tokens are at or below n/2")},
	{Path: "client.policy.ratio", Key: "grpc-token-ratio", Field: func(c *Config) any { return &c.Client.Policy.Ratio }, Lo: 0, Hi: limits.PolicyTokens,
		Usage: usage("grpc: a success adds `r` tokens, above 0 and at most %s", "client.policy.max_tokens")},
	{Path: "client.policy.threshold", Key: "breaker-threshold", Field: func(c *Config) any { return &c.Client.Policy.Threshold }, Lo: 0, Hi: 1,
		Usage: usage("breaker: a retry goes only while the client's failed attempts over its requests (attempt-breaker: over its attempts) are at most `ratio`, 0 to 1")},
	{Path: "client.policy.budget_ratio", Field: func(c *Config) any { return &c.Client.Policy.BudgetRatio }, Lo: 0, Hi: limits.PolicyBudgetRatio,
		Usage: usage("finagle-budget: retries at most `r` of the requests of the last %s, 0 to 1000 (Finagle's percentCanRetry); envoy-budget: retries outstanding (allowed, in backoff or in flight) fewer than r x the attempts in flight, 0 to 1 (budget_percent/100)", "client.policy.ttl")},
	{Path: "client.policy.ttl", Key: "budget-ttl", Field: func(c *Config) any { return &c.Client.Policy.TTL },
		Usage: usage("finagle-budget: requests and retries count for this `duration`, 1s to 1m")},
	{Path: "client.policy.min_rate", Key: "budget-min-rate", Field: func(c *Config) any { return &c.Client.Policy.MinRate }, Lo: 0, Hi: limits.PolicyTokens,
		Usage: usage("finagle-budget: a reserve of `n` retries a second over %s, 0 to 1e6", "client.policy.ttl")},
	{Path: "client.policy.min_concurrency", Key: "budget-min-concurrency", Field: func(c *Config) any { return &c.Client.Policy.MinConcurrency }, Lo: 0, Hi: limits.PolicyTokens,
		Usage: usage("envoy-budget: at least `n` retries may be outstanding, 0 to 1e6")},
	{Path: "client.policy.failure_rate", Key: "cb-failure-rate", Field: func(c *Config) any { return &c.Client.Policy.FailureRate }, Lo: 0, Hi: 1,
		Usage: usage("sliding-breaker: opens when the window's failed attempts over its attempts are at least `ratio`, above 0 to 1")},
	{Path: "client.policy.window", Key: "cb-window", Field: func(c *Config) any { return &c.Client.Policy.Window }, Lo: 1, Hi: limits.PolicyWindow,
		Usage: usage("sliding-breaker: the window holds the outcomes of the last `n` attempts, 1 to 1e6")},
	{Path: "client.policy.window_time", Key: "cb-window-time", Field: func(c *Config) any { return &c.Client.Policy.WindowTime },
		Usage: usage("sliding-breaker: the window holds the outcomes of the last `duration` instead (0: %s attempts), up to 24h", "client.policy.window")},
	{Path: "client.policy.min_calls", Key: "cb-min-calls", Field: func(c *Config) any { return &c.Client.Policy.MinCalls }, Lo: 1, Hi: limits.PolicyWindow,
		Usage: usage("sliding-breaker: opens only with at least `n` outcomes in the window, 1 to 1e6")},
	{Path: "client.policy.open_time", Key: "cb-open", Field: func(c *Config) any { return &c.Client.Policy.OpenTime },
		Usage: usage("sliding-breaker: stays open, refusing every attempt, for this `duration`, up to 24h")},
	{Path: "client.policy.half_open_calls", Key: "cb-half-open", Field: func(c *Config) any { return &c.Client.Policy.HalfOpenCalls }, Lo: 1, Hi: limits.PolicyWindow,
		Usage: usage("sliding-breaker: then lets `n` attempts through and closes if their failure rate is under %s, 1 to 1e6", "client.policy.failure_rate")},
	{Path: "client.policy.k", Key: "sre-k", Field: func(c *Config) any { return &c.Client.Policy.K }, Lo: 0, Hi: limits.PolicyK,
		Usage: usage("sre-throttle: refuses an attempt with probability max(0, (requests - `K` x accepts)/(requests + 1)), requests counted once their outcome is known, accepts the replies that were not an overload rejection; K above 0 to 1000")},
	{Path: "client.policy.sre_window", Field: func(c *Config) any { return &c.Client.Policy.SREWindow },
		Usage: usage("sre-throttle: requests and accepts count for this `duration`, 1s to 24h")},
	{Path: "client.hedges", Field: func(c *Config) any { return &c.Client.Hedges }, Lo: 0, Hi: limits.FleetHedges,
		Usage: usage(fmt.Sprintf("send up to `h` extra copies of an attempt, one each %%s without a success, 0 to %d; each is asked of %%s as a retry is", limits.FleetHedges), "client.hedge_delay", "client.policy.kind")},
	{Path: "client.hedge_delay", Field: func(c *Config) any { return &c.Client.HedgeDelay },
		Usage: usage("the hedges' `duration` apart")},
	{Path: "client.honour_pushback", Field: func(c *Config) any { return nameField(&c.Client.HonourPushback, switches.parse, switches.name) },
		Usage: usage("`true` makes the client give a request up, without a retry, when an attempt is answered \"do not retry\" (%s): true or false", "server.pushback")},
}

// usage is a setting's Usage: format with a %s for each path it names.
func usage(format string, paths ...string) pathtext.Text {
	args := make([]any, len(paths))
	for i, p := range paths {
		args[i] = pathtext.Path(p)
	}
	return pathtext.Textf(format, args...)
}

// nameField reads and writes *p by name.
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

// policyKindField is client.policy.kind, read and written by name: a
// policy with no parameter set takes DefaultPolicy's, as a scenario's does.
type policyKindField struct{ p *PolicyConfig }

func (f policyKindField) MarshalText() ([]byte, error) { return []byte(f.p.Kind.String()), nil }

func (f policyKindField) UnmarshalText(b []byte) error {
	k, err := policies.parse(string(b))
	if err != nil {
		return err
	}
	if *f.p == (PolicyConfig{Kind: f.p.Kind, Shared: f.p.Shared}) {
		shared := f.p.Shared
		*f.p = DefaultPolicy()
		f.p.Shared = shared
	}
	f.p.Kind = k
	return nil
}

// twoNames are the names of a setting that is off or on; what and want
// name it and them in an error.
type twoNames struct{ what, off, on, want string }

// switches are true and false; scopes a policy's (PolicyConfig.Shared).
var (
	switches = twoNames{"switch", "false", "true", "true or false"}
	scopes   = twoNames{"scope", "client", "fleet", "client or fleet"}
)

// parse reads the name of off or on.
func (n twoNames) parse(s string) (bool, error) {
	switch s {
	case n.on:
		return true, nil
	case n.off:
		return false, nil
	}
	return false, fmt.Errorf("unknown %s %q (want %s)", n.what, s, n.want)
}

// name is on's or off's name.
func (n twoNames) name(on bool) string {
	if on {
		return n.on
	}
	return n.off
}
