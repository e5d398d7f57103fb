package sim

import (
	"context"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/queue"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// doneAfter is a context that is cancelled from the n-th call of Err on: it
// says exactly how often the engine looked.
type doneAfter struct {
	context.Context
	n, looks int
}

func (c *doneAfter) Err() error {
	if c.looks++; c.looks >= c.n {
		return context.Canceled
	}
	return nil
}

// Each engine looks at its context inside a block, every checkEvery jobs and
// calls: cancelled at its second look, a block of 10^12 jobs of about 1,600
// calls each (years of work) returns after at most 2 x checkEvery jobs and
// calls, and the one job it is on (at most 10 steps x 1,000 attempts).
// Before, a block was looked at only before it started, and a sequential
// generator's run is one block.
func TestBlockStopsMidway(t *testing.T) {
	sc := provider.Signup(0.999, 0.005)
	step, err := strategy.Parse("step-nokey", MaxAttempts)
	if err != nil {
		t.Fatal(err)
	}
	const jobs = 1_000_000_000_000
	const most = 2*checkEvery + 10*MaxAttempts
	for _, tt := range []struct {
		name string
		run  func(ctx context.Context, stream *rng.Stream) stats.Counters
	}{
		{"plain straight", func(ctx context.Context, stream *rng.Stream) stats.Counters {
			var c stats.Counters
			runJobs(ctx, &c, jobsim.New(sc, stream), step, stream, jobs, 0, 0)
			return c
		}},
		{"plain opaque", func(ctx context.Context, stream *rng.Stream) stats.Counters {
			var c stats.Counters
			runJobs(ctx, &c, jobsim.New(sc, stream), opaque{step}, stream, jobs, 0, 0)
			return c
		}},
		{"skip", func(ctx context.Context, stream *rng.Stream) stats.Counters {
			j := jobsim.New(sc, stream)
			var c stats.Counters
			runJobsSkip(ctx, &c, j, newSkipper(j.Clean()), step, stream, jobs, 0, 0)
			return c
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := &doneAfter{Context: context.Background(), n: 2}
			c := tt.run(ctx, rng.NewStream(rng.PCGGenerator().New(1, 0)))
			if ctx.looks != 2 || c.Calls == 0 || c.Calls > most {
				t.Errorf("returned after %d looks and %d calls; want 2 looks and 1 to %d calls", ctx.looks, c.Calls, most)
			}
		})
	}
}

// The delivery model's block stops inside a job: with up to 1,000 deliveries
// of a job at once, each of up to 10 x 1,000 calls, a job takes tens of
// seconds, and 10^12 of them for ever; cancelled, the block returns within a
// second or so (the runner looks every few thousand events). Before, a job
// ran to its end, and a block to its last job.
func TestDeliveryBlockStopsMidJob(t *testing.T) {
	sc := provider.Signup(0.999, 0.005)
	for i := range sc.Steps {
		sc.Steps[i].Latency = provider.Latency{Median: time.Millisecond}
	}
	cfg := delivery.Defaults()
	cfg.Visibility, cfg.MaxDeliveries = time.Millisecond, limits.DeliveryDeliveries
	step, err := strategy.Parse("step-nokey", MaxAttempts)
	if err != nil {
		t.Fatal(err)
	}
	stream := rng.NewStream(rng.PCGGenerator().New(1, 0))
	j := jobsim.New(sc, stream)
	x := queue.NewRunner(cfg, step, sc, j, stream, rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(1), 0)))
	defer x.Close()
	ctx, cancel := context.WithCancel(context.Background())
	x.StopWhen(func() bool { return ctx.Err() != nil })
	var cancelled time.Time
	time.AfterFunc(200*time.Millisecond, func() { cancelled = time.Now(); cancel() })
	var c stats.Counters
	runJobsDelivery(ctx, &c, x, j, stream, 1_000_000_000_000, 0, 0)
	if took := time.Since(cancelled); c.Calls == 0 || took > 3*time.Second {
		t.Errorf("returned %v after the cancel, %d calls made; want some calls, and within a second or so", took, c.Calls)
	}
}
