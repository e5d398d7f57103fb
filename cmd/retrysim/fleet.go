package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/scenario"
)

var fleetIntro = `retrysim fleet simulates many clients calling one server in virtual time, where
retries add load, load adds latency, and latency causes more timeouts and
retries. It prints a row a run (means over replicates with 95% Student t
intervals) and, with -series and -plot, the runs' time series, a row a second.

Usage: retrysim fleet [flags]

Example: retrysim fleet -preset brooker-collapse

Presets (a preset sets the model: no model flag goes with it):
` + render.FleetPresets(fleet.Presets()) + `
Limits (checked before any work):
  -duration     1 s to ` + strconv.Itoa(fleet.MaxDuration) + ` s (the series holds a row a run a second)
  rates         up to ` + fmt.Sprint(fleet.MaxRate) + ` a second; duration x peak rate up to ` + fmt.Sprint(fleet.MaxArrivals) + ` requests
  -replicates   1 to ` + strconv.Itoa(fleet.MaxReplicates) + `; replicates x duration up to ` + strconv.Itoa(fleet.MaxSeriesSeconds) + ` s (each replicate's
                series is kept until they are averaged)
  -clients      1 to ` + strconv.Itoa(fleet.MaxClients) + `; -attempts 1 to ` + strconv.Itoa(fleet.MaxAttempts) + `
  -capacity     up to ` + strconv.Itoa(fleet.MaxWorkers) + ` workers; -queue up to ` + strconv.Itoa(fleet.MaxQueue) + ` waiting calls
  times         (-base, -slope, -service, -net, -timeout, ...) up to ` + strconv.Itoa(fleet.MaxSeconds) + ` s
  policies      token counts and costs (-bucket-*, -quota*, -grpc-*) up to ` + fmt.Sprint(fleet.MaxTokens) + `;
                -breaker-threshold 0 to 1; -budget-ratio 0 to ` + fmt.Sprint(fleet.MaxBudgetRatio) + ` (finagle) or 1 (envoy);
                -budget-ttl ` + fmt.Sprint(fleet.MinTTL) + ` s to ` + fmt.Sprint(fleet.MaxTTL) + ` s; -cb-window, -cb-min-calls, -cb-half-open 1 to
                ` + fmt.Sprint(fleet.MaxWindow) + `; -sre-k above 0 to ` + fmt.Sprint(fleet.MaxK) + `; -hedges 0 to ` + fmt.Sprint(fleet.MaxHedges) + `

Flags:
`

// fleetRunFlags say how the model is run and printed; every other flag
// describes the model, which -preset sets.
var fleetRunFlags = []string{"preset", "duration", "replicates", "seed", "format", "workers", "o", "series", "plot"}

