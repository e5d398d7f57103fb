// Package sim is the engine: it runs N jobs of a scenario through each strategy and sums integer
// counters, owning parallelism and determinism; what a call does is package provider's, how a
// delivery retries package strategy's.
//
// Jobs are cut into blocks of BlockJobs, each with its own random stream from (seed, block), and
// every strategy sees the same streams (common random numbers). Workers take (configuration,
// strategy, block) tasks in any order; integer sums do not depend on the number of workers, and
// shards add up to the whole. A sequential generator (mulberry32) has one stream a run.
//
// A block runs on the plain engine (every draw), the skip engine (skip.go: only jobs in which something
// happens), or the delivery model in virtual time. Memory does not grow with the number of jobs.
package sim

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/queue"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/scenariocheck"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// BlockJobs is the number of jobs that share one random stream; changing it changes what a pcg or
// xexp seed means.
const BlockJobs = 1 << 16

// MaxJobs bounds a run so that no counter can overflow.
const MaxJobs = limits.MaxJobs

// MaxAttempts bounds a strategy's attempts, and a step's own.
const MaxAttempts = limits.MaxAttempts

// checkEvery is how much work, in jobs and calls, a worker does between looks at its context: well
// under a millisecond.
const checkEvery = 1 << 12

// Config is one run.
type Config struct {
	Scenario   provider.Scenario
	Strategies []strategy.Strategy
	Jobs       int64
	Seed       uint64
	Generator  rng.Generator
	// Workers is how many goroutines run tasks; 0 means GOMAXPROCS.
	Workers int
	// Engine is how jobs are drawn; the zero value picks the fastest allowed.
	Engine Engine
	// Shard, when Count > 1, runs only slice Index of Count equal slices of the blocks.
	Shard Shard
	// Delivery, when set, runs every job through package delivery.
	Delivery *delivery.Config
}

// EngineUsed is the engine the run draws with: Engine resolved for the generator, and plain for
// Auto when a strategy has no fast path or a delivery run neither repeats nor crashes (whose clean
// jobs plain already settles).
func (cfg Config) EngineUsed() Engine {
	if cfg.Engine == Auto && (slices.ContainsFunc(cfg.Strategies, crooked) || cfg.Delivery != nil && cfg.Delivery.RepeatP == 0 && cfg.Delivery.CrashP == 0) {
		return Plain
	}
	return cfg.Engine.Resolve(cfg.Generator)
}

// crooked reports whether s has no fast path.
func crooked(s strategy.Strategy) bool { return queue.ResumeOf(s) == nil }

// Shard names slice Index (from 0) of Count.
type Shard struct {
	Index, Count int
}

// check reports the first thing wrong with cfg.
func (cfg Config) check() error {
	if err := scenariocheck.Scenario(cfg.Scenario); err != nil {
		return err
	}
	if err := CheckJobs(cfg.Jobs); err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	if len(cfg.Strategies) == 0 {
		return errors.New("strategies: none given")
	}
	if cfg.Generator.New == nil {
		return errors.New("generator: none given")
	}
	if cfg.Engine == Skip && cfg.Generator.Sequential {
		return fmt.Errorf("engine: skip cannot replay %s's single stream draw by draw; use plain", cfg.Generator.Name)
	}
	if i := slices.IndexFunc(cfg.Strategies, crooked); cfg.Engine == Skip && i >= 0 {
		return fmt.Errorf("engine: skip runs only strategies that call each step once until a call fails (strategy.Straight), not %q; use plain", cfg.Strategies[i].Name())
	}
	if cfg.Delivery != nil {
		if err := cfg.Delivery.Check(); err != nil {
			return err
		}
	}
	if sh := cfg.Shard; sh.Count > 1 || sh.Index != 0 {
		if err := sh.Check(); err != nil {
			return fmt.Errorf("shard: %w", err)
		}
		if cfg.Generator.Sequential {
			return fmt.Errorf("shard: %s has one stream for all jobs, so its runs cannot be split", cfg.Generator.Name)
		}
	}
	return nil
}

