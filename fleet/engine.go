package fleet

import (
	"context"
	"math"
	"math/bits"
	"time"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/schema"
)

// Event kinds.
const (
	evNone     uint8 = iota // no event: the run is over
	evArrival               // a new request arrives at a client
	evSend                  // a backoff wait ends: the next attempt goes out
	evAtServer              // an attempt reaches the server
	evResume                // a call held by a stall outage reaches the server again
	evDone                  // the server finishes a call
	evReply                 // a reply reaches the client
	evTimeout               // an attempt's timeout expires
	evHedge                 // a hedge's delay ends: another copy may go out
)

// Reply outcomes.
const (
	outOK       uint8 = iota // the work was done (or a stored reply)
	outError                 // the call failed or met an outage
	outConflict              // the key was in progress
	outRejected              // a full queue or the rate limit refused the call: overload
)

// Second is one second of a replicate's time series.
type Second struct {
	// Starts counts new requests. RetriesDecided counts retries when the
	// client decides them (an attempt failed or timed out, an attempt is
	// left and the policy, if asked then, allows it), as Brooker's
	// simulations count them; RetriesSent counts attempts after the first
	// when they leave the client, after their backoff. A retry refused at
	// its send is decided and not sent.
	Starts, Successes, RetriesDecided, RetriesSent, Timeouts, Conflicts int64
	// Busy is the integral of calls in progress over the second, so its
	// value is their time average.
	Busy float64
}

// Counts are a replicate's totals over every request that arrived.
type Counts struct {
	Requests, Succeeded, Failed int64
	// Calls counts attempts that reached the server, refused ones included.
	Calls   int64
	Retries int64
	// Timeouts counts attempts the client gave up waiting for; Errors the
	// error replies it saw (failures, rejections, throttling, outages,
	// conflicts).
	Timeouts, Errors int64
	// Conflicts counts attempts refused because their key was in progress,
	// Rejected those refused by a full queue or the rate limit, Stored those
	// answered with a completed key's stored reply.
	Conflicts, Rejected, Stored int64
	// Denied counts requests that called the server and failed because
	// the client's Policy refused an attempt the attempts allowed (its last,
	// for a kind whose refusals are retried).
	Denied int64
	// LocalRejected counts requests the Policy refused (an open breaker, a
	// throttle) before any call: they failed without calling the server.
	LocalRejected int64
	// Hedges counts the extra copies of attempts sent by hedging; Calls
	// includes those that reached the server.
	Hedges int64
	// Late counts replies that came after their attempt's timeout, or after
	// the request had moved on: answers, often to work done, the client
	// never saw.
	Late int64
	// Effects counts side effects done; Duplicates those beyond the first of
	// their request, and Duplicated the requests with two or more.
	Effects, Duplicates, Duplicated int64
	// PeakInProgress is the most calls the server held at once.
	PeakInProgress int64
}

// Replicate is one seeded simulation of a run.
type Replicate struct {
	Counts
	// P50, P95 and P99 are latency quantiles of successful requests, from
	// their first attempt to the reply, in seconds (NaN with no success).
	P50, P95, P99 float64
	// Recovery is how long after the load settles goodput is back for good,
	// in seconds, when Verdict is Recovered; NaN otherwise (see RecoveryWindow).
	Recovery float64
	// Verdict says whether the replicate recovered, stayed down, or could
	// not be judged (no trigger, or too short).
	Verdict Verdict
	// Little's law's terms over the whole run, [0, End]: Area is the integral
	// of calls in progress, Sojourn the sum of the times calls spent in the
	// server (summed as departure times minus arrival times), Entered the
	// calls that went in (not refused).
	End, Area, Sojourn float64
	Entered            int64
	// Wait sums the queue server's waits before service; Wait/Entered is
	// the mean wait.
	Wait float64
	// Events counts the events the replicate processed, stale timeouts
	// included: the unit of the engine's speed.
	Events int64
	Series []Second
}

