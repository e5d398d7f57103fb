package fleet

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/waits"
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
	outPushback              // an overload refusal, or a failure below one, saying "do not retry" (Server.Pushback)
)

// request is one request's client and key state on one edge. A slot is
// reused once the request has finished and nothing refers to it, so memory
// follows the requests in flight, not the length of the run.
type request struct {
	start    float64       // the first attempt's send time
	deadline float64       // the current attempt's timeout, before Graph.Deadlines cuts it (sim.deadline)
	prev     time.Duration // the last backoff wait, which decorrelated jitter grows from
	cost     float64       // what the policy charged for the attempt in flight (0: the first)
	who      uint32        // the edge in its low edgeBits, the client above: a request stays 48 bytes
	refs     int16         // events, queue entries and calls it serves that name this slot: at most 2 a call, and a request makes at most limits.FleetAttempts x (1 + limits.FleetHedges)
	pending  uint16        // bit k: copy k of the current attempt awaits its reply or timeout
	effects  uint8         // side effects done, counted up to 2: enough to tell a duplicate; or poisoned, which never does one
	attempt  uint8         // attempts (rounds) sent or refused
	copies   uint8         // copies of the current attempt sent: 1, and its hedges
	done     bool
	called   bool // an attempt was sent
	timedOut bool // the last attempt timed out: what a policy asked at send is told
	keyBusy  bool // SameKey: an attempt holds the key in the server
	keyDone  bool // SameKey: the key's work is done and its reply stored
}

// edgeBits is how many bits of request.who hold the edge.
const edgeBits = 12

func (r *request) edge() int32 { return int32(r.who & (1<<edgeBits - 1)) }

func (r *request) client() int32 { return int32(r.who >> edgeBits) }

// poisoned marks, in request.effects, a poison job (Entry.Poison).
const poisoned uint8 = 1 << 7

// waiter is a call in the queue server's queue: arrived is when it was
// admitted, since when it reached the service (earlier after a stall).
type waiter struct {
	slot           int32
	attempt, copy  uint8
	arrived, since float64
}

// edgeSim is an edge's client side in a replicate: its settings in the
// engine's units, its policy states and its counts.
type edgeSim struct {
	cl   *Client
	to   int32    // the service it calls
	pols []Policy // a state per client, or one shared by the edge
	// draw: each Start and Retry gets a draw from rnd (and only then, so
	// other policies' runs keep theirs); quiet: Unlimited, never called.
	draw, atSend, refusalRetried, quiet bool
	waitSecs, hedgeSecs                 float64 // the client's timeout and hedge delay
	tq                                  int     // the timeout FIFO of its attempts
	hedges, attempts, clients           int
	sameKey, freshKeys, honour          bool
	redeliver, heartbeat                bool   // an entry's settings, as atReceive
	guard                               *guard // an entry's store and crashes, or nil
	atReceive                           bool
	series                              []fleetdata.Second // the called service's
	// backingOff counts its requests waiting out a backoff since
	// backingOffAt, their integral going to Scheduled.
	backingOff                int64
	backingOffAt              float64
	jobEffects, jobDuplicates int64 // EdgeReplicate.JobEffects

	counts                        fleetdata.Counts // the client side
	expired, pushedBack, orphaned int64
	hist                          hist.Histogram
}

// svcSim is a service in a replicate: its settings in the engine's units,
// its state and its server-side counts.
type svcSim struct {
	node                             *Node
	logn                             *rng.Lognormal
	baseSecs, slopeSecs, serviceSecs float64
	calls                            []int32 // the edges of its calls
	kind                             ServerKind
	pFail                            float64
	workers, queueMax                int
	outage, stall                    bool
	outFrom, outTo                   float64

	n           int64 // calls in progress
	last        float64
	busy        int // queue: workers busy
	queue       fifo[waiter]
	held        int           // calls held by a stall
	heldAt      fifo[float64] // when each reached the service
	peakBacklog int64         // the most calls waiting, queued or held
	peakAge     float64
	// scheduled counts the requests to it waiting out a backoff.
	scheduled, peakScheduled     int64
	tokens                       float64 // rate limit
	tokenAt                      float64
	waitingAtEnd, scheduledAtEnd int64 // atEnd's

	counts              fleetdata.Counts // the server side
	area, sojourn, wait float64
	queued              float64 // the integral of calls waiting
	entered             int64
	series              []fleetdata.Second
	callSeries          []int64   // calls a second; nil for Run
	heldSeries          []float64 // the integral of calls a stall held; nil for Run
}

// arrival is an entry's arrival process.
type arrival struct {
	src      rng.Stream // its arrivals only, so every run of a preset sees the same requests
	load     Shape
	lmax     float64
	edge     int32
	poison   float64
	from, to float64 // load's, in seconds
	// firstAt are the times of the clients' first calls, ascending, firstOf
	// their clients, and nextFirst the next one to start.
	firstAt   []float64
	firstOf   []uint32
	nextFirst int
}

// job is a call a service took in and whose work succeeded, in progress
// while the service makes its own calls for it.
type job struct {
	slot          int32 // the request served
	attempt, copy uint8 // its copy served
	svc           int32
	limit         float64 // the copy's deadline under Graph.Deadlines; +Inf otherwise
	// next counts the calls made, out those not finished, live those whose
	// slots are not yet free: the job is freed only once it is answered and
	// live is 0, so a slot's up always names the job that made its call.
	next, out, live uint8
	cur             int32  // the slot of the call made last: the step that may commit
	answered        bool   // the service answered the request served
	dead            bool   // its worker left it unanswered: its calls are not retried
	root            int32  // the slot of the request that entered the graph
	serial          uint32 // root's serial, as the slot may be reused
}