// fleetCommand runs the fleet model: flags, then fleet.Run, then a renderer.
func fleetCommand(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs := flagval.NewFlagSet("retrysim fleet")
	c := fleet.DefaultConfig() // the model flags write into it
	sv, cl, pol := &c.Server, &c.Client, &c.Client.Policy
	var (
		preset            flagval.Choice
		seed              flagval.Seed = 1
		format                         = flagval.NewFormat(render.FleetDoc)
		workers                        = flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096}
		replicates                     = flagval.Bounded{V: 10, Lo: 1, Hi: fleet.MaxReplicates}
		outage            flagval.Window
		out, series, plot string
		scenPath          string
	)
	preset.Valid = func(s string) error { _, err := fleet.LookupPreset(s); return err }
	fs.Var(&preset, "preset", "run the runs of the preset `name` (listed above) instead of one run from the flags")
	fs.Var(flagval.SecondsVar(&c.Duration), "duration", "requests arrive for this `duration` of virtual time, 1s to 1h (a preset has its own)")
	fs.Var(&replicates, "replicates", "a run is simulated with `r` independent seeds, 1 to 1000 (a preset has its own)")
	fs.Var(&seed, "seed", "random `seed`; the same flags and seed print the same bytes")
	fs.Var(&format, "format", format.Usage()+" (json also holds the series; html is one page with the series drawn)")
	fs.Var(&workers, "workers", fmt.Sprintf("parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it", workers.Lo, workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS" // not this machine's count
	fs.StringVar(&out, "o", "", "write the output to `file` (a regular file is replaced atomically) instead of stdout")
	fs.StringVar(&series, "series", "", "also write the time series, a row a run a second, to `file` (.csv or .json)")
	fs.StringVar(&plot, "plot", "", "also draw the time series to `file` (.png or .svg), a panel a run")
	fs.Var(flagval.NameVar(&c.Load.Kind, fleet.ParseShape, fleet.ShapeKind.String), "shape", "the `shape` of the arrival rate over time: constant, spike (-peak in [-from, -to)) or ramp (from -rate at -from up to -peak midway and down at the same slope, -rate again at -to, floored at 0)")
	fs.Var(flagval.FloatVar(&c.Load.Rate, 0, fleet.MaxRate), "rate", "the base arrival `rate`, requests a second (Poisson)")
	fs.Var(flagval.FloatVar(&c.Load.Peak, 0, fleet.MaxRate), "peak", "the spike's or the ramp's top `rate`, requests a second")
	fs.Var(flagval.SecondsVar(&c.Load.From), "from", "the spike or ramp starts at this `time`")
	fs.Var(flagval.SecondsVar(&c.Load.To), "to", "the spike or ramp ends at this `time`; recovery is measured from it")
	fs.Var(&outage, "outage", "the server fails or stalls every call arriving in this `window` from:to (20s:25s)")
	fs.Var(flagval.NameVar(&c.Outage.Mode, fleet.ParseOutageMode, fleet.OutageMode.String), "outage-mode", "the outage's `mode`: fail (an error at once) or stall (held until the window ends)")
	fs.Var(flagval.NameVar(&sv.Kind, fleet.ParseServer, fleet.ServerKind.String), "server", "the `kind` of server: latency (-base + -slope x calls in progress, Brooker's), queue (-capacity workers, at most -queue waiting, -service times), ratelimit (-limit a second, -burst; -base each) or independent (-base each, whatever the load)")
	fs.Var(flagval.SecondsVar(&sv.Base), "base", "the server's base latency, a `duration`")
	fs.Var(flagval.SecondsVar(&sv.Slope), "slope", "the latency server's extra latency, a `duration`, a call in progress")
	fs.Var(flagval.IntVar(&sv.Workers, 1, fleet.MaxWorkers), "capacity", "the queue server has `n` workers")
	fs.Var(flagval.IntVar(&sv.QueueMax, 0, fleet.MaxQueue), "queue", "the queue server holds at most `n` waiting calls; a call beyond is rejected at once")
	fs.Var(flagval.SecondsVar(&sv.Service.Median), "service", "the queue server's median (lognormal) or mean (exp) service time, a `duration`")
	fs.Var(flagval.NameVar(&sv.Service.Dist, fleet.ParseDist, fleet.Dist.String), "service-dist", "the `distribution` of the queue server's service times: lognormal or exp")
	fs.Var(flagval.FloatVar(&sv.Service.Sigma, 0, 4), "service-sigma", "the lognormal service times' log-sd `sigma`, 0 to 4 (0: every call takes -service)")
	fs.Var(flagval.FloatVar(&sv.Limit, 0, fleet.MaxRate), "limit", "the rate limit, a `rate` in calls a second")
	fs.Var(flagval.FloatVar(&sv.Burst, 1, fleet.MaxRate), "burst", "the rate limit's bucket holds `n` calls")
	fs.Var((*flagval.Probability)(&sv.PFail), "p-fail", "`probability` that a call the server handles fails, doing nothing, whatever the load")
	fs.Var(flagval.SecondsVar(&c.Net), "net", "the mean one-way network delay, an exponential `duration` (0: none)")
	fs.Var(flagval.IntVar(&cl.Clients, 1, fleet.MaxClients), "clients", "`n` clients share the load")
	fs.Var(flagval.SecondsVar(&cl.Timeout), "timeout", "the client waits this `duration` for one attempt's reply; a later reply is ignored")
	fs.Var(flagval.IntVar(&cl.Attempts, 1, fleet.MaxAttempts), "attempts", "`n` tries a request in all, the first included")
	fs.Var(flagval.NameVar(&cl.Backoff.Kind, backoff.ParseKind, backoff.Kind.String), "backoff", "the `policy` of the wait before a retry: none, constant, exponential, full-jitter, equal-jitter, decorrelated, or a job queue's schedule: sidekiq (c^4 + 15 + rand(10) x (c + 1) s for retry c from 0) or river (n^4 s ±10% after the n-th error)")
	fs.Var(flagval.DurationVar(&cl.Backoff.Base), "backoff-base", "the backoff's base `duration`")
	fs.Var(flagval.DurationVar(&cl.Backoff.Cap), "backoff-cap", "the backoff's cap `duration` (0: no cap)")
	fs.Var(flagval.NameVar(&cl.Keys, fleet.ParseKeyMode, fleet.KeyMode.String), "keys", "the key `mode`: none (a retry repeats completed work) or same (the server stores a key's reply; an attempt while its key is in progress is a conflict)")
	fs.Var(flagval.NameVar(&pol.Kind, fleet.ParsePolicy, fleet.PolicyKind.String), "policy", "the client `policy` that may refuse a retry or a hedge: unlimited, token-bucket (-bucket-rate, -bucket-size), aws (-quota, -quota-cost, -quota-timeout-cost), grpc (-grpc-max-tokens, -grpc-token-ratio), breaker (-breaker-threshold), finagle-budget (-budget-ratio, -budget-ttl, -budget-min-rate), envoy-budget (-budget-ratio, -budget-min-concurrency); or, refusing first attempts too, sliding-breaker (-cb-*) or sre-throttle (-sre-k, -sre-window)")
	fs.Var(flagval.NameVar(&pol.Shared, fleet.ParseScope, fleet.ScopeName), "policy-scope", "the policy's state is kept per `scope`: client (each of -clients has its own) or fleet (one shared by all)")
	fs.Var(flagval.FloatVar(&pol.Rate, 0, fleet.MaxTokens), "bucket-rate", "token-bucket: each new request adds `r` tokens, 0 to 1e6")
	fs.Var(flagval.FloatVar(&pol.Size, 0, fleet.MaxTokens), "bucket-size", "token-bucket: the bucket holds at most `s` tokens (full at the start), 0 to 1e6; a retry costs 1 and goes while more than 1 remains")
	fs.Var(flagval.FloatVar(&pol.Tokens, 0, fleet.MaxTokens), "quota", "aws: the retry quota holds `n` tokens (full at the start), 0 to 1e6")
	fs.Var(flagval.FloatVar(&pol.Cost, 1, fleet.MaxTokens), "quota-cost", "aws: a retry costs `n` tokens, 1 to 1e6; a success returns its retry's cost, or 1 on a first attempt")
	fs.Var(flagval.FloatVar(&pol.TimeoutCost, 1, fleet.MaxTokens), "quota-timeout-cost", "aws: a retry after a timeout costs `n` tokens, 1 to 1e6")
	fs.Var(flagval.FloatVar(&pol.MaxTokens, 0, fleet.MaxTokens), "grpc-max-tokens", "grpc: tokens start at `n`, 0 to 1e6; a failure takes 1, and no retry goes while tokens are at or below n/2")
	fs.Var(flagval.FloatVar(&pol.Ratio, 0, fleet.MaxTokens), "grpc-token-ratio", "grpc: a success adds `r` tokens, above 0 and at most -grpc-max-tokens")
	fs.Var(flagval.FloatVar(&pol.Threshold, 0, 1), "breaker-threshold", "breaker: a retry goes only while the client's failed attempts over its attempts are at most `ratio`, 0 to 1")
	fs.Var(flagval.FloatVar(&pol.BudgetRatio, 0, fleet.MaxBudgetRatio), "budget-ratio", "finagle-budget: retries at most `r` of the requests of the last -budget-ttl, 0 to 1000 (Finagle's percentCanRetry); envoy-budget: retries in flight at most r of the attempts in flight, 0 to 1 (budget_percent/100)")
	fs.Var(flagval.SecondsVar(&pol.TTL), "budget-ttl", "finagle-budget: requests and retries count for this `duration`, 1s to 1m")
	fs.Var(flagval.FloatVar(&pol.MinRate, 0, fleet.MaxTokens), "budget-min-rate", "finagle-budget: a reserve of `n` retries a second over -budget-ttl, 0 to 1e6")
	fs.Var(flagval.FloatVar(&pol.MinConcurrency, 0, fleet.MaxTokens), "budget-min-concurrency", "envoy-budget: at least `n` retries may be in flight, 0 to 1e6")
	fs.Var(flagval.FloatVar(&pol.FailureRate, 0, 1), "cb-failure-rate", "sliding-breaker: opens when the window's failed attempts over its attempts are at least `ratio`, above 0 to 1")
	fs.Var(flagval.IntVar(&pol.Window, 1, fleet.MaxWindow), "cb-window", "sliding-breaker: the window holds the outcomes of the last `n` attempts, 1 to 1e6")
	fs.Var(flagval.SecondsVar(&pol.WindowSeconds), "cb-window-time", "sliding-breaker: the window holds the outcomes of the last `duration` instead (0: -cb-window attempts), up to 24h")
	fs.Var(flagval.IntVar(&pol.MinCalls, 1, fleet.MaxWindow), "cb-min-calls", "sliding-breaker: opens only with at least `n` outcomes in the window, 1 to 1e6")
	fs.Var(flagval.SecondsVar(&pol.OpenSeconds), "cb-open", "sliding-breaker: stays open, refusing every attempt, for this `duration`, up to 24h")
	fs.Var(flagval.IntVar(&pol.HalfOpenCalls, 1, fleet.MaxWindow), "cb-half-open", "sliding-breaker: then lets `n` attempts through and closes if their failure rate is under -cb-failure-rate, 1 to 1e6")
	fs.Var(flagval.FloatVar(&pol.K, 0, fleet.MaxK), "sre-k", "sre-throttle: refuses an attempt with probability max(0, (requests - `K` x accepts)/(requests + 1)), K above 0 to 1000")
	fs.Var(flagval.SecondsVar(&pol.SREWindow), "sre-window", "sre-throttle: requests and accepts count for this `duration`, 1s to 24h")
	fs.Var(flagval.IntVar(&cl.Hedges, 0, fleet.MaxHedges), "hedges", fmt.Sprintf("send up to `h` extra copies of an attempt, one each -hedge-delay without a success, 0 to %d; each is asked of -policy as a retry is", fleet.MaxHedges))
	fs.Var(flagval.SecondsVar(&cl.HedgeDelay), "hedge-delay", "the hedges' `duration` apart")
	fs.StringVar(&scenPath, "scenario", "", "take -policy, -policy-scope, its parameters, -hedges and -hedge-delay from the fleet section of this scenario `file` (keys named as the flags, with _ for -), which holds no job (steps, watched, queue); a flag it sets may not be given too")
	if err := flagval.Parse(fs, args, fleetIntro, stdout); err != nil {
		return err
	}
	set := flagval.Given(fs)
	var cfgs []fleet.Config
	p := fleet.Preset{Name: "one run"}
	if preset.V != "" {
		err := flagval.Refuse(fs, func(n string) string {
			if slices.Contains(fleetRunFlags, n) {
				return ""
			}
			return fmt.Sprintf("a preset sets the model; drop -%s or -preset", n)
		})
		if err != nil {
			return err
		}
		p, _ = fleet.LookupPreset(preset.V)
		if !set["duration"] {
			c.Duration = p.Duration
		}
		if !set["replicates"] {
			replicates.V = p.Replicates
		}
		cfgs = p.Runs(c.Duration)
		if p.Totals && set["series"] {
			return flagval.Usage(fmt.Errorf("-series: -preset %s prints totals by failure rate and policy, with no time series", p.Name))
		}
	} else {
		c.Outage.From, c.Outage.To = outage.From.Seconds(), outage.To.Seconds()
		if cl.Backoff.Cap == 0 {
			cl.Backoff.Cap = fleet.NoCap
		}
		if scenPath != "" {
			if err := fleetScenario(fs, scenPath, cl); err != nil {
				return err
			}
		}
		unread := c.Unread()
		if err := flagval.Refuse(fs, func(n string) string { return unread[n] }); err != nil {
			return err
		}
		cfgs = []fleet.Config{c}
	}
	for _, c := range cfgs {
		if err := c.Check(); err != nil {
			return flagval.Usage(err)
		}
	}
	if err := fleet.CheckReplicates(replicates.V, cfgs[0].Duration); err != nil {
		return flagval.Usage(err)
	}
	if err := render.CheckFleetFiles(series, plot); err != nil {
		return flagval.Usage(err)
	}
	outF, seriesF, plotF := outfile.File{Flag: "o", Path: out}, outfile.File{Flag: "series", Path: series}, outfile.File{Flag: "plot", Path: plot}
	if err := outfile.Check(outF, seriesF, plotF); err != nil {
		return flagval.Usage(err)
	}

	res, err := fleet.Run(ctx, cfgs, fleet.Options{Replicates: replicates.V, Seed: uint64(seed), Workers: workers.V})
	if err != nil {
		return err
	}
	run := render.FleetRun{Preset: p, Replicates: replicates.V, Seed: uint64(seed), Configs: cfgs, Results: res}
	main, ser, pic, err := format.R.FleetOutputs(run, filepath.Ext(series), filepath.Ext(plot))
	if err != nil {
		return err
	}
	if series != "" {
		if err := seriesF.Write(ctx, stdout, ser); err != nil {
			return err
		}
	}
	if plot != "" {
		if err := plotF.Write(ctx, stdout, pic); err != nil {
			return err
		}
	}
	return outF.Write(ctx, stdout, main)
}

// fleetScenario sets the client's policy and hedges from the fleet section
// of the scenario file at path, refusing a flag that sets the same thing.
func fleetScenario(fs *flag.FlagSet, path string, cl *fleet.Client) error {
	loaded, err := scenario.Load(path)
	if err == nil {
		err = loaded.CheckFleet()
	}
	if err != nil {
		return flagval.Usage(fmt.Errorf("-scenario %w", err))
	}
	f := loaded.Fleet
	err = flagval.Refuse(fs, func(n string) string {
		if line, ok := f.Set[n]; ok {
			return fmt.Sprintf("%s:%d sets it too; drop one", path, line)
		}
		return ""
	})
	if err != nil {
		return err
	}
	cl.Policy, cl.Hedges, cl.HedgeDelay = f.Policy, f.Hedges, f.HedgeDelay.Seconds()
	if k := cl.Policy.Kind; k != fleet.Unlimited && cl.Attempts == 1 && cl.Hedges == 0 && !k.GuardsFirst() {
		return flagval.Usage(fmt.Errorf("-scenario: %s:%d sets policy %s, which with -attempts 1 and no hedges is never asked", path, f.Set["policy"], k))
	}
	return nil
}