// blocks returns the first and end block of cfg's slice, and the jobs a block holds.
func (cfg Config) blocks() (first, end, jobsEach int64) {
	if cfg.Generator.Sequential {
		return 0, 1, cfg.Jobs
	}
	all := (cfg.Jobs + BlockJobs - 1) / BlockJobs
	if cfg.Shard.Count > 1 {
		n, i := int64(cfg.Shard.Count), int64(cfg.Shard.Index)
		return i * all / n, (i + 1) * all / n, BlockJobs
	}
	return 0, all, BlockJobs
}

// ShardJobs is how many of cfg's jobs its shard runs.
func (cfg Config) ShardJobs() int64 {
	first, end, each := cfg.blocks()
	return max(0, min(end*each, cfg.Jobs)-first*each)
}

// RunAll runs several configurations as one pool of tasks over workers (0: GOMAXPROCS), calling
// progress, if not nil, after each task. A strategy's panic stops the run with the first task's
// *schema.PanicError; once ctx is done, a strategy other than strategy.Retry is unwound
// (strategy.ErrStopped).
func RunAll(ctx context.Context, cfgs []Config, workers int, progress func(done, total int64)) ([][]stats.Counters, error) {
	total := make([][]stats.Counters, len(cfgs))
	err := RunEach(ctx, cfgs, workers, progress, func(k int, c []stats.Counters) { total[k] = slices.Clone(c) })
	if err != nil {
		return nil, err
	}
	return total, nil
}