// sim is one replicate in progress.
type sim struct {
	g   *Graph
	cfg *Config    // the Config the graph was made from, for Run; nil for RunGraph
	rnd rng.Stream // everything but arrivals
	// h holds the events but the timeouts in tq. Of events of the same time
	// (a stall's end, a fixed service time), those in h pop first, then each
	// FIFO's, the first FIFO's first, each in the order they were pushed.
	h eventQueue
	// tq holds a timeout FIFO for each Timeout an edge sets: they fall due
	// in the order they were set. A timeout Graph.Deadlines cuts goes to h.
	tq      []fifo[event]
	now     float64
	dur     float64
	netSecs float64

	reqs  []request
	free  []int32
	up    []int32       // the job each slot's request serves (-1: an entry's); nil with no calls
	fresh []attemptKeys // each slot's keys under FreshKeys, or nil
	// serial numbers each slot's request that entered the graph, and seen
	// holds, seenWords words a slot, the edges on which its tree did a side
	// effect; both nil with no calls.
	serial     []uint32
	nextSerial uint32
	seen       []uint64
	seenWords  int
	// leased names each slot's copy a worker holds (leaseID; 0: none),
	// whose timeout heartbeats extend; nil with no Heartbeat.
	leased   []uint16
	jobs     []job
	freeJobs []int32
	// keys holds, keysWide records a slot, each guarded job's store, and
	// books its crashes and outcome; both nil with no guarded entry.
	keys     []keyRecord
	keysWide int
	books    []jobBook
	cur      int32 // the slot of the event in progress, which the loop frees

	arrivals             []arrival
	edges                []edgeSim
	svcs                 []svcSim
	mem                  fleetdata.Memoryless
	deadlines, atReceive bool // Graph.Deadlines; some Entry.TimeoutAtReceive

	ended   bool              // atEnd has run
	pastEnd fleetdata.Second  // what second counts past the end, never read
	events  int64             // processed, stale timeouts included
	tick    func(now float64) // if not nil, told the time every 65,536 events

	// orbit counts the requests waiting out a backoff under Memoryless,
	// started says the first arrival is scheduled, and watch, if not nil,
	// sees each span of time between events (see markov.go).
	orbit   int
	started bool
	watch   func(from, to float64) bool
}

// newSim is the one-edge graph of cfg, seeded.
func newSim(cfg *Config, seed uint64) *sim {
	g := cfg.Graph()
	s := newGraphSim(&g, seed, nil)
	s.cfg = cfg
	s.svcs[0].callSeries, s.svcs[0].heldSeries = nil, nil
	return s
}

// newGraphSim starts replicate seed of g, which must have passed Check:
// entry 0's arrivals draw from stream 0, entry k > 0's from stream k + 1,
// the rest from stream 1. It reuses the memory of spare, if of g.
func newGraphSim(g *Graph, seed uint64, spare *sim) *sim {
	s := &sim{g: g, dur: g.Duration.Seconds(), netSecs: g.Net.Seconds(), mem: g.memoryless, deadlines: g.Deadlines}
	gen := rng.PCGGenerator()
	s.arrivals = make([]arrival, len(g.Entries))
	s.arrivals[0].src.Reset(gen.New(seed, 0))
	s.rnd.Reset(gen.New(seed, 1))
	for k := 1; k < len(g.Entries); k++ {
		s.arrivals[k].src.Reset(gen.New(seed, uint64(k)+1))
	}
	edges := g.edges()
	s.svcs = make([]svcSim, len(g.Services))
	seconds := int(math.Ceil(s.dur))
	for v := range g.Services {
		n := &g.Services[v]
		sv := &s.svcs[v]
		*sv = svcSim{node: n, baseSecs: n.Server.Base.Seconds(), slopeSecs: n.Server.Slope.Seconds(),
			serviceSecs: n.Server.Service.Median.Seconds(), tokens: n.Server.Burst, series: make([]fleetdata.Second, seconds), callSeries: make([]int64, seconds), heldSeries: make([]float64, seconds),
			kind: n.Server.Kind, pFail: n.Server.PFail, workers: n.Server.Workers, queueMax: n.Server.QueueMax,
			outage: n.Outage.On(), stall: n.Outage.Mode == Stall, outFrom: n.Outage.From.Seconds(), outTo: n.Outage.To.Seconds()}
		if d := n.Server.Service; n.Server.Kind == QueueServer && d.Dist == LognormalService && d.Sigma > 0 {
			sv.logn = rng.NewLognormal(d.Sigma)
		}
	}
	if spare != nil && spare.g != g {
		spare = nil
	}
	if spare != nil { // as many edges, each with its histogram: zeroed, as made
		s.edges = spare.edges
		clear(s.edges)
	} else {
		s.edges = make([]edgeSim, len(edges))
	}
	waits := map[time.Duration]int{}
	for i, ed := range edges {
		cl := g.client(ed)
		e := &s.edges[i]
		e.cl, e.to, e.series = cl, int32(ed.To), s.svcs[ed.To].series
		e.waitSecs, e.hedgeSecs = cl.Timeout.Seconds(), cl.HedgeDelay.Seconds()
		e.hedges, e.attempts, e.clients, e.sameKey, e.honour = cl.Hedges, cl.Attempts, cl.Clients, cl.Keys == schema.SameKey, cl.HonourPushback
		e.freshKeys = cl.Keys == schema.FreshKeys
		if e.freshKeys && s.fresh == nil {
			s.fresh = []attemptKeys{}
		}
		q, ok := waits[cl.Timeout]
		if !ok {
			q = len(s.tq)
			waits[cl.Timeout] = q
			s.tq = append(s.tq, fifo[event]{})
		}
		e.tq = q
		n := cl.Clients
		pc := &cl.Policy
		if pc.Shared || pc.Kind == Unlimited && pc.Own == nil {
			n = 1
		}
		e.draw, e.atSend, e.refusalRetried = pc.Kind.random(), pc.Kind.askedAtSend(), pc.Kind.refusalRetried()
		if pc.Own != nil {
			e.draw, e.atSend, e.refusalRetried = pc.Own.Random, pc.Own.AskedAtSend, false
		}
		e.pols = make([]Policy, n)
		for c := range e.pols {
			e.pols[c] = pc.newState()
		}
		_, e.quiet = e.pols[0].(unlimited)
		if ed.From >= 0 {
			s.svcs[ed.From].calls = append(s.svcs[ed.From].calls, int32(i))
		}
	}
	for k := range g.Entries {
		en := &g.Entries[k]
		s.edges[k].redeliver, s.edges[k].heartbeat, s.edges[k].guard = en.RedeliverAtTimeout, en.Heartbeat, newGuard(en)
		s.edges[k].atReceive = en.TimeoutAtReceive
		s.atReceive = s.atReceive || en.TimeoutAtReceive
		if en.Heartbeat && s.leased == nil {
			s.leased = []uint16{}
		}
		a := &s.arrivals[k]
		a.load, a.lmax, a.edge, a.poison = en.Load, en.Load.max(), int32(k), en.Poison
		a.from, a.to = en.Load.From.Seconds(), en.Load.To.Seconds()
	}
	if len(edges) > len(g.Entries) { // a service makes calls
		s.up, s.serial, s.seen, s.seenWords = []int32{}, []uint32{}, []uint64{}, (len(s.edges)+63)/64
	}
	if s.keysWide = g.keysWidth(); s.keysWide > 0 {
		s.keys, s.books = []keyRecord{}, []jobBook{}
	}
	if spare != nil {
		s.reuse(spare)
	}
	return s
}

