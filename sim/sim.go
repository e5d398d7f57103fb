// Package sim is the engine: it runs N jobs of a scenario through each strategy
// and sums integer counters. It owns parallelism and determinism; what a call
// does is package provider's, and how a delivery retries is package strategy's.
//
// Jobs are cut into blocks of BlockJobs, each with its own random stream derived
// from (seed, block), and every strategy sees the same streams (common random
// numbers, so differences between rows are not noise between streams). Workers
// take (strategy, block) tasks in any order; since counters are integers and
// addition is exact, the sums do not depend on the number of workers. A
// sequential generator (mulberry32) has one stream a run: each strategy is one
// task over all jobs in order, and strategies run in parallel.
//
// Memory does not grow with the number of jobs: a task keeps one Job's state.
package sim

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"retrysim/provider"
	"retrysim/results"
	"retrysim/rng"
	"retrysim/strategy"
)

// BlockJobs is the number of jobs that share one random stream. It is part of
// what a seed means: changing it changes every pcg and xexp result.
const BlockJobs = 1 << 16

// MaxJobs bounds a run so that no counter can overflow: a job makes at most
// provider.MaxSteps x MaxAttempts calls.
const MaxJobs = 1_000_000_000_000

// MaxAttempts bounds the attempts a strategy may make.
const MaxAttempts = 1000

// Config is one run.
type Config struct {
	Scenario   provider.Scenario
	Strategies []strategy.Strategy
	Jobs       int64
	Seed       uint64
	Generator  rng.Generator
	// Workers is how many goroutines run tasks; 0 means GOMAXPROCS.
	Workers int
}

// Run simulates cfg.Jobs jobs through every strategy and returns one Counters a
// strategy, in order. It stops early with ctx's error if ctx is cancelled.
func Run(ctx context.Context, cfg Config) ([]results.Counters, error) {
	if err := cfg.Scenario.Validate(); err != nil {
		return nil, err
	}
	if cfg.Jobs < 1 || cfg.Jobs > MaxJobs {
		return nil, fmt.Errorf("jobs: %d is not in [1, %d]", cfg.Jobs, int64(MaxJobs))
	}
	if len(cfg.Strategies) == 0 {
		return nil, errors.New("strategies: none given")
	}
	blocks := (cfg.Jobs + BlockJobs - 1) / BlockJobs
	blockJobs := int64(BlockJobs)
	if cfg.Generator.Sequential {
		blocks, blockJobs = 1, cfg.Jobs
	}
	tasks := blocks * int64(len(cfg.Strategies))
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = int(min(int64(workers), tasks))

	sums := make([][]results.Counters, workers) // per worker, per strategy
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		sums[w] = make([]results.Counters, len(cfg.Strategies))
		wg.Go(func() {
			stream := new(rng.Stream)
			for ctx.Err() == nil {
				t := next.Add(1) - 1
				if t >= tasks {
					return
				}
				s, b := t%int64(len(cfg.Strategies)), t/int64(len(cfg.Strategies))
				first := b * blockJobs
				n := min(blockJobs, cfg.Jobs-first)
				stream.Reset(cfg.Generator.New(cfg.Seed, uint64(b)))
				sums[w][s].Add(RunJobs(cfg.Scenario, cfg.Strategies[s], stream, n))
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := make([]results.Counters, len(cfg.Strategies))
	for _, ws := range sums {
		for s := range total {
			total[s].Add(ws[s])
		}
	}
	return total, nil
}

// RunJobs runs n jobs one after another through strat, drawing from stream,
// and returns their counters. It is the sequential core that Run spreads over
// workers, exposed for benchmarks and for users who bring their own streams.
//
// A Straight strategy's clean jobs (every draw at or above its cut, so nothing
// fails and nothing is repeated) are settled from their draws without running
// the strategy: they take the same draws and add the same counters, and at the
// article's rates they are nine jobs in ten.
func RunJobs(sc provider.Scenario, strat strategy.Strategy, stream *rng.Stream, n int64) results.Counters {
	j := provider.NewJob(sc, stream)
	c := results.Counters{Jobs: n}
	_, straight := strat.(strategy.Straight)
	cuts := j.Clean()
	k := len(cuts)
	cuts = cuts[:k:k]
	var clean int64
	for range n {
		if straight {
			d := stream.Peek(k)[:k:k]
			var event uint64
			for i := range d {
				_, below := bits.Sub64(d[i], cuts[i], 0)
				event |= below
			}
			if event == 0 {
				stream.Skip(k)
				clean++
				continue
			}
		}
		j.Reset()
		if !strat.Run(j) {
			c.Failed++
		}
		calls, repeated := j.Calls(), j.Repeated()
		c.Calls += calls
		c.CallsSq.Add(uint64(calls * calls))
		c.RepeatedSteps += repeated
		c.RepeatedSq.Add(uint64(repeated * repeated))
		if j.WatchedTwice() {
			c.DuplicateUsers++
		}
	}
	steps := int64(j.Steps())
	c.Calls += clean * steps
	c.CallsSq.Add(uint64(clean * steps * steps))
	return c
}
