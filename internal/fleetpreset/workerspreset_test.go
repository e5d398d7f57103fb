package fleetpreset

import (
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/waits"
	"github.com/retrysim/retrysim/schema"
)

// Each worker-fleet preset's queue, written out from its source here, not
// from package jobqueue: the tries, the schedule's waits (at the draw u = 0
// and, for the jittered ones, the largest draw), the visibility timeout and
// the keys, and the fleet's outage, as the preset's help says.
func TestWorkersPresetsFromSources(t *testing.T) {
	sec := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	type queue struct {
		tries      int
		kind       backoff.Kind
		visibility time.Duration
		redeliver  bool
		keys       schema.KeyMode
		// wait is retry n's wait (n from 0) at the draw u.
		wait func(n int, u float64) time.Duration
	}
	// Sidekiq v8.1.7 lib/sidekiq/job_retry.rb: DEFAULT_MAX_RETRY_ATTEMPTS =
	// 25; delay_for: (count**4) + 15 + rand(10 * (count + 1)), count from 0.
	sidekiq := func(n int, u float64) time.Duration {
		c := float64(n)
		return sec(c*c*c*c + 15 + math.Floor(u*10*(c+1)))
	}
	// River v0.43.0 retry_policy.go: attempt^4 seconds (the n-th error's
	// attempt is n), times a random factor in [0.9, 1.1); MaxAttempts 25.
	river := func(n int, u float64) time.Duration {
		a := float64(n + 1)
		return sec(a * a * a * a * (0.9 + 0.2*u))
	}
	// Oban v2.23.1 worker.ex: max_attempts 20; backoff after attempt a is
	// Backoff.exponential(a, min_pad: 15) = 15 + 2^a, jittered by
	// trunc(rand * 0.1 * time) upward.
	oban := func(n int, u float64) time.Duration {
		t := 15 + math.Pow(2, float64(n+1))
		return sec(t + math.Trunc(u*0.1*t))
	}
	// Temporal server v1.31.2 retry_policy.go: initial interval 1 s,
	// coefficient 2, maximum interval 100 x initial, MaximumAttempts 0
	// (unlimited; the preset cuts it at 25).
	temporal := func(n int, u float64) time.Duration { return sec(math.Min(100, math.Pow(2, float64(n)))) }
	none := func(int, float64) time.Duration { return 0 }
	constant10 := func(int, float64) time.Duration { return 10 * time.Second }
	// SQS (API Reference, SetQueueAttributes): VisibilityTimeout 30 s by
	// default; maxReceiveCount 5 in the preset's redrive policy.
	want := map[string][]queue{
		"sidekiq-outage": {{4, backoff.Sidekiq, fleet.NoVisibility, false, schema.NoKeys, sidekiq}, {26, backoff.Sidekiq, fleet.NoVisibility, false, schema.NoKeys, sidekiq}},
		"sqs-visibility": {{5, backoff.None, 30 * time.Second, true, schema.NoKeys, none}, {5, backoff.None, 30 * time.Second, true, schema.NoKeys, none},
			{5, backoff.None, 30 * time.Second, true, schema.NoKeys, none}},
		"backlog-drain":  {{10, backoff.Constant, fleet.NoVisibility, false, schema.NoKeys, constant10}, {10, backoff.Constant, fleet.NoVisibility, false, schema.NoKeys, constant10}},
		"river-defaults": {{25, backoff.River, fleet.NoVisibility, false, schema.NoKeys, river}},
		"oban-defaults":  {{20, backoff.Oban, fleet.NoVisibility, false, schema.NoKeys, oban}},
		// Temporal's unlimited tries, cut at 25.
		"temporal-defaults": {{25, backoff.Temporal, fleet.NoVisibility, false, schema.NoKeys, temporal}},
	}
	if len(WorkersPresets()) != len(want) {
		t.Fatalf("%d presets; want %d", len(WorkersPresets()), len(want))
	}
	for _, p := range WorkersPresets() {
		runs := p.Runs(p.Duration)
		qs, ok := want[p.Name]
		if !ok || len(runs) != len(qs) {
			t.Errorf("%s: %d runs; want %d", p.Name, len(runs), len(qs))
			continue
		}
		for i, w := range runs {
			q, c := qs[i], w.Queue
			if err := w.Check(); err != nil {
				t.Errorf("%s %s: %v", p.Name, w.Name, err)
			}
			if c.Attempts != q.tries || c.Backoff.Kind != q.kind || c.Timeout != q.visibility || w.RedeliverAtTimeout != q.redeliver || c.Keys != q.keys {
				t.Errorf("%s %s: tries %d, %v, visibility %v, redeliver %v, keys %v; want %d, %v, %v, %v, %v", p.Name, w.Name,
					c.Attempts, c.Backoff.Kind, c.Timeout, w.RedeliverAtTimeout, c.Keys, q.tries, q.kind, q.visibility, q.redeliver, q.keys)
			}
			for n := range c.Attempts - 1 {
				for _, u := range []float64{0, 0.5, math.Nextafter(1, 0)} {
					if got, w := waits.Delay(c.Backoff, n, 0, u), q.wait(n, u); got != w {
						t.Errorf("%s: retry %d at u %g waits %v; its source says %v", p.Name, n, u, got, w)
					}
				}
			}
		}
	}
	// sqs-visibility's lease run keeps the delivery model's lease store, its
	// leases as long as SQS's visibility timeout; the others no store.
	for _, p := range WorkersPresets() {
		for _, w := range p.Runs(p.Duration) {
			want := fleet.KeyStore{}
			if w.Name == "lease" {
				want = fleet.KeyStore{Mode: delivery.Lease, TTL: 24 * time.Hour, Lease: 30 * time.Second}
			}
			if w.Store != want || w.Crash != (fleet.Crashes{}) {
				t.Errorf("%s %s: store %+v, crashes %+v; want %+v and none", p.Name, w.Name, w.Store, w.Crash, want)
			}
		}
	}
	// The database's outage of sidekiq-outage and the queue presets: 30
	// minutes, from 10 to 40 minutes into the hour; a shorter run keeps it
	// inside.
	for _, name := range []string{"sidekiq-outage", "river-defaults", "oban-defaults", "temporal-defaults"} {
		p, err := LookupWorkersPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range p.Runs(time.Hour) {
			if o := w.Dependencies[0].Outage; o.From != 10*time.Minute || o.To != 40*time.Minute || o.Mode != fleet.Fail || len(w.Steps) != 3 {
				t.Errorf("%s %s: outage %+v, %d steps; want 10 to 40 minutes, fail, 3 steps", name, w.Name, o, len(w.Steps))
			}
		}
		for _, w := range p.Runs(time.Minute) {
			if err := w.Check(); err != nil || w.Dependencies[0].Outage.To > time.Minute {
				t.Errorf("%s in a minute: %v, outage %+v", name, err, w.Dependencies[0].Outage)
			}
		}
	}
	if _, err := LookupWorkersPreset("nope"); err == nil {
		t.Error("an unknown preset was found")
	}
}
