package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"retrysim/provider"
	"retrysim/results"
	"retrysim/rng"
	"retrysim/sim"
	"retrysim/strategy"
)

const tableIntro = `retrysim simulates multi-step background jobs under retry and idempotency-key
strategies and prints, for each strategy, the jobs that failed, the calls paid,
the side effects repeated and the users who got the watched step twice.

Usage: retrysim [table] [flags]
       retrysim sweep [flags]            a grid of points (retrysim sweep -help)
       retrysim merge [flags] FILES...   add up -shard outputs (retrysim merge -help)

Flags:
`

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
}

// scenario is the sign-up scenario at the point's rates.
func (p point) scenario() provider.Scenario { return provider.Signup(p.pFail, p.lostReply) }

// build returns the point's strategies and an empty row for each.
func (p point) build() ([]strategy.Retry, []results.Row, error) {
	strats := make([]strategy.Retry, len(p.strategies))
	rows := make([]results.Row, len(p.strategies))
	for i, id := range p.strategies {
		s, err := strategy.Parse(id, p.attempts)
		if err != nil {
			return nil, nil, usageError{err}
		}
		strats[i] = s
		rows[i] = results.Row{ID: id, Label: s.Name()}
	}
	return strats, rows, nil
}

// params are the point's parameters as every output echoes them.
func (p point) params(replicates int) results.Params {
	sc := p.scenario()
	return results.Params{
		Scenario:     sc.Name,
		Noun:         sc.Noun,
		Steps:        len(sc.Steps),
		LossyStep:    sc.Steps[sc.Watched].Name,
		Jobs:         p.jobs,
		PFail:        p.pFail,
		LostReply:    p.lostReply,
		Attempts:     p.attempts,
		RNG:          p.gen.Name,
		Seed:         p.seed,
		Engine:       p.engine.Resolve(p.gen).String(),
		WatchedLabel: sc.WatchedLabel,
		Replicates:   replicates,
	}
}

// show is how a report is presented: the table command's and merge's flags.
type show struct {
	format string
	ci     bool
	expect bool
	out    string
}

// write renders the rows of point p and emits them.
func (s show) write(stdout io.Writer, p point, rows []results.Row, replicates int) error {
	if s.expect {
		strats, _, err := p.build()
		if err != nil {
			return err
		}
		for i := range rows {
			e := strats[i].Expect(p.scenario())
			rows[i].Expected = &e
		}
	}
	var buf bytes.Buffer
	rep := results.Report{Params: p.params(replicates), Rows: rows, ShowCI: s.ci}
	if err := results.Write(&buf, rep, s.format); err != nil {
		return err
	}
	return emit(stdout, s.out, buf.Bytes())
}

// tableCommand simulates one point of the parameters and prints the table,
// or with -shard one slice of it as json for merge.
func tableCommand(ctx context.Context, args []string, stdout, _ io.Writer) error {
	var c common
	jobs := count(1_000_000)
	pFail, lostReply := probability(0.01), probability(0.005)
	attempts := bounded{v: 3, lo: 1, hi: sim.MaxAttempts}
	replicates := bounded{v: 1, lo: 1, hi: 100_000}
	var ci, expect bool
	var sh shard
	fs := newFlagSet("retrysim")
	fs.Var(&jobs, "jobs", "simulate `n` jobs (1e6 and 1_000_000 work too)")
	fs.Var(&pFail, "p-fail", "`probability` that a call fails before doing anything")
	fs.Var(&lostReply, "lost-reply", "`probability` that the welcome email's reply is lost after the email went out")
	fs.Var(&attempts, "attempts", "calls a retry allows, the first included (`n` from 1 to 1000)")
	fs.BoolVar(&ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	fs.BoolVar(&expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	fs.Var(&replicates, "replicates", "run `r` independent seeds derived from -seed and show each column's mean and standard deviation")
	fs.Var(&sh, "shard", "run only slice `i/n` (0 <= i < n) of the jobs and write its raw counters as json, for retrysim merge")
	c.register(fs)
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
		seed: uint64(c.seed), gen: c.generator(), engine: c.engine, strategies: c.strategies,
	}
	if sh.Count > 1 && p.gen.Sequential {
		return usageError{fmt.Errorf("-shard: %s has one stream for all jobs, so its runs cannot be split; use -rng pcg", p.gen.Name)}
	}
	strats, rows, err := p.build()
	if err != nil {
		return err
	}
	cfgs := make([]sim.Config, replicates.v)
	for r := range cfgs {
		cfgs[r] = sim.Config{
			Scenario:  p.scenario(),
			Jobs:      p.jobs,
			Seed:      rng.ReplicateSeed(p.seed, uint64(r)),
			Generator: p.gen,
			Engine:    p.engine,
			Shard:     sim.Shard(sh),
		}
		for _, s := range strats {
			cfgs[r].Strategies = append(cfgs[r].Strategies, s)
		}
	}
	counters, err := sim.RunAll(ctx, cfgs, c.workers.v, nil)
	if err != nil {
		return err
	}
	for i := range rows {
		for _, rep := range counters {
			rows[i].Counters.Add(rep[i])
			if len(counters) > 1 {
				rows[i].Replicates = append(rows[i].Replicates, rep[i])
			}
		}
	}
	if sh.Count > 0 {
		out, err := json.MarshalIndent(results.Shard{
			Format: results.ShardFormat, Index: sh.Index, Count: sh.Count, Params: p.params(1), Rows: rows,
		}, "", "  ")
		if err != nil {
			return err
		}
		return emit(stdout, c.out, append(out, '\n'))
	}
	return show{format: c.format.v, ci: ci, expect: expect, out: c.out}.write(stdout, p, rows, replicates.v)
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
