package fleetpreset

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/waits"
	"github.com/retrysim/retrysim/schema"
)

// The production clients hold the defaults their sources state, written out
// here from those sources rather than from the code: aws-sdk-go-v2's
// aws/retry (DefaultMaxAttempts 3, DefaultRetryRateTokens 500,
// DefaultRetryCost 5, DefaultRetryTimeoutCost 10, DefaultMaxBackoff 20 s,
// ExponentialJitterBackoff's u x 2^attempt seconds with attempt 1 before the
// first retry); gRPC's A6 examples (maxAttempts 4, initialBackoff 0.1 s,
// maxBackoff 1 s, backoffMultiplier 2, maxTokens 10, tokenRatio 0.1);
// Sidekiq 8's 25 retries and River's MaxAttempts 25.
func TestProductionDefaults(t *testing.T) {
	aws := awsStandardClient(true)
	if want := (fleet.PolicyConfig{Kind: fleet.AWSQuota, Shared: true, Tokens: 500, Cost: 5, TimeoutCost: 10}); aws.Attempts != 3 || aws.Policy != want {
		t.Errorf("aws: %d attempts, %+v; want 3, %+v", aws.Attempts, aws.Policy, want)
	}
	grpc := grpcRetryClient(false)
	if want := (fleet.PolicyConfig{Kind: fleet.GRPCThrottle, MaxTokens: 10, Ratio: 0.1}); grpc.Attempts != 4 || grpc.Policy != want {
		t.Errorf("grpc: %d attempts, %+v; want 4, %+v", grpc.Attempts, grpc.Policy, want)
	}
	for _, u := range []float64{0, 0.25, 0.5, 0.999} {
		// aws-sdk-go-v2: attempt a (1 for the first retry) waits u x 2^a
		// s, and 20 s once 2^a s would pass it.
		for a := 1; a <= 2; a++ {
			want := time.Duration(u * math.Min(math.Pow(2, float64(a)), 20) * float64(time.Second))
			if got := waits.Delay(aws.Backoff, a-1, 0, u); got != want {
				t.Errorf("aws: retry %d, u = %g: waits %v; want %v", a, u, got, want)
			}
		}
		// A6 after grpc/proposal#452: the n-th retry waits
		// "min(initialBackoff*backoffMultiplier**(n-1), maxBackoff) *
		// random(0.8, 1.2)" (grpc-go v1.83.1 stream.go: "cur *= 0.8 +
		// 0.4*rand.Float64()").
		for n := 1; n <= 3; n++ {
			want := time.Duration(math.Min(0.1*math.Pow(2, float64(n-1)), 1) * (0.8 + 0.4*u) * float64(time.Second))
			if got := waits.Delay(grpc.Backoff, n-1, 0, u); got != want {
				t.Errorf("grpc: retry %d, u = %g: waits %v; want %v", n, u, got, want)
			}
		}
	}
	if got := waits.Delay(grpc.Backoff, 5, 0, 0.5); got != time.Second {
		t.Errorf("grpc: retry 6 at u = 0.5 waits %v; want maxBackoff 1 s x 1.0", got)
	}
	for _, tc := range []struct {
		name string
		got  fleet.Client
		want fleet.Client
	}{
		// Envoy v1.39.0 (tag commit 8eea328, 2026-07-14):
		// route_components.proto RetryPolicy num_retries "defaults to 1";
		// router/retry_state_impl.cc "getInteger(\"upstream.base_retry_backoff_ms\",
		// 25)" and "max_interval = base_interval * 10";
		// upstream/resource_manager_impl.h RetryBudgetImpl::max "budget_percent_ ?
		// *budget_percent_ : 20.0" and "min_retry_concurrency_ ?
		// *min_retry_concurrency_ : 3".
		{"envoy", envoyRetryClient(true), fleet.Client{Attempts: 2,
			Backoff: backoff.Schedule{Kind: backoff.FullJitter, Base: 25 * time.Millisecond, Cap: 250 * time.Millisecond},
			Policy:  fleet.PolicyConfig{Kind: fleet.EnvoyBudget, Shared: true, BudgetRatio: 0.2, MinConcurrency: 3}}},
		// Finagle 24.5.0 (tag finagle-24.5.0, 2024-05-06),
		// finagle-core/.../service/RetryBudget.scala: "val DefaultTtl =
		// 10.seconds", "val DefaultMinRetriesPerSec = 10", and "def apply():
		// RetryBudget = apply(DefaultTtl, DefaultMinRetriesPerSec, 0.2, ...)".
		{"finagle", finagleRetryClient(false), fleet.Client{Attempts: 4,
			Policy: fleet.PolicyConfig{Kind: fleet.FinagleBudget, BudgetRatio: 0.2, TTL: 10 * time.Second, MinRate: 10}}},
		// resilience4j 2.4.0 (tag v2.4.0, 2026-03-14): RetryConfig.java
		// "DEFAULT_WAIT_DURATION = 500", "DEFAULT_MAX_ATTEMPTS = 3";
		// CircuitBreakerConfig.java "DEFAULT_FAILURE_RATE_THRESHOLD = 50",
		// "DEFAULT_WAIT_DURATION_IN_OPEN_STATE = 60", "DEFAULT_PERMITTED_CALLS_IN_HALF_OPEN_STATE
		// = 10", "DEFAULT_MINIMUM_NUMBER_OF_CALLS = 100",
		// "DEFAULT_SLIDING_WINDOW_SIZE = 100", "DEFAULT_SLIDING_WINDOW_TYPE =
		// SlidingWindowType.COUNT_BASED".
		{"resilience4j", resilience4jClient(false), fleet.Client{Attempts: 3,
			Backoff: backoff.Schedule{Kind: backoff.Constant, Base: 500 * time.Millisecond},
			Policy: fleet.PolicyConfig{Kind: fleet.SlidingBreaker, FailureRate: 0.5, Window: 100, MinCalls: 100,
				OpenTime: time.Minute, HalfOpenCalls: 10}}},
		// The SRE book: K = 2 over 2 minutes.
		{"sre", sreThrottleClient(false), fleet.Client{Attempts: 4, Policy: fleet.PolicyConfig{Kind: fleet.SREThrottle, K: 2, SREWindow: 2 * time.Minute}}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %+v; want %+v", tc.name, tc.got, tc.want)
		}
	}
	// Envoy v1.39.0 common/backoff_strategy.cc JitteredExponentialBackOffStrategy::
	// nextBackOffMs: "return (random_.random() % backoff);" with backoff
	// base_interval, then doubled per retry ("next_interval_ * 2u") up to
	// max_interval: retry N waits within [0, min(25 ms x 2^(N-1), 250 ms)),
	// [0, 25 ms) for the one retry, [0, 50 ms) for a second.
	for n, want := range []time.Duration{25, 50, 100, 200, 250, 250} {
		want *= time.Millisecond
		if got := waits.Delay(envoyRetryClient(false).Backoff, n, 0, 0.999); got >= want || got < want*99/100 {
			t.Errorf("envoy: retry %d at u = 0.999 waits %v; want just under %v", n+1, got, want)
		}
	}
	jobs := jobRetries.Runs(jobRetries.Duration)
	if c := jobs[0].Client; c.Attempts != 26 || c.Backoff.Kind != backoff.Sidekiq {
		t.Errorf("sidekiq: %d attempts, %s; want 25 retries (26 attempts) on the sidekiq schedule", c.Attempts, c.Backoff.Kind)
	}
	if c := jobs[1].Client; c.Attempts != 25 || c.Backoff.Kind != backoff.River {
		t.Errorf("river: %d attempts, %s; want MaxAttempts 25 on the river schedule", c.Attempts, c.Backoff.Kind)
	}
}