// RunEach is RunAll handing each configuration's counters to finish as its last task is done, one
// call at a time, and keeping nothing of it after; the counters are reused once finish returns, so
// finish copies what it keeps.
func RunEach(ctx context.Context, cfgs []Config, workers int, progress func(done, total int64), finish func(k int, c []stats.Counters)) error {
	first := make([]int64, len(cfgs)+1) // first[k] is config k's first task
	for k, cfg := range cfgs {
		if err := cfg.check(); err != nil {
			return err
		}
		b0, b1, _ := cfg.blocks()
		first[k+1] = first[k] + (b1-b0)*int64(len(cfg.Strategies))
	}
	tasks := first[len(cfgs)]
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	// failed is the earliest task's panic, failedAt that task; guarded by mu.
	var failed error
	failedAt := tasks
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = int(min(int64(workers), tasks))
	for k, cfg := range cfgs {
		if first[k+1] == first[k] { // an empty shard: no task will finish it
			finish(k, make([]stats.Counters, len(cfg.Strategies)))
		}
	}

	// open holds the configurations in progress; guarded by mu, rarely contended.
	type partial struct {
		c    []stats.Counters
		left int64
	}
	open := map[int]*partial{}
	var free [][]stats.Counters // counters finish has returned, to reuse
	var mu sync.Mutex
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			stream, lat := new(rng.Stream), new(rng.Stream)
			// Tasks come in order, so a worker never returns to a configuration it left.
			cur := -1
			var j *jobsim.Job
			var sk *skipper
			var runners []*queue.Runner // by strategy: a runner keeps nothing from job to job
			var skippers []*skipper     // by strategy, of its runner's Cuts, for the skip engine
			// c is the worker's own, zeroed once a block, not copied (89 KB).
			var c stats.Counters
			closeRunners := func() {
				for _, x := range runners {
					if x != nil {
						x.Close()
					}
				}
			}
			defer closeRunners()
			for ctx.Err() == nil {
				t := next.Add(1) - 1
				if t >= tasks {
					return
				}
				k, _ := slices.BinarySearch(first, t+1)
				k--
				cfg := cfgs[k]
				local := t - first[k]
				b0, _, jobsEach := cfg.blocks()
				s, b := local%int64(len(cfg.Strategies)), b0+local/int64(len(cfg.Strategies))
				n := min(jobsEach, cfg.Jobs-b*jobsEach)
				stream.Reset(cfg.Generator.New(cfg.Seed, uint64(b)))
				if k != cur {
					cur = k
					j = jobsim.New(cfg.Scenario, stream)
					sk = newSkipper(j.Clean())
					closeRunners()
					runners = make([]*queue.Runner, len(cfg.Strategies))
					skippers = make([]*skipper, len(cfg.Strategies))
				}
				var err error
				watched, job0 := cfg.Scenario.Watched[0].Step, b*jobsEach
				switch {
				case cfg.Delivery != nil:
					lat.Reset(cfg.Generator.New(rng.LatencySeed(cfg.Seed), uint64(b)))
					x := runners[s]
					if x == nil {
						x = queue.NewRunner(*cfg.Delivery, cfg.Strategies[s], cfg.Scenario, j, stream, lat)
						x.StopWhen(func() bool { return ctx.Err() != nil })
						runners[s] = x
					}
					if cfg.EngineUsed() == Skip {
						if skippers[s] == nil {
							skippers[s] = newSkipper(x.Cuts())
						}
						err = runJobsDeliverySkip(ctx, &c, x, j, skippers[s], stream, n, watched, job0)
					} else {
						err = runJobsDelivery(ctx, &c, x, j, stream, n, watched, job0)
					}
				case cfg.EngineUsed() == Skip: // every strategy has a fast path
					err = runJobsSkip(ctx, &c, j, sk, cfg.Strategies[s], stream, n, watched, job0)
				default:
					err = runJobs(ctx, &c, j, cfg.Strategies[s], stream, n, watched, job0)
				}
				if err != nil && err != strategy.ErrStopped {
					mu.Lock()
					if t < failedAt {
						failed, failedAt = err, t
					}
					mu.Unlock()
					stop()
					return
				}
				if ctx.Err() != nil {
					return // c may be a block's first jobs only: add nothing
				}
				mu.Lock()
				p := open[k]
				if p == nil {
					p = &partial{left: first[k+1] - first[k]}
					if n := len(free); n > 0 && cap(free[n-1]) >= len(cfg.Strategies) {
						p.c, free = free[n-1][:len(cfg.Strategies)], free[:n-1]
						clear(p.c)
					} else {
						p.c = make([]stats.Counters, len(cfg.Strategies))
					}
					open[k] = p
				}
				p.c[s].Add(&c)
				if p.left--; p.left == 0 {
					delete(open, k)
					finish(k, p.c)
					free = append(free, p.c)
				}
				mu.Unlock()
				if progress != nil {
					progress(done.Add(1), tasks)
				}
			}
		})
	}
	wg.Wait()
	if failed != nil {
		return failed
	}
	return ctx.Err()
}

// reset makes c zero but for Jobs n, clearing a histogram only when it counted something
// (TestResetZeroesEveryCounter).
func reset(c *stats.Counters, n int64) {
	c.Jobs, c.Failed, c.Calls, c.RepeatedSteps, c.DuplicateUsers = n, 0, 0, 0, 0
	c.CallsSq, c.RepeatedSq = stats.Wide{}, stats.Wide{}
	c.SideEffects, c.Deliveries, c.LostWork = 0, 0, 0
	c.RepeatedByStep, c.TwiceByStep = stats.StepCounts{}, stats.StepCounts{}
	if c.Completion.Count() != 0 {
		c.Completion = hist.Histogram{}
	}
	if c.FailedCompletion.Count() != 0 {
		c.FailedCompletion = hist.Histogram{}
	}
}

// recovered is the error a block returns for a strategy's panic v: strategy.ErrStopped as it is,
// else a *schema.PanicError naming s, the job and the step.
func recovered(v any, s strategy.Strategy, job int64, step int) error {
	if v == strategy.ErrStopped {
		return strategy.ErrStopped
	}
	e := &schema.PanicError{Kind: "strategy", Where: fmt.Sprintf("job %d at step %d", job, step), Value: v, Stack: debug.Stack()}
	func() {
		defer func() {
			if recover() != nil {
				e.Name = fmt.Sprintf("%T", s) // a Name that panics too
			}
		}()
		e.Name = s.Name()
	}()
	return e
}

