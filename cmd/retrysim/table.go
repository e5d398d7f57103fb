package main

import (
	"bytes"
	"context"
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
       retrysim sweep [flags]     (retrysim sweep -help)

Flags:
`

// tableCommand simulates one point of the parameters and prints the table.
func tableCommand(ctx context.Context, args []string, stdout, _ io.Writer) error {
	var c common
	jobs := count(1_000_000)
	pFail, lostReply := probability(0.01), probability(0.005)
	attempts := bounded{v: 3, lo: 1, hi: sim.MaxAttempts}
	replicates := bounded{v: 1, lo: 1, hi: 100_000}
	var ci, expect bool
	fs := newFlagSet("retrysim")
	fs.Var(&jobs, "jobs", "simulate `n` jobs (1e6 and 1_000_000 work too)")
	fs.Var(&pFail, "p-fail", "`probability` that a call fails before doing anything")
	fs.Var(&lostReply, "lost-reply", "`probability` that the welcome email's reply is lost after the email went out")
	fs.Var(&attempts, "attempts", "calls a retry allows, the first included (`n` from 1 to 1000)")
	fs.BoolVar(&ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	fs.BoolVar(&expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	fs.Var(&replicates, "replicates", "run `r` independent seeds derived from -seed and show each column's mean and standard deviation")
	c.register(fs)
	if err := parse(fs, args, tableIntro, stdout); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}

	gen := c.generator()
	sc := provider.Signup(float64(pFail), float64(lostReply))
	strats := make([]strategy.Strategy, len(c.strategies))
	rows := make([]results.Row, len(c.strategies))
	for i, id := range c.strategies {
		s, err := strategy.Parse(id, attempts.v)
		if err != nil {
			return usageError{err}
		}
		strats[i] = s
		rows[i] = results.Row{ID: id, Label: s.Name()}
		if expect {
			e := s.Expect(sc)
			rows[i].Expected = &e
		}
	}
	cfgs := make([]sim.Config, replicates.v)
	for r := range cfgs {
		cfgs[r] = sim.Config{
			Scenario:   sc,
			Strategies: strats,
			Jobs:       int64(jobs),
			Seed:       rng.ReplicateSeed(uint64(c.seed), uint64(r)),
			Generator:  gen,
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
	rep := results.Report{
		Params: results.Params{
			Scenario:     sc.Name,
			Noun:         sc.Noun,
			Steps:        len(sc.Steps),
			LossyStep:    sc.Steps[sc.Watched].Name,
			Jobs:         int64(jobs),
			PFail:        float64(pFail),
			LostReply:    float64(lostReply),
			Attempts:     attempts.v,
			RNG:          gen.Name,
			Seed:         uint64(c.seed),
			WatchedLabel: sc.WatchedLabel,
			Replicates:   replicates.v,
		},
		Rows:   rows,
		ShowCI: ci,
	}
	var buf bytes.Buffer
	if err := results.Write(&buf, rep, c.format.v); err != nil {
		return err
	}
	return emit(stdout, c.out, buf.Bytes())
}