// request is one request's client and key state. A slot is reused once the
// request has finished and no event or queue entry refers to it, so memory
// follows the requests in flight, not the length of the run.
type request struct {
	start    float64       // the first attempt's send time
	deadline float64       // the current attempt's timeout
	prev     time.Duration // the last backoff wait, which decorrelated jitter grows from
	cost     float64       // what the policy charged for the attempt in flight (0: the first)
	client   int32         // the client the request belongs to
	refs     int16         // events and queue entries that name this slot: at most 2 a call, and a request makes at most MaxAttempts x (1 + MaxHedges)
	pending  uint16        // bit k: copy k of the current attempt awaits its reply or timeout
	effects  uint8         // side effects done, counted up to 2: enough to tell a duplicate
	attempt  uint8         // attempts (rounds) sent or refused
	copies   uint8         // copies of the current attempt sent: 1, and its hedges
	done     bool
	called   bool // an attempt was sent
	timedOut bool // the last attempt timed out: what a policy asked at send is told
	keyBusy  bool // SameKey: an attempt holds the key in the server
	keyDone  bool // SameKey: the key's work is done and its reply stored
}

// waiter is a call in the queue server's queue.
type waiter struct {
	slot          int32
	attempt, copy uint8
	arrived       float64
}

// sim is one replicate in progress.
type sim struct {
	cfg  *Config
	arr  rng.Stream // arrivals only, so every run of a preset sees the same requests
	rnd  rng.Stream // everything else
	logn *rng.Lognormal
	h    eventHeap
	// timeouts holds the timeout events. Every attempt waits the same
	// Timeout, so they fall due in the order they were set: a FIFO keeps
	// them, at O(1), out of the heap, where most would sit until they pop
	// stale.
	timeouts fifo[event]
	now      float64
	dur      float64
	lmax     float64

	reqs []request
	free []int32
	// fresh is each slot's key store under FreshKeys, nil otherwise.
	fresh []attemptKeys
	// pols holds a policy state per client, or one shared by the fleet.
	pols []Policy
	// draw says the policy decides at random: each Start and Retry gets a
	// draw from rnd (and only then, so other policies' runs keep theirs).
	draw bool
	// atSend says the policy is asked for a retry when it is sent
	// (AskedAtSend), refusalRetried that a refusal uses up an attempt.
	atSend, refusalRetried bool
	// waitSecs and hedgeSecs are the client's timeout and hedge delay in
	// seconds.
	waitSecs, hedgeSecs float64
	// netSecs, baseSecs, slopeSecs and serviceSecs are the network's mean
	// delay, the server's base latency and slope, and its service
	// time's median, in seconds.
	netSecs, baseSecs, slopeSecs, serviceSecs float64

	// server state
	n       int64 // calls in progress
	last    float64
	busy    int // queue: workers busy
	queue   fifo[waiter]
	tokens  float64 // rate limit
	tokenAt float64

	hist schema.Histogram
	rep  Replicate
	// tick, if not nil, is told the time every 65,536 events.
	tick func(now float64)

	// orbit counts the requests waiting out a backoff under Memoryless,
	// started says the first arrival is scheduled, and watch, if not nil,
	// sees each span of time between events (see markov.go).
	orbit   int
	started bool
	watch   func(from, to float64) bool
}

func newSim(cfg *Config, seed uint64) *sim {
	s := &sim{cfg: cfg, dur: cfg.Duration.Seconds(), lmax: cfg.Load.max(),
		waitSecs: cfg.Client.Timeout.Seconds(), hedgeSecs: cfg.Client.HedgeDelay.Seconds(),
		netSecs: cfg.Net.Seconds(), baseSecs: cfg.Server.Base.Seconds(), slopeSecs: cfg.Server.Slope.Seconds(),
		serviceSecs: cfg.Server.Service.Median.Seconds()}
	g := rng.PCGGenerator()
	s.arr.Reset(g.New(seed, 0))
	s.rnd.Reset(g.New(seed, 1))
	if sv := cfg.Server.Service; cfg.Server.Kind == Queue && sv.Dist == Lognormal && sv.Sigma > 0 {
		s.logn = rng.NewLognormal(sv.Sigma)
	}
	s.tokens = cfg.Server.Burst
	if cfg.Client.Keys == schema.FreshKeys {
		s.fresh = []attemptKeys{}
	}
	n := cfg.Client.Clients
	pc := &cfg.Client.Policy
	if pc.Shared || pc.Kind == Unlimited && pc.Own == nil {
		n = 1
	}
	s.draw, s.atSend, s.refusalRetried = pc.Kind.random(), pc.Kind.AskedAtSend(), pc.Kind.RefusalRetried()
	if pc.Own != nil {
		s.draw, s.atSend, s.refusalRetried = pc.Own.Random, pc.Own.AskedAtSend, false
	}
	s.pols = make([]Policy, n)
	for i := range s.pols {
		if pc.Own != nil {
			s.pols[i] = pc.Own.make()
		} else {
			s.pols[i] = pc.New()
		}
	}
	s.rep.Series = make([]Second, int(math.Ceil(s.dur)))
	return s
}

