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
	"slices"
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
	out, err := RunAll(ctx, []Config{cfg}, cfg.Workers, nil)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// check reports the first thing wrong with cfg.
func (cfg Config) check() error {
	if err := cfg.Scenario.Validate(); err != nil {
		return err
	}
	if cfg.Jobs < 1 || cfg.Jobs > MaxJobs {
		return fmt.Errorf("jobs: %d is not in [1, %d]", cfg.Jobs, int64(MaxJobs))
	}
	if len(cfg.Strategies) == 0 {
		return errors.New("strategies: none given")
	}
	if cfg.Generator.New == nil {
		return errors.New("generator: none given")
	}
	return nil
}

// blocks returns how many streams cfg's jobs use and how many jobs each holds.
func (cfg Config) blocks() (blocks, jobsEach int64) {
	if cfg.Generator.Sequential {
		return 1, cfg.Jobs
	}
	return (cfg.Jobs + BlockJobs - 1) / BlockJobs, BlockJobs
}

// RunAll runs several configurations as one pool of (config, strategy, block)
// tasks over workers (0 means GOMAXPROCS), so that small runs, replicates and
// sweep points keep every core busy together. progress, if not nil, is called
// from the workers after each task with the tasks done and the total.
func RunAll(ctx context.Context, cfgs []Config, workers int, progress func(done, total int64)) ([][]results.Counters, error) {
	first := make([]int64, len(cfgs)+1) // first[k] is config k's first task
	for k, cfg := range cfgs {
		if err := cfg.check(); err != nil {
			return nil, err
		}
		blocks, _ := cfg.blocks()
		first[k+1] = first[k] + blocks*int64(len(cfg.Strategies))
	}
	tasks := first[len(cfgs)]
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = int(min(int64(workers), tasks))

	total := make([][]results.Counters, len(cfgs))
	for k, cfg := range cfgs {
		total[k] = make([]results.Counters, len(cfg.Strategies))
	}
	var mu sync.Mutex // guards total; a task is at least a block of jobs, so it is rarely contended
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			stream := new(rng.Stream)
			jobs := map[int]*provider.Job{} // by config: a Job's state is reused across its blocks
			for ctx.Err() == nil {
				t := next.Add(1) - 1
				if t >= tasks {
					return
				}
				k, _ := slices.BinarySearch(first, t+1)
				k--
				cfg := cfgs[k]
				local := t - first[k]
				s, b := local%int64(len(cfg.Strategies)), local/int64(len(cfg.Strategies))
				_, jobsEach := cfg.blocks()
				n := min(jobsEach, cfg.Jobs-b*jobsEach)
				stream.Reset(cfg.Generator.New(cfg.Seed, uint64(b)))
				j := jobs[k]
				if j == nil {
					j = provider.NewJob(cfg.Scenario, stream)
					jobs[k] = j
				}
				c := runJobs(j, cfg.Strategies[s], stream, n)
				mu.Lock()
				total[k][s].Add(c)
				mu.Unlock()
				if progress != nil {
					progress(done.Add(1), tasks)
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
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
// article's rates they are nine jobs in ten. The others resume at the step of
// their first event, their clean start settled the same way.
func RunJobs(sc provider.Scenario, strat strategy.Strategy, stream *rng.Stream, n int64) results.Counters {
	return runJobs(provider.NewJob(sc, stream), strat, stream, n)
}

// runJobs is RunJobs on a Job already bound to stream.
func runJobs(j *provider.Job, strat strategy.Strategy, stream *rng.Stream, n int64) results.Counters {
	c := results.Counters{Jobs: n}
	straight, isStraight := strat.(strategy.Straight)
	cuts := j.Clean()
	k := len(cuts)
	cuts = cuts[:k:k]
	var clean int64
	for range n {
		if !isStraight {
			j.Reset()
			if !strat.Run(j) {
				c.Failed++
			}
		} else {
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
			first := 0
			for d[first] >= cuts[first] {
				first++
			}
			j.Reset()
			if !straight.Resume(j, j.Settle(first)) {
				c.Failed++
			}
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
