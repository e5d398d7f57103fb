package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

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

// fleetModelFlags are the flags that describe one run; -preset sets them all.
var fleetModelFlags = []string{"shape", "rate", "peak", "from", "to", "outage", "outage-mode", "server", "base",
	"slope", "capacity", "queue", "service", "service-dist", "service-sigma", "limit", "burst", "p-fail", "net",
	"clients", "timeout", "attempts", "backoff", "backoff-base", "backoff-cap", "keys",
	"policy", "policy-scope", "bucket-rate", "bucket-size", "quota", "quota-cost", "quota-timeout-cost",
	"grpc-max-tokens", "grpc-token-ratio", "breaker-threshold", "budget-ratio", "budget-ttl", "budget-min-rate",
	"budget-min-concurrency", "cb-failure-rate", "cb-window", "cb-window-time", "cb-min-calls", "cb-open", "cb-half-open",
	"sre-k", "sre-window", "hedges", "hedge-delay", "scenario"}

// parseScope reads -policy-scope: whether one policy state serves the fleet.
func parseScope(s string) (bool, error) {
	switch s {
	case "client":
		return false, nil
	case "fleet":
		return true, nil
	}
	return false, fmt.Errorf("unknown scope %q (want client or fleet)", s)
}

func scopeText(shared bool) string {
	if shared {
		return "fleet"
	}
	return "client"
}