// guard is the Calls any other strategy runs on: the Job's, each method unwinding a stopped run and
// recording the step for a schema.PanicError.
type guard struct {
	j    *jobsim.Job
	done <-chan struct{}
	step int
}

// check unwinds the strategy once the run is stopped.
func (g *guard) check() {
	select {
	case <-g.done:
		panic(strategy.ErrStopped)
	default:
	}
}

func (g *guard) Steps() int { g.check(); return g.j.Steps() }

func (g *guard) Retries() []provider.StepRetry { g.check(); return g.j.Retries() }

func (g *guard) Enter(i int) bool { g.check(); g.step = i; return g.j.Enter(i) }

func (g *guard) Guarded() bool { g.check(); return g.j.Guarded() }

func (g *guard) Call(i int, key provider.Key) provider.Reply {
	g.check()
	g.step = i
	return g.j.Call(i, key)
}

func (g *guard) FreshKey() provider.Key { g.check(); return g.j.FreshKey() }

func (g *guard) Backoff(i, n int) { g.check(); g.j.Backoff(i, n) }

// calls is the Calls s runs on over j, and its guard, nil for the built-in Retry.
func calls(ctx context.Context, j *jobsim.Job, s strategy.Strategy) (strategy.Calls, *guard) {
	switch s.(type) {
	case strategy.Retry, *strategy.Retry: // the built-in Retry ends on its own
		return j, nil
	}
	g := &guard{j: j, done: ctx.Done(), step: -1}
	return g, g
}

// stepOf is the step g records, -1 without a guard.
func (g *guard) stepOf() int {
	if g == nil {
		return -1
	}
	return g.step
}

// reset forgets the step of the last job, if there is a guard.
func (g *guard) reset() {
	if g != nil {
		g.step = -1
	}
}

// settleDeliveries lets runJobsDelivery count clean jobs without running them; tests turn it off.
var settleDeliveries = true

// anyBelow reports, branch-free, whether any draw of d falls below its cut: whether the job has an event.
func anyBelow(d, cuts []uint64) bool {
	d = d[:len(cuts)]
	var event uint64
	for i, cut := range cuts {
		_, below := bits.Sub64(d[i], cut, 0)
		event |= below
	}
	return event != 0
}

// runJobsDelivery runs n jobs through the delivery model, counting clean jobs from their draws
// where the runner allows it. Once ctx is done it returns within checkEvery jobs and calls, its
// counters meaningless; a strategy's panic is its error, job0 the block's first job.
func runJobsDelivery(ctx context.Context, c *stats.Counters, x *queue.Runner, j *jobsim.Job, stream *rng.Stream, n int64, watched int, job0 int64) (err error) {
	var job int64
	defer func() {
		if v := recover(); v != nil {
			err = recovered(v, x.Strategy(), job0+job, x.Step())
		}
	}()
	reset(c, n)
	settle := x.Settles() && settleDeliveries
	cuts := j.Clean()
	k := len(cuts)
	var clean, work int64
	// Clean jobs' completion times come in runs of one time, each counted in one AddN.
	var last time.Duration
	var same int64
	for ; job < n; job++ {
		if work++; work >= checkEvery {
			if ctx.Err() != nil {
				return nil
			}
			work = 0
		}
		var out queue.Outcome
		if settle {
			var counted bool
			if out, counted = settleJob(x, stream.Peek(k), cuts); counted {
				stream.Skip(k)
				clean++
				if out.Completion != last {
					c.Completion.AddN(last, same)
					last, same = out.Completion, 0
				}
				same++
				continue
			}
		} else {
			out = x.Run()
		}
		addDelivery(c, out, j, watched)
		work += j.Calls()
	}
	c.Completion.AddN(last, same)
	addClean(c, clean, int64(j.Steps()))
	c.Deliveries += clean
	return nil
}