// exp draws an exponential time of the given mean.
func (s *sim) exp(mean float64) float64 {
	if mean == 0 {
		return 0
	}
	return -mean * math.Log(s.rnd.Open())
}

// nextArrival is the first arrival after t by thinning (Lewis and Shedler):
// candidates at the shape's highest rate, each kept with probability
// rate(t)/highest. It returns +Inf past the run's duration.
func (s *sim) nextArrival(t float64) float64 {
	for {
		t += -math.Log(s.arr.Open()) / s.lmax
		if t >= s.dur {
			return math.Inf(1)
		}
		if s.cfg.Load.Kind == Constant || s.arr.Float64()*s.lmax < s.cfg.Load.At(t) {
			return t
		}
	}
}

func (s *sim) push(t float64, kind uint8, slot int32, attempt, copy, outcome uint8) {
	if slot >= 0 {
		s.reqs[slot].refs++
	}
	s.h.push(event{t: t, slot: slot, attempt: attempt, copy: copy, kind: kind, outcome: outcome})
}

// u is the draw a random policy decides with, 0 for the others.
func (s *sim) u() float64 {
	if !s.draw {
		return 0
	}
	return s.rnd.Float64()
}

func (s *sim) second(t float64) *Second {
	if t < s.dur {
		return &s.rep.Series[int(t)]
	}
	return nil
}

// pushTimeout schedules an attempt's timeout.
func (s *sim) pushTimeout(t float64, slot int32, attempt, copy uint8) {
	s.reqs[slot].refs++
	if s.cfg.Memoryless.On { // an exponential timeout, drawn now: they fall due out of order
		r := &s.reqs[slot]
		r.deadline = s.now + s.exp(1/s.cfg.Memoryless.TimeoutRate)
		s.h.push(event{t: r.deadline, slot: slot, attempt: attempt, copy: copy, kind: evTimeout})
		return
	}
	s.timeouts.push(event{t: t, slot: slot, attempt: attempt, copy: copy, kind: evTimeout})
}

// checkEvery is how many events a replicate runs between two looks at its
// context: well under a millisecond's work, and one look per thousands of
// events costs nothing measurable.
const checkEvery = 1 << 12

// run simulates until every request has finished. Once ctx is done it
// returns ctx's error within checkEvery events.
func (s *sim) run(ctx context.Context) (Replicate, error) {
	if !s.started {
		s.started = true
		if t := s.nextArrival(0); t < s.dur {
			s.push(t, evArrival, -1, 0, 0, 0)
		}
	}
	for {
		if s.rep.Events%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return Replicate{}, err
			}
		}
		var e event
		switch {
		// Ties go to the heap; either order would be as deterministic.
		case s.timeouts.len() > 0 && (s.h.len() == 0 || s.timeouts.front().t < s.h.min()):
			e = s.timeouts.pop()
		case s.h.len() > 0:
			e = s.h.pop()
		}
		if e.kind == evNone {
			if s.watch != nil {
				s.watch(s.now, math.Inf(1))
			}
			break
		}
		if s.watch != nil && e.t > s.now && s.watch(s.now, e.t) {
			s.h.push(e) // the watcher stopped the run before e: keep e for a resume
			break
		}
		s.rep.Events++
		s.now = e.t
		if s.tick != nil && s.rep.Events&0xffff == 0 {
			s.tick(s.now)
		}
		if e.slot >= 0 {
			s.reqs[e.slot].refs--
		}
		switch e.kind {
		case evArrival:
			s.arrive()
		case evSend:
			s.sendRetry(e.slot)
		case evAtServer:
			s.rep.Calls++
			s.atServer(e.slot, e.attempt, e.copy)
		case evResume:
			s.atServer(e.slot, e.attempt, e.copy)
		case evDone:
			s.done(e.slot, e.attempt, e.copy)
		case evReply:
			s.reply(e.slot, e.attempt, e.copy, e.outcome)
		case evTimeout:
			s.timeout(e.slot, e.attempt, e.copy)
		case evHedge:
			s.hedge(e.slot, e.attempt)
		}
		if e.slot >= 0 {
			if r := &s.reqs[e.slot]; r.done && r.refs == 0 {
				s.free = append(s.free, e.slot)
			}
		}
	}
	s.rep.End = s.now
	s.rep.P50, s.rep.P95, s.rep.P99 = s.hist.QuantileSeconds(0.5), s.hist.QuantileSeconds(0.95), s.hist.QuantileSeconds(0.99)
	s.rep.Recovery, s.rep.Verdict = recovery(s.cfg, s.rep.Series)
	return s.rep, nil
}