// reuse gives s, a replicate of old's graph being made, the memory old
// grew, emptied; old is not used after.
func (s *sim) reuse(old *sim) {
	s.reqs, s.free, s.jobs, s.freeJobs = old.reqs[:0], old.free[:0], old.jobs[:0], old.freeJobs[:0]
	// Of the same graph, old holds each of these nil just when s does: nil
	// stays nil (no service makes calls, no FreshKeys, no Heartbeat, no guard).
	s.up, s.serial, s.seen, s.fresh, s.leased = old.up[:0], old.serial[:0], old.seen[:0], old.fresh[:0], old.leased[:0]
	s.keys, s.books = old.keys[:0], old.books[:0]
	s.h.reuse(&old.h)
	for i := range s.tq {
		s.tq[i].reuse(&old.tq[i])
	}
	for v := range s.svcs {
		s.svcs[v].queue.reuse(&old.svcs[v].queue)
		s.svcs[v].heldAt.reuse(&old.svcs[v].heldAt)
	}
}

// exp draws an exponential time of the given mean.
func (s *sim) exp(mean float64) float64 {
	if mean == 0 {
		return 0
	}
	return -mean * math.Log(s.rnd.Open())
}

// nextArrival is entry a's first arrival after t by thinning (Lewis and
// Shedler), +Inf past the run's duration.
func (s *sim) nextArrival(a *arrival, t float64) float64 {
	for {
		t += -math.Log(a.src.Open()) / a.lmax
		if t >= s.dur {
			return math.Inf(1)
		}
		if a.load.Kind == ConstantLoad || a.src.Float64()*a.lmax < a.load.at(t, a.from, a.to) {
			return t
		}
	}
}

// push schedules e, an event of the request in its slot (small enough to
// inline).
func (s *sim) push(e event) {
	s.reqs[e.slot].refs++
	s.h.push(e)
}

// pushArrival schedules an arrival at entry k (slot -1 - k).
func (s *sim) pushArrival(t float64, k int32, first bool) {
	e := event{t: t, slot: -1 - k, kind: evArrival}
	if first {
		e.attempt = firstCall
	}
	s.h.push(e)
}

// u is the draw a random policy of edge e decides with, 0 for the others.
func (s *sim) u(e *edgeSim) float64 {
	if !e.draw {
		return 0
	}
	return s.rnd.Float64()
}

// second is the second of series that t falls in; past the end, a
// scratch second whose counts nothing reads.
func (s *sim) second(series []fleetdata.Second, t float64) *fleetdata.Second {
	if t < s.dur {
		return &series[int(t)]
	}
	return &s.pastEnd
}

// edgeOf is the edge of the request in slot.
func (s *sim) edgeOf(slot int32) *edgeSim { return &s.edges[s.reqs[slot].edge()] }

// limit is the request's caller's deadline under Graph.Deadlines, else +Inf.
func (s *sim) limit(slot int32) float64 {
	if !s.deadlines || s.up == nil { // no service makes calls: every request is an entry's
		return math.Inf(1)
	}
	if j := s.up[slot]; j >= 0 {
		return s.jobs[j].limit
	}
	return math.Inf(1)
}

// pushTimeout schedules the timeout of an attempt at t, or at its caller's
// deadline if earlier.
func (s *sim) pushTimeout(t float64, slot int32, e *edgeSim, attempt, copy uint8) {
	r := &s.reqs[slot]
	r.refs++
	if s.mem.On { // an exponential timeout, drawn now: they fall due out of order
		r.deadline = s.now + s.exp(1/s.mem.TimeoutRate)
		s.h.push(event{t: r.deadline, slot: slot, attempt: attempt, copy: copy, kind: evTimeout})
		return
	}
	if l := s.limit(slot); l < t { // cut short by Graph.Deadlines: out of the FIFO's order
		s.h.push(event{t: l, slot: slot, attempt: attempt, copy: copy, kind: evTimeout})
		return
	}
	s.tq[e.tq].push(event{t: t, slot: slot, attempt: attempt, copy: copy, kind: evTimeout})
}

// checkEvery is how many events a replicate runs between two looks at its
// context.
const checkEvery = 1 << 12

// simulate runs the replicate until every request has finished. Once ctx
// is done it returns ctx's error within checkEvery events.
func (s *sim) simulate(ctx context.Context) error {
	if !s.started {
		s.started = true
		for k := range s.arrivals {
			a := &s.arrivals[k]
			if a.load.FirstCall {
				s.firstCalls(a)
			}
			if t := s.nextArrival(a, 0); t < s.dur {
				s.pushArrival(t, int32(k), false)
			}
		}
	}
	tqs := s.tq // the FIFOs are made with the sim: the slice never changes
	for {
		if s.events&(checkEvery-1) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var e event // the earliest, ties to h first (see sim.h); lane its FIFO, -1 for h
		lane, lt := -1, math.Inf(1)
		if s.h.len() > 0 {
			lt = s.h.min()
		}
		for i := range tqs {
			if tq := &tqs[i]; tq.len() > 0 && tq.front().t < lt {
				lane, lt = i, tq.front().t
			}
		}
		switch {
		case lane >= 0:
			e = tqs[lane].pop()
		case s.h.len() > 0:
			e = s.h.take() // min loaded it
		}
		if e.kind == evNone {
			if s.watch != nil {
				s.watch(s.now, math.Inf(1))
			}
			break
		}
		if s.watch != nil && e.t > s.now && s.watch(s.now, e.t) {
			if lane >= 0 {
				tqs[lane].unpop(e)
			} else {
				s.h.unpop(e)
			}
			break
		}
		s.events++
		if e.t >= s.dur && !s.ended {
			s.atEnd()
		}
		s.now = e.t
		if s.tick != nil && s.events&0xffff == 0 {
			s.tick(s.now)
		}
		s.cur = e.slot
		if e.slot >= 0 {
			s.reqs[e.slot].refs--
		}
		switch e.kind {
		case evArrival:
			s.arrive(-1-e.slot, e.attempt == firstCall)
		case evSend:
			s.backoffs(s.edgeOf(e.slot), -1)
			s.sendRetry(e.slot)
		case evAtServer:
			s.atServer(e.slot, e.attempt, e.copy, true)
		case evResume:
			s.atServer(e.slot, e.attempt, e.copy, false)
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
				s.recycle(e.slot)
			}
		}
	}
	s.cur = -1
	return nil
}

