package race

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/raceresult"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/sqlitecheck"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Study runs the harness in each mode, base's settings otherwise, every
// mode's database in base.Dir, a new temporary directory if empty (kept,
// when base.Keep and the study finishes, else removed); with simJobs above
// 0 each row also holds Compare's prediction.
func Study(ctx context.Context, modes []Mode, base *Config, simJobs int64) (rows []raceresult.Row, err error) {
	err = inDir(&base.Dir, base.Keep, func() error {
		for _, m := range modes {
			cfg := *base
			cfg.Mode = m
			res, err := Run(ctx, cfg)
			if err != nil {
				return fmt.Errorf("race %s: %w", m, err)
			}
			row := res.Row
			if simJobs > 0 {
				s, err := Compare(ctx, res, cfg, simJobs)
				if err != nil {
					return err
				}
				row.Sim = &s
			}
			rows = append(rows, row)
		}
		return nil
	})
	return rows, err
}

// Compare runs the simulator's store matching cfg.Mode on jobs one-step jobs
// of two deliveries each, the measured share of them overlapping, workers
// killed at the measured rate; it also runs at the ends of those rates' 95%
// intervals, few races measuring them, and gives the range.
func Compare(ctx context.Context, res Result, cfg Config, jobs int64) (raceresult.Sim, error) {
	overlap := stats.Wilson(res.Overlaps, res.Races)
	var crash schema.Estimate // 0 with no crash measured
	if res.Reached > 0 && res.Crashes > 0 {
		crash = stats.Wilson(res.Crashes, res.Reached)
	}
	out := raceresult.Sim{Jobs: jobs, DoubleLo: 1, LostLo: 1}
	for i, at := range [][2]float64{
		{overlap.Value, crash.Value},
		{overlap.Lo, crash.Lo}, {overlap.Lo, crash.Hi}, {overlap.Hi, crash.Lo}, {overlap.Hi, crash.Hi},
	} {
		double, lost, err := simulatePairs(ctx, cfg, at[0], at[1], jobs)
		if err != nil {
			return out, err
		}
		if i == 0 {
			out.DoubleCharged, out.Lost = double, lost
		}
		d, l := float64(double)/float64(jobs), float64(lost)/float64(jobs)
		out.DoubleLo, out.DoubleHi = min(out.DoubleLo, d), max(out.DoubleHi, d)
		out.LostLo, out.LostHi = min(out.LostLo, l), max(out.LostHi, l)
	}
	return out, nil
}

// simulatePairs runs jobs two-delivery jobs, a share overlap of them at once,
// workers dying at rate crash, and counts the jobs charged twice and lost.
func simulatePairs(ctx context.Context, cfg Config, overlap, crash float64, jobs int64) (double, lost int64, err error) {
	q := delivery.Defaults()
	q.Store = map[Mode]delivery.Store{Loose: delivery.Loose, Claim: delivery.Claim, After: delivery.NoStore, Lease: delivery.Lease}[cfg.Mode]
	q.RepeatP = 1
	if crash > 0 {
		point, err := enum.Parse[delivery.CrashPoint](string(cfg.CrashAt)) // the same names
		if err != nil {
			return 0, 0, err
		}
		q.CrashP, q.MaxCrashes, q.CrashAt = crash, 1, point
	}
	overlapJobs := int64(math.Round(overlap * float64(jobs)))
	var cfgs []sim.Config
	for _, part := range []struct {
		n     int64
		delay time.Duration
	}{{overlapJobs, 0}, {jobs - overlapJobs, 2 * time.Second}} {
		if part.n == 0 {
			continue
		}
		qq := q
		qq.RepeatDelay.Median = part.delay
		cfgs = append(cfgs, sim.Config{
			Scenario: sqlitecheck.Charge(), Jobs: part.n, Seed: uint64(cfg.Seed), Generator: rng.PCGGenerator(), Delivery: &qq,
			Strategies: []strategy.Strategy{strategy.Retry{Scope: strategy.EachStep, Attempts: 1}},
		})
	}
	counters, err := sim.RunAll(ctx, cfgs, 0, nil)
	if err != nil {
		return 0, 0, err
	}
	for _, c := range counters {
		double += c[0].DuplicateUsers
		lost += c[0].LostWork
	}
	return double, lost, nil
}
