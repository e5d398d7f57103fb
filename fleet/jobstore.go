package fleet

import (
	"fmt"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
)

// KeyStore is the delivery model's key store kept by the workers an entry
// sends to, a record a step: TTL is how long a key lasts (0: forever), Lease
// how long a claim holds (docs/workers.md).
type KeyStore struct {
	Mode       delivery.Store
	TTL, Lease time.Duration
}

// Crashes are the workers' deaths with probability P each time a delivery
// passes At, at most Max a job (0: no bound) (docs/workers.md).
type Crashes struct {
	P   float64
	At  delivery.CrashPoint
	Max int
}

// guarded says the entry's workers keep a store or crash.
func (e *Entry) guarded() bool { return e.Store.Mode != delivery.NoStore || e.Crash.P > 0 }

// checkGuard refuses entry k's store and crashes out of their bounds (its
// crash probability is Check's), or on a service with no calls or Parallel
// ones (a job's steps run in order).
func (g *Graph) checkGuard(k int, idx map[string]int) error {
	e := &g.Entries[k]
	path := func(s string) string { return fmt.Sprintf("entries[%d].%s", k, s) }
	if err := enum.Check(e.Store.Mode); err != nil {
		return pathtext.Errorf(path("store"), "%v", err)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"ttl", e.Store.TTL}, {"lease", e.Store.Lease}} {
		if s := d.v.Seconds(); s < 0 || s > limits.FleetSeconds {
			return pathtext.Errorf(path(d.name), "%g s is not from 0 to %d s", s, limits.FleetSeconds)
		}
	}
	if e.Store.Mode == delivery.Lease {
		if err := limits.Lease(e.Store.Lease); err != nil {
			return pathtext.Errorf(path("lease"), "%v", err)
		}
	}
	if err := enum.Check(e.Crash.At); err != nil {
		return pathtext.Errorf(path("crash_at"), "%v", err)
	}
	if e.Crash.Max < 0 || e.Crash.Max > limits.DeliveryCrashes {
		return pathtext.Errorf(path("max_crashes"), "%d is not a whole number from 0 to %d", e.Crash.Max, limits.DeliveryCrashes)
	}
	if !e.guarded() {
		return nil
	}
	n := &g.Services[idx[e.To]]
	what := "store"
	if e.Store.Mode == delivery.NoStore {
		what = "crash"
	}
	switch {
	case len(n.Calls) == 0:
		return pathtext.Errorf(path(what), "service %q makes no calls: a store and crashes guard the steps (calls) of the workers an entry sends to", n.Name)
	case n.Parallel:
		return pathtext.Errorf(path(what), "service %q makes its calls in parallel: a store and crashes guard steps made in order", n.Name)
	}
	return nil
}

// keyRecord is a step's record in a job's store (KeyStore).
type keyRecord struct {
	written       float64 // when the key was written
	until         float64 // Lease: when the lease runs out
	attempt, copy uint8   // the delivery holding a lease
	present, done bool    // done: Lease's done status
}

// guard is an entry's store and crashes in the engine's units.
type guard struct {
	mode                delivery.Store
	ttlSecs, leaseSecs  float64
	crashP              float64
	crashAt             delivery.CrashPoint
	maxCrashes          int
	crashed, rolledBack int64
	held, lost          int64 // deliveries that found a lease held; lost work (countLost)
}

// newGuard is entry e's guard, nil when it keeps no store and never crashes.
func newGuard(e *Entry) *guard {
	if !e.guarded() {
		return nil
	}
	return &guard{mode: e.Store.Mode, ttlSecs: e.Store.TTL.Seconds(), leaseSecs: e.Store.Lease.Seconds(),
		crashP: e.Crash.P, crashAt: e.Crash.At, maxCrashes: e.Crash.Max}
}

// guardOf is the guard of the entry job j serves, or nil.
func (s *sim) guardOf(j int32) *guard {
	if slot := s.jobs[j].slot; s.keys != nil && s.up[slot] < 0 {
		return s.edgeOf(slot).guard
	}
	return nil
}

// record is job j's record of its service's call i.
func (s *sim) record(j int32, i int) *keyRecord {
	return &s.keys[int(s.jobs[j].slot)*s.keysWide+i]
}

// crash reports whether job j's worker dies at point p, drawing only at
// g's crash point.
func (s *sim) crash(j int32, g *guard, p delivery.CrashPoint) bool {
	if g.crashAt != p || g.crashP == 0 {
		return false
	}
	n := &s.books[s.jobs[j].slot].crashes
	if g.maxCrashes > 0 && int(*n) >= g.maxCrashes || s.rnd.Float64() >= g.crashP { // no draw past the bound
		return false
	}
	*n++
	g.crashed++
	s.abandon(j)
	return true
}

// present says a record is there and has not expired (a Lease done one
// never does).
func (s *sim) present(g *guard, k *keyRecord) bool {
	return k.present && (g.mode == delivery.Lease && k.done || g.ttlSecs == 0 || s.now < k.written+g.ttlSecs)
}

