package sim

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Run simulates cfg and returns one Counters a strategy.
func Run(ctx context.Context, cfg Config) ([]stats.Counters, error) {
	out, err := RunAll(ctx, []Config{cfg}, cfg.Workers, nil)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// RunJobs runs n jobs one after another through strat, drawing from stream; a panic of strat
// panics again, as a *schema.PanicError.
func RunJobs(sc provider.Scenario, strat strategy.Strategy, stream *rng.Stream, n int64) stats.Counters {
	var c stats.Counters
	if err := runJobs(context.Background(), &c, jobsim.New(sc, stream), strat, stream, n, sc.Watched[0].Step, 0); err != nil {
		panic(err)
	}
	return c
}

// opaque hides a strategy's Straight marker, so the engine runs every job.
type opaque struct{ strategy.Strategy }

func defaultStrategies(t testing.TB, attempts int) []strategy.Strategy {
	var out []strategy.Strategy
	for _, id := range strategy.DefaultIDs() {
		s, err := strategy.Parse(id, attempts)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// Settling clean jobs from their draws is an optimisation, not a model change:
// the counters equal those of running every job, on every generator.
func TestCleanJobsSettledExactly(t *testing.T) {
	for _, g := range rng.Generators() {
		for _, pt := range []struct{ p, l float64 }{{0.01, 0.005}, {0.2, 0.3}, {0, 0}, {1, 1}} {
			sc := provider.Signup(pt.p, pt.l)
			for _, s := range defaultStrategies(t, 3) {
				fast := RunJobs(sc, s, rng.NewStream(g.New(3, 0)), 20_000)
				slow := RunJobs(sc, opaque{s}, rng.NewStream(g.New(3, 0)), 20_000)
				if fast != slow {
					t.Errorf("%s p=%v l=%v %s: settled %+v; run %+v", g.Name, pt.p, pt.l, s.Name(), fast, slow)
				}
			}
		}
	}
}

func TestSameCountersWhateverTheWorkers(t *testing.T) {
	timed := provider.Signup(0.05, 0.02)
	for i := range timed.Steps {
		timed.Steps[i].Latency = provider.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	}
	settled, queue := delivery.Defaults(), delivery.Defaults()
	queue.Store, queue.RepeatP, queue.CrashP, queue.CrashAt = delivery.Claim, 0.01, 0.001, delivery.AfterKey
	for _, g := range rng.Generators() {
		for _, c := range []struct {
			name string
			sc   provider.Scenario
			q    *delivery.Config
		}{{"Part 5 model", provider.Signup(0.05, 0.02), nil}, {"lognormal latencies", timed, &settled}, {"queue", timed, &queue}} {
			cfg := Config{
				Scenario:   c.sc,
				Strategies: defaultStrategies(t, 3),
				Jobs:       3*BlockJobs + 123,
				Seed:       11,
				Generator:  g,
				Workers:    1,
				Delivery:   c.q,
			}
			want, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []int{2, 7, 64} {
				cfg.Workers = w
				got, err := Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%s, %s, %d workers, %s: %+v; with 1 worker %+v", c.name, g.Name, w, strategy.DefaultIDs()[i], got[i], want[i])
					}
				}
			}
		}
	}
}

// A run allocates per block, never per job: 64 times the jobs may not cost
// anywhere near 64 times the bytes.
func TestMemoryFlatInJobs(t *testing.T) {
	timed := provider.Signup(0.01, 0.005)
	for i := range timed.Steps {
		timed.Steps[i].Latency = provider.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	}
	q := delivery.Defaults()
	for _, c := range []struct {
		name string
		sc   provider.Scenario
		q    *delivery.Config
	}{{"Part 5 model", provider.Signup(0.01, 0.005), nil}, {"lognormal latencies", timed, &q}} {
		alloc := func(jobs int64) uint64 {
			cfg := Config{
				Scenario:   c.sc,
				Strategies: defaultStrategies(t, 3),
				Jobs:       jobs,
				Seed:       1,
				Generator:  rng.PCGGenerator(),
				Workers:    2,
				Delivery:   c.q,
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := Run(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		// What the jobs past the first block add, the run's fixed cost (its
		// counters, 90 KB a strategy with their histograms) left out.
		small, large := alloc(1<<16), alloc(1<<22)
		if perJob := (float64(large) - float64(small)) / (1<<22 - 1<<16); perJob > 0.1 {
			t.Errorf("%s: %d jobs allocated %d bytes, %d more than 65536 jobs (%.2f a job); want well under a byte a job", c.name, 1<<22, large, large-small, perJob)
		}
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	good := Config{
		Scenario:   provider.Signup(0.01, 0.005),
		Strategies: defaultStrategies(t, 3),
		Jobs:       10,
		Generator:  rng.PCGGenerator(),
	}
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"zero jobs", func(c *Config) { c.Jobs = 0 }, "jobs: 0 is not a whole number from 1 to 1000000000000"},
		{"too many jobs", func(c *Config) { c.Jobs = MaxJobs + 1 }, "jobs: 1000000000001 is not a whole number from 1 to"},
		{"no strategies", func(c *Config) { c.Strategies = nil }, "strategies: none given"},
		{"bad probability", func(c *Config) { c.Scenario.Steps[2].PFail = 1.5 }, "steps[2].p_fail: 1.5 is not a probability in [0, 1]"},
		{"no steps", func(c *Config) { c.Scenario.Steps = nil }, "steps: a scenario needs at least one step"},
		{"watched step missing", func(c *Config) { c.Scenario.Watched = []provider.Watch{{Step: 10}} }, "watched[0]: step 10 does not exist (there are 10 steps)"},
		{"no watched step", func(c *Config) { c.Scenario.Watched = nil }, "watched: no step is watched"},
		{"a step watched twice", func(c *Config) { c.Scenario.Watched = []provider.Watch{{Step: 6}, {Step: 6}} }, "watched[1]: step 6 is also watched[0]"},
		// The skip engine forces a job's first event and resumes the
		// strategy there; it used to run a strategy that cannot resume with
		// the plain engine while the title said "skip engine".
		{"skip with a strategy that cannot resume", func(c *Config) {
			c.Engine, c.Strategies = Skip, []strategy.Strategy{c.Strategies[0], opaque{c.Strategies[1]}}
		}, `engine: skip runs only strategies that call each step once until a call fails (strategy.Straight), not "Retry each step, new key on every call"; use plain`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			cfg.Scenario = provider.Signup(0.01, 0.005)
			tt.edit(&cfg)
			_, err := Run(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run() error = %v; want one containing %q", err, tt.want)
			}
		})
	}
}

// Auto asked for with a strategy the skip engine cannot run draws every
// strategy with the plain engine, and says so.
func TestAutoWithoutStraightIsPlain(t *testing.T) {
	cfg := Config{Scenario: provider.Signup(0.01, 0.005), Jobs: 100_000, Seed: 4, Generator: rng.PCGGenerator()}
	cfg.Strategies = append(defaultStrategies(t, 3), opaque{defaultStrategies(t, 3)[0]})
	if got := cfg.EngineUsed(); got != Plain {
		t.Fatalf("EngineUsed() = %v; want plain", got)
	}
	auto, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Engine = Plain
	plain, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range auto {
		if auto[i] != plain[i] {
			t.Errorf("strategy %d: auto %+v, plain %+v", i, auto[i], plain[i])
		}
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{
		Scenario:   provider.Signup(0.01, 0.005),
		Strategies: defaultStrategies(t, 3),
		Jobs:       MaxJobs,
		Generator:  rng.PCGGenerator(),
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run(cancelled) error = %v; want context.Canceled", err)
	}
}

// Configurations pooled in one RunAll give what each gives alone.
func TestRunAllEqualsSeparateRuns(t *testing.T) {
	var cfgs []Config
	for i, g := range rng.Generators() {
		cfgs = append(cfgs, Config{
			Scenario:   provider.Signup(0.01*float64(i+1), 0.02),
			Strategies: defaultStrategies(t, 2+i),
			Jobs:       int64(70_000 + 1000*i),
			Seed:       uint64(i),
			Generator:  g,
		})
	}
	var calls atomic.Int64
	all, err := RunAll(context.Background(), cfgs, 3, func(done, total int64) {
		for {
			old := calls.Load()
			if done <= old || calls.CompareAndSwap(old, done) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, cfg := range cfgs {
		alone, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for s := range alone {
			if all[k][s] != alone[s] {
				t.Errorf("config %d strategy %d: pooled %+v; alone %+v", k, s, all[k][s], alone[s])
			}
		}
	}
	if want := int64(5 * (2 + 2 + 1)); calls.Load() != want { // pcg and xexp: 2 blocks; mulberry32: 1
		t.Errorf("progress reached %d tasks; want %d", calls.Load(), want)
	}
}

// Counting clean jobs of the delivery model from their draws changes nothing,
// with fixed latencies and with random ones, some of which outlast the
// visibility timeout (their jobs' latencies, drawn ahead, go to the event loop).
func TestCleanDeliveriesSettledExactly(t *testing.T) {
	fixed, random := provider.Signup(0.05, 0.02), provider.Signup(0.05, 0.02)
	for i := range fixed.Steps {
		fixed.Steps[i].Latency = provider.Latency{Median: time.Duration(i+1) * 5 * time.Millisecond}
		if i%3 != 1 {
			random.Steps[i].Latency = provider.Latency{Median: 20 * time.Millisecond, P99: time.Duration(i+1) * 40 * time.Millisecond}
		}
	}
	for _, sc := range []provider.Scenario{fixed, random} {
		for _, store := range []delivery.Store{delivery.NoStore, delivery.After, delivery.Loose, delivery.Claim, delivery.Lease} {
			q := delivery.Defaults()
			q.Store = store
			q.Visibility = 400 * time.Millisecond
			q.Lease = 500 * time.Millisecond
			q.TTL = 350 * time.Millisecond
			checkSettled(t, Config{Scenario: sc, Strategies: defaultStrategies(t, 3), Jobs: 100_000, Seed: 3, Generator: rng.PCGGenerator(), Delivery: &q})
		}
	}
}

func checkSettled(t *testing.T, cfg Config) {
	t.Helper()
	fast, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	settleDeliveries = false
	defer func() { settleDeliveries = true }()
	slow, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for s := range fast {
		if fast[s] != slow[s] {
			t.Errorf("store %s, %s: settled and run differ: calls %d and %d, lost %d and %d", cfg.Delivery.Store, cfg.Strategies[s].Name(),
				fast[s].Calls, slow[s].Calls, fast[s].LostWork, slow[s].LostWork)
		}
	}
}

// A job of one call that never fails completes in exactly its latency, so the
// completion quantiles are the latency's own: a lognormal's median and p99
// as given, within a factor 10^(1/20) (the sampling error of 200,000 draws'
// p99 is about 1%), and for fixed latencies their sum, within a histogram
// bucket (hist.QuantileError), for every generator, the 32-bit one
// included.
func TestCompletionQuantilesAreTheLatencies(t *testing.T) {
	one := provider.Signup(0, 0)
	one.Steps, one.Watched = one.Steps[:1], []provider.Watch{{Step: 0}}
	one.Steps[0].Latency = provider.Latency{Median: 50 * time.Millisecond, P99: 400 * time.Millisecond}
	fixed := provider.Signup(0, 0)
	for i := range fixed.Steps {
		fixed.Steps[i].Latency = provider.Latency{Median: time.Duration(i+1) * 10 * time.Millisecond}
	}
	s, _ := strategy.Parse("step-nokey", 3)
	for _, g := range rng.Generators() {
		for _, c := range []struct {
			sc       provider.Scenario
			p50, p99 time.Duration
			within   float64
		}{{one, 50 * time.Millisecond, 400 * time.Millisecond, math.Pow(10, 1.0/20)}, {fixed, 550 * time.Millisecond, 550 * time.Millisecond, 1 + hist.QuantileError}} {
			q := delivery.Defaults()
			got, err := Run(context.Background(), Config{Scenario: c.sc, Strategies: []strategy.Strategy{s}, Jobs: 200_000, Seed: 4, Generator: g, Delivery: &q})
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []struct {
				p float64
				d time.Duration
			}{{0.5, c.p50}, {0.99, c.p99}} {
				q, w := got[0].Completion.QuantileSeconds(want.p), want.d.Seconds()
				if q < w/c.within || q > w*c.within {
					t.Errorf("%s, %d steps: completion p%v %.4f s, want %.4f s within a bucket", g.Name, len(c.sc.Steps), 100*want.p, q, w)
				}
			}
		}
	}
}

// Lost work counts the jobs that succeeded with a step whose key says done
// and whose work never ran, never a failed job. Two claim-store runs of one
// step failing with p show both sides. Retried per step with one attempt, a
// job succeeds only if its one call did, which leaves its key with its work:
// no lost work, and a failed job's claim without work is counted in failed
// alone. Retried as a whole job, a failed first call leaves its claim, and
// the next pass finds the key, skips the step and acks: the job succeeds with
// its work lost, with probability p, and no job fails. The binomial count is
// held to within 4.5 standard deviations: a false failure about once in
// 150,000 runs.
func TestLostWorkCountsSucceededJobsOnly(t *testing.T) {
	const (
		p    = 0.1
		jobs = 20_000
	)
	sc := provider.Signup(0, 0)
	sc.Steps, sc.Watched = sc.Steps[:1], []provider.Watch{{Step: 0}}
	sc.Steps[0].PFail, sc.Steps[0].Latency = p, provider.Latency{Median: time.Millisecond}
	q := delivery.Defaults()
	q.Store = delivery.Claim
	each := strategy.Retry{Scope: strategy.EachStep, Attempts: 1}
	whole := strategy.Retry{Scope: strategy.WholeJob, Attempts: 3, Keys: schema.SameKey}
	got, err := Run(context.Background(), Config{Scenario: sc, Strategies: []strategy.Strategy{each, whole}, Jobs: jobs, Seed: 5,
		Generator: rng.PCGGenerator(), Delivery: &q})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].LostWork != 0 || got[0].Failed == 0 {
		t.Errorf("each step, 1 attempt: %d failed, %d lost; want some failed and 0 lost", got[0].Failed, got[0].LostWork)
	}
	sd := math.Sqrt(jobs * p * (1 - p))
	if got[1].Failed != 0 || math.Abs(float64(got[1].LostWork)-jobs*p) > 4.5*sd {
		t.Errorf("whole job: %d failed, %d lost; want 0 failed and %.0f ± 4.5 × %.1f lost", got[1].Failed, got[1].LostWork, jobs*p, sd)
	}
}
