package queue

import (
	"iter"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/waits"
	"github.com/retrysim/retrysim/provider"
)

// idle is what a worker yields when its delivery has ended.
const idle time.Duration = -1

// worker runs deliveries one after another as their strategy.Calls, on a coroutine of its
// own or, for the Runner's own worker (direct), on the event loop's goroutine; a Call or
// Backoff that must wait past the next pending event suspends it until then.
type worker struct {
	x *Runner
	d int
	// direct says the worker runs on the loop's goroutine, busy that it runs a delivery.
	direct, busy bool
	yield        func(time.Duration) bool
	resume       func() (time.Duration, bool)
	stop         func()
}

func newWorker(x *Runner) *worker {
	w := &worker{x: x}
	w.resume, w.stop = iter.Pull(func(yield func(time.Duration) bool) {
		w.yield = yield
		for {
			w.deliver()
			if !yield(idle) {
				return
			}
		}
	})
	return w
}

// deliver runs delivery w.d from its first operation to its end.
func (w *worker) deliver() {
	x, d := w.x, w.d
	var ok bool
	if from := x.dl[d].from; from > 0 {
		ok = x.resume(w, from)
	} else {
		ok = x.s.Run(w)
	}
	dv := &x.dl[d]
	switch {
	case !dv.live: // died, or was overtaken
	case !ok:
		if x.store == delivery.Lease {
			for i := range x.keys {
				if k := &x.keys[i]; k.present && !k.doneStatus && k.holder == d {
					*k = record{} // released: the next delivery may try
				}
			}
		}
		x.finish(dv, false)
	default:
		w.sync()
		w.pause(0) // past the last step
		if !x.crash(d, delivery.BeforeAck) {
			x.finish(&x.dl[d], true)
		}
	}
}

// pause lets wait pass, suspending the worker if anything else is due before.
func (w *worker) pause(wait time.Duration) {
	x := w.x
	at := limits.Later(x.now, wait)
	if at >= x.limit {
		if w.direct {
			x.await(w.d, at)
		} else {
			w.yield(at)
		}
		return
	}
	x.now = at
}

// end ends an operation of the delivery: the next one comes wait later.
func (w *worker) end(wait time.Duration) {
	dv := &w.x.dl[w.d]
	dv.pend, dv.wait = true, wait
}

// sync lets the wait of the last operation pass before the next one starts.
func (w *worker) sync() {
	if dv := &w.x.dl[w.d]; dv.pend {
		dv.pend = false
		w.pause(dv.wait)
	}
}

// Steps is the number of steps in the scenario.
func (w *worker) Steps() int { w.x.check(); return len(w.x.sc.Steps) }

// Retries are the steps' own retry settings, nil when no step sets any.
func (w *worker) Retries() []provider.StepRetry { w.x.check(); return w.x.policies }

// FreshKey returns a key that no call of any of the job's deliveries has sent.
func (w *worker) FreshKey() provider.Key {
	w.x.check()
	w.x.fresh++
	return w.x.fresh
}

// Guarded reports whether Enter has a store to check or a crash point to pass.
func (w *worker) Guarded() bool {
	w.x.check()
	return w.x.store != delivery.NoStore || w.x.cfg.CrashP > 0
}

// Enter is a step's first operation: the crash point before the key, then the store's
// check (Loose's insert an operation of its own, so a race can split them).
func (w *worker) Enter(i int) bool {
	x, d := w.x, w.d
	x.check()
	if !x.dl[d].live {
		return false
	}
	w.sync()
	x.dl[d].step, x.step = i, i
	if x.store == delivery.NoStore && x.cfg.CrashP == 0 {
		return false
	}
	if x.crash(d, delivery.BeforeKey) {
		return false
	}
	k := &x.keys[i]
	have := k.present && !x.expired(*k)
	if have && (x.store != delivery.Lease || k.doneStatus) {
		w.end(0)
		return true // already handled (Claim: refused)
	}
	switch x.store {
	case delivery.Loose:
		w.pause(0)
		*k = record{present: true, written: x.now}
	case delivery.Claim:
		*k = record{present: true, written: x.now}
	case delivery.Lease:
		if have && k.holder != d && k.leaseUntil > x.now {
			x.dl[d].live = false // held by a live delivery: leave it unacked, to be redelivered
			return false
		}
		*k = record{present: true, holder: d, written: x.now, leaseUntil: limits.Later(x.now, x.cfg.Lease)}
	}
	w.end(0)
	return false
}

// Call is the crash point after the key, then the call over its latency (under Lease its
// work commits only while this delivery holds the lease), then an operation that sees the
// reply; a delivery whose worker died sees provider.NoReply.
func (w *worker) Call(i int, key provider.Key) provider.Reply {
	x, d := w.x, w.d
	x.check()
	if !x.dl[d].live {
		return provider.NoReply
	}
	w.sync()
	x.dl[d].step, x.step = i, i
	if x.crash(d, delivery.AfterKey) {
		return provider.NoReply
	}
	var reply provider.Reply
	if x.store == delivery.Lease {
		w.pause(x.callLatency(d))
		if k := x.keys[i]; !k.present || k.holder != d || k.doneStatus {
			// Overtaken: paid for, its work rolls back, and the unacked message comes back.
			x.j.RolledBack()
			x.dl[d].live = false
			return provider.NoReply
		}
		reply = x.j.Call(i, key)
		w.pause(0)
	} else {
		reply = x.j.Call(i, key)
		w.pause(x.callLatency(d))
	}
	if reply != provider.ReplyOK {
		w.end(0)
		return reply
	}
	k := &x.keys[i]
	if x.store == delivery.Lease {
		k.doneStatus, k.written = true, x.now // committed with the work
	}
	if x.crash(d, delivery.AfterWork) {
		return provider.NoReply
	}
	if x.store == delivery.After {
		*k = record{present: true, written: x.now}
	}
	w.end(0)
	return provider.ReplyOK
}

// Backoff draws the wait before retry n of step i's loop (-1: the job's) as the next wait.
func (w *worker) Backoff(i, n int) {
	x, d := w.x, w.d
	x.check()
	dv := &x.dl[d]
	if !dv.live {
		return
	}
	pol := x.cfg.Backoff
	if i >= 0 {
		pol = jobsim.StepBackoff(x.sc.Steps[i].Retry, pol)
	}
	var u float64
	if waits.Jittered(pol) {
		u = x.stream.Float64()
	}
	if n == 0 {
		dv.prevWait = 0
	}
	dv.prevWait = waits.Delay(pol, n, dv.prevWait, u)
	w.end(dv.prevWait)
}