// atEnd keeps each service's calls still waiting for it and requests to it
// waiting out a backoff as the run's duration ends.
func (s *sim) atEnd() {
	s.ended = true
	for v := range s.svcs {
		q := &s.svcs[v].queue
		for i := range q.len() {
			if w := q.at(i); s.reqs[w.slot].awaits(w.attempt, w.copy) {
				s.svcs[v].waitingAtEnd++
			}
		}
	}
	s.h.each(func(e *event) {
		if e.kind == evResume && s.reqs[e.slot].awaits(e.attempt, e.copy) {
			s.svcs[s.edgeOf(e.slot).to].waitingAtEnd++
		}
	})
	for i := range s.edges {
		e := &s.edges[i]
		s.svcs[e.to].scheduledAtEnd += e.backingOff
	}
}

// replicate is the one-edge graph's replicate as Run reports it.
func (s *sim) replicate() fleetdata.Replicate {
	e, v := &s.edges[0], &s.svcs[0]
	rep := fleetdata.Replicate{Counts: e.counts, End: s.now, Area: v.area, Sojourn: v.sojourn, Entered: v.entered,
		Wait: v.wait, Events: s.events, Series: v.series}
	rep.Counts.Add(&v.counts)
	rep.P50, rep.P95, rep.P99 = e.hist.QuantileSeconds(0.5), e.hist.QuantileSeconds(0.95), e.hist.QuantileSeconds(0.99)
	rep.Recovery, rep.Verdict = recovery(s.cfg, rep.Series)
	return rep
}

// graphReplicate is the replicate as RunGraph reports it.
func (s *sim) graphReplicate() fleetdata.GraphReplicate {
	rep := fleetdata.GraphReplicate{End: s.now, Events: s.events,
		Services: make([]fleetdata.ServiceReplicate, len(s.svcs)), Edges: make([]fleetdata.EdgeReplicate, len(s.edges))}
	into := make([][]int, len(s.svcs)) // the edges into each service
	for i := range s.edges {
		e := &s.edges[i]
		rep.Edges[i] = fleetdata.EdgeReplicate{Counts: e.counts, Expired: e.expired, PushedBack: e.pushedBack, Orphaned: e.orphaned,
			JobEffects: e.jobEffects, JobDuplicates: e.jobDuplicates}
		if g := e.guard; g != nil {
			rep.Edges[i].Crashes, rep.Edges[i].RolledBack, rep.Edges[i].Held, rep.Edges[i].Lost = g.crashed, g.rolledBack, g.held, g.lost
		}
		rep.Edges[i].P50, rep.Edges[i].P95, rep.Edges[i].P99 = e.hist.QuantileSeconds(0.5), e.hist.QuantileSeconds(0.95), e.hist.QuantileSeconds(0.99)
		into[e.to] = append(into[e.to], i)
	}
	var merged hist.Histogram
	for v := range s.svcs {
		sv := &s.svcs[v]
		out := &rep.Services[v]
		*out = fleetdata.ServiceReplicate{Counts: sv.counts, Area: sv.area, Sojourn: sv.sojourn, Entered: sv.entered, Wait: sv.wait, Series: sv.series,
			PeakBacklog: sv.peakBacklog, PeakAge: sv.peakAge, PeakScheduled: sv.peakScheduled, Queued: sv.queued, CallSeries: sv.callSeries, HeldSeries: sv.heldSeries,
			WaitingAtEnd: sv.waitingAtEnd, ScheduledAtEnd: sv.scheduledAtEnd}
		out.Drain, out.DrainVerdict = s.g.drain(sv.series)
		merged = hist.Histogram{} // its callers' latencies
		for _, i := range into[v] {
			merged.Merge(&s.edges[i].hist) // a replicate's counts cannot overflow
			out.Counts.Add(&s.edges[i].counts)
		}
		out.P50, out.P95, out.P99 = merged.QuantileSeconds(0.5), merged.QuantileSeconds(0.95), merged.QuantileSeconds(0.99)
	}
	return rep
}

// newSlot is a slot for a new request on edge, started now.
func (s *sim) newSlot(edge int32) int32 {
	var slot int32
	if k := len(s.free); k > 0 {
		slot = s.free[k-1]
		s.free = s.free[:k-1]
		if s.fresh != nil { // an empty key store, no lease: a new slot's are
			s.fresh[slot] = attemptKeys{}
		}
		if s.leased != nil {
			s.leased[slot] = 0
		}
	} else {
		s.reqs = append(s.reqs, request{})
		slot = int32(len(s.reqs) - 1)
		if s.up != nil {
			s.up = append(s.up, -1)
			s.serial = append(s.serial, 0)
			s.seen = append(s.seen, make([]uint64, s.seenWords)...)
		}
		if s.keys != nil {
			s.keys = append(s.keys, make([]keyRecord, s.keysWide)...)
			s.books = append(s.books, jobBook{})
		}
		if s.fresh != nil {
			s.fresh = append(s.fresh, attemptKeys{})
		}
		if s.leased != nil {
			s.leased = append(s.leased, 0)
		}
	}
	s.reqs[slot] = request{start: s.now, who: uint32(edge)}
	return slot
}

// lease notes that a queue server's worker takes up (held) or lets go of
// copy c of attempt a of the request in slot, for an entry's Heartbeat.
func (s *sim) lease(slot int32, a, c uint8, held bool) {
	switch id := leaseID(a, c); {
	case s.leased == nil: // no Heartbeat
	case held && s.reqs[slot].awaits(a, c):
		s.leased[slot] = id
	case !held && s.leased[slot] == id:
		s.leased[slot] = 0
	}
}

// leaseID names copy c of attempt a in sim.leased.
func leaseID(a, c uint8) uint16 { return uint16(a)<<8 | uint16(c) + 1 }

// received is a queue server's worker taking copy c of attempt a of the
// request in slot: under TimeoutAtReceive its timeout starts now.
func (s *sim) received(slot int32, a, c uint8) {
	r := &s.reqs[slot]
	e := &s.edges[r.edge()]
	if !e.atReceive || !r.awaits(a, c) {
		return
	}
	r.deadline = s.now + e.waitSecs
	s.pushTimeout(r.deadline, slot, e, a, c)
}

// rootSlot readies slot's books as the root of a tree of calls.
func (s *sim) rootSlot(slot int32) {
	s.nextSerial++
	s.serial[slot] = s.nextSerial
	clear(s.seen[int(slot)*s.seenWords : (int(slot)+1)*s.seenWords])
	if s.keys != nil {
		clear(s.keys[int(slot)*s.keysWide : (int(slot)+1)*s.keysWide])
		s.books[slot] = jobBook{}
	}
}

