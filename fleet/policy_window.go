package fleet

import "math"

// The policies that count over a window of virtual time or of attempts.

// stamped is an amount counted at a time.
type stamped struct {
	t float64
	v int64
}

// expire drops the amounts of log counted at or before t and returns their
// sum.
func expire(log *fifo[stamped], t float64) (sum int64) {
	for log.len() > 0 && log.front().t <= t {
		sum += log.pop().v
	}
	return sum
}

// finagleBudget keeps balance = the deposits minus the withdrawals of the
// last ttl seconds (log); a retry goes while reserve + balance >= withdraw.
// Amounts are in Finagle's thousandths, exact.
type finagleBudget struct {
	quiet
	ttl               float64
	deposit, withdraw int64
	reserve, balance  int64
	log               fifo[stamped]
}

func newFinagleBudget(ratio, ttl, minRate float64) *finagleBudget {
	b := &finagleBudget{ttl: ttl, deposit: 1000, withdraw: 1000}
	if ratio > 0 {
		b.withdraw = int64(1000 / ratio)
	} else {
		b.deposit = 0 // only the reserve
	}
	b.withdraw = max(b.withdraw, 1) // a ratio above 1000 would make retries free
	b.reserve = int64(math.Floor(minRate*ttl)) * b.withdraw
	return b
}

func (b *finagleBudget) Start(now, _ float64) bool {
	b.balance -= expire(&b.log, now-b.ttl) // what was counted ttl or more seconds before now
	if b.deposit > 0 {
		b.log.push(stamped{now, b.deposit})
		b.balance += b.deposit
	}
	return true
}

func (b *finagleBudget) Retry(now float64, _ bool, _ float64) (bool, float64) {
	b.balance -= expire(&b.log, now-b.ttl)
	if b.reserve+b.balance < b.withdraw {
		return false, 0
	}
	b.log.push(stamped{now, -b.withdraw})
	b.balance -= b.withdraw
	return true, 0
}

// envoyBudget counts the attempts in flight (sent, no outcome yet) and the
// retries from when each is allowed to its attempt's outcome, backoff
// included, as Envoy's retries() resource counts.
type envoyBudget struct {
	quiet
	ratio, min       float64
	active, retrying int64
}

func (e *envoyBudget) Retry(float64, bool, float64) (bool, float64) {
	limit := math.Max(e.min, math.Floor(e.ratio*float64(e.active)))
	if float64(e.retrying) >= limit {
		return false, 0
	}
	e.retrying++
	return true, 0
}

func (e *envoyBudget) Sent(float64, bool) { e.active++ }

func (e *envoyBudget) end(retry bool) {
	e.active--
	if retry {
		e.retrying--
	}
}

func (e *envoyBudget) Success(_ float64, retry bool, _ float64) { e.end(retry) }
func (e *envoyBudget) Failure(_ float64, retry, _ bool)         { e.end(retry) }
func (e *envoyBudget) Cancel(_ float64, retry bool)             { e.end(retry) }

// Breaker states.
const (
	closed uint8 = iota
	open
	halfOpen
)

// slidingBreaker keeps, while closed, its window's outcomes in log (v = 1
// for a failure); while open, since when; while half-open, its probes'.
type slidingBreaker struct {
	quiet
	rate                     float64
	size, minCalls, probes   int
	seconds, open            float64
	state                    uint8
	log                      fifo[stamped]
	failures                 int64
	openedAt                 float64
	sentProbes, done, failed int
}

// allow says whether an attempt may go now, moving from open to half-open
// once the open time is over.
func (b *slidingBreaker) allow(now float64) bool {
	if b.state == open && now >= b.openedAt+b.open {
		b.state, b.sentProbes, b.done, b.failed = halfOpen, 0, 0, 0
	}
	switch b.state {
	case open:
		return false
	case halfOpen:
		if b.sentProbes >= b.probes {
			return false
		}
		b.sentProbes++
	}
	return true
}

func (b *slidingBreaker) Start(now, _ float64) bool { return b.allow(now) }
func (b *slidingBreaker) Retry(now float64, _ bool, _ float64) (bool, float64) {
	return b.allow(now), 0
}

