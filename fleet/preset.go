package fleet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
)

// Preset is a named set of runs, with its source.
type Preset struct {
	Name, Source string
	// Runs builds the runs for a duration in seconds.
	Runs func(duration float64) []Config
	// Duration and Replicates are the defaults the source used.
	Duration   float64
	Replicates int
	// Totals says the runs compare policies over a grid of failure rates:
	// what to print of them is each run's Totals, not its summary and series.
	// ByClients says the grid also varies the client count.
	Totals, ByClients bool
}

// BrookerCollapse is the "simple collapse" simulation of M. Brooker,
// "Metastability and distributed systems" (brooker.co.za, 2021), and
// its simulator_example: a server whose latency is 1 s + 0.01 s a call in
// progress, network delay exponential with mean 0.1 s each way, a 3 s
// timeout and 3 tries in all, without backoff or with a wait uniform in
// [0, b], b = 20 s on the first retry and doubling after (full jitter, no cap).
var BrookerCollapse = Preset{
	Name: "brooker-collapse",
	Source: "M. Brooker, \"Metastability and distributed systems\", brooker.co.za 2021 (simple collapse): " +
		"latency 1 s + 0.01 s per call in progress, network 0.1 s each way, timeout 3 s, 3 tries; " +
		"ramp 80 - 1.6 |t - 25| a second, or 40 a second with 80 from t = 20 s for 5 s; no backoff, or uniform in [0, b], b = 20 s doubling",
	Duration:   80,
	Replicates: 10,
	Runs: func(d float64) []Config {
		base := Config{
			Duration: d,
			Server:   Server{Kind: Latency, Base: 1, Slope: 0.01},
			Client:   Client{Clients: 1, Timeout: 3, Attempts: 3},
			Net:      0.1,
		}
		ramp := Shape{Kind: Ramp, Rate: 40, Peak: 80, From: 0, To: 50}
		spike := Shape{Kind: Spike, Rate: 40, Peak: 80, From: 20, To: 25}
		jitter := backoff.Policy{Kind: backoff.FullJitter, Base: 20 * time.Second, Cap: NoCap}
		var runs []Config
		for _, load := range []struct {
			name  string
			shape Shape
		}{{"ramp", ramp}, {"spike", spike}} {
			for _, b := range []struct {
				name   string
				policy backoff.Policy
			}{{"no_backoff", backoff.Policy{}}, {"backoff_and_jitter", jitter}} {
				c := base
				c.Name = load.name + "_" + b.name
				c.Load = load.shape
				c.Client.Backoff = b.policy
				runs = append(runs, c)
			}
		}
		return runs
	},
}

// brookerFailureRates are the load-independent failure rates of Brooker's
// retry runs.
var brookerFailureRates = [...]float64{0, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.0325,
	0.05, 0.075, 0.1, 0.2, 0.3, 0.4, 0.5}

type brookerPolicy struct {
	name     string
	attempts int
	policy   PolicyConfig
}

// brookerPolicies are the clients of Brooker's retry runs, by name: A tries
// in all and a policy. adaptive_10pct and breaker_10pct retry up to 3 times,
// as three_retries does, while their policy allows.
var brookerPolicies = [...]brookerPolicy{
	{"no_retries", 1, PolicyConfig{}},
	{"three_retries", 4, PolicyConfig{}},
	{"adaptive_10pct", 4, PolicyConfig{Kind: TokenBucket, Rate: 0.1, Size: 5}},
	{"breaker_10pct", 4, PolicyConfig{Kind: Breaker, Threshold: 0.1}},
}

// BrookerRetries is the "Simulating performance" runs of M. Brooker, "Fixing
// retries with token buckets and circuit breakers" (brooker.co.za,
// 2022-02-28): 100 clients at 10 requests a second each, a server failing
// each call with a load-independent probability, network delay exponential
// with mean 10 ms each way, and four clients: no retries, three retries, a
// token bucket (r = 0.1, s = 5, per client, full at the start) and a breaker
// (retries while the client's failures/calls ratio is at most 0.1). The
// server answers at once and the timeout (60 s) never binds, as in the post.
var BrookerRetries = Preset{
	Name: "brooker-retries",
	Source: "M. Brooker, \"Fixing retries with token buckets and circuit breakers\", brooker.co.za 2022-02-28: " +
		"100 clients x 10 requests a second, server failure rate 0 to 0.5 (17 rates), network 10 ms each way; " +
		"no_retries, three_retries, adaptive_10pct (token bucket r = 0.1, s = 5 per client), breaker_10pct (retry while failures/calls <= 0.1)",
	Duration:   10,
	Replicates: 1,
	Totals:     true,
	Runs:       func(d float64) []Config { return brookerRuns(d, 100, 1000, brookerPolicies[:]) },
}

// BrookerClients is the same comparison for the policies that keep state
// per client, with 10, 100 and 1000 clients sharing 100 requests a second:
// the fewer requests a client sends, the less its bucket or breaker learns.
var BrookerClients = Preset{
	Name: "brooker-clients",
	Source: "M. Brooker, \"Fixing retries with token buckets and circuit breakers\", brooker.co.za 2022-02-28: " +
		"as brooker-retries, with 10, 100 and 1000 clients sharing 100 requests a second; adaptive_10pct and breaker_10pct",
	Duration:   10,
	Replicates: 1,
	Totals:     true,
	ByClients:  true,
	Runs: func(d float64) []Config {
		var runs []Config
		for _, c := range []int{10, 100, 1000} {
			runs = append(runs, brookerRuns(d, c, 100, brookerPolicies[2:])...)
		}
		return runs
	},
}

// brookerRuns are Brooker's retry runs for clients sharing rate requests a
// second, a run a failure rate and policy.
func brookerRuns(d float64, clients int, rate float64, policies []brookerPolicy) []Config {
	var runs []Config
	for _, f := range brookerFailureRates {
		for _, p := range policies {
			runs = append(runs, Config{
				Name:     p.name,
				Duration: d,
				Load:     Shape{Kind: Constant, Rate: rate},
				Server:   Server{Kind: Independent, PFail: f},
				Client:   Client{Clients: clients, Timeout: 60, Attempts: p.attempts, Policy: p.policy},
				Net:      0.01,
			})
		}
	}
	return runs
}

// Presets lists the presets.
func Presets() []Preset { return []Preset{BrookerCollapse, BrookerRetries, BrookerClients} }

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset, error) {
	ps := Presets()
	if i := slices.IndexFunc(ps, func(p Preset) bool { return p.Name == name }); i >= 0 {
		return ps[i], nil
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("unknown preset %q (want %s)", name, strings.Join(names, ", "))
}