// arrive starts a new request and schedules the next.
func (s *sim) arrive() {
	var slot int32
	if k := len(s.free); k > 0 {
		slot = s.free[k-1]
		s.free = s.free[:k-1]
	} else {
		s.reqs = append(s.reqs, request{})
		slot = int32(len(s.reqs) - 1)
	}
	s.reqs[slot] = request{start: s.now}
	s.freshSlot(slot)
	if c := s.cfg.Client.Clients; c > 1 {
		// Drawn from the arrival stream, so every run of a preset gives
		// the same requests to the same clients.
		hi, _ := bits.Mul64(s.arr.Next(), uint64(c))
		s.reqs[slot].client = int32(hi)
	}
	s.rep.Requests++
	if sec := s.second(s.now); sec != nil {
		sec.Starts++
	}
	if s.policy(slot).Start(s.now, s.u()) {
		s.send(slot)
	} else {
		s.refused(slot)
		if r := &s.reqs[slot]; r.done && r.refs == 0 {
			s.free = append(s.free, slot) // no event names it: nothing else would free it
		}
	}
	if t := s.nextArrival(s.now); t < s.dur {
		s.push(t, evArrival, -1, 0, 0, 0)
	}
}

// policy is the policy state the request's client answers to.
func (s *sim) policy(slot int32) Policy {
	if len(s.pols) == 1 {
		return s.pols[0]
	}
	return s.pols[s.reqs[slot].client]
}

// send sends the request's next attempt, and schedules its first hedge.
func (s *sim) send(slot int32) {
	r := &s.reqs[slot]
	r.attempt++
	r.called = true
	if r.attempt > 1 {
		s.rep.Retries++
		if sec := s.second(s.now); sec != nil {
			sec.RetriesSent++
		}
	}
	r.copies, r.pending = 0, 0
	r.deadline = s.now + s.waitSecs
	s.sendCopy(slot)
}

// sendCopy sends the next copy of the current attempt: the attempt itself,
// or a hedge. Copy k leaves k hedge delays after the attempt, so its
// timeout is the attempt's deadline plus k delays.
func (s *sim) sendCopy(slot int32) {
	r := &s.reqs[slot]
	cl := &s.cfg.Client
	c := r.copies
	r.copies++
	r.pending |= 1 << c
	s.policy(slot).Sent(s.now, r.attempt > 1 || c > 0)
	s.pushTimeout(s.now+s.waitSecs, slot, r.attempt, c)
	s.push(s.now+s.exp(s.netSecs), evAtServer, slot, r.attempt, c, 0)
	if int(r.copies) <= cl.Hedges {
		s.push(s.now+s.hedgeSecs, evHedge, slot, r.attempt, 0, 0)
	}
}

// deadline is when copy c of the current attempt times out.
func (s *sim) deadline(r *request, c uint8) float64 {
	if c == 0 {
		return r.deadline
	}
	return r.deadline + float64(c)*s.hedgeSecs
}

// hedge is a hedge's delay ending with no reply yet: another copy of the
// attempt goes out if the policy allows it, as it would a retry. Stale when
// the attempt has had its answer (a success, or every copy failed).
func (s *sim) hedge(slot int32, attempt uint8) {
	r := &s.reqs[slot]
	if r.done || r.attempt != attempt || r.pending == 0 {
		return
	}
	if ok, _ := s.policy(slot).Retry(s.now, false, s.u()); !ok {
		return
	}
	s.rep.Hedges++
	s.sendCopy(slot)
}