// jobEffect counts a side effect of the request in slot on edge e, a
// duplicate when its tree already did one on e (an orphan's never is).
func (s *sim) jobEffect(slot int32, e *edgeSim) {
	e.jobEffects++
	root := slot
	if u := s.up[slot]; u >= 0 {
		jb := &s.jobs[u]
		if s.serial[jb.root] != jb.serial { // an orphan's
			return
		}
		root = jb.root
	}
	ei := int(s.reqs[slot].edge())
	w := &s.seen[int(root)*s.seenWords+ei/64]
	if bit := uint64(1) << (ei % 64); *w&bit != 0 {
		e.jobDuplicates++
	} else {
		*w |= bit
	}
}

// firstCall marks an evArrival that is a client's first call (Shape.FirstCall).
const firstCall = 1

// firstCalls draws entry a's first call of every client and schedules the
// earliest.
func (s *sim) firstCalls(a *arrival) {
	n := s.edges[a.edge].clients
	a.firstAt, a.firstOf = make([]float64, 0, n), make([]uint32, n)
	for c := range n {
		a.firstAt = append(a.firstAt, -s.netSecs*math.Log(a.src.Open()))
		a.firstOf[c] = uint32(c)
	}
	slices.SortStableFunc(a.firstOf, func(x, y uint32) int { return cmp.Compare(a.firstAt[x], a.firstAt[y]) })
	slices.Sort(a.firstAt)
	s.pushFirst(a)
}

// pushFirst schedules entry a's next first call, if one is left before the end.
func (s *sim) pushFirst(a *arrival) {
	if a.nextFirst < len(a.firstAt) && a.firstAt[a.nextFirst] < s.dur {
		s.pushArrival(a.firstAt[a.nextFirst], a.edge, true)
	}
}

// arrive starts a new request at entry k and schedules the entry's next.
func (s *sim) arrive(k int32, first bool) {
	a := &s.arrivals[k]
	slot := s.newSlot(a.edge)
	if s.up != nil {
		s.up[slot] = -1
		s.rootSlot(slot)
	}
	e := &s.edges[a.edge]
	if first {
		s.reqs[slot].who |= a.firstOf[a.nextFirst] << edgeBits
		a.nextFirst++
	} else if c := e.clients; c > 1 {
		// From the arrival stream: every run of a preset gets the same clients.
		hi, _ := bits.Mul64(a.src.Next(), uint64(c))
		s.reqs[slot].who |= uint32(hi) << edgeBits
	}
	if a.poison > 0 && a.src.Float64() < a.poison { // from the arrival stream too
		s.reqs[slot].effects = poisoned
	}
	s.start(slot, e)
	if first {
		s.pushFirst(a)
	} else if t := s.nextArrival(a, s.now); t < s.dur {
		s.pushArrival(t, k, false)
	}
}

// start is a new request's first attempt on edge e, if its client's
// policy lets it go and its caller's deadline has not passed (expired); it
// frees the slot of a request that ends at once.
func (s *sim) start(slot int32, e *edgeSim) {
	if s.limit(slot) <= s.now {
		e.expired++
		s.reqs[slot].done = true
		s.finish(slot, false, false)
	} else {
		e.counts.Requests++
		s.second(e.series, s.now).Starts++
		if e.quiet || e.policy(&s.reqs[slot]).Start(s.now, s.u(e)) {
			s.send(slot)
		} else {
			s.refused(slot)
		}
	}
	s.recycleIdle(slot) // a new slot, never the event in progress's
}

// policy is the policy state request r on edge e answers to: its client's.
func (e *edgeSim) policy(r *request) Policy {
	if len(e.pols) == 1 {
		return e.pols[0]
	}
	return e.pols[r.client()]
}

// send sends the request's next attempt and schedules its first hedge, or
// fails it when its caller's deadline has passed.
func (s *sim) send(slot int32) {
	r := &s.reqs[slot]
	e := &s.edges[r.edge()]
	if s.limit(slot) <= s.now {
		e.expired++
		s.fail(slot, false)
		return
	}
	if s.keys != nil && s.crashBeforeTry(slot) {
		return
	}
	r.attempt++
	r.called = true
	if r.attempt > 1 {
		e.counts.Retries++
		s.second(e.series, s.now).RetriesSent++
	}
	r.copies, r.pending = 0, 0
	r.deadline = s.now + e.waitSecs
	if e.atReceive {
		r.deadline = math.Inf(1) // until a worker receives it
	}
	s.sendCopy(slot, e)
}

// sendCopy sends the next copy of the current attempt, the attempt or a
// hedge; copy k times out k hedge delays after the attempt.
func (s *sim) sendCopy(slot int32, e *edgeSim) {
	r := &s.reqs[slot]
	c := r.copies
	r.copies++
	r.pending |= 1 << c
	if !e.quiet {
		e.policy(r).Sent(s.now, r.attempt > 1 || c > 0)
	}
	if !e.atReceive {
		s.pushTimeout(s.now+e.waitSecs, slot, e, r.attempt, c)
	}
	s.push(event{t: s.now + s.exp(s.netSecs), slot: slot, attempt: r.attempt, copy: c, kind: evAtServer})
	if int(r.copies) <= e.hedges {
		s.push(event{t: s.now + e.hedgeSecs, slot: slot, attempt: r.attempt, kind: evHedge})
	}
}

// deadline is when copy c of the current attempt of request r (in slot,
// on edge e) times out.
func (s *sim) deadline(slot int32, r *request, e *edgeSim, c uint8) float64 {
	d := r.deadline
	if c > 0 {
		d += float64(c) * e.hedgeSecs
	}
	return min(d, s.limit(slot))
}

// hedge is a hedge's delay ending: another copy goes out if the policy
// allows it, as a retry; stale once the attempt has its answer.
func (s *sim) hedge(slot int32, attempt uint8) {
	r := &s.reqs[slot]
	if r.done || r.attempt != attempt || r.pending == 0 {
		return
	}
	e := &s.edges[r.edge()]
	if !e.quiet {
		if ok, _ := e.policy(r).Retry(s.now, false, s.u(e)); !ok {
			return
		}
	}
	e.counts.Hedges++
	s.sendCopy(slot, e)
}

// rejection is the outcome of an overload refusal at v: "do not retry"
// with Server.Pushback.
func (v *svcSim) rejection() uint8 {
	if v.node.Server.Pushback {
		return outPushback
	}
	return outRejected
}