// step goes on with guarded job j from its call i: the crash point, the
// store's check and write, then the call; past the last, the ack.
func (s *sim) step(j int32, g *guard, i int) {
	calls := len(s.svcs[s.jobs[j].svc].calls)
	for ; i < calls; i++ {
		if s.crash(j, g, delivery.BeforeKey) {
			return
		}
		k := s.record(j, i)
		have := s.present(g, k)
		jb := &s.jobs[j]
		switch g.mode {
		case delivery.After:
			if have {
				continue
			}
		case delivery.Loose, delivery.Claim:
			if have {
				continue
			}
			*k = keyRecord{present: true, written: s.now}
		case delivery.Lease:
			switch {
			case have && k.done:
				continue
			case have && (k.attempt != jb.attempt || k.copy != jb.copy) && k.until > s.now:
				g.held++
				s.abandon(j) // held by another delivery: left unacked, to come back
				return
			}
			*k = keyRecord{present: true, written: s.now, until: s.now + g.leaseSecs, attempt: jb.attempt, copy: jb.copy}
		}
		jb.next, jb.out = uint8(i+1), 1
		s.call(j, i) // its tries pass the crash point after the key (crashBeforeTry)
		return
	}
	if s.crash(j, g, delivery.BeforeAck) {
		return
	}
	s.answerJob(j, true, false)
}

// crashBeforeTry reports whether the worker of the job whose step the
// request in slot is died between the step's key and this try, as the
// delivery model's does before each call.
func (s *sim) crashBeforeTry(slot int32) bool {
	j, g := s.callGuard(slot)
	if g == nil || s.jobs[j].answered || s.jobs[j].cur != slot || !s.crash(j, g, delivery.AfterKey) {
		return false
	}
	s.fail(slot, false)
	return true
}

// stepDone is guarded job j's call having ended: on success the next
// step, on failure the job's end (a Lease released).
func (s *sim) stepDone(j int32, g *guard, ok, pushback bool) {
	jb := &s.jobs[j]
	if !ok {
		if g.mode == delivery.Lease {
			for i := range s.svcs[jb.svc].calls {
				if k := s.record(j, i); k.present && !k.done && k.attempt == jb.attempt && k.copy == jb.copy {
					*k = keyRecord{}
				}
			}
		}
		s.answerJob(j, false, pushback)
		return
	}
	if s.crash(j, g, delivery.AfterWork) {
		return
	}
	if g.mode == delivery.After {
		*s.record(j, int(jb.next)-1) = keyRecord{present: true, written: s.now}
	}
	s.step(j, g, int(jb.next))
}

// rollsBack says whether the work of the request in slot, a call of a
// guarded job, rolls back: never, but under Lease once the job's delivery
// no longer holds the step's lease; a delivery that lost it leaves the job.
func (s *sim) rollsBack(slot int32) bool {
	j, g := s.callGuard(slot)
	if g == nil || g.mode != delivery.Lease {
		return false
	}
	if jb := &s.jobs[j]; !jb.answered && jb.cur == slot {
		k := s.record(j, int(jb.next)-1)
		mine := k.present && k.attempt == jb.attempt && k.copy == jb.copy
		if mine && !k.done {
			k.done, k.written = true, s.now
			return false
		}
		if !mine {
			s.abandon(j)
		}
	}
	g.rolledBack++
	return true
}

// abandon is job j's worker leaving it unanswered: it comes back at the
// entry's attempt's timeout.
func (s *sim) abandon(j int32) {
	s.jobs[j].dead = true
	slot := s.jobs[j].slot
	s.leave(j)
	s.recycleIdle(slot)
}

// callGuard is the job that made the call in slot and its guard, or nil.
func (s *sim) callGuard(slot int32) (int32, *guard) {
	if s.keys == nil || s.up[slot] < 0 {
		return -1, nil
	}
	return s.up[slot], s.guardOf(s.up[slot])
}

// jobBook is a guarded job's crashes so far, and whether it completed.
type jobBook struct {
	crashes   uint16
	completed bool
}

// countLost counts, as the entry's request in slot ends, a completed job
// one of whose steps is keyed done with no delivery having done its work.
func (s *sim) countLost(slot int32, g *guard) {
	if !s.books[slot].completed {
		return
	}
	e := s.edgeOf(slot)
	for i, ei := range s.svcs[e.to].calls {
		k := &s.keys[int(slot)*s.keysWide+i]
		seen := s.seen[int(slot)*s.seenWords+int(ei)/64]&(1<<(ei%64)) != 0
		if k.present && (g.mode != delivery.Lease || k.done) && !seen {
			g.lost++
			return
		}
	}
}

// keysWidth is how many records a job's store holds: the most calls of a
// service a guarded entry sends to; 0 with no guarded entry.
func (g *Graph) keysWidth() int {
	idx, w := g.index(), 0
	for i := range g.Entries {
		if e := &g.Entries[i]; e.guarded() {
			w = max(w, len(g.Services[idx[e.To]].Calls))
		}
	}
	return w
}
