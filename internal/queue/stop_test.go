package queue

import (
	"runtime"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// A runner told to stop ends the job it is on at the look that says so: the
// command's delivery-model reproducer (up to 1,000 deliveries of a job at
// once, each of up to 10 steps x 1,000 attempts, which takes tens of
// seconds) returns at the third look, 3 x checkEvery events in, with its
// deliveries on the loop's goroutine or on coroutines, and the next job ends
// at its first event with no call made. Close then ends every coroutine.
// Before, a job's event loop looked at nothing.
func TestStopWhenEndsTheJob(t *testing.T) {
	sc := provider.Signup(0.999, 0.005)
	for i := range sc.Steps {
		sc.Steps[i].Latency = provider.Latency{Median: time.Millisecond}
	}
	cfg := delivery.Defaults()
	cfg.Visibility, cfg.MaxDeliveries = time.Millisecond, limits.DeliveryDeliveries
	for _, offLoop := range []bool{false, true} {
		goroutines := runtime.NumGoroutine()
		stream := rng.NewStream(rng.PCGGenerator().New(1, 0))
		j := jobsim.New(sc, stream)
		x := NewRunner(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: limits.MaxAttempts}, sc, j, stream,
			rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(1), 0)))
		x.offLoop = offLoop
		looks := 0
		x.StopWhen(func() bool { looks++; return looks >= 3 })
		x.Run()
		if looks != 3 || j.Calls() == 0 || len(x.events) != 0 {
			t.Errorf("offLoop %v: returned after %d looks, %d calls, %d events pending; want 3 looks, some calls, none pending",
				offLoop, looks, j.Calls(), len(x.events))
		}
		x.Run()
		if looks != 4 || j.Calls() != 0 {
			t.Errorf("offLoop %v: the next job returned after %d looks in all and %d calls; want 4 and none", offLoop, looks, j.Calls())
		}
		x.Close()
		if n := runtime.NumGoroutine(); n > goroutines {
			t.Errorf("offLoop %v: %d goroutines after Close; want at most %d, as before the run", offLoop, n, goroutines)
		}
	}
}
