package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
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

Presets:
  brooker-collapse  ` + indentWrap(presetSource("brooker-collapse")+".", 60, "                    ") + `
                    Runs ramp_no_backoff, ramp_backoff_and_jitter, spike_no_backoff and
                    spike_backoff_and_jitter, 80 s and 10 replicates unless -duration or
                    -replicates say otherwise; no other model flag goes with it.
  brooker-retries   ` + indentWrap(presetSource("brooker-retries")+".", 60, "                    ") + `
                    17 x 4 runs of 10 s, 1 replicate unless -duration or -replicates say
                    otherwise; prints a row a failure rate and policy (json and csv:
                    failure_rate, policy, requests, succeeded, calls, summed over
                    replicates); no -series; -plot draws success and calls a request
                    against the failure rate, a line a policy, with 95% intervals
                    over replicates; html is one page: success and calls a request
                    as two tables (a row a failure rate, a column a policy) with
                    their intervals, and that plot.
  brooker-clients   ` + indentWrap(presetSource("brooker-clients")+".", 60, "                    ") + `
                    3 x 17 x 2 runs, printed as brooker-retries's with clients first.
  aws-standard      ` + indentWrap(presetSource("aws-standard")+".", 60, "                    ") + `
                    17 x 3 runs, printed as brooker-retries's.
  grpc-throttling   ` + indentWrap(presetSource("grpc-throttling")+".", 60, "                    ") + `
                    17 x 3 runs, printed as brooker-retries's.
  envoy-budget      ` + indentWrap(presetSource("envoy-budget")+".", 60, "                    ") + `
                    17 x 3 runs, printed as brooker-retries's.
  finagle-budget    ` + indentWrap(presetSource("finagle-budget")+".", 60, "                    ") + `
                    17 x 3 runs, printed as brooker-retries's.
  resilience4j-breaker
                    ` + indentWrap(presetSource("resilience4j-breaker")+".", 60, "                    ") + `
                    17 x 3 runs, printed as brooker-retries's.
  retry-policies    ` + indentWrap(presetSource("retry-policies")+".", 60, "                    ") + `
                    17 x 10 runs, 4 replicates unless -replicates says otherwise,
                    printed as brooker-retries's; -plot draws the figure.
  spike-recovery    ` + indentWrap(presetSource("spike-recovery")+".", 60, "                    ") + `
                    12 x 2 x 5 runs of 80 s, 5 replicates unless -replicates says otherwise,
                    named "policy keys none|same peak H", printed as brooker-collapse's;
                    -plot draws recovery and duplicates against the height, and html
                    draws that picture under the table instead of a run's series.
  job-retries       ` + indentWrap(presetSource("job-retries")+".", 60, "                    ") + `
                    Runs sidekiq and river, 1200 s and 5 replicates unless -duration or
                    -replicates say otherwise; printed as brooker-collapse's.

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

// number is a flag.Value for a float in [lo, hi].
type number struct {
	v, lo, hi float64
}

func (n *number) String() string {
	if n == nil {
		return ""
	}
	return strconv.FormatFloat(n.v, 'g', -1, 64)
}

func (n *number) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v >= n.lo && v <= n.hi) {
		return fmt.Errorf("want a number from %g to %g", n.lo, n.hi)
	}
	n.v = v
	return nil
}

// window is a flag.Value for a time window from:to (20s:25s).
type window struct{ from, to time.Duration }

func (w *window) String() string {
	if w == nil || w.to == 0 {
		return ""
	}
	return w.from.String() + ":" + w.to.String()
}