// addDelivery counts a job of the delivery model that ran, with outcome out.
func addDelivery(c *stats.Counters, out queue.Outcome, j *jobsim.Job, watched int) {
	if out.Failed {
		c.Failed++
		c.FailedCompletion.Add(out.Completion)
	} else {
		c.Completion.Add(out.Completion)
	}
	addJob(c, j.Calls(), j.Repeated(), j.Effects(), j.DoneBySteps(), watched)
	c.Deliveries += int64(out.Deliveries)
	if out.Lost && !out.Failed { // a failed job counts in Failed, whatever its keys say
		c.LostWork++
	}
}

// settleJob counts a clean job that ends before the visibility timeout from its draws d (true), and
// resumes any other at its first event.
func settleJob(x *queue.Runner, d, cuts []uint64) (queue.Outcome, bool) {
	if !anyBelow(d, cuts) {
		if t, ok := x.Clean(); ok {
			return queue.Outcome{Deliveries: 1, Completion: t}, true
		}
		return x.Run(), false
	}
	first := 0
	for d[first] >= cuts[first] {
		first++
	}
	return x.RunFrom(first), false
}

// runJobs runs n jobs one after another through strat on a Job bound to stream, settling a
// Straight strategy's clean jobs from their draws, watched the step DuplicateUsers counts and job0
// the first job's index; once ctx is done it returns within checkEvery jobs and calls.
func runJobs(ctx context.Context, c *stats.Counters, j *jobsim.Job, strat strategy.Strategy, stream *rng.Stream, n int64, watched int, job0 int64) (err error) {
	var job int64
	cs, g := calls(ctx, j, strat)
	defer func() {
		if v := recover(); v != nil {
			err = recovered(v, strat, job0+job, g.stepOf())
		}
	}()
	reset(c, n)
	j.UseStore(strat.UsesStore())
	resume := queue.ResumeOf(strat)
	cuts := j.Clean()
	k := len(cuts)
	cuts = cuts[:k:k]
	var clean, work int64
	for ; job < n; job++ {
		if work++; work >= checkEvery {
			if ctx.Err() != nil {
				return nil
			}
			work = 0
		}
		if resume == nil {
			j.Reset()
			g.reset()
			if !strat.Run(cs) {
				c.Failed++
			}
		} else {
			d := stream.Peek(k)
			if !anyBelow(d, cuts) {
				stream.Skip(k)
				clean++
				continue
			}
			first := 0
			for d[first] >= cuts[first] {
				first++
			}
			j.Reset()
			g.reset()
			from, draws := j.Settle(first)
			stream.Skip(draws)
			if !resume(cs, from) {
				c.Failed++
			}
		}
		addJob(c, j.Calls(), j.Repeated(), j.Effects(), j.DoneBySteps(), watched)
		work += j.Calls()
	}
	addClean(c, clean, int64(j.Steps()))
	return nil
}

// addJob counts into c one finished job but its failure, done being how many times each step's side
// effect happened.
func addJob(c *stats.Counters, calls, repeated, effects int64, done []uint32, watched int) {
	c.SideEffects += effects
	c.Calls += calls
	c.CallsSq.Add(stats.Wide{Lo: uint64(calls * calls)})
	c.RepeatedSteps += repeated
	c.RepeatedSq.Add(stats.Wide{Lo: uint64(repeated * repeated)})
	if repeated == 0 { // no step did its work twice: nothing by step to count
		return
	}
	if done[watched] > 1 {
		c.DuplicateUsers++
	}
	for i, d := range done {
		if d > 1 {
			c.RepeatedByStep[i] += int64(d - 1)
			c.TwiceByStep[i]++
		}
	}
}

// addClean counts into c n clean jobs of steps steps.
func addClean(c *stats.Counters, n, steps int64) {
	c.Calls += n * steps
	c.CallsSq.Add(stats.Wide{Lo: uint64(n * steps * steps)})
	c.SideEffects += n * steps
}
