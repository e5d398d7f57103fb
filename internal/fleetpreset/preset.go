// Package fleetpreset holds the fleet, graph and workers kinds' presets: named runs from a
// published study, a library's defaults or a queue's, each with its source. It is no API.
package fleetpreset

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/jobqueue"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/metastable"
	"github.com/retrysim/retrysim/schema"
)

// brookerCollapse is Brooker's "simple collapse" simulation, as its Source says.
var brookerCollapse = Preset[fleet.Config]{
	Name:  "brooker-collapse",
	About: "Runs ramp_no_backoff, ramp_backoff_and_jitter, spike_no_backoff and spike_backoff_and_jitter",
	Source: "M. Brooker, \"Metastability and distributed systems\", brooker.co.za 2021 (simple collapse), as its code " +
		"github.com/mbrooker/simulator_example simple_collapse_sim/sim.py at commit bbfe394 (2023-10-26) runs it: latency 1 s + 0.01 s per call in progress, network 0.1 s each way, timeout 3 s, 3 tries; " +
		"ramp 80 - 1.6 |t - 25| a second, or 40 a second with 80 from t = 20 s for 5 s; no backoff, or uniform in [0, b], b = 20 s doubling",
	Duration:   80 * time.Second,
	Replicates: 10,
	Runs: func(d time.Duration) []fleet.Config {
		base := metastable.CollapseMap().Base // the server, client and network the map draws
		base.Duration = d
		ramp := fleet.Shape{Kind: fleet.RampLoad, Rate: 40, Peak: 80, From: 0, To: 50 * time.Second}
		spike := fleet.Shape{Kind: fleet.SpikeLoad, Rate: 40, Peak: 80, From: 20 * time.Second, To: 25 * time.Second}
		var runs []fleet.Config
		for _, load := range []struct {
			name  string
			shape fleet.Shape
		}{{"ramp", ramp}, {"spike", spike}} {
			for _, p := range metastable.MapPolicies() { // no backoff, and jitter from b = 20 s
				c := base
				c.Name = load.name + "_" + p.Name
				c.Load = load.shape
				c.Client.Backoff = p.Backoff
				runs = append(runs, c)
			}
		}
		return runs
	},
}

// brookerFailureRates are retry_sim.py's failure rates in ascending order, 0.75 included.
var brookerFailureRates = [...]float64{0, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.0325,
	0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75}

// named is a client the presets compare, by the name its runs take.
type named struct {
	name   string
	client fleet.Client
}

// brookerPolicies are the clients of Brooker's retry runs as his retry_sim builds them.
var brookerPolicies = [...]named{
	{"no_retries", fleet.Client{Attempts: 1}},
	{"4_tries", fleet.Client{Attempts: 4}},
	{"adaptive_10pct", fleet.Client{Attempts: limits.FleetAttempts, Policy: fleet.PolicyConfig{Kind: fleet.TokenBucket, Rate: 0.1, Size: 5}}},
	{"breaker_10pct", fleet.Client{Attempts: 4, Policy: fleet.PolicyConfig{Kind: fleet.Breaker, Threshold: 0.1}}},
}

// brookerRetryCode names the code brooker-retries and brooker-clients follow.
const brookerRetryCode = "github.com/mbrooker/simulator_example retry_sim at commit fa8981e (2022-08-11)"

// brookerRetries is the "Simulating performance" runs of Brooker's "Fixing retries" post.
var brookerRetries = Preset[fleet.Config]{
	Name:  "brooker-retries",
	About: "17 x 4 runs",
	Source: "M. Brooker, \"Fixing retries with token buckets and circuit breakers\", brooker.co.za 2022-02-28, as its code " +
		brookerRetryCode + " runs it: 100 clients x 10 requests a second, each starting with a call at an exponential time of mean 10 ms (his sim_loop), server failure rate 0 to 0.75 (his 17 rates), " +
		"network 10 ms each way; no_retries, 4_tries (his three_retries: 3 retries, 4 tries in all), adaptive_10pct (token bucket r = 0.1, s = 5 per client, " +
		"retrying while more than 1 token is left, with no cap), breaker_10pct (3 retries while failed attempts/requests <= 0.1)",
	Duration:   10 * time.Second,
	Replicates: 1,
	Totals:     true,
	Runs:       func(d time.Duration) []fleet.Config { return brookerRuns(d, 100, 1000, brookerPolicies[:], true) },
}

