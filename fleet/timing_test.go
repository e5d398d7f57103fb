package fleet

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/fleetdata"
)

// traceConfig is a run whose only requests are the ones a test pushes: an
// arrival rate of 1e-9 a second gives no Poisson arrival in its 10 s (with
// probability 1 - 1e-8, and seeded). The server answers every call after
// 0.1 s with a failure, the network takes no time, the timeout never
// binds, and a retry waits a constant 500 ms (or wait).
func traceConfig(p PolicyConfig, wait time.Duration) Config {
	return Config{Name: "trace", Duration: 10 * time.Second,
		Load:   Shape{Kind: Constant, Rate: 1e-9, Peak: 1e-9},
		Server: Server{Kind: Independent, Base: 100 * time.Millisecond, PFail: 1},
		Client: Client{Clients: 1, Timeout: 60 * time.Second, Attempts: 3,
			Backoff: backoff.Policy{Kind: backoff.Constant, Base: wait}, Policy: p}}
}

// trace runs cfg with requests arriving at the given times only.
func trace(cfg Config, arrivals ...float64) fleetdata.Replicate {
	s := newSim(&cfg, 1)
	for _, t := range arrivals {
		s.pushArrival(t, 0, false)
	}
	rep, _ := s.run(context.Background())
	return rep
}

// TestSlidingBreakerAskedAtSend is issue 22 item 1, from resilience4j's rule
// (v2.4.0): a Retry decorating a CircuitBreaker-decorated call runs the whole
// decorated call on every attempt, and CircuitBreaker.decorateCheckedSupplier
// begins with `circuitBreaker.acquirePermission();`, so the breaker is asked
// when the attempt is made, after RetryImpl's wait
// (`waitIntervalAfterException`), not when the retry is decided. Its
// refusal, a CallNotPermittedException, is an exception like any other to
// the default RetryConfig (retry on every exception), so it uses up an
// attempt and is retried after the wait while attempts remain
// (`if (currentNumOfAttempts >= maxAttempts) ... throw`).
//
// The trace: a breaker over a window of 2 calls, at least 2, opening at a
// 50% failure rate for 60 s. A arrives at 0 and fails at 0.1 (1 outcome: the
// breaker cannot open yet), so its retry is decided at 0.1 and waits until
// 0.6; B arrives at 0.05 and fails at 0.15, the second failure: the breaker
// opens at 0.15. A's retry reaches the breaker at 0.6 and is refused; so is
// its third attempt at 1.1, and A fails having called the server once; B the
// same. Asked at the decision, A's retry was let through at 0.1 and called
// the server at 0.6 while the breaker was open: 3 calls.
func TestSlidingBreakerAskedAtSend(t *testing.T) {
	p := DefaultPolicy()
	p.Kind, p.Window, p.MinCalls, p.FailureRate, p.OpenTime, p.HalfOpenCalls = SlidingBreaker, 2, 2, 0.5, time.Minute, 1
	r := trace(traceConfig(p, 500*time.Millisecond), 0, 0.05)
	if r.Requests != 2 || r.Calls != 2 || r.Retries != 0 || r.Failed != 2 || r.Denied != 2 || r.LocalRejected != 0 {
		t.Errorf("requests %d, calls %d, retries sent %d, failed %d, denied %d, local rejections %d; want 2, 2, 0, 2, 2, 0",
			r.Requests, r.Calls, r.Retries, r.Failed, r.Denied, r.LocalRejected)
	}
	// C arrives at 1 s, the breaker open: its first attempt is refused, and
	// so are the two it is retried with, decided at 1 and 1.5 s and refused
	// at 1.5 and 2 s; it fails without a call, a local rejection.
	r = trace(traceConfig(p, 500*time.Millisecond), 0, 0.05, 1)
	if r.Requests != 3 || r.Calls != 2 || r.Failed != 3 || r.Denied != 2 || r.LocalRejected != 1 || r.Series[1].RetriesDecided != 2 || r.Series[2].RetriesDecided != 0 {
		t.Errorf("with C: requests %d, calls %d, failed %d, denied %d, local rejections %d, retries decided %v; want 3, 2, 3, 2, 1, 2 in second 1",
			r.Requests, r.Calls, r.Failed, r.Denied, r.LocalRejected, r.Series[1].RetriesDecided)
	}
}

// series is the replicate's retries decided and sent in its first n seconds.
func series(r fleetdata.Replicate, n int) (decided, sent []int64) {
	for _, sec := range r.Series[:n] {
		decided = append(decided, sec.RetriesDecided)
		sent = append(sent, sec.RetriesSent)
	}
	return decided, sent
}

// TestRetriesDecidedAndSent is issue 22 item 7: the series counts a retry
// when the client decides it (as Brooker's simulations count it, when the
// failure or timeout is seen) and when it is sent, after its backoff. Every
// call fails after 0.1 s, three tries, a 1 s wait. A arrives at 0: fails at
// 0.1 (decided in second 0), retry sent at 1.1 (second 1), fails at 1.2
// (decided in 1), sent at 2.2 (2), fails at 2.3 with no try left. B, at 0.5,
// the same half a second later: decided at 0.6 and 1.7, sent at 1.6 and 2.7.
func TestRetriesDecidedAndSent(t *testing.T) {
	r := trace(traceConfig(DefaultPolicy(), time.Second), 0, 0.5)
	decided, sent := series(r, 4)
	if !slices.Equal(decided, []int64{2, 2, 0, 0}) || !slices.Equal(sent, []int64{0, 2, 2, 0}) || r.Retries != 4 || r.Calls != 6 {
		t.Errorf("retries decided %v, sent %v a second, %d retries, %d calls; want [2 2 0 0], [0 2 2 0], 4, 6", decided, sent, r.Retries, r.Calls)
	}
	// The breaker's trace of TestSlidingBreakerAskedAtSend: A's and B's
	// retries are decided at 0.1 and 0.15, refused at 0.6 and 0.65 and
	// decided again then; none is sent.
	p := DefaultPolicy()
	p.Kind, p.Window, p.MinCalls, p.FailureRate, p.OpenTime, p.HalfOpenCalls = SlidingBreaker, 2, 2, 0.5, time.Minute, 1
	decided, sent = series(trace(traceConfig(p, 500*time.Millisecond), 0, 0.05), 2)
	if !slices.Equal(decided, []int64{4, 0}) || !slices.Equal(sent, []int64{0, 0}) {
		t.Errorf("breaker: retries decided %v, sent %v a second; want [4 0], [0 0]", decided, sent)
	}
}
