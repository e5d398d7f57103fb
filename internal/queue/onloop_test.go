package queue

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// A delivery that runs on the event loop's goroutine does what it does on a
// coroutine: every store and crash point, with latencies, repeats and
// visibility timeouts short enough that deliveries overlap (a delivery on
// the loop then waits while others start and run on coroutines), through
// the built-in strategies and one written outside Retry, job by job the same
// outcome, counters, effects by step and draws either way.
func TestOnLoopChangesNothing(t *testing.T) {
	sc := provider.Signup(0.2, 0.2)
	for i := range sc.Steps {
		sc.Steps[i].Latency = provider.Latency{Median: 50 * time.Millisecond, P99: 400 * time.Millisecond}
	}
	var strats []strategy.Strategy
	for _, id := range strategy.DefaultIDs() {
		r, err := strategy.Parse(id, 3)
		if err != nil {
			t.Fatal(err)
		}
		strats = append(strats, r)
	}
	strats = append(strats, backwards{})
	for _, store := range []delivery.Store{delivery.NoStore, delivery.After, delivery.Loose, delivery.Claim, delivery.Lease} {
		for _, at := range []delivery.CrashPoint{delivery.BeforeKey, delivery.AfterKey, delivery.AfterWork, delivery.BeforeAck} {
			cfg := delivery.Defaults()
			cfg.Store, cfg.CrashP, cfg.CrashAt = store, 0.05, at
			cfg.RepeatP, cfg.RepeatDelay = 0.3, provider.Latency{Median: 200 * time.Millisecond}
			cfg.Visibility, cfg.TTL = 800*time.Millisecond, 2*time.Second
			if store == delivery.Lease {
				cfg.Lease = 300 * time.Millisecond
			}
			for _, s := range strats {
				t.Run(fmt.Sprintf("%v/%v/%s", store, at, s.Name()), func(t *testing.T) {
					compareOnLoop(t, cfg, s, sc)
				})
			}
		}
	}
}

// jobRun is what one job left behind.
type jobRun struct {
	out                      Outcome
	calls, effects, repeated int64
	done                     []uint32
	draws, latDraws          int64
}

// runJobs runs jobs jobs, every delivery on a coroutine if offLoop.
func runJobs(cfg delivery.Config, s strategy.Strategy, sc provider.Scenario, jobs int, offLoop bool) []jobRun {
	stream := rng.NewStream(rng.PCGGenerator().New(5, 0))
	lat := rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(5), 0))
	j := jobsim.New(sc, stream)
	x := NewRunner(cfg, s, sc, j, stream, lat)
	x.offLoop = offLoop
	defer x.Close()
	var runs []jobRun
	for range jobs {
		out := x.Run()
		runs = append(runs, jobRun{out, j.Calls(), j.Effects(), j.Repeated(), slices.Clone(j.DoneBySteps()), stream.Draws(), lat.Draws()})
	}
	return runs
}

func compareOnLoop(t *testing.T, cfg delivery.Config, s strategy.Strategy, sc provider.Scenario) {
	const jobs = 300
	direct := runJobs(cfg, s, sc, jobs, false)
	coroutines := runJobs(cfg, s, sc, jobs, true)
	overlapped := 0
	for k := range jobs {
		a, b := direct[k], coroutines[k]
		if a.out != b.out || a.calls != b.calls || a.effects != b.effects || a.repeated != b.repeated ||
			!slices.Equal(a.done, b.done) || a.draws != b.draws || a.latDraws != b.latDraws {
			t.Fatalf("job %d: on the loop %+v; on coroutines %+v", k, a, b)
		}
		if a.out.Deliveries > 1 {
			overlapped++
		}
	}
	if overlapped == 0 {
		t.Errorf("no job of %d had a second delivery: the test runs no overlap", jobs)
	}
}

// backwards is a strategy that is not Retry: it calls the steps last to
// first, each up to twice with a fresh key and a backoff between.
type backwards struct{}

func (backwards) Name() string    { return "backwards" }
func (backwards) UsesStore() bool { return false }
func (backwards) Run(c strategy.Calls) bool {
	for i := c.Steps() - 1; i >= 0; i-- {
		if c.Enter(i) {
			continue
		}
		ok := c.Call(i, c.FreshKey()) == provider.ReplyOK
		if !ok {
			c.Backoff(i, 0)
			ok = c.Call(i, c.FreshKey()) == provider.ReplyOK
		}
		if !ok {
			return false
		}
	}
	return true
}