// brookerClients compares brookerRetries' per-client policies over 10, 100 and 1000 clients.
var brookerClients = Preset[fleet.Config]{
	Name:  "brooker-clients",
	About: "3 x 17 x 2 runs",
	Source: "M. Brooker, \"Fixing retries with token buckets and circuit breakers\", brooker.co.za 2022-02-28, as its code " +
		brookerRetryCode + " runs it: as brooker-retries, with 10, 100 and 1000 clients sharing 100 requests a second; " +
		"adaptive_10pct and breaker_10pct",
	Duration:   10 * time.Second,
	Replicates: 1,
	Totals:     true,
	ByClients:  true,
	Runs: func(d time.Duration) []fleet.Config {
		var runs []fleet.Config
		for _, c := range []int{10, 100, 1000} {
			runs = append(runs, brookerRuns(d, c, 100, brookerPolicies[2:], true)...)
		}
		return runs
	},
}

// brookerRuns are Brooker's retry runs, a run a failure rate and policy; first starts each
// client with a call (Shape.FirstCall).
func brookerRuns(d time.Duration, clients int, rate float64, policies []named, first bool) []fleet.Config {
	var runs []fleet.Config
	for _, f := range brookerFailureRates {
		for _, p := range policies {
			c := fleet.Client{Clients: clients, Timeout: time.Minute, Attempts: p.client.Attempts, Policy: p.client.Policy,
				Backoff: p.client.Backoff}
			runs = append(runs, fleet.Config{
				Name:     p.name,
				Duration: d,
				Load:     fleet.Shape{Kind: fleet.ConstantLoad, Rate: rate, FirstCall: first},
				Server:   fleet.Server{Kind: fleet.IndependentServer, PFail: f},
				Client:   c,
				Net:      10 * time.Millisecond,
			})
		}
	}
	return runs
}

// Presets lists the presets.
func Presets() []Preset[fleet.Config] {
	return []Preset[fleet.Config]{brookerCollapse, brookerRetries, brookerClients, awsStandard, grpcThrottling,
		envoyPreset, finaglePreset, resilience4jPreset, jobRetries, retryPolicies, spikeRecovery}
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset[fleet.Config], error) {
	return lookupPreset(Presets(), name, "want")
}