// atServer is an attempt reaching its service (arrived, else resumed
// after a stall): refused, answered from the key store, or taken in.
func (s *sim) atServer(slot int32, attempt, copy uint8, arrived bool) {
	e := s.edgeOf(slot)
	v := &s.svcs[e.to]
	since := s.now
	if arrived {
		v.counts.Calls++
		if v.callSeries != nil && s.now < s.dur {
			v.callSeries[int(s.now)]++
		}
	} else { // resumed after a stall: it waited since it reached the service
		s.advance(v)
		v.held--
		since = v.heldAt.pop()
	}
	if v.outage && s.now >= v.outFrom && s.now < v.outTo {
		if v.stall {
			s.advance(v)
			v.held++
			v.heldAt.push(s.now)
			v.waited()
			s.push(event{t: v.outTo, slot: slot, attempt: attempt, copy: copy, kind: evResume})
			return
		}
		if s.atReceive && v.kind == QueueServer { // a worker took it and failed it: its timeout runs
			s.received(slot, attempt, copy)
		}
		s.answer(slot, attempt, copy, outError)
		return
	}
	switch v.kind {
	case RateLimitServer:
		sv := &v.node.Server
		v.tokens = min(sv.Burst, v.tokens+(s.now-v.tokenAt)*sv.Limit)
		v.tokenAt = s.now
		if v.tokens < 1 {
			v.counts.Rejected++
			s.answer(slot, attempt, copy, v.rejection())
			return
		}
		v.tokens--
	case QueueServer:
		if v.busy == v.workers && v.queue.len() >= v.queueMax {
			v.counts.Rejected++
			s.answer(slot, attempt, copy, v.rejection())
			return
		}
	}
	r := &s.reqs[slot]
	if e.sameKey || e.freshKeys {
		stored, busy := r.keyDone, r.keyBusy
		if e.freshKeys {
			stored, busy = s.fresh[slot].done.has(attempt), s.fresh[slot].busy.has(attempt)
		}
		switch {
		case stored:
			v.counts.Stored++
			s.answer(slot, attempt, copy, outOK)
			return
		case busy:
			v.counts.Conflicts++
			s.second(v.series, s.now).Conflicts++
			s.answer(slot, attempt, copy, outConflict)
			return
		}
		r.keyBusy = true
		if e.freshKeys {
			s.fresh[slot].busy.add(attempt)
		}
	}
	s.advance(v)
	v.n++
	v.counts.PeakInProgress = max(v.counts.PeakInProgress, v.n)
	v.entered++
	v.sojourn -= s.now
	switch v.kind {
	case LatencyServer:
		s.push(event{t: s.now + v.baseSecs + v.slopeSecs*float64(v.n), slot: slot, attempt: attempt, copy: copy, kind: evDone})
	case RateLimitServer, IndependentServer:
		s.push(event{t: s.now + v.baseSecs, slot: slot, attempt: attempt, copy: copy, kind: evDone})
	case QueueServer:
		if v.busy < v.workers {
			v.busy++
			s.lease(slot, attempt, copy, true)
			if s.atReceive {
				s.received(slot, attempt, copy)
			}
			s.push(event{t: s.now + s.service(v), slot: slot, attempt: attempt, copy: copy, kind: evDone})
			return
		}
		v.queue.push(waiter{slot, attempt, copy, s.now, since})
		v.waited()
		r.refs++
	}
}

// service draws a queue server's service time.
func (s *sim) service(v *svcSim) float64 {
	switch {
	case v.node.Server.Service.Dist == ExponentialService:
		return s.exp(v.serviceSecs)
	case v.logn != nil:
		return v.serviceSecs * v.logn.Draw(&s.rnd)
	}
	return v.serviceSecs
}

// advance adds v's calls in progress and waiting since its last change to
// the integrals, and the oldest's age to Age and peakAge.
func (s *sim) advance(v *svcSim) {
	last := v.last
	v.last = s.now
	waiting := v.queue.len() + v.held
	if v.n == 0 && waiting == 0 {
		return
	}
	n, dt := float64(v.n), s.now-last
	v.area += n * dt
	oldest := math.Inf(1)
	if waiting > 0 { // with none, every term below would add +0
		v.queued += float64(waiting) * dt
		oldest = v.oldest()
		v.peakAge = max(v.peakAge, s.now-oldest)
	}
	// Second by second up to now or the run's end; no time is NaN, so
	// comparisons pick the same values min would.
	stop := s.now
	if s.dur < stop {
		stop = s.dur
	}
	for a := last; a < stop; {
		sec := int(a)
		end := float64(sec + 1)
		if stop < end {
			end = stop
		}
		ss := &v.series[sec]
		ss.Busy += n * (end - a)
		if waiting > 0 {
			w := float64(waiting)
			ss.Backlog += w * (end - a)
			if v.heldSeries != nil {
				v.heldSeries[sec] += float64(v.held) * (end - a)
			}
			ss.Age = max(ss.Age, end-oldest)
		}
		a = end
	}
}

// oldest is when the oldest call waiting at v reached it; some call waits.
func (v *svcSim) oldest() float64 {
	t := math.Inf(1)
	if v.queue.len() > 0 {
		t = v.queue.front().since
	}
	if v.held > 0 {
		t = min(t, *v.heldAt.front())
	}
	return t
}

// waited notes a call that starts waiting at v in its peak backlog.
func (v *svcSim) waited() {
	v.peakBacklog = max(v.peakBacklog, int64(v.queue.len()+v.held))
}

// backoffs adds d (1 or -1) to the requests of edge e waiting out a backoff.
func (s *sim) backoffs(e *edgeSim, d int64) {
	if e.backingOff > 0 {
		w := float64(e.backingOff)
		for a := e.backingOffAt; a < s.now && a < s.dur; {
			sec := int(a)
			end := min(float64(sec+1), s.now, s.dur)
			e.series[sec].Scheduled += w * (end - a)
			a = end
		}
	}
	e.backingOff += d
	e.backingOffAt = s.now
	v := &s.svcs[e.to]
	v.scheduled += d
	v.peakScheduled = max(v.peakScheduled, v.scheduled)
}

// release is a call leaving v, a queue server's worker taking the next.
func (s *sim) release(v *svcSim) {
	s.advance(v)
	v.n--
	v.sojourn += s.now
	if v.kind == QueueServer {
		if v.queue.len() > 0 {
			w := v.queue.pop()
			s.reqs[w.slot].refs--
			s.lease(w.slot, w.attempt, w.copy, true)
			if s.atReceive {
				s.received(w.slot, w.attempt, w.copy)
			}
			v.wait += s.now - w.arrived
			s.push(event{t: s.now + s.service(v), slot: w.slot, attempt: w.attempt, copy: w.copy, kind: evDone})
		} else {
			v.busy--
		}
	}
}

