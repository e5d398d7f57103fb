package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/stats"
	"github.com/retrysim/retrysim/strategy"
)

const tableIntro = `retrysim simulates multi-step background jobs under retry and idempotency-key
strategies and prints, for each strategy, the jobs that failed, the calls paid,
the side effects repeated and the users who got the watched step twice.

Usage: retrysim [table] [flags]
       retrysim sweep [flags]            a grid of points (retrysim sweep -help)
       retrysim merge [flags] FILES...   add up -shard outputs (retrysim merge -help)
       retrysim race [flags]             the SQLite check for real (retrysim race -help)
       retrysim fleet [flags]            retry storms: many clients, one server (retrysim fleet -help)
       retrysim version                  the version, from the build info (also -version)
       retrysim help [command]           a command's -help

Every duration (-latency, -backoff-base, -backoff-cap, -ttl, -lease, -visibility,
-repeat-delay, and the same fields of a -scenario file) is from 0 to 8760h.

Flags:
`

// maxReplicates bounds -replicates: each replicate holds its configuration
// and metric values until the output is written.
const maxReplicates = 10_000

// point is one simulated point: the scenario, the strategies and the run.
type point struct {
	jobs       int64
	pFail      float64
	lostReply  float64
	attempts   int
	seed       uint64
	gen        rng.Generator
	engine     sim.Engine
	strategies []string
	// sc is the scenario: the sign-up at the point's rates unless a file
	// (file) gave another; queue is the delivery model, nil when off.
	sc    provider.Scenario
	file  string
	queue *delivery.Config
	// overrides names the flags set over the file, with their values.
	overrides string
}

// scenario is the point's scenario.
func (p point) scenario() provider.Scenario { return p.sc }

// config is the engine configuration of replicate r of the point.
func (p point) config(strats []strategy.Retry, r int, sh sim.Shard) sim.Config {
	cfg := sim.Config{
		Scenario:  p.sc,
		Jobs:      p.jobs,
		Seed:      rng.ReplicateSeed(p.seed, uint64(r)),
		Generator: p.gen,
		Engine:    p.engine,
		Shard:     sh,
		Delivery:  p.queue,
	}
	for _, s := range strats {
		cfg.Strategies = append(cfg.Strategies, s)
	}
	return cfg
}

// build returns the point's strategies and an empty row for each.
func (p point) build() ([]strategy.Retry, []stats.Row, error) {
	strats := make([]strategy.Retry, len(p.strategies))
	rows := make([]stats.Row, len(p.strategies))
	for i, id := range p.strategies {
		s, err := strategy.Parse(id, p.attempts)
		if err != nil {
			return nil, nil, usageError{err}
		}
		strats[i] = s
		rows[i] = stats.Row{ID: id, Label: s.Name()}
	}
	return strats, rows, nil
}

// params are the point's parameters as every output echoes them.
func (p point) params(replicates int) stats.Params {
	sc := p.scenario()
	par := stats.Params{
		Scenario:   sc.Name,
		File:       p.file,
		Noun:       sc.Noun,
		Steps:      len(sc.Steps),
		LossyStep:  sc.Steps[sc.Watched[0].Step].Name,
		Jobs:       p.jobs,
		PFail:      p.pFail,
		LostReply:  p.lostReply,
		Attempts:   p.attempts,
		RNG:        p.gen.Name,
		Seed:       p.seed,
		Engine:     p.config(nil, 0, sim.Shard{}).EngineUsed().String(),
		Replicates: replicates,
	}
	for _, st := range sc.Steps {
		if st.CanLoseReply {
			par.LossyStep = st.Name
			break
		}
	}
	for k, w := range sc.Watched {
		par.Watched = append(par.Watched, stats.Watch{Step: w.Step, Name: sc.Steps[w.Step].Name, Label: sc.WatchLabel(k)})
	}
	if p.file != "" {
		steps := make([]stats.StepParams, len(sc.Steps))
		for i, st := range sc.Steps {
			steps[i] = stats.StepParams{Name: st.Name, PFail: st.PFail, Latency: st.Latency.String(), Keys: st.HonoursKeys}
			if st.CanLoseReply {
				steps[i].LostReply = st.LostReply
			}
		}
		par.StepList, par.Overrides = &steps, p.overrides
	}
	if q := p.queue; q != nil {
		latency := "no time"
		if len(sc.Steps) > 0 {
			latency = sc.Steps[0].Latency.String()
			for _, st := range sc.Steps[1:] {
				if st.Latency != sc.Steps[0].Latency {
					latency = "per-step times"
				}
			}
		}
		par.Delivery = &stats.DeliveryParams{
			Store: q.Store.String(), TTL: q.TTL.String(), Lease: q.Lease.String(), Visibility: q.Visibility.String(),
			MaxDeliveries: q.MaxDeliveries, Repeat: q.RepeatP, RepeatDelay: q.RepeatDelay.String(),
			Crash: q.CrashP, CrashAt: q.CrashAt.String(), MaxCrashes: q.MaxCrashes,
			Backoff: fmt.Sprintf("%s base %v cap %v", q.Backoff.Kind, q.Backoff.Base, q.Backoff.Cap),
			Latency: latency,
		}
		for _, st := range sc.Steps {
			par.Delivery.StepNames = append(par.Delivery.StepNames, st.Name)
		}
	}
	return par
}