// lookupPreset returns the preset of ps called name; its error lists them after want.
func lookupPreset[R any](ps []Preset[R], name, want string) (Preset[R], error) {
	if i := slices.IndexFunc(ps, func(p Preset[R]) bool { return p.Name == name }); i >= 0 {
		return ps[i], nil
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return Preset[R]{}, fmt.Errorf("unknown preset %q (%s %s)", name, want, strings.Join(names, ", "))
}

// awsStandardClient is the AWS SDKs' standard retry mode as aws-sdk-go-v2 v1.47.8's aws/retry
// sets it (DefaultMaxAttempts, DefaultRetryRateTokens, DefaultRetryCost,
// DefaultRetryTimeoutCost, DefaultNoRetryIncrement, ExponentialJitterBackoff capped at
// DefaultMaxBackoff); shared says whether one SDK client serves the whole fleet.
func awsStandardClient(shared bool) fleet.Client {
	return fleet.Client{Attempts: 3,
		Backoff: backoff.Schedule{Kind: backoff.FullJitter, Base: 2 * time.Second, Cap: 20 * time.Second},
		Policy:  fleet.PolicyConfig{Kind: fleet.AWSQuota, Shared: shared, Tokens: 500, Cost: 5, TimeoutCost: 10}}
}

// grpcRetryClient is gRPC's retry policy and throttling (proposal A6, grpc-go v1.69.0 to
// v1.83.1) with its examples' values; shared says whether one channel serves the fleet.
func grpcRetryClient(shared bool) fleet.Client {
	return fleet.Client{Attempts: 4,
		Backoff: backoff.Schedule{Kind: backoff.GRPC, Base: 100 * time.Millisecond, Cap: time.Second},
		Policy:  fleet.PolicyConfig{Kind: fleet.GRPCThrottle, Shared: shared, MaxTokens: 10, Ratio: 0.1}}
}

// production is the preset name comparing a production client on brooker-retries's load:
// without its policy (bare), with a policy state per client, and with one for the fleet.
func production(name, prefix, bare string, client func(shared bool) fleet.Client, source string) Preset[fleet.Config] {
	return Preset[fleet.Config]{Name: name, About: "17 x 3 runs", Source: source, Duration: 10 * time.Second,
		Replicates: 1, Totals: true, Runs: func(d time.Duration) []fleet.Config {
			none := named{bare, client(false)}
			none.client.Policy = fleet.PolicyConfig{}
			return brookerRuns(d, 100, 1000, []named{none, {prefix + "_client", client(false)}, {prefix + "_fleet", client(true)}}, false)
		}}
}

// awsStandard runs the AWS SDKs' standard retry mode on Brooker's retry load.
var awsStandard = production("aws-standard", "aws", "no_quota", awsStandardClient,
	"The AWS SDKs' standard retry mode as aws-sdk-go-v2 v1.47.8 (aws/retry) sets it: 3 attempts; a retry quota of 500 tokens, "+
		"a retry costing 5 (10 after a timeout), 1 back for every successful attempt and a successful retry's cost with it; "+
		"wait u x min(2^a s, 20 s) before retry a = 1, 2; "+
		"on brooker-retries's load: no_quota, aws_client (a quota per client), aws_fleet (one quota shared by the fleet)")

// grpcThrottling runs gRPC's retry policy with retry throttling on Brooker's retry load.
var grpcThrottling = production("grpc-throttling", "grpc", "no_throttle", grpcRetryClient,
	"gRPC's retry policy and retry throttling, proposal A6 (\"gRPC Retry Design\", as amended in 2024, grpc/proposal#452; "+
		"grpc-go v1.83.1), with its examples' values: maxAttempts 4, "+
		"backoff min(0.1 s x 2^(n-1), 1 s) x random(0.8, 1.2) before retry n, retryThrottling maxTokens 10, tokenRatio 0.1; "+
		"on brooker-retries's load: no_throttle, grpc_client (a throttle per client), grpc_fleet (one shared by the fleet)")

// envoyRetryClient is Envoy v1.39.0's router retry on 5xx with its defaults and the cluster's
// RetryBudget (envoy.config.cluster.v3); shared says whether one Envoy serves the whole fleet.
func envoyRetryClient(shared bool) fleet.Client {
	return fleet.Client{Attempts: 2,
		Backoff: backoff.Schedule{Kind: backoff.FullJitter, Base: 25 * time.Millisecond, Cap: 250 * time.Millisecond},
		Policy:  fleet.PolicyConfig{Kind: fleet.EnvoyBudget, Shared: shared, BudgetRatio: 0.2, MinConcurrency: 3}}
}

// finagleRetryClient is Finagle 24.5.0's default RetryBudget (RetryBudget.apply) with three
// retries and no backoff, as Finagle requeues at once; shared says whether one serves the fleet.
func finagleRetryClient(shared bool) fleet.Client {
	return fleet.Client{Attempts: 4,
		Policy: fleet.PolicyConfig{Kind: fleet.FinagleBudget, Shared: shared, BudgetRatio: 0.2, TTL: 10 * time.Second, MinRate: 10}}
}

// resilience4jClient is resilience4j 2.4.0's Retry and CircuitBreaker with their defaults;
// shared says whether one breaker serves the whole fleet.
func resilience4jClient(shared bool) fleet.Client {
	return fleet.Client{Attempts: 3,
		Backoff: backoff.Schedule{Kind: backoff.Constant, Base: 500 * time.Millisecond},
		Policy: fleet.PolicyConfig{Kind: fleet.SlidingBreaker, Shared: shared, FailureRate: 0.5, Window: 100, MinCalls: 100,
			OpenTime: time.Minute, HalfOpenCalls: 10}}
}

// envoyPreset runs Envoy's retry defaults on Brooker's retry load.
var envoyPreset = production("envoy-budget", "envoy", "no_budget", envoyRetryClient,
	"Envoy v1.39.0's router retry and cluster retry budget with their defaults: num_retries 1, back-off within [0, 25 ms), "+
		"budget_percent 20%, min_retry_concurrency 3; on brooker-retries's load: no_budget, envoy_client (a budget per client), "+
		"envoy_fleet (one Envoy for the fleet)")

// finaglePreset runs Finagle's default RetryBudget on Brooker's retry load.
var finaglePreset = production("finagle-budget", "finagle", "no_budget", finagleRetryClient,
	"Finagle 24.5.0's default RetryBudget (RetryBudget.apply; \"Retry Budgets\", finagle.github.io 2016): 20% of requests, "+
		"a reserve of 10 retries a second, deposits kept 10 s; with 3 retries and no backoff, on brooker-retries's load: "+
		"no_budget, finagle_client (a budget per client), finagle_fleet (one shared by the fleet)")

// resilience4jPreset runs resilience4j's defaults on Brooker's retry load.
var resilience4jPreset = production("resilience4j-breaker", "r4j", "no_breaker", resilience4jClient,
	"resilience4j 2.4.0's defaults: Retry maxAttempts 3, waitDuration 500 ms; CircuitBreaker failureRateThreshold 50%, "+
		"slidingWindowSize 100 calls, minimumNumberOfCalls 100, waitDurationInOpenState 60 s, permittedNumberOfCallsInHalfOpenState 10; "+
		"on brooker-retries's load: no_breaker, r4j_client (a breaker per client), r4j_fleet (one shared by the fleet)")

// jobRetries puts the two job queues' default schedules behind an outage.
var jobRetries = Preset[fleet.Config]{
	Name:  "job-retries",
	About: "Runs sidekiq and river",
	Source: "Sidekiq 8's job retry (v8.1.7, lib/sidekiq/job_retry.rb: 25 retries, retry c from 0 waits c^4 + 15 + rand(10 x (c + 1)) s) and " +
		"River's (v0.43.0, DefaultClientRetryPolicy: n^4 s x random(0.9, 1.1) after the n-th error, MaxAttempts 25): 10 jobs a second for 1200 s calling a service " +
		"of 0.1 s that fails 1% of calls and is down from 300 s to 600 s",
	Duration:   1200 * time.Second,
	Replicates: 5,
	Runs: func(d time.Duration) []fleet.Config {
		var runs []fleet.Config
		for _, q := range []jobqueue.Defaults{jobqueue.Sidekiq(), jobqueue.River()} {
			c := fleet.Client{Clients: 1, Timeout: time.Minute, Attempts: q.MaxAttempts, Backoff: q.Schedule}
			runs = append(runs, fleet.Config{
				Name:     q.Name,
				Duration: d,
				Load:     fleet.Shape{Kind: fleet.ConstantLoad, Rate: 10},
				Outage:   fleet.Outage{From: 5 * time.Minute, To: 10 * time.Minute, Mode: fleet.Fail},
				Server:   fleet.Server{Kind: fleet.IndependentServer, Base: 100 * time.Millisecond, PFail: 0.01},
				Client:   c,
				Net:      10 * time.Millisecond,
			})
		}
		return runs
	},
}

// sreThrottleClient is the SRE book's client-side adaptive throttling ("Handling overload",
// 2016) with three retries and no backoff.
func sreThrottleClient(shared bool) fleet.Client {
	return fleet.Client{Attempts: 4, Policy: fleet.PolicyConfig{Kind: fleet.SREThrottle, Shared: shared, K: 2, SREWindow: 2 * time.Minute}}
}

// productionClients are the production clients with their defaults, each state per client.
var productionClients = []named{
	{"aws_standard", awsStandardClient(false)},
	{"grpc_throttling", grpcRetryClient(false)},
	{"envoy_budget", envoyRetryClient(false)},
	{"finagle_budget", finagleRetryClient(false)},
	{"r4j_breaker", resilience4jClient(false)},
	{"sre_throttle", sreThrottleClient(false)},
}

// retryPolicies is Brooker's "Fixing retries" figure with every client policy on it, each
// keeping its state per client; 4 replicates, so each point has an interval.
var retryPolicies = Preset[fleet.Config]{
	Name:  "retry-policies",
	About: "17 x 10 runs",
	Source: "brooker-retries's load and its four clients, with beside them, each per client: aws_standard, grpc_throttling, " +
		"envoy_budget, finagle_budget and r4j_breaker (as the presets of those names run them) and sre_throttle " +
		"(the SRE book's adaptive throttling, 2016: K = 2 over 2 minutes, accepts every reply but an overload rejection; with 3 retries)",
	Duration:   10 * time.Second,
	Replicates: 4,
	Totals:     true,
	Runs: func(d time.Duration) []fleet.Config {
		return brookerRuns(d, 100, 1000, slices.Concat(brookerPolicies[:], productionClients), false)
	},
}

// spikeHeights are spikeRecovery's spike peaks, requests a second over the base 40.
var spikeHeights = [...]float64{50, 60, 70, 80, 90}

// spikeRecovery compares every policy after a spike on brookerCollapse's server, without keys
// and with the request's key on every attempt.
var spikeRecovery = Preset[fleet.Config]{
	Name:  "spike-recovery",
	About: `12 x 2 x 5 runs named "policy keys none|same peak H"`,
	Source: "brooker-collapse's server (latency 1 s + 0.01 s per call in progress, network 0.1 s each way, timeout 3 s, one client) " +
		"at 40 requests a second with a spike to 50, 60, 70, 80 or 90 from t = 20 s for 5 s; every policy " +
		"(no_retries, 3_tries, backoff_jitter, adaptive_10pct, breaker_10pct, the production clients, " +
		"sre_throttle (the SRE book's, 2016: K = 2 over 2 minutes), hedge_2.5s), " +
		"without keys and with the same key on every attempt",
	Duration:   80 * time.Second,
	Replicates: 5,
	Spikes:     true,
	Runs: func(d time.Duration) []fleet.Config {
		jitter := backoff.Schedule{Kind: backoff.FullJitter, Base: 20 * time.Second}
		clients := slices.Concat([]named{
			{"no_retries", fleet.Client{Attempts: 1}},
			{"3_tries", fleet.Client{Attempts: 3}},
			{"backoff_jitter", fleet.Client{Attempts: 3, Backoff: jitter}},
			{"adaptive_10pct", fleet.Client{Attempts: limits.FleetAttempts, Policy: fleet.PolicyConfig{Kind: fleet.TokenBucket, Rate: 0.1, Size: 5}}},
			{"breaker_10pct", fleet.Client{Attempts: 3, Policy: fleet.PolicyConfig{Kind: fleet.Breaker, Threshold: 0.1}}},
		}, productionClients, []named{{"hedge_2.5s", fleet.Client{Attempts: 1, Hedges: 1, HedgeDelay: 2500 * time.Millisecond}}})
		base := metastable.CollapseMap().Base // brooker-collapse's server and network
		base.Duration = d
		var runs []fleet.Config
		for _, keys := range []schema.KeyMode{schema.NoKeys, schema.SameKey} {
			for _, c := range clients {
				for _, h := range spikeHeights {
					run := base
					run.Name = fmt.Sprintf("%s keys %s peak %g", c.name, keys, h)
					run.Load = fleet.Shape{Kind: fleet.SpikeLoad, Rate: 40, Peak: h, From: 20 * time.Second, To: 25 * time.Second}
					run.Client = c.client
					run.Client.Clients, run.Client.Timeout, run.Client.Keys = 1, 3*time.Second, keys
					runs = append(runs, run)
				}
			}
		}
		return runs
	},
}