// Each production preset runs its client on the load it names, and the runs
// with state shared by the fleet meet the closed forms of their policies when
// every call fails: the shared AWS quota funds 500/5 = 100 retries and no
// more (no success ever returns a token), and the shared gRPC throttle allows
// a retry after each failure that leaves it above maxTokens/2 = 5, the first
// four (9, 8, 7, 6 tokens); the job queues make every attempt of every job.
// These are counts, not estimates: exact whatever the seed.
func TestProductionPresetsClosedForms(t *testing.T) {
	byName := func(p Preset[fleet.Config], name string) fleet.Config {
		t.Helper()
		for _, c := range p.Runs(p.Duration) {
			if c.Name == name { // the first: failure rate 0 in a Totals preset
				return c
			}
		}
		t.Fatalf("%s: no run %s", p.Name, name)
		return fleet.Config{}
	}
	for _, p := range []Preset[fleet.Config]{awsStandard, grpcThrottling} {
		runs := p.Runs(p.Duration)
		if len(runs) != 17*3 {
			t.Fatalf("%s: %d runs; want 17 failure rates x 3 clients", p.Name, len(runs))
		}
		for i, c := range runs {
			if c.Server.PFail != brookerFailureRates[i/3] || c.Client.Clients != 100 || c.Load.Rate != 1000 || c.Net != 10*time.Millisecond {
				t.Errorf("%s run %d: failure rate %g, %d clients, %g a second, net %v; want Brooker's load", p.Name, i, c.Server.PFail, c.Client.Clients, c.Load.Rate, c.Net)
			}
		}
	}
	for _, tc := range []struct {
		p              Preset[fleet.Config]
		run            string
		retriesPerRun  int64 // when every call fails
		attemptsPerReq int64 // or, when 0, the retries above in all
	}{
		{awsStandard, "aws_fleet", 100, 0},
		{grpcThrottling, "grpc_fleet", 4, 0},
		{awsStandard, "no_quota", 0, 3},
		{jobRetries, "sidekiq", 0, 26},
		{jobRetries, "river", 0, 25},
	} {
		cfg := byName(tc.p, tc.run)
		cfg.Server.PFail = 1
		cfg.Duration = 5 * time.Second
		for _, r := range run(t, cfg, 2) {
			want := tc.retriesPerRun
			if tc.attemptsPerReq > 0 {
				want = (tc.attemptsPerReq - 1) * r.Requests
			}
			if r.Retries != want || r.Succeeded != 0 || r.Calls != r.Requests+want {
				t.Errorf("%s %s, every call failing: %d retries, %d calls, %d succeeded of %d requests; want %d retries, requests + retries calls, 0",
					tc.p.Name, tc.run, r.Retries, r.Calls, r.Succeeded, r.Requests, want)
			}
		}
	}
}