// done is a service finishing its own work on a call: it answers, or makes
// its calls first (startJob).
func (s *sim) done(slot int32, attempt, copy uint8) {
	e := s.edgeOf(slot)
	v := &s.svcs[e.to]
	r := &s.reqs[slot]
	poison := r.effects&poisoned != 0 // fails with no draw
	calls := len(v.calls) > 0
	if !calls {
		s.letGo(v, slot, attempt, copy)
	}
	// With calls, drawn before the release, which a failure alone makes now.
	if poison || v.pFail > 0 && s.rnd.Float64() < v.pFail || s.keys != nil && s.rollsBack(slot) {
		if calls {
			s.letGo(v, slot, attempt, copy)
		}
		s.answer(slot, attempt, copy, outError)
		return
	}
	v.counts.Effects++
	if r.effects > 0 {
		v.counts.Duplicates++
		if r.effects == 1 {
			v.counts.Duplicated++
		}
	}
	r.effects = min(r.effects+1, 2)
	if s.seen != nil {
		s.jobEffect(slot, e)
	}
	if calls {
		s.startJob(slot, attempt, copy)
		return
	}
	s.storeKey(slot, attempt, e)
	s.answer(slot, attempt, copy, outOK)
}

// startJob makes the first call, or all when Parallel, of the service
// that slot's copy is in; the job holds the slot until dropJob.
func (s *sim) startJob(slot int32, attempt, copy uint8) {
	var j int32
	if k := len(s.freeJobs); k > 0 {
		j = s.freeJobs[k-1]
		s.freeJobs = s.freeJobs[:k-1]
	} else {
		s.jobs = append(s.jobs, job{})
		j = int32(len(s.jobs) - 1)
	}
	to := s.edgeOf(slot).to
	root, serial := slot, s.serial[slot]
	if u := s.up[slot]; u >= 0 {
		root, serial = s.jobs[u].root, s.jobs[u].serial
	}
	s.jobs[j] = job{slot: slot, attempt: attempt, copy: copy, svc: to, limit: math.Inf(1), root: root, serial: serial}
	if r := &s.reqs[slot]; s.deadlines {
		// A copy its caller no longer awaits has no time left.
		s.jobs[j].limit = s.now
		if r.awaits(attempt, copy) {
			s.jobs[j].limit = s.deadline(slot, r, s.edgeOf(slot), copy)
		}
	}
	s.reqs[slot].refs++
	v := &s.svcs[to]
	if !v.node.Parallel {
		if g := s.guardOf(j); g != nil {
			s.step(j, g, 0)
			return
		}
		s.jobs[j].next, s.jobs[j].out = 1, 1
		s.call(j, 0)
		return
	}
	s.jobs[j].out = uint8(len(v.calls))
	for i := range v.calls {
		if s.jobs[j].answered { // a call failed at once: the rest are not made
			s.jobs[j].out -= uint8(len(v.calls) - i)
			return
		}
		s.jobs[j].next++
		s.call(j, i)
	}
}

// call makes job j's service's call i: a new request on the call's edge.
func (s *sim) call(j int32, i int) {
	ei := s.svcs[s.jobs[j].svc].calls[i]
	slot := s.newSlot(ei)
	s.up[slot] = j
	s.jobs[j].live++
	s.jobs[j].cur = slot
	e := &s.edges[ei]
	if c := e.clients; c > 1 {
		hi, _ := bits.Mul64(s.rnd.Next(), uint64(c))
		s.reqs[slot].who |= uint32(hi) << edgeBits
	}
	s.start(slot, e)
}

// finish is the request in slot having finished: its job, if any, goes
// on; pushback says an honoured "do not retry" ended it.
func (s *sim) finish(slot int32, ok, pushback bool) {
	if s.up == nil || s.up[slot] < 0 { // an entry's request
		return
	}
	j := s.up[slot]
	jb := &s.jobs[j]
	jb.out--
	if jb.answered {
		s.edgeOf(slot).orphaned++
		return
	}
	if g := s.guardOf(j); g != nil {
		s.stepDone(j, g, ok, pushback)
		return
	}
	v := &s.svcs[jb.svc]
	switch {
	case !ok:
		s.answerJob(j, false, pushback)
	case v.node.Parallel:
		if jb.out == 0 {
			s.answerJob(j, true, false)
		}
	case int(jb.next) < len(v.calls):
		jb.next++
		jb.out++
		s.call(j, int(jb.next)-1)
	default:
		s.answerJob(j, true, false)
	}
}

// answerJob is job j's service answering the call it serves: success when
// every call succeeded, else an error; the call leaves the service.
func (s *sim) answerJob(j int32, ok, pushback bool) {
	jb := &s.jobs[j]
	slot, attempt, copy := jb.slot, jb.attempt, jb.copy
	v := &s.svcs[jb.svc]
	s.leave(j)
	r := &s.reqs[slot]
	outcome := outOK
	switch {
	case ok:
		s.storeKey(slot, attempt, &s.edges[r.edge()])
	case pushback && v.node.Server.Pushback:
		outcome = outPushback
	default:
		outcome = outError
	}
	s.answer(slot, attempt, copy, outcome)
	s.recycleIdle(slot)
}

// leave is job j's service letting go of the call the job serves, answered
// or not; the caller frees the served slot if idle.
func (s *sim) leave(j int32) {
	jb := &s.jobs[j]
	jb.answered = true
	s.letGo(&s.svcs[jb.svc], jb.slot, jb.attempt, jb.copy)
	s.dropJob(j)
}

// letGo is copy c of attempt a of the request in slot leaving service v:
// its worker and its key are free.
func (s *sim) letGo(v *svcSim, slot int32, a, c uint8) {
	s.release(v)
	s.lease(slot, a, c, false)
	s.freeKey(slot, a)
}

// dropJob frees job j if it is answered and no call's slot is left; it
// reports whether it did.
func (s *sim) dropJob(j int32) bool {
	jb := &s.jobs[j]
	if !jb.answered || jb.live > 0 {
		return false
	}
	s.freeJobs = append(s.freeJobs, j)
	s.reqs[jb.slot].refs--
	return true
}

// recycleIdle frees slot if idle and not the event in progress's.
func (s *sim) recycleIdle(slot int32) {
	if r := &s.reqs[slot]; slot != s.cur && r.done && r.refs == 0 {
		s.recycle(slot)
	}
}

// recycle frees slot, whose request is done and which nothing refers to,
// and its job if that was its last call's slot.
func (s *sim) recycle(slot int32) {
	if s.up != nil {
		if j := s.up[slot]; j >= 0 {
			s.jobs[j].live--
			if s.dropJob(j) {
				s.recycleIdle(s.jobs[j].slot)
			}
		} else if s.keys != nil {
			if g := s.edgeOf(slot).guard; g != nil {
				s.countLost(slot, g)
			}
		}
	}
	s.free = append(s.free, slot)
}

