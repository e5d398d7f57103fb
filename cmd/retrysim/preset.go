package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/stats"
	"github.com/retrysim/retrysim/strategy"
)

// presets are the names -preset takes.
var presets = []string{"sqlite-check"}

func validPreset(s string) error {
	for _, p := range presets {
		if p == s {
			return nil
		}
	}
	return fmt.Errorf("unknown preset %q (want sqlite-check)", s)
}

// runPreset runs the SQLite check's cases, each forced, over p's jobs with a
// per-step retry, then the same cases with the lease store, and prints one
// row a case and one for the lease fix over all of them.
func runPreset(ctx context.Context, stdout io.Writer, p point, c common) error {
	cases := delivery.SQLiteCheck()
	retry := strategy.Retry{Scope: strategy.EachStep, Attempts: p.attempts}
	var cfgs []sim.Config
	for _, lease := range []bool{false, true} {
		for _, k := range cases {
			q := k.Config
			if lease {
				q.Store = delivery.Lease
			}
			p.sc, p.queue = delivery.Charge(), &q
			if err := p.checkEngine(); err != nil {
				return err
			}
			cfgs = append(cfgs, p.config([]strategy.Retry{retry}, 0, sim.Shard{}))
		}
	}
	counters, err := sim.RunAll(ctx, cfgs, c.workers.v, nil)
	if err != nil {
		return err
	}
	out := stats.Cases{Title: fmt.Sprintf("The SQLite idempotency check, forced: %s jobs a case, one step (a charge), up to %d attempts; %s, seed %d",
		render.Group(p.jobs), p.attempts, p.gen.Name, p.seed)}
	fix := stats.CaseRow{Case: "the lease fix, in every case above", Store: "lease",
		Meaning: "status, release, takeover, done committed with the work, keys kept past the retries"}
	for i, k := range cases {
		out.Rows = append(out.Rows, stats.CaseRow{Case: k.Name, Store: k.Config.Store.String(), Meaning: k.Meaning, Counters: counters[i][0]})
		fix.Counters.Add(counters[len(cases)+i][0])
	}
	out.Rows = append(out.Rows, fix)
	var buf bytes.Buffer
	if err := c.format.r.Cases(&buf, out); err != nil {
		return err
	}
	return c.out.write(ctx, stdout, buf.Bytes())
}