// job-retries against the schedules' closed form. A job arriving at a
// uniform time in the outage [300, 600) s, with R = 600 - t of it left, fails
// its first call and then every retry whose cumulative wait W_k (k retries)
// is under R; R is uniform on [0, 300], so P(W_k < R) = 1 - E[W_k]/300 while
// W_k stays in [0, 300], which every W_k that can fall there does (Sidekiq's
// 4th retry starts past 256 + 15 + ... with the three before, River's past
// 354 x 0.9). With mean waits c^4 + 15 + (10 (c + 1) - 1)/2 (Sidekiq 8,
// whose "jitter = rand(10 * (count + 1))", sidekiq v8.1.7 job_retry.rb, is
// uniform on 0 to 10 (c + 1) - 1) and n^4 (River), such a job makes 1 + sum_k P(W_k < R)
// calls in the outage, then 1/(1 - f) more once the server is back (f =
// 0.01); a job outside it, 1/(1 - f) (f^25 is nil). A quarter of the jobs
// arrive in the outage, so calls a request are 0.75/(1 - f) + 0.25 (1 +
// sum + 1/(1 - f)). Left out: each failed call's 20 ms round trip (under
// 0.1 s in 300 s) and the jobs that first fail just before the outage and
// retry into it (1% of a few hundred): under 0.002 in all, against a 99.9%
// interval over 10 replicates about 0.01 wide. Two comparisons at 1e-3.
func TestJobRetriesClosedForm(t *testing.T) {
	const f, outage = 0.01, 300.0
	means := map[string]func(k int) float64{
		"sidekiq": func(c int) float64 { x := float64(c); return x*x*x*x + 15 + (10*(x+1)-1)/2 },
		"river":   func(c int) float64 { n := float64(c + 1); return n * n * n * n },
	}
	for _, cfg := range jobRetries.Runs(jobRetries.Duration) {
		var w, sum float64
		for k := 0; ; k++ {
			w += means[cfg.Name](k)
			if w >= outage {
				break
			}
			sum += 1 - w/outage
		}
		want := 0.75/(1-f) + 0.25*(1+sum+1/(1-f))
		reps := run(t, cfg, 10)
		xs := make([]float64, len(reps))
		for i, r := range reps {
			xs[i] = float64(r.Calls) / float64(r.Requests)
		}
		if mean, lo, hi, ok := within99_9(xs, want); !ok {
			t.Errorf("%s: %.4f calls a request [%.4f, %.4f]; want %.4f", cfg.Name, mean, lo, hi, want)
		}
	}
}

