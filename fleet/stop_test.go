package fleet

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/limits"
)

// doneAfter is a context that is cancelled from the n-th call of Err on: it
// says exactly how often, and when, the engine looked.
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

// A replicate looks at its context every checkEvery events, from its first:
// cancelled at its third look, it returns context.Canceled after 2 x
// checkEvery events of the millions the run would take. Before, a
// replicate ran to its end whatever the context said.
func TestReplicateStopsMidway(t *testing.T) {
	cfg := collapseRuns(80 * time.Second)[3]
	cfg.Duration = 100000 * time.Second // about 4 x 10^6 requests
	s := newSim(&cfg, 1)
	ctx := &doneAfter{Context: context.Background(), n: 3}
	if _, err := s.run(ctx); !errors.Is(err, context.Canceled) || ctx.looks != 3 || s.events != 2*checkEvery {
		t.Errorf("run = %v after %d looks and %d events; want context.Canceled after 3 looks and %d events", err, ctx.looks, s.events, 2*checkEvery)
	}
}

// Run, cancelled while its only replicate runs (an hour at 80 requests a
// second, seconds of work),
// returns context.Canceled and nothing: the cancel comes from the first
// progress report, 65,536 events in, and the engine looks every few
// thousand events. Before, it looked only between replicates.
func TestRunCancelledMidReplicate(t *testing.T) {
	cfg := collapseRuns(80 * time.Second)[3]
	cfg.Duration = limits.FleetDuration * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := Options{Replicates: 1, Seed: 1, Workers: 1, Progress: func(done, total int64) { cancel() }}
	res, err := Run(ctx, []Config{cfg}, opt)
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("Run = %v, %v; want nothing and context.Canceled", res, err)
	}
}

// run simulates until every request has finished and returns the one-edge
// replicate of the Config the sim was made from. Once ctx is done it
// returns ctx's error within checkEvery events.
func (s *sim) run(ctx context.Context) (fleetdata.Replicate, error) {
	if err := s.simulate(ctx); err != nil {
		return fleetdata.Replicate{}, err
	}
	return s.replicate(), nil
}