func (w *window) Set(s string) error {
	bad := fmt.Errorf("want a window from:to such as 20s:25s, 0 <= from < to")
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return bad
	}
	from, err1 := time.ParseDuration(strings.TrimSpace(a))
	to, err2 := time.ParseDuration(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || from < 0 || to <= from {
		return bad
	}
	*w = window{from, to}
	return nil
}

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
	fs := newFlagSet("retrysim fleet")
	var (
		preset      choice
		seedV       seed = 1
		format           = newFormatFlag(render.FleetDoc)
		workers          = bounded{v: runtime.GOMAXPROCS(0), lo: 1, hi: 4096}
		replicates       = bounded{v: 10, lo: 1, hi: fleet.MaxReplicates}
		duration         = durationFlag{60 * time.Second}
		out, series string
		plotPath    string

		shape    = nameFlag[fleet.ShapeKind]{v: fleet.Constant, parse: fleet.ParseShape, text: fleet.ShapeKind.String}
		rate     = number{v: 40, lo: 0, hi: fleet.MaxRate}
		peak     = number{v: 80, lo: 0, hi: fleet.MaxRate}
		from, to durationFlag
		outage   window
		outMode  = nameFlag[fleet.OutageMode]{v: fleet.Fail, parse: fleet.ParseOutageMode, text: fleet.OutageMode.String}
		server   = nameFlag[fleet.ServerKind]{v: fleet.Latency, parse: fleet.ParseServer, text: fleet.ServerKind.String}
		base     = durationFlag{time.Second}
		slope    = durationFlag{10 * time.Millisecond}
		capacity = bounded{v: 8, lo: 1, hi: fleet.MaxWorkers}
		queue    = bounded{v: 100, lo: 0, hi: fleet.MaxQueue}
		service  = durationFlag{100 * time.Millisecond}
		dist     = nameFlag[fleet.Dist]{v: fleet.Lognormal, parse: fleet.ParseDist, text: fleet.Dist.String}
		sigma    = number{v: 0.5, lo: 0, hi: 4}
		limit    = number{v: 50, lo: 0, hi: fleet.MaxRate}
		burst    = number{v: 50, lo: 1, hi: fleet.MaxRate}
		pFail    probability
		net      = durationFlag{100 * time.Millisecond}
		clients  = bounded{v: 1, lo: 1, hi: fleet.MaxClients}
		timeout  = durationFlag{3 * time.Second}
		attempts = bounded{v: 3, lo: 1, hi: fleet.MaxAttempts}
		bkind    = nameFlag[backoff.Kind]{v: backoff.None, parse: backoff.ParseKind, text: backoff.Kind.String}
		bbase    = durationFlag{100 * time.Millisecond}
		bcap     = durationFlag{2 * time.Second}
		keys     = nameFlag[fleet.KeyMode]{v: fleet.NoKey, parse: fleet.ParseKeyMode, text: fleet.KeyMode.String}
		policy   = nameFlag[fleet.PolicyKind]{v: fleet.Unlimited, parse: fleet.ParsePolicy, text: fleet.PolicyKind.String}
		scope    = nameFlag[bool]{parse: parseScope, text: scopeText}
		dp       = fleet.DefaultPolicy()
		bRate    = number{v: dp.Rate, lo: 0, hi: fleet.MaxTokens}
		bSize    = number{v: dp.Size, lo: 0, hi: fleet.MaxTokens}
		quota    = number{v: dp.Tokens, lo: 0, hi: fleet.MaxTokens}
		qCost    = number{v: dp.Cost, lo: 1, hi: fleet.MaxTokens}
		qTimeout = number{v: dp.TimeoutCost, lo: 1, hi: fleet.MaxTokens}
		gMax     = number{v: dp.MaxTokens, lo: 0, hi: fleet.MaxTokens}
		gRatio   = number{v: dp.Ratio, lo: 0, hi: fleet.MaxTokens}
		bThresh  = number{v: dp.Threshold, lo: 0, hi: 1}
		buRatio  = number{v: dp.BudgetRatio, lo: 0, hi: fleet.MaxBudgetRatio}
		buTTL    = durationFlag{seconds(dp.TTL)}
		buMin    = number{v: dp.MinRate, lo: 0, hi: fleet.MaxTokens}
		buConc   = number{v: dp.MinConcurrency, lo: 0, hi: fleet.MaxTokens}
		cbRate   = number{v: dp.FailureRate, lo: 0, hi: 1}
		cbWindow = bounded{v: dp.Window, lo: 1, hi: fleet.MaxWindow}
		cbTime   = durationFlag{seconds(dp.WindowSeconds)}
		cbMin    = bounded{v: dp.MinCalls, lo: 1, hi: fleet.MaxWindow}
		cbOpen   = durationFlag{seconds(dp.OpenSeconds)}
		cbHalf   = bounded{v: dp.HalfOpenCalls, lo: 1, hi: fleet.MaxWindow}
		sreK     = number{v: dp.K, lo: 0, hi: fleet.MaxK}
		sreWin   = durationFlag{seconds(dp.SREWindow)}
		hedges   = bounded{v: 0, lo: 0, hi: fleet.MaxHedges}
		hDelay   = durationFlag{scenario.DefaultHedgeDelay}
		scenPath string
	)
	preset.valid = func(s string) error { _, err := fleet.LookupPreset(s); return err }
	fs.Var(&preset, "preset", "run the runs of the preset `name` instead of one run from the flags: brooker-collapse, brooker-retries, brooker-clients, aws-standard, grpc-throttling, envoy-budget, finagle-budget, resilience4j-breaker, retry-policies, spike-recovery or job-retries (see above)")
	fs.Var(&duration, "duration", "requests arrive for this `duration` of virtual time, 1s to 1h (a preset has its own)")
	fs.Var(&replicates, "replicates", "a run is simulated with `r` independent seeds, 1 to 1000 (a preset has its own)")
	fs.Var(&seedV, "seed", "random `seed`; the same flags and seed print the same bytes")
	fs.Var(&format, "format", format.usage()+" (json also holds the series; html is one page with the series drawn)")
	fs.Var(&workers, "workers", fmt.Sprintf("parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it", workers.lo, workers.hi))
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
	if err := parse(fs, args, fleetIntro, stdout); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var cfgs []fleet.Config
	name, source := "one run", ""
	totals, byClients, spikes := false, false, false
	if preset.v != "" {
		for _, n := range fleetModelFlags {
			if set[n] {
				return usageError{fmt.Errorf("-%s: a preset sets the model; drop -%s or -preset", n, n)}
			}
		}
		p, _ := fleet.LookupPreset(preset.v)
		d := p.Duration
		if set["duration"] {
			d = duration.v.Seconds()
		}
		if !set["replicates"] {
			replicates.v = p.Replicates
		}
		cfgs, name, totals, byClients, spikes = p.Runs(d), p.Name, p.Totals, p.ByClients, p.Spikes
		source = p.Source
		if totals {
			if set["series"] {
				return usageError{fmt.Errorf("-series: -preset %s prints totals by failure rate and policy, with no time series", p.Name)}
			}
		}
	} else {
		cap := bcap.v
		if cap == 0 {
			cap = fleet.NoCap
		}
		cfg := fleet.Config{
			Name:     "run",
			Duration: duration.v.Seconds(),
			Load:     fleet.Shape{Kind: shape.v, Rate: rate.v, Peak: peak.v, From: from.v.Seconds(), To: to.v.Seconds()},
			Outage:   fleet.Outage{From: outage.from.Seconds(), To: outage.to.Seconds(), Mode: outMode.v},
			Server: fleet.Server{Kind: server.v, Base: base.v.Seconds(), Slope: slope.v.Seconds(),
				Workers: capacity.v, QueueMax: queue.v,
				Service: fleet.Service{Dist: dist.v, Median: service.v.Seconds(), Sigma: sigma.v},
				Limit:   limit.v, Burst: burst.v, PFail: float64(pFail)},
			Client: fleet.Client{Clients: clients.v, Timeout: timeout.v.Seconds(), Attempts: attempts.v,
				Backoff: backoff.Policy{Kind: bkind.v, Base: bbase.v, Cap: cap}, Keys: keys.v,
				Policy: fleet.PolicyConfig{Kind: policy.v, Shared: scope.v, Rate: bRate.v, Size: bSize.v,
					Tokens: quota.v, Cost: qCost.v, TimeoutCost: qTimeout.v, MaxTokens: gMax.v, Ratio: gRatio.v,
					Threshold: bThresh.v, BudgetRatio: buRatio.v, TTL: buTTL.v.Seconds(), MinRate: buMin.v,
					MinConcurrency: buConc.v, FailureRate: cbRate.v, Window: cbWindow.v, WindowSeconds: cbTime.v.Seconds(),
					MinCalls: cbMin.v, OpenSeconds: cbOpen.v.Seconds(), HalfOpenCalls: cbHalf.v, K: sreK.v, SREWindow: sreWin.v.Seconds()},
				Hedges: hedges.v, HedgeDelay: hDelay.v.Seconds()},
			Net: net.v.Seconds(),
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
			return usageError{err}
		}
	}
	if err := fleet.CheckReplicates(replicates.v, cfgs[0].Duration); err != nil {
		return usageError{err}
	}
	if series != "" {
		if err := render.CheckSeriesPath(series); err != nil {
			return usageError{fmt.Errorf("-series: %w", err)}
		}
	}
	if plotPath != "" {
		if err := render.CheckPlotPath(plotPath); err != nil {
			return usageError{fmt.Errorf("-plot: %w", err)}
		}
	}
	outF, seriesF, plotF := outfile.File{Flag: "o", Path: out}, outfile.File{Flag: "series", Path: series}, outfile.File{Flag: "plot", Path: plotPath}
	if err := outfile.Check(outF, seriesF, plotF); err != nil {
		return usageError{err}
	}

	res, err := fleet.Run(ctx, cfgs, fleet.Options{Replicates: replicates.v, Seed: uint64(seedV), Workers: workers.v})
	if err != nil {
		return err
	}
	if totals {
		rows := make([]fleet.Totals, len(res))
		for i, r := range res {
			rows[i] = r.Totals()
		}
		title := fmt.Sprintf("retrysim fleet: %s, %s s, %d replicates (counts summed over them), seed %d",
			name, strconv.FormatFloat(cfgs[0].Duration, 'g', -1, 64), replicates.v, uint64(seedV))
		plotTitle := fmt.Sprintf("retrysim fleet: %s, seed %d", name, uint64(seedV))
		var buf bytes.Buffer
		if err := format.r.FleetTotals(&buf, render.TotalsReport{Title: title, Rows: rows, ByClients: byClients,
			Params: fleetParams(name, source, replicates.v, uint64(seedV)), Results: res, PlotTitle: plotTitle}); err != nil {
			return err
		}
		if plotPath != "" {
			var p bytes.Buffer
			if err := render.PlotFleetTotals(&p, plotTitle, res, byClients, filepath.Ext(plotPath)); err != nil {
				return err
			}
			if err := plotF.Write(ctx, stdout, p.Bytes()); err != nil {
				return err
			}
		}
		return outF.Write(ctx, stdout, buf.Bytes())
	}
	title := fmt.Sprintf("retrysim fleet: %s, %s s, %d replicates (95%% intervals over them), seed %d",
		name, strconv.FormatFloat(cfgs[0].Duration, 'g', -1, 64), replicates.v, uint64(seedV))
	rep := render.FleetReport{Title: title}
	var runs [][]fleet.Point
	for _, r := range res {
		rep.Rows = append(rep.Rows, r.Summary())
		pts := r.Series()
		runs = append(runs, pts)
		rep.Series = append(rep.Series, pts...)
	}
	plotTitle := fmt.Sprintf("retrysim fleet: %s, %s s, means of %d replicates, seed %d",
		name, strconv.FormatFloat(cfgs[0].Duration, 'g', -1, 64), replicates.v, uint64(seedV))
	rep.Params = fleetParams(name, source, replicates.v, uint64(seedV))
	rep.Runs, rep.Configs, rep.PlotTitle = runs, cfgs, plotTitle
	if spikes { // one picture of the runs against the spike's height, as -plot draws them
		rep.Runs, rep.Configs, rep.Spikes = nil, nil, res
		rep.PlotTitle = fmt.Sprintf("retrysim fleet: %s, seed %d", name, uint64(seedV))
	}
	var buf bytes.Buffer
	if err := format.r.Fleet(&buf, rep); err != nil {
		return err
	}
	if series != "" {
		var s bytes.Buffer
		if err := render.WriteFleetSeries(&s, rep.Series, filepath.Ext(series)); err != nil {
			return err
		}
		if err := seriesF.Write(ctx, stdout, s.Bytes()); err != nil {
			return err
		}
	}
	if plotPath != "" {
		var p bytes.Buffer
		draw := func() error { return render.PlotFleet(&p, plotTitle, runs, cfgs, filepath.Ext(plotPath)) }
		if spikes {
			draw = func() error { return render.PlotFleetSpikes(&p, rep.PlotTitle, res, filepath.Ext(plotPath)) }
		}
		if err := draw(); err != nil {
			return err
		}
		if err := plotF.Write(ctx, stdout, p.Bytes()); err != nil {
			return err
		}
	}
	return outF.Write(ctx, stdout, buf.Bytes())
}