// answer sends a reply back to the client; one nothing would read is
// counted as late and not scheduled.
func (s *sim) answer(slot int32, attempt, copy uint8, outcome uint8) {
	t := s.now + s.exp(s.netSecs)
	r := &s.reqs[slot]
	e := &s.edges[r.edge()]
	if !r.awaits(attempt, copy) || t >= s.deadline(slot, r, e, copy) {
		e.counts.Late++
		return
	}
	s.push(event{t: t, slot: slot, attempt: attempt, copy: copy, kind: evReply, outcome: outcome})
}

// awaits says whether the request still waits for copy c of its attempt a.
func (r *request) awaits(a, c uint8) bool {
	return !r.done && r.attempt == a && r.pending&(1<<c) != 0
}

// stopWaiting is the client giving up the copies of the current attempt
// still out, without an outcome.
func (s *sim) stopWaiting(slot int32, p Policy) {
	r := &s.reqs[slot]
	for c := range r.copies {
		if r.pending&(1<<c) != 0 {
			p.Cancel(s.now, r.attempt > 1 || c > 0)
		}
	}
	r.pending = 0
}

// reply is a reply reaching the client in time: an attempt succeeds with
// its first successful copy and fails once every copy has.
func (s *sim) reply(slot int32, attempt, copy, outcome uint8) {
	r := &s.reqs[slot]
	e := &s.edges[r.edge()]
	if !r.awaits(attempt, copy) { // another copy's success ended the request
		e.counts.Late++
		return
	}
	r.pending &^= 1 << copy
	retry := r.attempt > 1 || copy > 0
	p := e.policy(r)
	if !e.quiet {
		p.Answered(s.now, outcome >= outRejected)
	}
	if outcome == outOK {
		if !e.quiet {
			p.Success(s.now, retry, r.cost)
		}
		e.counts.Succeeded++
		if e.guard != nil {
			s.books[slot].completed = true
		}
		e.hist.AddSeconds(s.now - r.start)
		s.second(e.series, s.now).Successes++
		s.second(e.series, r.start).Served++
		r.done = true
		if r.pending != 0 { // hedges still out: the client stops waiting
			s.stopWaiting(slot, p)
		}
		s.finish(slot, true, false)
		return
	}
	e.counts.Errors++
	if !e.quiet {
		p.Failure(s.now, retry, false)
	}
	if outcome == outPushback && e.honour {
		e.pushedBack++
		s.stopWaiting(slot, p)
		s.fail(slot, true)
		return
	}
	if r.pending == 0 {
		s.retry(slot, false)
	}
}

// fail ends the request in failure; pushback says an honoured "do not
// retry" ended it.
func (s *sim) fail(slot int32, pushback bool) {
	e := s.edgeOf(slot)
	e.counts.Failed++
	s.second(e.series, s.now).Failures++
	s.reqs[slot].done = true
	s.finish(slot, false, pushback)
}

// timeout is an attempt's timeout expiring; stale when the attempt was
// answered in time or the request moved on.
func (s *sim) timeout(slot int32, attempt, copy uint8) {
	r := &s.reqs[slot]
	if !r.awaits(attempt, copy) {
		return
	}
	e := &s.edges[r.edge()]
	if e.heartbeat && s.leased[slot] == leaseID(attempt, copy) { // a worker holds it: its heartbeat extends the lease
		r.deadline = s.now + e.waitSecs - float64(copy)*e.hedgeSecs // copy's deadline: now + the timeout
		s.pushTimeout(s.now+e.waitSecs, slot, e, attempt, copy)
		return
	}
	r.pending &^= 1 << copy
	e.counts.Timeouts++
	s.second(e.series, s.now).Timeouts++
	if !e.quiet {
		e.policy(r).Failure(s.now, r.attempt > 1 || copy > 0, true)
	}
	if r.pending == 0 {
		s.retry(slot, true)
	}
}

// retry sends the next attempt after the backoff, or gives the request up
// when its attempts are spent or its policy refuses: the one place a client
// decides whether to try again.
func (s *sim) retry(slot int32, timeout bool) {
	r := &s.reqs[slot]
	e := &s.edges[r.edge()]
	cl := e.cl
	if int(r.attempt) >= e.attempts || s.keys != nil && s.up[slot] >= 0 && s.jobs[s.up[slot]].dead {
		s.fail(slot, false) // out of attempts, or its job's worker left it
		return
	}
	if s.mem.On {
		s.retryMemoryless(slot, timeout)
		return
	}
	if !e.atSend && !e.quiet {
		ok, cost := e.policy(r).Retry(s.now, timeout, s.u(e))
		if !ok {
			e.counts.Denied++
			s.fail(slot, false)
			return
		}
		r.cost = cost
	}
	r.timedOut = timeout
	s.second(e.series, s.now).RetriesDecided++
	if e.redeliver { // the next try when this one's timeout would have passed (at once if none started)
		if r.deadline <= s.now || math.IsInf(r.deadline, 1) {
			s.sendRetry(slot)
			return
		}
		s.backoffs(e, 1)
		s.push(event{t: r.deadline, slot: slot, kind: evSend})
		return
	}
	u := 0.0
	if waits.Jittered(cl.Backoff) {
		u = s.rnd.Float64()
	}
	d := waits.Delay(cl.Backoff, int(r.attempt)-1, r.prev, u)
	r.prev = d
	if d <= 0 {
		s.sendRetry(slot)
		return
	}
	s.backoffs(e, 1)
	s.push(event{t: s.now + d.Seconds(), slot: slot, kind: evSend})
}

// sendRetry is a decided retry leaving after its backoff (AskedAtSend's
// policy decides now).
func (s *sim) sendRetry(slot int32) {
	r := &s.reqs[slot]
	e := &s.edges[r.edge()]
	if s.mem.On {
		s.orbit--
	}
	if e.atSend && !e.quiet {
		ok, cost := e.policy(r).Retry(s.now, r.timedOut, s.u(e))
		if !ok {
			s.refused(slot)
			return
		}
		r.cost = cost
	}
	s.send(slot)
}

// refused is the policy refusing the request's next attempt: the request
// fails, but for refusalRetried, which uses up the attempt.
func (s *sim) refused(slot int32) {
	r := &s.reqs[slot]
	e := &s.edges[r.edge()]
	if e.refusalRetried && int(r.attempt)+1 < e.attempts {
		r.attempt++
		s.retry(slot, false)
		return
	}
	if r.called {
		e.counts.Denied++
	} else {
		e.counts.LocalRejected++
	}
	s.fail(slot, false)
}