// atServer is an attempt reaching the server: refused at once, answered from
// the key store, or taken in.
func (s *sim) atServer(slot int32, attempt, copy uint8) {
	cfg := s.cfg
	sv := &cfg.Server
	if o := cfg.Outage; o.On() && s.now >= o.From.Seconds() && s.now < o.To.Seconds() {
		if o.Mode == Stall {
			s.push(o.To.Seconds(), evResume, slot, attempt, copy, 0)
			return
		}
		s.answer(slot, attempt, copy, outError)
		return
	}
	switch sv.Kind {
	case RateLimit:
		s.tokens = math.Min(sv.Burst, s.tokens+(s.now-s.tokenAt)*sv.Limit)
		s.tokenAt = s.now
		if s.tokens < 1 {
			s.rep.Rejected++
			s.answer(slot, attempt, copy, outRejected)
			return
		}
		s.tokens--
	case Queue:
		if s.busy == sv.Workers && s.queue.len() >= sv.QueueMax {
			s.rep.Rejected++
			s.answer(slot, attempt, copy, outRejected)
			return
		}
	}
	r := &s.reqs[slot]
	if cfg.Client.Keys != schema.NoKeys {
		stored, busy := r.keyDone, r.keyBusy
		if s.fresh != nil {
			stored, busy = s.fresh[slot].done.has(attempt), s.fresh[slot].busy.has(attempt)
		}
		switch {
		case stored:
			s.rep.Stored++
			s.answer(slot, attempt, copy, outOK)
			return
		case busy:
			s.rep.Conflicts++
			if sec := s.second(s.now); sec != nil {
				sec.Conflicts++
			}
			s.answer(slot, attempt, copy, outConflict)
			return
		}
		r.keyBusy = true
		if s.fresh != nil {
			s.fresh[slot].busy.add(attempt)
		}
	}
	s.advance()
	s.n++
	s.rep.PeakInProgress = max(s.rep.PeakInProgress, s.n)
	s.rep.Entered++
	s.rep.Sojourn -= s.now
	switch sv.Kind {
	case Latency:
		s.push(s.now+s.baseSecs+s.slopeSecs*float64(s.n), evDone, slot, attempt, copy, 0)
	case RateLimit, Independent:
		s.push(s.now+s.baseSecs, evDone, slot, attempt, copy, 0)
	case Queue:
		if s.busy < sv.Workers {
			s.busy++
			s.push(s.now+s.service(), evDone, slot, attempt, copy, 0)
			return
		}
		s.queue.push(waiter{slot, attempt, copy, s.now})
		r.refs++
	}
}

// service draws a queue server's service time.
func (s *sim) service() float64 {
	sv := s.cfg.Server.Service
	switch {
	case sv.Dist == Exponential:
		return s.exp(s.serviceSecs)
	case s.logn != nil:
		return s.serviceSecs * s.logn.Draw(&s.rnd)
	}
	return s.serviceSecs
}

// advance adds the calls in progress since the last change to the integrals.
func (s *sim) advance() {
	if s.n > 0 {
		n := float64(s.n)
		s.rep.Area += n * (s.now - s.last)
		for a := s.last; a < s.now && a < s.dur; {
			sec := int(a)
			end := math.Min(math.Min(float64(sec+1), s.now), s.dur)
			s.rep.Series[sec].Busy += n * (end - a)
			a = end
		}
	}
	s.last = s.now
}

// done is the server finishing a call: the work is done unless the call fails.
func (s *sim) done(slot int32, attempt, copy uint8) {
	sv := &s.cfg.Server
	s.advance()
	s.n--
	s.rep.Sojourn += s.now
	if sv.Kind == Queue {
		if s.queue.len() > 0 {
			w := s.queue.pop()
			s.reqs[w.slot].refs--
			s.rep.Wait += s.now - w.arrived
			s.push(s.now+s.service(), evDone, w.slot, w.attempt, w.copy, 0)
		} else {
			s.busy--
		}
	}
	r := &s.reqs[slot]
	r.keyBusy = false
	if s.fresh != nil {
		s.fresh[slot].busy.remove(attempt)
	}
	if sv.PFail > 0 && s.rnd.Float64() < sv.PFail {
		s.answer(slot, attempt, copy, outError)
		return
	}
	s.rep.Effects++
	if r.effects > 0 {
		s.rep.Duplicates++
		if r.effects == 1 {
			s.rep.Duplicated++
		}
	}
	r.effects = min(r.effects+1, 2)
	r.keyDone = s.cfg.Client.Keys == schema.SameKey
	if s.fresh != nil {
		s.fresh[slot].done.add(attempt)
	}
	s.answer(slot, attempt, copy, outOK)
}

// answer sends a reply back to the client. A reply that will come after its
// attempt's timeout, or to an attempt the client no longer waits for, is
// counted as late and not scheduled: nothing would read it.
func (s *sim) answer(slot int32, attempt, copy uint8, outcome uint8) {
	t := s.now + s.exp(s.netSecs)
	r := &s.reqs[slot]
	if !r.awaits(attempt, copy) || t >= s.deadline(r, copy) {
		s.rep.Late++
		return
	}
	s.push(t, evReply, slot, attempt, copy, outcome)
}