func (b *slidingBreaker) record(now float64, failed bool) {
	var v int64
	if failed {
		v = 1
	}
	switch b.state {
	case closed:
		if b.seconds > 0 { // the outcomes that have left a time window
			b.failures -= expire(&b.log, now-b.seconds)
		}
		b.log.push(stamped{now, v})
		b.failures += v
		if b.seconds == 0 && b.log.len() > b.size {
			b.failures -= b.log.pop().v
		}
		if n := b.log.len(); n >= b.minCalls && float64(b.failures) >= b.rate*float64(n) {
			b.trip(now)
		}
	case halfOpen:
		b.done++
		b.failed += int(v)
		if b.done < b.probes {
			return
		}
		if float64(b.failed) >= b.rate*float64(b.done) {
			b.trip(now)
			return
		}
		b.state = closed
		for b.log.len() > 0 {
			b.log.pop()
		}
		b.failures = 0
	}
}

func (b *slidingBreaker) trip(now float64) { b.state, b.openedAt = open, now }

func (b *slidingBreaker) Success(now float64, _ bool, _ float64) { b.record(now, false) }
func (b *slidingBreaker) Failure(now float64, _, _ bool)         { b.record(now, true) }

// sreThrottle keeps the times of the requests and accepts of the last
// window seconds, a request counted when the client is done with it.
type sreThrottle struct {
	quiet
	k, window         float64
	requests, accepts fifo[float64]
}

func (s *sreThrottle) expire(now float64) {
	for s.requests.len() > 0 && *s.requests.front() <= now-s.window {
		s.requests.pop()
	}
	for s.accepts.len() > 0 && *s.accepts.front() <= now-s.window {
		s.accepts.pop()
	}
}

// rejectP is the SRE book's probability of refusing the next request.
func (s *sreThrottle) rejectP() float64 {
	r, a := float64(s.requests.len()), float64(s.accepts.len())
	return math.Max(0, (r-s.k*a)/(r+1))
}

// admit decides one attempt with the draw u, counting it as a request if it
// refuses it.
func (s *sreThrottle) admit(now, u float64) bool {
	s.expire(now)
	ok := u >= s.rejectP()
	if !ok {
		s.requests.push(now)
	}
	return ok
}

func (s *sreThrottle) Start(now, u float64) bool { return s.admit(now, u) }
func (s *sreThrottle) Retry(now float64, _ bool, u float64) (bool, float64) {
	return s.admit(now, u), 0
}

// Answered counts a reply as a request, and as an accept unless it was an
// overload rejection.
func (s *sreThrottle) Answered(now float64, overload bool) {
	s.requests.push(now)
	if !overload {
		s.accepts.push(now)
	}
}

// Failure counts a timeout as a request (an error reply came to Answered).
func (s *sreThrottle) Failure(now float64, _, timeout bool) {
	if timeout {
		s.requests.push(now)
	}
}

func (s *sreThrottle) Cancel(now float64, _ bool) { s.requests.push(now) }

// grpcAdaptive is grpc-go's adaptive throttler: accepts and throttles, each
// summed over the bins of its lookback.
type grpcAdaptive struct {
	quiet
	accepts, throttles lookback
}

// grpc-go's adaptive throttler's lookback: 30 s in 100 bins.
const (
	lookbackBins     = 100
	lookbackBinNanos = 30e9 / lookbackBins
)

// lookback keeps total = the sum of the counts of the bins used of the
// last lookbackBins, oldest first: grpc-go's ring's sum.
type lookback struct {
	bins  fifo[stamped] // t the bin, v its count
	total int64
}

// advance drops the bins that have left the lookback at now and returns the
// bin of now.
func (l *lookback) advance(now float64) float64 {
	b := float64(int64(now*1e9) / lookbackBinNanos)
	l.total -= expire(&l.bins, b-lookbackBins)
	return b
}

func (l *lookback) add(now float64) {
	b := l.advance(now)
	if l.bins.len() == 0 || l.bins.back().t != b {
		l.bins.push(stamped{b, 0})
	}
	l.bins.back().v++
	l.total++
}

func (l *lookback) sum(now float64) int64 {
	l.advance(now)
	return l.total
}

// admit is grpc-go's ShouldThrottle with the draw u.
func (g *grpcAdaptive) admit(now, u float64) bool {
	a, t := float64(g.accepts.sum(now)), float64(g.throttles.sum(now))
	r := a + t
	if (r-2*a)/(r+8) <= u {
		return true
	}
	g.throttles.add(now)
	return false
}

func (g *grpcAdaptive) Start(now, u float64) bool { return g.admit(now, u) }
func (g *grpcAdaptive) Retry(now float64, _ bool, u float64) (bool, float64) {
	return g.admit(now, u), 0
}

// Answered is grpc-go's RegisterBackendResponse(throttled).
func (g *grpcAdaptive) Answered(now float64, overload bool) {
	if overload {
		g.throttles.add(now)
	} else {
		g.accepts.add(now)
	}
}
