// Package queue is the delivery model's engine: a Runner runs one job's deliveries through
// a queue's workers under a delivery.Config and says what the job did (Outcome).
package queue

import (
	"math/rand/v2"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// inFlight is one worker running one delivery of a message.
type inFlight struct {
	msg  int
	step int  // the step of its last Enter or Call
	from int  // the step its strategy resumes at (RunFrom's first delivery)
	live bool // false once it has acked, given up, died or been overtaken
	// worker runs it, from its first operation to its end.
	worker *worker
	// pend says an operation has ended and the next waits wait first (or Backoff's wait).
	pend     bool
	wait     time.Duration
	prevWait time.Duration // the last backoff, which decorrelated jitter builds on
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

// Runner runs jobs through one strategy and one Config, reusing its state from job to job:
// one delivery at a time runs on the event loop's own goroutine (own), others on
// coroutines, so most jobs switch to none. It is not safe for concurrent use.
type Runner struct {
	cfg   delivery.Config
	store delivery.Store
	s     strategy.Strategy
	// resume is s's fast path (ResumeOf); guard says s is not Retry, unwound once stopped.
	resume   func(c strategy.Calls, from int) bool
	guard    bool
	step     int // the step of the last Enter or Call, for a schema.PanicError
	j        *jobsim.Job
	sc       provider.Scenario
	policies []provider.StepRetry // sc's, nil when no step has its own
	latency  []sampler
	repeat   sampler // the delay of a repeated request
	stream   *rng.Stream
	// lat draws the calls' latencies; the first delivery's first call of the k-th random
	// step takes first[k], drawn before the job so that Clean can settle it. drawn says Clean
	// drew them for the next Run; called has a bit for each step the first delivery called.
	lat    *rng.Stream
	batch  *batch
	first  []time.Duration
	drawn  bool
	called uint64
	rank   []int         // rank[step] is k for a step with a random latency
	fixed  time.Duration // the other steps' latencies, summed
	cuts   []uint64      // Cuts

	// own runs a delivery on the loop's goroutine, while busy.
	own       worker
	workers   []*worker // every coroutine worker, for Close
	idle      []*worker // the workers with no delivery: all of them between jobs
	limit     time.Duration
	now       time.Duration
	seq       int
	events    []event
	dl        []inFlight
	msgs      []message
	keys      []record
	crashes   int
	delivered int          // the job's deliveries so far
	fresh     provider.Key // the last fresh key handed out
	succeeded bool
	// end is when the job's last delivery stopped or its message was dead-lettered.
	end time.Duration
	// offLoop runs every delivery on a coroutine, for tests that check this changes nothing.
	offLoop bool
	// stop, once it reports true, ends the job (StopWhen); popped counts events since.
	stop   func() bool
	popped int
}

// checkEvery is how many events a Runner pops between two calls of its stop function.
const checkEvery = 1 << 12

// NewRunner runs jobs of sc through s under cfg, j's providers drawing from stream and
// latencies from lat; a strategy that UsesStore with no store keeps the Part 5 store.
func NewRunner(cfg delivery.Config, s strategy.Strategy, sc provider.Scenario, j *jobsim.Job, stream, lat rand.Source) *Runner {
	x := &Runner{cfg: cfg, store: cfg.Store, s: s, j: j, sc: sc, stream: rng.StreamOf(stream), lat: rng.StreamOf(lat), keys: make([]record, len(sc.Steps)),
		repeat: newSampler(cfg.RepeatDelay)}
	x.resume = ResumeOf(s)
	switch s.(type) {
	case strategy.Retry, *strategy.Retry:
	default:
		x.guard = true
	}
	x.own = worker{x: x, direct: true}
	x.policies = jobsim.Policies(sc)
	var random []sampler
	for _, st := range sc.Steps {
		s := newSampler(st.Latency)
		x.latency = append(x.latency, s)
		x.rank = append(x.rank, len(random))
		if s.random() {
			random = append(random, s)
		} else {
			x.fixed = limits.Later(x.fixed, s.draw(nil))
		}
	}
	x.batch, x.first = newBatch(random), make([]time.Duration, len(random))
	if x.store == delivery.NoStore && s.UsesStore() {
		x.store = delivery.After
	}
	x.cuts = cleanCuts(cfg, sc, j.Clean())
	return x
}

// cleanCuts are the cuts of a clean first delivery's draws, in draw order: the repeat's,
// then each step's crash points and call draws, and last the crash before the ack.
func cleanCuts(cfg delivery.Config, sc provider.Scenario, calls []uint64) []uint64 {
	var cuts []uint64
	if cfg.RepeatP > 0 {
		cuts = append(cuts, rng.Threshold(cfg.RepeatP))
	}
	crash := func(p delivery.CrashPoint) {
		if cfg.CrashP > 0 && cfg.CrashAt == p {
			cuts = append(cuts, rng.Threshold(cfg.CrashP))
		}
	}
	for _, st := range sc.Steps {
		crash(delivery.BeforeKey)
		crash(delivery.AfterKey)
		n := 1
		if st.CanLoseReply {
			n = 2
		}
		cuts, calls = append(cuts, calls[:n]...), calls[n:]
		crash(delivery.AfterWork)
	}
	crash(delivery.BeforeAck)
	return cuts
}

// Close ends the runner's workers, each delivery in progress running on with every call failing.
func (x *Runner) Close() {
	for _, w := range x.workers {
		func() {
			defer func() { _ = recover() }()
			w.stop()
		}()
	}
	x.workers, x.idle = nil, nil
}

// Strategy is the strategy the runner runs.
func (x *Runner) Strategy() strategy.Strategy { return x.s }

// Step is the step of the last Enter or Call of the job in progress, -1 before the first.
func (x *Runner) Step() int { return x.step }

// check unwinds a strategy other than Retry with strategy.ErrStopped once stop says so.
func (x *Runner) check() {
	if x.guard && x.stop != nil && x.stop() {
		panic(strategy.ErrStopped)
	}
}

// StopWhen makes the runner call stop every checkEvery events (nil: never); once it reports
// true, every job ends at once with an outcome that means nothing, a strategy other than
// Retry panicking with strategy.ErrStopped, and the runner is fit only for Close.
func (x *Runner) StopWhen(stop func() bool) { x.stop = stop }

// stopped counts an event about to be popped and every checkEvery events asks stop.
func (x *Runner) stopped() bool {
	if x.popped++; x.popped < checkEvery {
		return false
	}
	return x.askStop()
}

// askStop asks stop and ends the job if it says so.
func (x *Runner) askStop() bool {
	if x.stop == nil || !x.stop() {
		x.popped = 0
		return false
	}
	// popped stays at checkEvery or more: a later job ends at once.
	x.events = x.events[:0]
	for i := range x.dl {
		x.dl[i].live = false // every operation of a delivery that is not live returns at once
	}
	x.Close() // the suspended deliveries run to their end, doing nothing
	return true
}

// Settles reports whether a job whose calls all succeed may be counted without running
// it: a Straight strategy, no repeats or crashes, and fixed latencies within visibility.
func (x *Runner) Settles() bool {
	return x.resume != nil && x.cfg.RepeatP == 0 && x.cfg.CrashP == 0 && x.fixed < x.cfg.Visibility
}

// Cuts returns the cuts of a clean first delivery's draws, in draw order; callers must not
// modify the slice.
func (x *Runner) Cuts() []uint64 { return x.cuts }

// Clean draws the latencies of the next job's first delivery and reports how long it takes
// if its calls all succeed and whether that is within the visibility timeout (then, if
// Settles, it may be counted without running); the next Run takes these latencies.
func (x *Runner) Clean() (time.Duration, bool) {
	if len(x.first) == 0 {
		return x.fixed, x.fixed < x.cfg.Visibility
	}
	total := limits.Later(x.fixed, x.batch.draw(x.lat, x.first))
	x.drawn = total >= x.cfg.Visibility
	return total, !x.drawn
}

// callLatency draws how long delivery d's call to its step takes: the first delivery's
// first call of a step takes its prefix.
func (x *Runner) callLatency(d int) time.Duration {
	step := x.dl[d].step
	if bit := uint64(1) << step; d == 0 && x.called&bit == 0 {
		x.called |= bit
		return x.prefix(step)
	}
	return x.latency[step].draw(x.lat) // a fixed latency draws nothing
}

// Run runs one job from time zero and reports its outcome.
func (x *Runner) Run() Outcome {
	x.reset()
	x.msgs = append(x.msgs, message{})
	x.push(0, arrive, 0)
	if x.cfg.RepeatP > 0 && x.stream.Float64() < x.cfg.RepeatP {
		x.msgs = append(x.msgs, message{})
		x.push(x.repeat.draw(x.stream), arrive, 1)
	}
	return x.loop()
}

// RunFrom runs a Settles job whose first event is draw k of the Job's Clean cuts, its clean
// start counted from its draws (Job.Settle); one past the visibility timeout runs from zero.
func (x *Runner) RunFrom(k int) Outcome {
	x.reset()
	from, draws := x.j.Settle(k)
	for i := range from {
		lat := x.prefix(i)
		switch x.store {
		case delivery.After:
			x.keys[i] = record{present: true, written: limits.Later(x.now, lat)}
		case delivery.Loose, delivery.Claim:
			x.keys[i] = record{present: true, written: x.now}
		case delivery.Lease:
			x.keys[i] = record{present: true, doneStatus: true, written: limits.Later(x.now, lat), leaseUntil: limits.Later(x.now, x.cfg.Lease)}
		}
		x.now = limits.Later(x.now, lat)
	}
	if x.now >= x.cfg.Visibility {
		x.drawn = true // Run starts over, keeping the latencies reset drew
		return x.Run()
	}
	x.stream.Skip(draws)
	x.called = 1<<from - 1 // fresh keys need only differ, so x.fresh may stay
	x.msgs = append(x.msgs, message{deliveries: 1})
	x.push(x.cfg.Visibility, visibilityUp, 0)
	x.dl = append(x.dl, inFlight{msg: 0, live: true, from: from})
	x.delivered = 1
	x.run(0)
	return x.loop()
}

// prefix is the latency of the first delivery's first call of step i.
func (x *Runner) prefix(i int) time.Duration {
	if s := x.latency[i]; !s.random() {
		return s.draw(nil)
	}
	return x.first[x.rank[i]]
}

// reset starts a job at time zero with nothing pending, its first latencies drawn.
func (x *Runner) reset() {
	x.j.Reset()
	x.now, x.seq, x.crashes, x.delivered, x.fresh, x.succeeded, x.end = 0, 0, 0, 0, provider.StepKey, false, 0
	x.step = -1
	x.events, x.dl, x.msgs = x.events[:0], x.dl[:0], x.msgs[:0]
	if !x.drawn {
		x.batch.draw(x.lat, x.first)
	}
	x.drawn, x.called = false, 0
	clear(x.keys)
}

// loop runs the job's events until none is left and reports its outcome.
func (x *Runner) loop() Outcome {
	for len(x.events) > 0 && !x.stopped() {
		e := x.pop()
		x.now = e.at
		x.handle(e)
	}
	// A timer left from an acked message fires for nothing and does not count.
	out := Outcome{Failed: !x.succeeded, Deliveries: x.delivered, Completion: x.end}
	for i, k := range x.keys {
		if k.present && (x.store != delivery.Lease || k.doneStatus) && x.j.Done(i) == 0 {
			out.Lost = true
		}
	}
	return out
}

// handle runs event e, x.now being its time.
func (x *Runner) handle(e event) {
	switch e.kind {
	case arrive, visibilityUp:
		m := &x.msgs[e.idx]
		if m.done {
			return
		}
		if m.deliveries == x.cfg.MaxDeliveries {
			m.done = true // dead-lettered
			x.end = max(x.end, x.now)
			return
		}
		m.deliveries++
		x.delivered++
		x.dl = append(x.dl, inFlight{msg: e.idx, live: true})
		x.push(limits.Later(x.now, x.cfg.Visibility), visibilityUp, e.idx)
		x.run(len(x.dl) - 1)
	case stepEvent:
		x.run(e.idx)
	}
}

// await suspends delivery d, on the loop's goroutine, until at, running the events due before.
func (x *Runner) await(d int, at time.Duration) {
	x.push(at, stepEvent, d)
	for {
		if x.stopped() {
			x.setLimit()
			return // d is not live: the delivery ends at its next operation
		}
		e := x.pop()
		x.now = e.at
		if e.kind == stepEvent && e.idx == d {
			x.setLimit()
			return
		}
		x.handle(e)
	}
}

// setLimit sets the time before which a delivery may go on without suspending.
func (x *Runner) setLimit() {
	x.limit = time.Duration(1<<63 - 1)
	if len(x.events) > 0 {
		x.limit = x.events[x.minEvent()].at
	}
}

// run advances delivery d on its worker, through the queue once another event comes first;
// a delivery starting while own is free runs on own to its end.
func (x *Runner) run(d int) {
	x.setLimit()
	w := x.dl[d].worker
	if w == nil && !x.offLoop && !x.own.busy {
		x.own.busy, x.own.d, x.dl[d].worker = true, d, &x.own
		x.own.deliver()
		x.own.busy = false
		x.end = max(x.end, x.now)
		return
	}
	if w == nil { // a delivery's first operation: an idle worker takes it
		if n := len(x.idle); n > 0 {
			w, x.idle = x.idle[n-1], x.idle[:n-1]
		} else {
			w = newWorker(x)
			x.workers = append(x.workers, w)
		}
		w.d, x.dl[d].worker = d, w
	}
	if at, _ := w.resume(); at != idle {
		x.push(at, stepEvent, d)
		return
	}
	x.idle = append(x.idle, w)
	x.end = max(x.end, x.now)
}

// crash reports whether delivery d's worker dies at point p, ending it if so (inlined).
func (x *Runner) crash(d int, p delivery.CrashPoint) bool {
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
	if x.store == delivery.Lease && k.doneStatus {
		return false
	}
	return x.cfg.TTL > 0 && x.now >= limits.Later(k.written, x.cfg.TTL)
}

// finish ends a delivery with an ack: the message is done either way.
func (x *Runner) finish(dv *inFlight, success bool) {
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

// Outcome is what one job did.
type Outcome struct {
	Failed     bool
	Deliveries int
	// Lost reports a step whose key says done and whose work was never done.
	Lost bool
	// Completion is until the last delivery stopped or the message was dead-lettered.
	Completion time.Duration
}
