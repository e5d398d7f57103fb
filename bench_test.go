package retrysim_test

// Benchmarks of the engine against the random-number floor. Run with
//
//	go test -run '^$' -bench . -count 5 | tee bench.txt; benchstat bench.txt
//
// BenchmarkTable simulates the article's five rows on one core; BenchmarkBare
// draws the same number of random numbers from the bare generator and nothing
// else. Both report ns/draw, so the cost of simulation over the floor is the
// ratio of the two, and BenchmarkTable reports that ratio as x-bare.

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

const benchJobs = 1_000_000

func defaults(b *testing.B) []strategy.Strategy {
	var out []strategy.Strategy
	for _, id := range strategy.DefaultIDs() {
		s, err := strategy.Parse(id, 3)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// runTable runs every strategy over benchJobs jobs on one worker, each on one
// stream of g as a run does for mulberry32, and returns the draws it took.
func runTable(g rng.Generator, strats []strategy.Strategy) (calls, draws int64) {
	for _, s := range strats {
		c, n := runJobs(g, s)
		calls += c.Calls
		draws += n
	}
	return calls, draws
}

// counted is a Source that counts the draws it makes.
type counted struct {
	rng.Source
	made int64
}

func (c *counted) Fill(dst []uint64) { c.Source.Fill(dst); c.made += int64(len(dst)) }

// runJobs runs benchJobs jobs one after another through s on the plain engine,
// on one worker and one stream of g seeded 1, and returns the counters and the
// draws the stream made (those it took, and at most a buffer more).
func runJobs(g rng.Generator, s strategy.Strategy) (stats.Counters, int64) {
	src := &counted{Source: g.New(1, 0)}
	one := rng.Generator{Name: g.Name, Sequential: true, New: func(uint64, uint64) rng.Source { return src }}
	cfg := sim.Config{Scenario: provider.Signup(0.01, 0.005), Strategies: []strategy.Strategy{s}, Jobs: benchJobs,
		Seed: 1, Generator: one, Engine: sim.Plain}
	c, err := sim.RunAll(context.Background(), []sim.Config{cfg}, 1, nil)
	if err != nil {
		panic(err)
	}
	return c[0][0], src.made
}

// bareDraws takes n draws from a fresh generator and returns a value that
// depends on all of them, so the compiler keeps the work.
func bareDraws(g rng.Generator, n int64) uint64 {
	stream := rng.NewStream(g.New(1, 0))
	var x uint64
	for range n {
		x ^= stream.Next()
	}
	return x
}

func BenchmarkTable(b *testing.B) {
	for _, g := range rng.Generators() {
		b.Run(g.Name, func(b *testing.B) {
			strats := defaults(b)
			b.ReportAllocs()
			var calls, draws int64
			var simTime time.Duration
			for b.Loop() {
				start := time.Now()
				calls, draws = runTable(g, strats)
				simTime += time.Since(start)
			}
			// The floor, measured in this same run on the same draws count.
			start := time.Now()
			sink = bareDraws(g, draws)
			bare := time.Since(start)
			n := float64(b.N)
			b.ReportMetric(float64(simTime.Nanoseconds())/n/float64(calls), "ns/call")
			b.ReportMetric(float64(simTime.Nanoseconds())/n/float64(draws), "ns/draw")
			b.ReportMetric(float64(len(strats)*benchJobs)*n/simTime.Seconds(), "jobs/s")
			b.ReportMetric(float64(simTime)/n/float64(bare), "x-bare")
			b.ReportMetric(float64(draws), "draws")
		})
	}
}

var sink uint64

func BenchmarkBare(b *testing.B) {
	for _, g := range rng.Generators() {
		b.Run(g.Name, func(b *testing.B) {
			_, draws := runTable(g, defaults(b))
			b.ReportAllocs()
			for b.Loop() {
				sink = bareDraws(g, draws)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(draws), "ns/draw")
		})
	}
}

// BenchmarkStrategy runs each default strategy alone over benchJobs jobs.
func BenchmarkStrategy(b *testing.B) {
	for i, s := range defaults(b) {
		b.Run(strategy.DefaultIDs()[i], func(b *testing.B) {
			b.ReportAllocs()
			var c stats.Counters
			for b.Loop() {
				c, _ = runJobs(rng.Mulberry32Generator(), s)
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(ns/float64(c.Calls), "ns/call")
			b.ReportMetric(benchJobs/(ns/1e9), "jobs/s")
		})
	}
}

// BenchmarkRun is the whole engine with all its workers, as the command runs it.
func BenchmarkRun(b *testing.B) {
	for _, g := range rng.Generators() {
		b.Run(g.Name, func(b *testing.B) {
			cfg := sim.Config{
				Scenario:   provider.Signup(0.01, 0.005),
				Strategies: defaults(b),
				Jobs:       benchJobs,
				Seed:       1,
				Generator:  g,
			}
			for b.Loop() {
				if _, err := sim.RunAll(context.Background(), []sim.Config{cfg}, cfg.Workers, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(cfg.Strategies)*benchJobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}

// BenchmarkSweep runs 15 points x 5 strategies x 1,000,000 jobs on every core,
// with each engine. x-15-tables is its wall time over (15 x the article's
// table on one core) / cores; x-ideal is over (the 15 points each alone on one
// core) / cores, which allows for points with more failures costing more (far
// more with the skip engine, whose cost follows the failure rate). 1 means
// every core busy.
func BenchmarkSweep(b *testing.B) {
	for _, engine := range []sim.Engine{sim.Plain, sim.Skip} {
		b.Run(engine.String(), func(b *testing.B) {
			var cfgs []sim.Config
			for _, p := range []float64{0.001, 0.005, 0.01, 0.02, 0.05} {
				for _, l := range []float64{0, 0.005, 0.02} {
					cfgs = append(cfgs, sim.Config{
						Scenario:   provider.Signup(p, l),
						Strategies: defaults(b),
						Jobs:       benchJobs,
						Seed:       1,
						Generator:  rng.PCGGenerator(),
						Engine:     engine,
					})
				}
			}
			cores := runtime.GOMAXPROCS(0)
			for b.Loop() {
				if _, err := sim.RunAll(context.Background(), cfgs, cores, nil); err != nil {
					b.Fatal(err)
				}
			}
			sweep := b.Elapsed() / time.Duration(b.N)
			b.StopTimer()
			// The same points one at a time on one core: the work the sweep spreads.
			var alone, article time.Duration
			for i := range cfgs {
				start := time.Now()
				if _, err := sim.RunAll(context.Background(), cfgs[i:i+1], 1, nil); err != nil {
					b.Fatal(err)
				}
				alone += time.Since(start)
				if i == 7 { // p-fail 0.01, lost-reply 0.005: the article's table
					article = time.Since(start)
				}
			}
			b.ReportMetric(sweep.Seconds(), "s/sweep")
			b.ReportMetric(article.Seconds(), "s/table-1-core")
			b.ReportMetric(float64(sweep)/(float64(len(cfgs))*float64(article)/float64(cores)), "x-15-tables")
			b.ReportMetric(float64(sweep)/(float64(alone)/float64(cores)), "x-ideal")
		})
	}
}

// BenchmarkEngine runs each default strategy over 10,000,000 jobs on one core
// with each engine (pcg, the article's rates), reporting jobs/s; skip-x-plain
// is the skip engine's speed over the plain engine's, measured in the same run.
func BenchmarkEngine(b *testing.B) {
	const jobs = 10_000_000
	for i, s := range defaults(b) {
		b.Run(strategy.DefaultIDs()[i], func(b *testing.B) {
			run := func(e sim.Engine) time.Duration {
				start := time.Now()
				cfg := sim.Config{Scenario: provider.Signup(0.01, 0.005), Strategies: []strategy.Strategy{s},
					Jobs: jobs, Seed: 1, Generator: rng.PCGGenerator(), Engine: e}
				if _, err := sim.RunAll(context.Background(), []sim.Config{cfg}, 1, nil); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			var skip time.Duration
			for b.Loop() {
				skip += run(sim.Skip)
			}
			b.StopTimer()
			plain := run(sim.Plain)
			perRun := skip / time.Duration(b.N)
			b.ReportMetric(jobs/perRun.Seconds(), "skip-jobs/s")
			b.ReportMetric(jobs/plain.Seconds(), "plain-jobs/s")
			b.ReportMetric(float64(plain)/float64(perRun), "skip-x-plain")
		})
	}
}

// BenchmarkTimeModel measures what virtual time costs a job, with the default
// full-jitter backoff, against the same run with no time: with every call
// taking 20 ms, or a lognormal of median 20 ms and p99 200 ms, or the
// latencies of examples/signup-queue.yaml (four lognormal, six fixed).
// "part5" runs time only, against the Part 5 model's plain engine; "queue"
// runs the delivery model (1% repeated requests, a claim store) with and
// without time. x-no-time is the ratio.
func BenchmarkTimeModel(b *testing.B) {
	const jobs = 1_000_000
	example, err := scenario.Load("examples/signup-queue.yaml")
	if err != nil {
		b.Fatal(err)
	}
	fixed := provider.Latency{Median: 20 * time.Millisecond}
	lognormal := provider.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	for _, lat := range []struct {
		name string
		of   func(step int) provider.Latency
	}{
		{fixed.String(), func(int) provider.Latency { return fixed }},
		{lognormal.String(), func(int) provider.Latency { return lognormal }},
		{"signup-queue.yaml", func(i int) provider.Latency { return example.Scenario.Steps[i].Latency }},
	} {
		for _, model := range []string{"part5", "queue"} {
			for _, id := range []string{"step-nokey", "job-samekey-skip"} {
				b.Run(lat.name+"/"+model+"/"+id, func(b *testing.B) {
					s, _ := strategy.Parse(id, 3)
					base := sim.Config{Scenario: provider.Signup(0.01, 0.005), Strategies: []strategy.Strategy{s},
						Jobs: jobs, Seed: 1, Generator: rng.PCGGenerator(), Engine: sim.Plain}
					if model == "queue" {
						q := delivery.Defaults()
						q.RepeatP, q.Store = 0.01, delivery.Claim
						base.Delivery = &q
					}
					timed := base
					timed.Scenario = provider.Signup(0.01, 0.005)
					for i := range timed.Scenario.Steps {
						timed.Scenario.Steps[i].Latency = lat.of(i)
					}
					if timed.Delivery == nil {
						q := delivery.Defaults()
						timed.Delivery = &q
					}
					run := func(cfg sim.Config) time.Duration {
						start := time.Now()
						if _, err := sim.RunAll(context.Background(), []sim.Config{cfg}, 1, nil); err != nil {
							b.Fatal(err)
						}
						return time.Since(start)
					}
					// Each iteration runs both, so the ratio compares runs
					// made under the same load.
					var on, off time.Duration
					for b.Loop() {
						on += run(timed)
						off += run(base)
					}
					n := float64(b.N) * jobs
					b.ReportMetric(float64(on.Nanoseconds())/n, "ns/job")
					b.ReportMetric(float64(off.Nanoseconds())/n, "ns/job-no-time")
					b.ReportMetric(float64(on)/float64(off), "x-no-time")
				})
			}
		}
	}
}

// BenchmarkDeliverySkip runs examples/signup-queue.yaml (requests repeated 1%,
// crashes 0.1%) through step-samekey over 1,000,000 jobs on one core, as
// `retrysim -scenario examples/signup-queue.yaml -jobs 1e6 -strategies
// step-samekey -workers 1` does, and reports its jobs a CPU second with the
// skip engine (the default there) and, once after the runs, with the plain
// engine, which runs every job: x-plain is the ratio of their CPU time a job,
// in the same process.
func BenchmarkDeliverySkip(b *testing.B) {
	const jobs = 1_000_000
	example, err := scenario.Load("examples/signup-queue.yaml")
	if err != nil {
		b.Fatal(err)
	}
	s, _ := strategy.Parse("step-samekey", 3)
	cfg := sim.Config{Scenario: example.Scenario, Strategies: []strategy.Strategy{s}, Jobs: jobs, Seed: 1,
		Generator: rng.PCGGenerator(), Delivery: example.Queue}
	run := func(e sim.Engine) float64 {
		cfg.Engine = e
		start := cpuSeconds()
		if _, err := sim.RunAll(context.Background(), []sim.Config{cfg}, 1, nil); err != nil {
			b.Fatal(err)
		}
		return cpuSeconds() - start
	}
	var skip float64
	for b.Loop() {
		skip += run(sim.Auto)
	}
	b.StopTimer()
	plain := run(sim.Plain)
	perRun := skip / float64(b.N)
	b.ReportMetric(jobs/perRun, "jobs/cpu-s")
	b.ReportMetric(jobs/plain, "plain-jobs/cpu-s")
	b.ReportMetric(plain/perRun, "x-plain")
}

// cpuSeconds is the process's user and system CPU time, in seconds: on a
// machine shared with other work, the wall clock counts their time too.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