// fleetCommand runs the fleet model: flags, then fleet.Run, then a renderer.
func fleetCommand(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs := flagval.NewFlagSet("retrysim fleet")
	var (
		preset      flagval.Choice
		seedV       flagval.Seed = 1
		format                   = flagval.NewFormat(render.FleetDoc)
		workers                  = flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096}
		replicates               = flagval.Bounded{V: 10, Lo: 1, Hi: fleet.MaxReplicates}
		duration                 = flagval.Duration{V: 60 * time.Second}
		out, series string
		plotPath    string

		shape    = flagval.Name[fleet.ShapeKind]{V: fleet.Constant, Parse: fleet.ParseShape, Text: fleet.ShapeKind.String}
		rate     = flagval.Number{V: 40, Lo: 0, Hi: fleet.MaxRate}
		peak     = flagval.Number{V: 80, Lo: 0, Hi: fleet.MaxRate}
		from, to flagval.Duration
		outage   flagval.Window
		outMode  = flagval.Name[fleet.OutageMode]{V: fleet.Fail, Parse: fleet.ParseOutageMode, Text: fleet.OutageMode.String}
		server   = flagval.Name[fleet.ServerKind]{V: fleet.Latency, Parse: fleet.ParseServer, Text: fleet.ServerKind.String}
		base     = flagval.Duration{V: time.Second}
		slope    = flagval.Duration{V: 10 * time.Millisecond}
		capacity = flagval.Bounded{V: 8, Lo: 1, Hi: fleet.MaxWorkers}
		queue    = flagval.Bounded{V: 100, Lo: 0, Hi: fleet.MaxQueue}
		service  = flagval.Duration{V: 100 * time.Millisecond}
		dist     = flagval.Name[fleet.Dist]{V: fleet.Lognormal, Parse: fleet.ParseDist, Text: fleet.Dist.String}
		sigma    = flagval.Number{V: 0.5, Lo: 0, Hi: 4}
		limit    = flagval.Number{V: 50, Lo: 0, Hi: fleet.MaxRate}
		burst    = flagval.Number{V: 50, Lo: 1, Hi: fleet.MaxRate}
		pFail    flagval.Probability
		net      = flagval.Duration{V: 100 * time.Millisecond}
		clients  = flagval.Bounded{V: 1, Lo: 1, Hi: fleet.MaxClients}
		timeout  = flagval.Duration{V: 3 * time.Second}
		attempts = flagval.Bounded{V: 3, Lo: 1, Hi: fleet.MaxAttempts}
		bkind    = flagval.Name[backoff.Kind]{V: backoff.None, Parse: backoff.ParseKind, Text: backoff.Kind.String}
		bbase    = flagval.Duration{V: 100 * time.Millisecond}
		bcap     = flagval.Duration{V: 2 * time.Second}
		keys     = flagval.Name[fleet.KeyMode]{V: fleet.NoKey, Parse: fleet.ParseKeyMode, Text: fleet.KeyMode.String}
		policy   = flagval.Name[fleet.PolicyKind]{V: fleet.Unlimited, Parse: fleet.ParsePolicy, Text: fleet.PolicyKind.String}
		scope    = flagval.Name[bool]{Parse: parseScope, Text: scopeText}
		dp       = fleet.DefaultPolicy()
		bRate    = flagval.Number{V: dp.Rate, Lo: 0, Hi: fleet.MaxTokens}
		bSize    = flagval.Number{V: dp.Size, Lo: 0, Hi: fleet.MaxTokens}
		quota    = flagval.Number{V: dp.Tokens, Lo: 0, Hi: fleet.MaxTokens}
		qCost    = flagval.Number{V: dp.Cost, Lo: 1, Hi: fleet.MaxTokens}
		qTimeout = flagval.Number{V: dp.TimeoutCost, Lo: 1, Hi: fleet.MaxTokens}
		gMax     = flagval.Number{V: dp.MaxTokens, Lo: 0, Hi: fleet.MaxTokens}
		gRatio   = flagval.Number{V: dp.Ratio, Lo: 0, Hi: fleet.MaxTokens}
		bThresh  = flagval.Number{V: dp.Threshold, Lo: 0, Hi: 1}
		buRatio  = flagval.Number{V: dp.BudgetRatio, Lo: 0, Hi: fleet.MaxBudgetRatio}
		buTTL    = flagval.Duration{V: seconds(dp.TTL)}
		buMin    = flagval.Number{V: dp.MinRate, Lo: 0, Hi: fleet.MaxTokens}
		buConc   = flagval.Number{V: dp.MinConcurrency, Lo: 0, Hi: fleet.MaxTokens}
		cbRate   = flagval.Number{V: dp.FailureRate, Lo: 0, Hi: 1}
		cbWindow = flagval.Bounded{V: dp.Window, Lo: 1, Hi: fleet.MaxWindow}
		cbTime   = flagval.Duration{V: seconds(dp.WindowSeconds)}
		cbMin    = flagval.Bounded{V: dp.MinCalls, Lo: 1, Hi: fleet.MaxWindow}
		cbOpen   = flagval.Duration{V: seconds(dp.OpenSeconds)}
		cbHalf   = flagval.Bounded{V: dp.HalfOpenCalls, Lo: 1, Hi: fleet.MaxWindow}
		sreK     = flagval.Number{V: dp.K, Lo: 0, Hi: fleet.MaxK}
		sreWin   = flagval.Duration{V: seconds(dp.SREWindow)}
		hedges   = flagval.Bounded{V: 0, Lo: 0, Hi: fleet.MaxHedges}
		hDelay   = flagval.Duration{V: scenario.DefaultHedgeDelay}
		scenPath string
	)
	preset.Valid = func(s string) error { _, err := fleet.LookupPreset(s); return err }
	fs.Var(&preset, "preset", "run the runs of the preset `name` (listed above) instead of one run from the flags")
	fs.Var(&duration, "duration", "requests arrive for this `duration` of virtual time, 1s to 1h (a preset has its own)")
	fs.Var(&replicates, "replicates", "a run is simulated with `r` independent seeds, 1 to 1000 (a preset has its own)")
	fs.Var(&seedV, "seed", "random `seed`; the same flags and seed print the same bytes")
	fs.Var(&format, "format", format.Usage()+" (json also holds the series; html is one page with the series drawn)")
	fs.Var(&workers, "workers", fmt.Sprintf("parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it", workers.Lo, workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS" // not this machine's count
	fs.StringVar(&out, "o", "", "write the output to `file` (a regular file is replaced atomically) instead of stdout")
	fs.StringVar(&series, "series", "", "also write the time series, a row a run a second, to `file` (.csv or .json)")
	fs.StringVar(&plotPath, "plot", "", "also draw the time series to `file` (.png or .svg), a panel a run")
	fs.Var(&shape, "shape", "the `shape` of the arrival rate over time: constant, spike (-peak in [-from, -to)) or ramp (from -rate at -from up to -peak midway and down at the same slope, -rate again at -to, floored at 0)")
	fs.Var(&rate, "rate", "the base arrival `rate`, requests a second (Poisson)")
	fs.Var(&peak, "peak", "the spike's or the ramp's top `rate`, requests a second")
	fs.Var(&from, "from", "the spike or ramp starts at this `time`")
	fs.Var(&to, "to", "the spike or ramp ends at this `time`; recovery is measured from it")
	fs.Var(&outage, "outage", "the server fails or stalls every call arriving in this `window` from:to (20s:25s)")
	fs.Var(&outMode, "outage-mode", "the outage's `mode`: fail (an error at once) or stall (held until the window ends)")
	fs.Var(&server, "server", "the `kind` of server: latency (-base + -slope x calls in progress, Brooker's), queue (-capacity workers, at most -queue waiting, -service times), ratelimit (-limit a second, -burst; -base each) or independent (-base each, whatever the load)")
	fs.Var(&base, "base", "the server's base latency, a `duration`")
	fs.Var(&slope, "slope", "the latency server's extra latency, a `duration`, a call in progress")
	fs.Var(&capacity, "capacity", "the queue server has `n` workers")
	fs.Var(&queue, "queue", "the queue server holds at most `n` waiting calls; a call beyond is rejected at once")
	fs.Var(&service, "service", "the queue server's median (lognormal) or mean (exp) service time, a `duration`")
	fs.Var(&dist, "service-dist", "the `distribution` of the queue server's service times: lognormal or exp")
	fs.Var(&sigma, "service-sigma", "the lognormal service times' log-sd `sigma`, 0 to 4 (0: every call takes -service)")
	fs.Var(&limit, "limit", "the rate limit, a `rate` in calls a second")
	fs.Var(&burst, "burst", "the rate limit's bucket holds `n` calls")
	fs.Var(&pFail, "p-fail", "`probability` that a call the server handles fails, doing nothing, whatever the load")
	fs.Var(&net, "net", "the mean one-way network delay, an exponential `duration` (0: none)")
	fs.Var(&clients, "clients", "`n` clients share the load")
	fs.Var(&timeout, "timeout", "the client waits this `duration` for one attempt's reply; a later reply is ignored")
	fs.Var(&attempts, "attempts", "`n` tries a request in all, the first included")
	fs.Var(&bkind, "backoff", "the `policy` of the wait before a retry: none, constant, exponential, full-jitter, equal-jitter, decorrelated, or a job queue's schedule: sidekiq (c^4 + 15 + rand(10) x (c + 1) s for retry c from 0) or river (n^4 s ±10% after the n-th error)")
	fs.Var(&bbase, "backoff-base", "the backoff's base `duration`")
	fs.Var(&bcap, "backoff-cap", "the backoff's cap `duration` (0: no cap)")
	fs.Var(&keys, "keys", "the key `mode`: none (a retry repeats completed work) or same (the server stores a key's reply; an attempt while its key is in progress is a conflict)")
	fs.Var(&policy, "policy", "the client `policy` that may refuse a retry or a hedge: unlimited, token-bucket (-bucket-rate, -bucket-size), aws (-quota, -quota-cost, -quota-timeout-cost), grpc (-grpc-max-tokens, -grpc-token-ratio), breaker (-breaker-threshold), finagle-budget (-budget-ratio, -budget-ttl, -budget-min-rate), envoy-budget (-budget-ratio, -budget-min-concurrency); or, refusing first attempts too, sliding-breaker (-cb-*) or sre-throttle (-sre-k, -sre-window)")
	fs.Var(&scope, "policy-scope", "the policy's state is kept per `scope`: client (each of -clients has its own) or fleet (one shared by all)")
	fs.Var(&bRate, "bucket-rate", "token-bucket: each new request adds `r` tokens, 0 to 1e6")
	fs.Var(&bSize, "bucket-size", "token-bucket: the bucket holds at most `s` tokens (full at the start), 0 to 1e6; a retry costs 1 and goes while more than 1 remains")
	fs.Var(&quota, "quota", "aws: the retry quota holds `n` tokens (full at the start), 0 to 1e6")
	fs.Var(&qCost, "quota-cost", "aws: a retry costs `n` tokens, 1 to 1e6; a success returns its retry's cost, or 1 on a first attempt")
	fs.Var(&qTimeout, "quota-timeout-cost", "aws: a retry after a timeout costs `n` tokens, 1 to 1e6")
	fs.Var(&gMax, "grpc-max-tokens", "grpc: tokens start at `n`, 0 to 1e6; a failure takes 1, and no retry goes while tokens are at or below n/2")
	fs.Var(&gRatio, "grpc-token-ratio", "grpc: a success adds `r` tokens, above 0 and at most -grpc-max-tokens")
	fs.Var(&bThresh, "breaker-threshold", "breaker: a retry goes only while the client's failed attempts over its attempts are at most `ratio`, 0 to 1")
	fs.Var(&buRatio, "budget-ratio", "finagle-budget: retries at most `r` of the requests of the last -budget-ttl, 0 to 1000 (Finagle's percentCanRetry); envoy-budget: retries in flight at most r of the attempts in flight, 0 to 1 (budget_percent/100)")
	fs.Var(&buTTL, "budget-ttl", "finagle-budget: requests and retries count for this `duration`, 1s to 1m")
	fs.Var(&buMin, "budget-min-rate", "finagle-budget: a reserve of `n` retries a second over -budget-ttl, 0 to 1e6")
	fs.Var(&buConc, "budget-min-concurrency", "envoy-budget: at least `n` retries may be in flight, 0 to 1e6")
	fs.Var(&cbRate, "cb-failure-rate", "sliding-breaker: opens when the window's failed attempts over its attempts are at least `ratio`, above 0 to 1")
	fs.Var(&cbWindow, "cb-window", "sliding-breaker: the window holds the outcomes of the last `n` attempts, 1 to 1e6")
	fs.Var(&cbTime, "cb-window-time", "sliding-breaker: the window holds the outcomes of the last `duration` instead (0: -cb-window attempts), up to 24h")
	fs.Var(&cbMin, "cb-min-calls", "sliding-breaker: opens only with at least `n` outcomes in the window, 1 to 1e6")
	fs.Var(&cbOpen, "cb-open", "sliding-breaker: stays open, refusing every attempt, for this `duration`, up to 24h")
	fs.Var(&cbHalf, "cb-half-open", "sliding-breaker: then lets `n` attempts through and closes if their failure rate is under -cb-failure-rate, 1 to 1e6")
	fs.Var(&sreK, "sre-k", "sre-throttle: refuses an attempt with probability max(0, (requests - `K` x accepts)/(requests + 1)), K above 0 to 1000")
	fs.Var(&sreWin, "sre-window", "sre-throttle: requests and accepts count for this `duration`, 1s to 24h")
	fs.Var(&hedges, "hedges", fmt.Sprintf("send up to `h` extra copies of an attempt, one each -hedge-delay without a success, 0 to %d; each is asked of -policy as a retry is", fleet.MaxHedges))
	fs.Var(&hDelay, "hedge-delay", "the hedges' `duration` apart")
	fs.StringVar(&scenPath, "scenario", "", "take -policy, -policy-scope, its parameters, -hedges and -hedge-delay from the fleet section of this scenario `file` (keys named as the flags, with _ for -), which holds no job (steps, watched, queue); a flag it sets may not be given too")
	if err := flagval.Parse(fs, args, fleetIntro, stdout); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var cfgs []fleet.Config
	p := fleet.Preset{Name: "one run"}
	if preset.V != "" {
		for _, n := range fleetModelFlags {
			if set[n] {
				return flagval.Usage(fmt.Errorf("-%s: a preset sets the model; drop -%s or -preset", n, n))
			}
		}
		p, _ = fleet.LookupPreset(preset.V)
		d := p.Duration
		if set["duration"] {
			d = duration.V.Seconds()
		}
		if !set["replicates"] {
			replicates.V = p.Replicates
		}
		cfgs = p.Runs(d)
		if p.Totals && set["series"] {
			return flagval.Usage(fmt.Errorf("-series: -preset %s prints totals by failure rate and policy, with no time series", p.Name))
		}
	} else {
		cap := bcap.V
		if cap == 0 {
			cap = fleet.NoCap
		}
		cfg := fleet.Config{
			Name:     "run",
			Duration: duration.V.Seconds(),
			Load:     fleet.Shape{Kind: shape.V, Rate: rate.V, Peak: peak.V, From: from.V.Seconds(), To: to.V.Seconds()},
			Outage:   fleet.Outage{From: outage.From.Seconds(), To: outage.To.Seconds(), Mode: outMode.V},
			Server: fleet.Server{Kind: server.V, Base: base.V.Seconds(), Slope: slope.V.Seconds(),
				Workers: capacity.V, QueueMax: queue.V,
				Service: fleet.Service{Dist: dist.V, Median: service.V.Seconds(), Sigma: sigma.V},
				Limit:   limit.V, Burst: burst.V, PFail: float64(pFail)},
			Client: fleet.Client{Clients: clients.V, Timeout: timeout.V.Seconds(), Attempts: attempts.V,
				Backoff: backoff.Policy{Kind: bkind.V, Base: bbase.V, Cap: cap}, Keys: keys.V,
				Policy: fleet.PolicyConfig{Kind: policy.V, Shared: scope.V, Rate: bRate.V, Size: bSize.V,
					Tokens: quota.V, Cost: qCost.V, TimeoutCost: qTimeout.V, MaxTokens: gMax.V, Ratio: gRatio.V,
					Threshold: bThresh.V, BudgetRatio: buRatio.V, TTL: buTTL.V.Seconds(), MinRate: buMin.V,
					MinConcurrency: buConc.V, FailureRate: cbRate.V, Window: cbWindow.V, WindowSeconds: cbTime.V.Seconds(),
					MinCalls: cbMin.V, OpenSeconds: cbOpen.V.Seconds(), HalfOpenCalls: cbHalf.V, K: sreK.V, SREWindow: sreWin.V.Seconds()},
				Hedges: hedges.V, HedgeDelay: hDelay.V.Seconds()},
			Net: net.V.Seconds(),
		}
		if scenPath != "" {
			if err := fleetScenario(fs, scenPath, &cfg.Client); err != nil {
				return err
			}
		}
		if err := unusedFleetFlags(fs, cfg); err != nil {
			return err
		}
		cfgs = []fleet.Config{cfg}
	}
	for _, c := range cfgs {
		if err := c.Check(); err != nil {
			return flagval.Usage(err)
		}
	}
	if err := fleet.CheckReplicates(replicates.V, cfgs[0].Duration); err != nil {
		return flagval.Usage(err)
	}
	if series != "" {
		if err := render.CheckSeriesPath(series); err != nil {
			return flagval.Usage(fmt.Errorf("-series: %w", err))
		}
	}
	if plotPath != "" {
		if err := render.CheckPlotPath(plotPath); err != nil {
			return flagval.Usage(fmt.Errorf("-plot: %w", err))
		}
	}
	outF, seriesF, plotF := outfile.File{Flag: "o", Path: out}, outfile.File{Flag: "series", Path: series}, outfile.File{Flag: "plot", Path: plotPath}
	if err := outfile.Check(outF, seriesF, plotF); err != nil {
		return flagval.Usage(err)
	}

	res, err := fleet.Run(ctx, cfgs, fleet.Options{Replicates: replicates.V, Seed: uint64(seedV), Workers: workers.V})
	if err != nil {
		return err
	}
	run := render.FleetRun{Preset: p, Replicates: replicates.V, Seed: uint64(seedV), Configs: cfgs, Results: res}
	main, ser, pic, err := format.R.FleetOutputs(run, filepath.Ext(series), filepath.Ext(plotPath))
	if err != nil {
		return err
	}
	if series != "" {
		if err := seriesF.Write(ctx, stdout, ser); err != nil {
			return err
		}
	}
	if plotPath != "" {
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
	fs.Visit(func(fl *flag.Flag) {
		if line, ok := f.Set[fl.Name]; ok && err == nil {
			err = flagval.Usage(fmt.Errorf("-%s: %s:%d sets it too; drop one", fl.Name, path, line))
		}
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

// unusedFleetFlags refuses a flag that was set but that the run, as the other
// flags configure it, never reads (fleet.Config.Unread): every flag is
// honoured or refused, never dropped.
func unusedFleetFlags(fs *flag.FlagSet, c fleet.Config) error {
	unread := c.Unread()
	var err error
	fs.Visit(func(f *flag.Flag) {
		if why := unread[f.Name]; err == nil && why != "" {
			err = flagval.Usage(fmt.Errorf("-%s: %s", f.Name, why))
		}
	})
	return err
}

// seconds is a time in seconds as a time.Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
