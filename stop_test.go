package retrysim_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// cancelling is a strategy that runs inner's deliveries and cancels the
// run's context at its after-th: the cancel comes from inside a unit of
// work, at the same job whatever the machine's speed.
type cancelling struct {
	inner  strategy.Strategy
	after  int64
	runs   *atomic.Int64
	cancel context.CancelFunc
}

func (c cancelling) Name() string    { return c.inner.Name() }
func (c cancelling) UsesStore() bool { return c.inner.UsesStore() }
func (c cancelling) Run(x strategy.Calls) bool {
	if c.runs.Add(1) == c.after {
		c.cancel()
	}
	return c.inner.Run(x)
}

// Run, cancelled in the middle of a block (a sequential generator's run is
// one, here of years of work) or of a delivery-model job (tens of seconds
// each), returns context.Canceled and no report: the engines look every
// few thousand jobs, calls or events. Before, they looked only between
// blocks, so this test ran for years.
func TestRunCancelledMidBlock(t *testing.T) {
	step, err := strategy.Parse("step-nokey", limits.MaxAttempts)
	if err != nil {
		t.Fatal(err)
	}
	queue := delivery.Defaults()
	queue.Visibility, queue.MaxDeliveries = time.Millisecond, limits.DeliveryDeliveries
	timed := provider.Signup(0.999, 0.005)
	for i := range timed.Steps {
		timed.Steps[i].Latency = provider.Latency{Median: time.Millisecond}
	}
	for _, tt := range []struct {
		name  string
		after int64
		e     retrysim.Experiment
	}{
		{"mulberry32 plain", 10_000, retrysim.Experiment{Scenario: provider.Signup(0.999, 0.005),
			Jobs: limits.MaxJobs, Seed: 1, Generator: "mulberry32", Workers: 1}},
		{"delivery model", 100, retrysim.Experiment{Scenario: timed, Jobs: 3, Seed: 1, Delivery: &queue, Workers: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tt.e.Strategies = []strategy.Strategy{cancelling{inner: step, after: tt.after, runs: new(atomic.Int64), cancel: cancel}}
			rep, err := retrysim.Run(ctx, tt.e)
			if !errors.Is(err, context.Canceled) || rep.Rows != nil {
				t.Errorf("Run = %d rows, %v; want none and context.Canceled", len(rep.Rows), err)
			}
		})
	}
}