// fleetParams are a fleet page's parameter lines: the model, its source when
// a preset names one, the replicates and the seed.
func fleetParams(name, source string, replicates int, seed uint64) []string {
	params := []string{"model: " + name, fmt.Sprintf("%d replicates a run, seed %d", replicates, seed)}
	if source != "" {
		params = append(params, "source: "+source)
	}
	return params
}

// fleetScenario sets the client's policy and hedges from the fleet section
// of the scenario file at path, refusing a flag that sets the same thing.
func fleetScenario(fs *flag.FlagSet, path string, cl *fleet.Client) error {
	loaded, err := scenario.Load(path)
	if err == nil {
		err = loaded.CheckFleet()
	}
	if err != nil {
		return usageError{fmt.Errorf("-scenario %w", err)}
	}
	f := loaded.Fleet
	fs.Visit(func(fl *flag.Flag) {
		if line, ok := f.Set[fl.Name]; ok && err == nil {
			err = usageError{fmt.Errorf("-%s: %s:%d sets it too; drop one", fl.Name, path, line)}
		}
	})
	if err != nil {
		return err
	}
	cl.Policy, cl.Hedges, cl.HedgeDelay = f.Policy, f.Hedges, f.HedgeDelay.Seconds()
	if k := cl.Policy.Kind; k != fleet.Unlimited && cl.Attempts == 1 && cl.Hedges == 0 && !k.GuardsFirst() {
		return usageError{fmt.Errorf("-scenario: %s:%d sets policy %s, which with -attempts 1 and no hedges is never asked", path, f.Set["policy"], k)}
	}
	return nil
}

