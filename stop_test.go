package retrysim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// Run, cancelled in the middle of a block (a sequential generator's run is
// one, here of years of work) or of a delivery-model job (tens of seconds
// each), returns context.Canceled and no report within a second or so: the
// engines look every few thousand jobs, calls or events, and the bound is
// for a loaded machine. Before, they looked only between blocks.
func TestRunCancelledMidBlock(t *testing.T) {
	step, err := strategy.Parse("step-nokey", retrysim.MaxAttempts)
	if err != nil {
		t.Fatal(err)
	}
	queue := delivery.Defaults()
	queue.Visibility, queue.MaxDeliveries = time.Millisecond, delivery.DeliveriesLimit
	timed := provider.Signup(0.999, 0.005)
	for i := range timed.Steps {
		timed.Steps[i].Latency = provider.Latency{Median: time.Millisecond}
	}
	for _, tt := range []struct {
		name string
		e    retrysim.Experiment
	}{
		{"mulberry32 plain", retrysim.Experiment{Scenario: provider.Signup(0.999, 0.005), Strategies: []strategy.Strategy{step},
			Jobs: retrysim.MaxJobs, Seed: 1, Generator: "mulberry32", Workers: 1}},
		{"delivery model", retrysim.Experiment{Scenario: timed, Strategies: []strategy.Strategy{step},
			Jobs: 3, Seed: 1, Delivery: &queue, Workers: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var cancelled time.Time
			time.AfterFunc(200*time.Millisecond, func() { cancelled = time.Now(); cancel() })
			type result struct {
				rep retrysim.Report
				err error
			}
			done := make(chan result, 1)
			go func() {
				rep, err := retrysim.Run(ctx, tt.e)
				done <- result{rep, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Run still running 10 s after it started, 200 ms of them before the cancel")
			}
			if took := time.Since(cancelled); took > 3*time.Second {
				t.Errorf("Run returned %v after the cancel; want within a second or so", took)
			}
			if !errors.Is(r.err, context.Canceled) || r.rep.Rows != nil {
				t.Errorf("Run = %d rows, %v; want none and context.Canceled", len(r.rep.Rows), r.err)
			}
		})
	}
}