// show is how a report is presented: the table command's and merge's flags.
type show struct {
	format render.Renderer
	ci     bool
	expect bool
	out    outFile
}

// write renders the rows of point p and emits them.
func (s show) write(ctx context.Context, stdout io.Writer, p point, rows []stats.Row, replicates int) error {
	strats, _, err := p.build()
	if err != nil {
		return err
	}
	for i := range rows {
		e := strats[i].Expect(p.scenario())
		if s.expect {
			rows[i].Expected = &e
		}
		// The closed forms are the Part 5 model's; in the delivery model a
		// crash or a redelivery can repeat what a key protects.
		rows[i].NoRepeats = p.queue == nil && e.RepeatedPerJob == 0
	}
	var buf bytes.Buffer
	rep := stats.Report{Params: p.params(replicates), Rows: rows, ShowCI: s.ci}
	if err := s.format.Report(&buf, rep); err != nil {
		return err
	}
	return s.out.write(ctx, stdout, buf.Bytes())
}

// tableCommand simulates one point of the parameters and prints the table,
// or with -shard one slice of it as json for merge.
func tableCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c common
	jobs := count(1_000_000)
	pFail, lostReply := probability(0.01), probability(0.005)
	attempts := bounded{v: 3, lo: 1, hi: sim.MaxAttempts}
	replicates := bounded{v: 1, lo: 1, hi: maxReplicates}
	var ci, expect bool
	var sh shard
	fs := newFlagSet("retrysim")
	fs.Var(&jobs, "jobs", "simulate `n` jobs, 1 to 10^12 (1e6 and 1_000_000 work too)")
	fs.Var(&pFail, "p-fail", "`probability` that a call fails before doing anything")
	fs.Var(&lostReply, "lost-reply", "`probability` that the welcome email's reply is lost after the email went out")
	fs.Var(&attempts, "attempts", "calls a retry allows, the first included (`n` from 1 to 1000)")
	fs.BoolVar(&ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	fs.BoolVar(&expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	fs.Var(&replicates, "replicates", "run `r` independent seeds derived from -seed (1 to 10000) and show each column's mean and standard deviation")
	fs.Var(&sh, "shard", "run only slice `i/n` (0 <= i < n) of the jobs and write its raw counters as json, for retrysim merge; with -scenario and the delivery model too, the file carrying the scenario and the queue")
	preset := choice{valid: validPreset}
	fs.Var(&preset, "preset", "run the preset `name` instead of the strategies: sqlite-check (the SQLite check's cases, forced, and the lease fix); it reads only -jobs, -attempts, -seed, -rng, -engine, -workers, -format and -o")
	var q queueFlags
	q.register(fs)
	c.register(fs, render.ReportDoc)
	if err := parse(fs, args, tableIntro, stdout); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	if sh.Count > 0 {
		if err := shardConflicts(fs); err != nil {
			return err
		}
	}
	p := point{
		jobs: int64(jobs), pFail: float64(pFail), lostReply: float64(lostReply), attempts: attempts.v,
		seed: uint64(c.seed), gen: c.generator(), engine: c.engine,
	}
	if preset.v != "" {
		if err := presetConflicts(fs, preset.v); err != nil {
			return err
		}
		return runPreset(ctx, stdout, p, c)
	}
	sc, queue, err := q.load(fs, float64(pFail), float64(lostReply))
	if err != nil {
		return err
	}
	p.strategies, p.sc, p.file, p.queue, p.overrides = c.strategies, sc, q.scenarioPath, queue, q.overrides
	strats, rows, err := p.build()
	if err != nil {
		return err
	}
	if err := unusedQueueFlags(fs, sc, queue, strats); err != nil {
		return err
	}
	switch {
	case sh.Count > 1 && p.gen.Sequential:
		return usageError{fmt.Errorf("-shard: %s has one stream for all jobs, so its runs cannot be split; use -rng pcg", p.gen.Name)}
	case queue != nil && expect:
		return usageError{fmt.Errorf("-expect: the closed forms cover the Part 5 model, not the delivery model")}
	}
	if err := p.checkEngine(); err != nil {
		return err
	}
	if queue != nil {
		if w := queue.Warning(sc, strats); w != "" {
			fmt.Fprintf(stderr, "retrysim: warning: %s\n", w)
		}
	}
	cfgs := make([]sim.Config, replicates.v)
	for r := range cfgs {
		cfgs[r] = p.config(strats, r, sim.Shard(sh))
	}
	if len(cfgs) > 1 {
		for i := range rows {
			rows[i].Replicates = make([]stats.Values, len(cfgs))
		}
	}
	// Each replicate is pooled as it finishes, keeping only its metric
	// values: integer sums do not depend on the order of completion.
	err = sim.RunEach(ctx, cfgs, c.workers.v, nil, func(r int, rep []stats.Counters) {
		for i := range rows {
			rows[i].Counters.Add(rep[i])
			if rows[i].Replicates != nil {
				rows[i].Replicates[r] = stats.ValuesOf(rep[i])
			}
		}
	})
	if err != nil {
		return err
	}
	if sh.Count > 0 {
		shard := stats.Shard{Format: stats.ShardFormat, Index: sh.Index, Count: sh.Count, Params: p.params(1), Rows: rows}
		if p.file != "" || p.queue != nil {
			shard.Model = sim.ModelOf(p.sc, p.queue)
		}
		out, err := json.MarshalIndent(shard, "", "  ")
		if err != nil {
			return err
		}
		return c.out.write(ctx, stdout, append(out, '\n'))
	}
	return show{format: c.format.r, ci: ci, expect: expect, out: c.out}.write(ctx, stdout, p, rows, replicates.v)
}

// checkEngine refuses an engine that cannot run the point: skip with the
// delivery model, whose jobs draw at every step.
func (p point) checkEngine() error {
	if p.queue != nil && p.engine == sim.Skip {
		return usageError{fmt.Errorf("-engine: skip cannot run the delivery model, whose jobs draw at every step; use -engine plain or auto")}
	}
	return nil
}

// presetTakes are the flags a preset reads; it runs its own fixed cases, so
// any other flag would be dropped, and is refused instead.
var presetTakes = []string{"preset", "jobs", "attempts", "seed", "rng", "engine", "workers", "format", "o"}

// presetConflicts refuses, with -preset, every flag the preset does not read.
func presetConflicts(fs *flag.FlagSet, preset string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && !slices.Contains(presetTakes, f.Name) {
			err = usageError{fmt.Errorf("-%s: -preset %s runs its own fixed cases and reads only -%s", f.Name, preset, strings.Join(presetTakes[1:], ", -"))}
		}
	})
	return err
}

// shardConflicts refuses, with -shard, the flags that belong to merge or
// cannot be split.
func shardConflicts(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "ci", "expect", "format":
			err = usageError{fmt.Errorf("-shard writes raw json for merge; give -%s to retrysim merge instead", f.Name)}
		case "replicates":
			err = usageError{fmt.Errorf("-shard: -replicates cannot be split into shards; shard each replicate's -seed instead")}
		}
	})
	return err
}