// unusedFleetFlags refuses a flag that was set but that the run, as the other
// flags configure it, never reads: every flag is honoured or refused, never
// dropped.
func unusedFleetFlags(fs *flag.FlagSet, c fleet.Config) error {
	unused := map[string]string{}
	add := func(cond bool, why string, flags ...string) {
		for _, f := range flags {
			if cond && unused[f] == "" {
				unused[f] = why
			}
		}
	}
	sv := c.Server
	add(c.Load.Kind == fleet.Constant, "a constant -shape has no peak and no window", "peak", "from", "to")
	add(!c.Outage.On(), "there is no -outage", "outage-mode")
	add(sv.Kind != fleet.Latency, fmt.Sprintf("only -server latency grows with load; the server is %s", sv.Kind), "slope")
	add(sv.Kind == fleet.Queue, "the queue server's calls take -service", "base")
	add(sv.Kind != fleet.Queue, fmt.Sprintf("only -server queue has workers; the server is %s", sv.Kind), "capacity", "queue", "service", "service-dist", "service-sigma")
	add(sv.Service.Dist != fleet.Lognormal, "exponential service times have no log-sd", "service-sigma")
	add(sv.Kind != fleet.RateLimit, fmt.Sprintf("only -server ratelimit has a limit; the server is %s", sv.Kind), "limit", "burst")
	add(c.Client.Attempts == 1, "with -attempts 1 nothing is retried, so no backoff is waited", "backoff", "backoff-base", "backoff-cap")
	add(c.Client.Backoff.Kind == backoff.None, "the backoff policy none never waits", "backoff-base", "backoff-cap")
	add(c.Client.Backoff.Kind.Schedule(), fmt.Sprintf("the %s schedule sets its own waits, in seconds by attempt", c.Client.Backoff.Kind), "backoff-base", "backoff-cap")
	add(c.Client.Backoff.Kind == backoff.Constant, "the constant backoff waits -backoff-base, with no cap", "backoff-cap")
	pk := c.Client.Policy.Kind
	add(c.Client.Attempts == 1 && c.Client.Hedges == 0 && !pk.GuardsFirst(),
		fmt.Sprintf("with -attempts 1 and no -hedges nothing is retried, so -policy %s is never asked", pk), "policy", "policy-scope")
	add(pk == fleet.Unlimited, "-policy unlimited keeps no state", "policy-scope")
	for _, p := range fleet.PolicyParams() {
		add(!pk.Reads(p), fmt.Sprintf("-policy %s does not read it", pk), p)
	}
	add(pk == fleet.SlidingBreaker && c.Client.Policy.WindowSeconds > 0, "-cb-window-time makes the window one of time, not of attempts", "cb-window")
	add(c.Client.Hedges == 0, "there are no -hedges", "hedge-delay")
	var err error
	fs.Visit(func(f *flag.Flag) {
		if why := unused[f.Name]; err == nil && why != "" {
			err = usageError{fmt.Errorf("-%s: %s", f.Name, why)}
		}
	})
	return err
}

// seconds is a time in seconds as a time.Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// indentWrap wraps text at width columns, indenting every line but the first.
func indentWrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		if i > 0 && n+1+len(w) > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// presetSource is the named fleet preset's source, for -help.
func presetSource(name string) string {
	p, err := fleet.LookupPreset(name)
	if err != nil {
		panic(err) // a name written in this file
	}
	return p.Source
}