// spike-recovery runs each policy at each height, without and with keys, on
// brooker-collapse's server, and names each run after the three.
func TestSpikeRecoveryRuns(t *testing.T) {
	runs := spikeRecovery.Runs(spikeRecovery.Duration)
	if len(runs) != 2*12*len(spikeHeights) {
		t.Fatalf("%d runs; want 2 key modes x 12 policies x %d heights", len(runs), len(spikeHeights))
	}
	for i, c := range runs {
		keys, h := []schema.KeyMode{schema.NoKeys, schema.SameKey}[i/(12*len(spikeHeights))], spikeHeights[i%len(spikeHeights)]
		want := fleet.Shape{Kind: fleet.SpikeLoad, Rate: 40, Peak: h, From: 20 * time.Second, To: 25 * time.Second}
		if c.Load != want || c.Client.Keys != keys || c.Server != (fleet.Server{Kind: fleet.LatencyServer, Base: time.Second, Slope: 10 * time.Millisecond}) ||
			c.Net != 100*time.Millisecond || c.Client.Timeout != 3*time.Second || c.Client.Clients != 1 || !strings.HasSuffix(c.Name, fmt.Sprintf(" keys %s peak %g", keys, h)) {
			t.Errorf("run %d %q: %+v", i, c.Name, c)
		}
		if err := c.Check(); err != nil {
			t.Errorf("run %d %q: %v", i, c.Name, err)
		}
	}
}

// Each preset's About, which -help prints, counts its runs as Runs builds
// them ("17 x 4 runs") or names them ("Runs sidekiq and river"), so the help
// cannot drift from the presets.
func TestPresetAboutMatchesRuns(t *testing.T) {
	for _, p := range Presets() {
		runs := p.Runs(p.Duration)
		head, _, _ := strings.Cut(p.About, " named ")
		if names, ok := strings.CutPrefix(head, "Runs "); ok {
			var got []string
			for _, r := range runs {
				got = append(got, r.Name)
			}
			want := strings.Split(strings.ReplaceAll(names, " and ", ", "), ", ")
			if !slices.Equal(got, want) {
				t.Errorf("%s: About names the runs %q; Runs builds %q", p.Name, want, got)
			}
			continue
		}
		counts, _, ok := strings.Cut(head, " runs")
		n := 1
		for f := range strings.SplitSeq(counts, " x ") {
			k, err := strconv.Atoi(f)
			if !ok || err != nil {
				t.Fatalf("%s: About %q neither names nor counts its runs", p.Name, p.About)
			}
			n *= k
		}
		if n != len(runs) {
			t.Errorf("%s: About counts %d runs (%q); Runs builds %d", p.Name, n, counts, len(runs))
		}
	}
}
