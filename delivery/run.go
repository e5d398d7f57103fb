package delivery

import (
	"time"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// phase is where a delivery is within a step.
type phase int

const (
	enter     phase = iota // crash point before-key, then the store's first operation
	insert                 // Loose's insert, its own operation so a race can split check and insert
	call                   // crash point after-key, then the call
	commit                 // Lease: the call's work commits with its status, if still the holder
	afterCall              // crash point after-work, the key record, then what comes next
	ack                    // crash point before-ack, then the ack
)

// delivery is one worker running one delivery of a message.
type delivery struct {
	msg      int
	step     int
	attempt  int // the attempt within the step (each step) or the pass (whole job)
	phase    phase
	ok       bool // the last call's result
	prevWait time.Duration
	live     bool
}

type message struct {
	deliveries int
	done       bool
}

// record is a step's row in the worker's key store.
type record struct {
	present    bool
	doneStatus bool // Lease: the work is done (else running)
	holder     int
	written    time.Duration
	leaseUntil time.Duration
}

type eventKind int

const (
	stepEvent    eventKind = iota // advance a delivery
	arrive                        // a message's first delivery
	visibilityUp                  // a message's visibility timeout runs out
)

type event struct {
	at   time.Duration
	seq  int
	kind eventKind
	idx  int
}

// Runner runs jobs through one Retry strategy and one Config, reusing its
// state from job to job. It is not safe for concurrent use.
type Runner struct {
	cfg     Config
	store   Store
	r       strategy.Retry
	j       *provider.Job
	sc      provider.Scenario
	latency []provider.Sampler
	repeat  provider.Sampler // the delay of a repeated request
	stream  *rng.Stream
	// lat gives the calls' latencies, apart from the outcome draws. The
	// first delivery's first call of the k-th step with a random latency
	// takes first[k], drawn before the job starts, so that Clean can draw a
	// clean job's latencies without running it; drawn says Clean has drawn
	// them for the job Run is about to run, and called has a bit for each
	// step the first delivery has called.
	lat    *rng.Stream
	batch  *provider.Batch
	first  []time.Duration
	drawn  bool
	called uint64
	rank   []int         // rank[step] is k for a step with a random latency
	fixed  time.Duration // the other steps' latencies, summed

	now       time.Duration
	seq       int
	events    []event
	dl        []delivery
	msgs      []message
	keys      []record
	crashes   int
	fresh     provider.Key // the last fresh key handed out
	succeeded bool
	// end is when the job's last delivery stopped (acked, gave up, died or
	// was overtaken) or its message was dead-lettered, whichever came last.
	end time.Duration
}

// NewRunner runs jobs of sc through r under cfg, calling the providers of j,
// which draws from stream, as the runner does for everything but the calls'
// latencies: those come from lat. A Retry that skips finished steps with no
// store configured keeps the Part 5 store, After.
func NewRunner(cfg Config, r strategy.Retry, sc provider.Scenario, j *provider.Job, stream, lat *rng.Stream) *Runner {
	x := &Runner{cfg: cfg, store: cfg.Store, r: r, j: j, sc: sc, stream: stream, lat: lat, keys: make([]record, len(sc.Steps)),
		repeat: cfg.RepeatDelay.Sampler()}
	var random []provider.Sampler
	for _, st := range sc.Steps {
		s := st.Latency.Sampler()
		x.latency = append(x.latency, s)
		x.rank = append(x.rank, len(random))
		if s.Random() {
			random = append(random, s)
		} else {
			x.fixed = provider.Later(x.fixed, s.Draw(nil))
		}
	}
	x.batch, x.first = provider.NewBatch(random), make([]time.Duration, len(random))
	if x.store == NoStore && r.SkipFinished {
		x.store = After
	}
	return x
}

// Settles reports whether a job whose calls all succeed may be counted
// without running it: whether nothing but its calls can happen to it (no
// repeats, no crashes) and its fixed latencies alone end before the
// visibility timeout. Clean then tells, job by job, whether it ends before
// the visibility timeout.
func (x *Runner) Settles() bool {
	return x.cfg.RepeatP == 0 && x.cfg.CrashP == 0 && x.fixed < x.cfg.Visibility
}

// Clean draws the latencies of the next job's first delivery and reports how
// long the job takes if its calls all succeed, and whether it then ends before
// the visibility timeout. If it does, and Settles, such a job is one delivery
// that calls each step once, as in the Part 5 model, taking the same draws;
// its store, whatever the mode, finds no key and leaves none without its
// work: the caller may count it without running it. If not, the next Run or
// RunFrom takes the latencies drawn here, so a job sees the same draws
// either way.
func (x *Runner) Clean() (time.Duration, bool) {
	if len(x.first) == 0 {
		return x.fixed, x.fixed < x.cfg.Visibility
	}
	total := provider.Later(x.fixed, x.batch.Draw(x.lat, x.first))
	x.drawn = total >= x.cfg.Visibility
	return total, !x.drawn
}

// callLatency draws how long delivery d's call to its step takes.
func (x *Runner) callLatency(d int) time.Duration {
	step := x.dl[d].step
	s := x.latency[step]
	if !s.Random() {
		return s.Draw(nil)
	}
	if bit := uint64(1) << step; d == 0 && x.called&bit == 0 {
		x.called |= bit
		return x.first[x.rank[step]]
	}
	return s.Draw(x.lat)
}

// Run runs one job from time zero and reports its outcome.
func (x *Runner) Run() Outcome {
	x.reset()
	x.msgs = append(x.msgs, message{})
	x.push(0, arrive, 0)
	if x.cfg.RepeatP > 0 && x.stream.Float64() < x.cfg.RepeatP {
		x.msgs = append(x.msgs, message{})
		x.push(x.repeat.Draw(x.stream), arrive, 1)
	}
	return x.loop(0)
}

// RunFrom runs a job that Settles, whose first event is draw k of the Job's
// Clean cuts. Until that draw's step, or the first provider that honours keys
// if it comes sooner, the first delivery calls each step once and each call
// succeeds: that start is counted from its draws and latencies (Job.Settle),
// with the keys the store leaves for it, and the event loop goes on from
// there. A start that outlasts the visibility timeout runs from time zero.
func (x *Runner) RunFrom(k int) Outcome {
	x.reset()
	from, draws := x.j.Settle(k)
	for i := range from {
		lat := x.prefix(i)
		switch x.store {
		case After:
			x.keys[i] = record{present: true, written: provider.Later(x.now, lat)}
		case Loose, Claim:
			x.keys[i] = record{present: true, written: x.now}
		case Lease:
			x.keys[i] = record{present: true, doneStatus: true, written: provider.Later(x.now, lat), leaseUntil: provider.Later(x.now, x.cfg.Lease)}
		}
		x.now = provider.Later(x.now, lat)
	}
	if x.now >= x.cfg.Visibility {
		x.drawn = true // Run starts over, keeping the latencies reset drew
		return x.Run()
	}
	x.stream.Skip(draws)
	x.called = 1<<from - 1 // fresh keys need only differ, so x.fresh may stay
	x.msgs = append(x.msgs, message{deliveries: 1})
	x.push(x.cfg.Visibility, visibilityUp, 0)
	x.dl = append(x.dl, delivery{msg: 0, live: true, step: from})
	x.run(0)
	return x.loop(1)
}

// prefix is the latency of the first delivery's first call of step i.
func (x *Runner) prefix(i int) time.Duration {
	if s := x.latency[i]; !s.Random() {
		return s.Draw(nil)
	}
	return x.first[x.rank[i]]
}

// reset starts a job at time zero with nothing pending, its first
// delivery's latencies drawn.
func (x *Runner) reset() {
	x.j.Reset()
	x.now, x.seq, x.crashes, x.fresh, x.succeeded, x.end = 0, 0, 0, 1, false, 0
	x.events, x.dl, x.msgs = x.events[:0], x.dl[:0], x.msgs[:0]
	if !x.drawn {
		x.batch.Draw(x.lat, x.first)
	}
	x.drawn, x.called = false, 0
	clear(x.keys)
}

// loop runs the job's events until none is left and reports its outcome,
// deliveries having been made already.
func (x *Runner) loop(deliveries int) Outcome {
	for len(x.events) > 0 {
		e := x.pop()
		x.now = e.at
		switch e.kind {
		case arrive, visibilityUp:
			m := &x.msgs[e.idx]
			if m.done {
				continue
			}
			if m.deliveries == x.cfg.MaxDeliveries {
				m.done = true // dead-lettered
				x.end = max(x.end, x.now)
				continue
			}
			m.deliveries++
			deliveries++
			x.dl = append(x.dl, delivery{msg: e.idx, live: true})
			x.push(provider.Later(x.now, x.cfg.Visibility), visibilityUp, e.idx)
			x.run(len(x.dl) - 1)
		case stepEvent:
			x.run(e.idx)
		}
	}
	// A timer left over from an acked message fires for nothing, and does
	// not count: the job ended with its last delivery or dead letter.
	out := Outcome{Failed: !x.succeeded, Deliveries: deliveries, Completion: x.end}
	for i, k := range x.keys {
		if k.present && (x.store != Lease || k.doneStatus) && x.j.Done(i) == 0 {
			out.Lost = true
		}
	}
	return out
}

// run advances delivery d one operation at a time: on its own while its next
// operation comes strictly before every other pending event, through the
// queue otherwise, so that deliveries at the same instant alternate.
func (x *Runner) run(d int) {
	// Advancing a delivery pushes no events, so the next one stays put.
	limit := time.Duration(1<<63 - 1)
	if len(x.events) > 0 {
		limit = x.events[x.minEvent()].at
	}
	dv := &x.dl[d] // advancing a delivery starts no other
	for dv.live {
		wait := x.advance(d)
		if !dv.live {
			x.end = max(x.end, x.now)
			return
		}
		at := provider.Later(x.now, wait)
		if at >= limit {
			x.push(at, stepEvent, d)
			return
		}
		x.now = at
	}
}

// crash reports whether delivery d's worker dies at point p, and ends it if
// so. Its first test is small enough to inline, as most runs have no crashes.
func (x *Runner) crash(d int, p CrashPoint) bool {
	return x.cfg.CrashAt == p && x.cfg.CrashP > 0 && x.crashNow(d)
}

// crashNow draws whether delivery d's worker dies, within the job's bound.
func (x *Runner) crashNow(d int) bool {
	if x.cfg.MaxCrashes > 0 && x.crashes >= x.cfg.MaxCrashes {
		return false
	}
	if x.stream.Float64() >= x.cfg.CrashP {
		return false
	}
	x.crashes++
	x.dl[d].live = false // unacked: the visibility timeout brings the message back
	return true
}

// expired reports whether key k has outlived the TTL. Lease keeps done keys.
func (x *Runner) expired(k record) bool {
	if x.store == Lease && k.doneStatus {
		return false
	}
	return x.cfg.TTL > 0 && x.now >= provider.Later(k.written, x.cfg.TTL)
}

// key is the idempotency key delivery d sends with its next call.
func (x *Runner) key() provider.Key {
	switch x.r.Keys {
	case strategy.SameKey:
		return 1 // the action's key: provider memory is per job and step
	case strategy.FreshKeys:
		x.fresh++ // counted per job, so no two calls of any deliveries share one
		return x.fresh
	}
	return provider.NoKey
}

// advance performs delivery d's next operation at x.now and returns how long
// until the one after it.
func (x *Runner) advance(d int) time.Duration {
	dv := &x.dl[d]
	n := len(x.sc.Steps)
	switch dv.phase {
	case enter:
		if dv.step == n {
			dv.phase = ack
			return 0
		}
		if x.store == NoStore && x.cfg.CrashP == 0 {
			dv.phase = call
			return x.advance(d) // nothing to interleave before the call
		}
		if x.crash(d, BeforeKey) {
			return 0
		}
		k := &x.keys[dv.step]
		have := k.present && !x.expired(*k)
		switch x.store {
		case After:
			if have {
				return x.next(dv)
			}
		case Loose:
			if have {
				return x.next(dv)
			}
			dv.phase = insert
			return 0
		case Claim:
			if have {
				return x.next(dv) // refused: already handled
			}
			*k = record{present: true, written: x.now}
		case Lease:
			switch {
			case have && k.doneStatus:
				return x.next(dv)
			case have && k.holder != d && k.leaseUntil > x.now:
				dv.live = false // held by a live delivery: leave it unacked, to be redelivered
				return 0
			}
			*k = record{present: true, holder: d, written: x.now, leaseUntil: provider.Later(x.now, x.cfg.Lease)}
		}
		dv.phase = call
		return 0
	case insert:
		x.keys[dv.step] = record{present: true, written: x.now}
		dv.phase = call
		return 0
	case call:
		if x.crash(d, AfterKey) {
			return 0
		}
		if x.store == Lease {
			// The work commits with the key's done status at the end of the
			// call, and only while this delivery still holds the lease.
			dv.phase = commit
			return x.callLatency(d)
		}
		dv.ok = x.j.Call(dv.step, x.key())
		dv.phase = afterCall
		return x.callLatency(d)
	case commit:
		if k := x.keys[dv.step]; !k.present || k.holder != d || k.doneStatus {
			// Overtaken: the call ran and is paid for, its work rolls back,
			// the holder does it; an unacked message comes back.
			x.j.RolledBack()
			dv.live = false
			return 0
		}
		dv.ok = x.j.Call(dv.step, x.key())
		dv.phase = afterCall
		return 0
	case afterCall:
		if !dv.ok {
			return x.retry(d)
		}
		k := &x.keys[dv.step]
		if x.store == Lease {
			k.doneStatus, k.written = true, x.now // committed with the work
		}
		if x.crash(d, AfterWork) {
			return 0
		}
		if x.store == After {
			*k = record{present: true, written: x.now}
		}
		return x.next(dv)
	case ack:
		if x.crash(d, BeforeAck) {
			return 0
		}
		x.finish(dv, true)
	}
	return 0
}

// next moves to the following step, after a call that succeeded or past a
// step the store says is handled.
func (x *Runner) next(dv *delivery) time.Duration {
	dv.step++
	if x.r.Scope == strategy.EachStep {
		// Each step's retry loop starts fresh: its first wait builds on
		// nothing the previous step waited (decorrelated jitter).
		dv.attempt, dv.prevWait = 0, 0
	}
	dv.phase = enter
	return 0
}

// retry handles a failed call: another attempt after the backoff, or the end
// of the delivery when the attempts are spent.
func (x *Runner) retry(d int) time.Duration {
	dv := &x.dl[d]
	dv.attempt++
	if dv.attempt == x.r.Attempts {
		if x.store == Lease {
			for i := range x.keys {
				if k := &x.keys[i]; k.present && !k.doneStatus && k.holder == d {
					*k = record{} // released: the next delivery may try
				}
			}
		}
		x.finish(dv, false)
		return 0
	}
	var u float64
	if x.cfg.Backoff.Jittered() {
		u = x.stream.Float64()
	}
	wait := x.cfg.Backoff.Delay(dv.attempt-1, dv.prevWait, u)
	dv.prevWait = wait
	if x.r.Scope == strategy.EachStep {
		dv.phase = call // the step's key stays with this delivery
	} else {
		dv.step, dv.phase = 0, enter
	}
	return wait
}

// finish ends a delivery with an ack: the message is done either way.
func (x *Runner) finish(dv *delivery, success bool) {
	dv.live = false
	x.msgs[dv.msg].done = true
	x.succeeded = x.succeeded || success
}

func (x *Runner) push(at time.Duration, kind eventKind, idx int) {
	x.events = append(x.events, event{at: at, seq: x.seq, kind: kind, idx: idx})
	x.seq++
}

// minEvent is the index of the earliest event, the first pushed among equals.
func (x *Runner) minEvent() int {
	m := 0
	for i, e := range x.events[1:] {
		if e.at < x.events[m].at || (e.at == x.events[m].at && e.seq < x.events[m].seq) {
			m = i + 1
		}
	}
	return m
}

func (x *Runner) pop() event {
	m := x.minEvent()
	e := x.events[m]
	x.events[m] = x.events[len(x.events)-1]
	x.events = x.events[:len(x.events)-1]
	return e
}