// awaits says whether the request still waits for copy c of its attempt a.
func (r *request) awaits(a, c uint8) bool {
	return !r.done && r.attempt == a && r.pending&(1<<c) != 0
}

// reply is a reply reaching the client in time. A hedged attempt succeeds
// with its first successful copy, and fails once every copy has failed.
func (s *sim) reply(slot int32, attempt, copy, outcome uint8) {
	r := &s.reqs[slot]
	if !r.awaits(attempt, copy) { // another copy's success ended the request
		s.rep.Late++
		return
	}
	r.pending &^= 1 << copy
	retry := r.attempt > 1 || copy > 0
	p := s.policy(slot)
	p.Answered(s.now, outcome == outRejected)
	if outcome == outOK {
		p.Success(s.now, retry, r.cost)
		s.rep.Succeeded++
		s.hist.AddSeconds(s.now - r.start)
		if sec := s.second(s.now); sec != nil {
			sec.Successes++
		}
		r.done = true
		for c := range r.copies { // hedges still out: the client stops waiting
			if r.pending&(1<<c) != 0 {
				p.Cancel(s.now, r.attempt > 1 || c > 0)
			}
		}
		r.pending = 0
		return
	}
	s.rep.Errors++
	p.Failure(s.now, retry, false)
	if r.pending == 0 {
		s.retry(slot, false)
	}
}

// timeout is an attempt's timeout expiring; stale when the attempt was
// answered in time or the request moved on.
func (s *sim) timeout(slot int32, attempt, copy uint8) {
	r := &s.reqs[slot]
	if !r.awaits(attempt, copy) {
		return
	}
	r.pending &^= 1 << copy
	s.rep.Timeouts++
	if sec := s.second(s.now); sec != nil {
		sec.Timeouts++
	}
	s.policy(slot).Failure(s.now, r.attempt > 1 || copy > 0, true)
	if r.pending == 0 {
		s.retry(slot, true)
	}
}

// retry sends the next attempt after the backoff, or gives the request up
// when its attempts are spent or its client's policy, if asked when the
// retry is decided, refuses (after a timeout when timeout). This is the one
// place a client decides whether to try again.
func (s *sim) retry(slot int32, timeout bool) {
	r := &s.reqs[slot]
	cl := &s.cfg.Client
	if int(r.attempt) >= cl.Attempts {
		s.rep.Failed++
		r.done = true
		return
	}
	if s.cfg.Memoryless.On {
		s.retryMemoryless(slot, timeout)
		return
	}
	if !s.atSend {
		ok, cost := s.policy(slot).Retry(s.now, timeout, s.u())
		if !ok {
			s.rep.Denied++
			s.rep.Failed++
			r.done = true
			return
		}
		r.cost = cost
	}
	r.timedOut = timeout
	if sec := s.second(s.now); sec != nil {
		sec.RetriesDecided++
	}
	u := 0.0
	if cl.Backoff.Jittered() {
		u = s.rnd.Float64()
	}
	d := cl.Backoff.Delay(int(r.attempt)-1, r.prev, u)
	r.prev = d
	if d <= 0 {
		s.sendRetry(slot)
		return
	}
	s.push(s.now+d.Seconds(), evSend, slot, 0, 0, 0)
}

// sendRetry is a decided retry leaving the client once its backoff is over:
// a policy asked at send decides now (AskedAtSend).
func (s *sim) sendRetry(slot int32) {
	r := &s.reqs[slot]
	if s.cfg.Memoryless.On {
		s.orbit--
	}
	if s.atSend {
		ok, cost := s.policy(slot).Retry(s.now, r.timedOut, s.u())
		if !ok {
			s.refused(slot)
			return
		}
		r.cost = cost
	}
	s.send(slot)
}

// refused is the policy refusing the request's next attempt as it would go
// out. The request fails, a local rejection if it never called the server,
// else a denial; but for a kind whose refusals are retried
// (RefusalRetried), the refusal uses up the attempt and, while attempts
// remain, the next is decided as after a failure.
func (s *sim) refused(slot int32) {
	r := &s.reqs[slot]
	if s.refusalRetried && int(r.attempt)+1 < s.cfg.Client.Attempts {
		r.attempt++
		s.retry(slot, false)
		return
	}
	if r.called {
		s.rep.Denied++
	} else {
		s.rep.LocalRejected++
	}
	s.rep.Failed++
	r.done = true
}
