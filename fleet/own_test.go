package fleet

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/schema"
)

// recentSuccess is a user's own policy, written here from its statement
// alone: "retry while the last 10 s succeeded above 50%". It keeps the
// outcomes of the attempts of the last 10 s, and allows a retry while
// fewer than 10 are in (too few to judge) or more than half of them
// succeeded.
type recentSuccess struct {
	at []float64
	ok []bool
}

func (p *recentSuccess) expire(now float64) {
	i := 0
	for i < len(p.at) && p.at[i] <= now-10 {
		i++
	}
	p.at, p.ok = p.at[i:], p.ok[i:]
}
func (p *recentSuccess) Start(float64, float64) bool { return true }
func (p *recentSuccess) Retry(now float64, _ bool, _ float64) (bool, float64) {
	p.expire(now)
	good := 0
	for _, ok := range p.ok {
		if ok {
			good++
		}
	}
	return len(p.ok) < 10 || 2*good > len(p.ok), 0
}
func (p *recentSuccess) Sent(float64, bool)     {}
func (p *recentSuccess) Answered(float64, bool) {}
func (p *recentSuccess) Success(now float64, _ bool, _ float64) {
	p.at, p.ok = append(p.at, now), append(p.ok, true)
}
func (p *recentSuccess) Failure(now float64, _, _ bool) {
	p.at, p.ok = append(p.at, now), append(p.ok, false)
}
func (p *recentSuccess) Cancel(float64, bool) {}

// independent is a run on a load-independent server: 20 requests a second
// for 60 s, 50 ms calls failing with probability pFail, 3 attempts with no
// backoff.
func independent(pFail float64) Config {
	c := DefaultConfig()
	c.Name = "own"
	c.Duration, c.Load.Rate = 60*time.Second, 20
	c.Server = Server{Kind: IndependentServer, Base: 50 * time.Millisecond, PFail: pFail}
	c.Net = 0
	return c
}

func runOne(t *testing.T, c Config, opt Options) fleetdata.Replicate {
	t.Helper()
	res, err := Run(context.Background(), []Config{c}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res[0].replicates[0]
}

// A user's own policy runs (issue 20, item 7). Where more than half the
// calls fail it refuses retries that Unlimited sends; where nearly all
// succeed it never refuses, and, asking for no draw, leaves the run exactly
// Unlimited's.
func TestOwnPolicyRuns(t *testing.T) {
	own := &PolicyFactory{Name: "recent-success", New: func() Policy { return new(recentSuccess) }}
	opt := Options{Replicates: 1, Seed: 3, Workers: 1}

	bad := independent(0.7)
	free := runOne(t, bad, opt)
	bad.Client.Policy = PolicyConfig{Own: own}
	guarded := runOne(t, bad, opt)
	if free.Denied != 0 || guarded.Denied == 0 || 4*guarded.Retries > free.Retries || guarded.Requests != free.Requests {
		t.Errorf("70%% failing: %d retries, %d denied with the own policy; %d and %d without; want far fewer retries with it",
			guarded.Retries, guarded.Denied, free.Retries, free.Denied)
	}

	good := independent(0.1)
	free = runOne(t, good, opt)
	good.Client.Policy = PolicyConfig{Own: own}
	guarded = runOne(t, good, opt)
	if guarded.Denied != 0 || guarded.Retries == 0 || guarded.Requests != free.Requests || guarded.Calls != free.Calls ||
		guarded.Retries != free.Retries || guarded.Succeeded != free.Succeeded {
		t.Errorf("10%% failing: own policy %+v; want Unlimited's %+v", guarded, free)
	}
}

// firstRetries allows the first n retries it is asked for and refuses the
// rest, counting the calls it gets.
type firstRetries struct {
	n                                    int
	starts, asks, sent, failures, others int
}

func (p *firstRetries) Start(float64, float64) bool { p.starts++; return true }
func (p *firstRetries) Retry(float64, bool, float64) (bool, float64) {
	p.asks++
	return p.asks <= p.n, 0
}
func (p *firstRetries) Sent(float64, bool)             { p.sent++ }
func (p *firstRetries) Answered(float64, bool)         { p.others++ }
func (p *firstRetries) Success(float64, bool, float64) { p.others += 1000 }
func (p *firstRetries) Failure(float64, bool, bool)    { p.failures++ }
func (p *firstRetries) Cancel(float64, bool)           { p.others += 1000 }

// A small case counted by hand: every call fails at once (no latency, no
// network), 3 attempts, no backoff, one fleet-wide state allowing the first
// 5 retries. Requests never overlap, so the first request retries twice
// (asks 1, 2), the second twice (3, 4), the third once (5, then refused),
// and every later one is refused at its first ask: 5 retries, requests + 5
// calls, all failed, requests - 2 of them denied; the policy sees every
// start, every call sent and failed, and an answer for each.
func TestOwnPolicyCountedByHand(t *testing.T) {
	var made atomic.Int64
	var state *firstRetries
	c := independent(1)
	c.Duration, c.Load.Rate, c.Server.Base = 10*time.Second, 5, 0
	c.Client.Policy = PolicyConfig{Shared: true, Own: &PolicyFactory{Name: "first-5", New: func() Policy {
		made.Add(1)
		state = &firstRetries{n: 5}
		return state
	}}}
	r := runOne(t, c, Options{Replicates: 1, Seed: 1, Workers: 1})
	n := r.Requests
	if n < 3 || r.Retries != 5 || r.Calls != n+5 || r.Failed != n || r.Denied != n-2 || r.Succeeded != 0 || r.LocalRejected != 0 {
		t.Errorf("requests %d: retries %d, calls %d, failed %d, denied %d, succeeded %d, rejected %d; want 5, %d, %d, %d, 0, 0",
			n, r.Retries, r.Calls, r.Failed, r.Denied, r.Succeeded, r.LocalRejected, n+5, n, n-2)
	}
	p := state
	if made.Load() != 1 || int64(p.starts) != n || int64(p.sent) != n+5 || int64(p.failures) != n+5 || int64(p.asks) != n-2+5 || int64(p.others) != n+5 {
		t.Errorf("New %d times; starts %d, sent %d, failures %d, asks %d, answers %d; want 1, %d, %d, %d, %d, %d",
			made.Load(), p.starts, p.sent, p.failures, p.asks, p.others, n, n+5, n+5, n+3, n+5)
	}
	// Per client, New makes a state a client each replicate.
	made.Store(0)
	c.Client.Clients, c.Client.Policy.Shared = 4, false
	if _, err := Run(context.Background(), []Config{c}, Options{Replicates: 2, Workers: 1}); err != nil || made.Load() != 8 {
		t.Errorf("4 clients, 2 replicates: New %d times, %v; want 8", made.Load(), err)
	}
}

// asked records when Retry is asked, after the last failure, and the draws
// it gets.
type asked struct {
	recentSuccess
	failed float64
	delays []float64
	draws  int
}

func (p *asked) Failure(now float64, _, _ bool) { p.failed = now }
func (p *asked) Start(_, u float64) bool {
	if u != 0 {
		p.draws++
	}
	return true
}
func (p *asked) Retry(now float64, _ bool, u float64) (bool, float64) {
	p.delays = append(p.delays, now-p.failed)
	if u != 0 {
		p.draws++
	}
	return true, 0
}

// An own policy is asked when the retry is decided, at the failure, or
// with AskedAtSend when it goes out, a constant 500 ms backoff later; it
// gets draws only with Random.
func TestOwnPolicyAskedAtSend(t *testing.T) {
	for _, atSend := range []bool{false, true} {
		var p *asked
		c := independent(1)
		c.Duration, c.Load.Rate, c.Server.Base = 10*time.Second, 0.5, 0
		c.Client.Backoff = backoff.Schedule{Kind: backoff.Constant, Base: 500 * time.Millisecond}
		c.Client.Policy = PolicyConfig{Shared: true, Own: &PolicyFactory{Name: "asked", AskedAtSend: atSend, Random: atSend,
			New: func() Policy { p = new(asked); return p }}}
		runOne(t, c, Options{Replicates: 1, Seed: 2, Workers: 1})
		want := 0.0
		if atSend {
			want = 0.5
		}
		for _, d := range p.delays {
			if d < want-1e-9 || d > want+1e-9 {
				t.Errorf("AskedAtSend %v: asked %g s after the failure; want %g", atSend, d, want)
			}
		}
		if len(p.delays) == 0 || (p.draws > 0) != atSend {
			t.Errorf("AskedAtSend and Random %v: asked %d times, %d draws", atSend, len(p.delays), p.draws)
		}
	}
}

// panicky panics at its third retry.
type panicky struct{ firstRetries }

func (p *panicky) Retry(now float64, timeout bool, u float64) (bool, float64) {
	if p.asks == 2 {
		panic("third retry")
	}
	return p.firstRetries.Retry(now, timeout, u)
}

// A panic in an own policy, or in its New, is Run's error naming the
// policy, the run and the replicate, and no result; the other replicates
// stop.
func TestOwnPolicyPanics(t *testing.T) {
	c := independent(1)
	c.Client.Policy = PolicyConfig{Own: &PolicyFactory{Name: "boom", New: func() Policy { return &panicky{firstRetries{n: 100}} }}}
	res, err := Run(context.Background(), []Config{c}, Options{Replicates: 1, Workers: 1})
	if want := `policy "boom" panicked in run "own", replicate 0: third retry`; res != nil || err == nil || err.Error() != want {
		t.Errorf("Run = %d results, %v; want none and %q", len(res), err, want)
	}
	// The one error type of a panic in a program's code, a strategy's
	// too, with the stack it panicked on (issue 37: an errors.errorString).
	var pe *schema.PanicError
	if !errors.As(err, &pe) || pe.Kind != "policy" || pe.Name != "boom" || pe.Value != "third retry" || !strings.Contains(string(pe.Stack), "(*panicky).Retry") {
		t.Errorf("Run's error %#v; want a *schema.PanicError of policy boom, third retry, with a stack through (*panicky).Retry", err)
	}
	res, err = Run(context.Background(), []Config{c}, Options{Replicates: 8, Workers: 2})
	if res != nil || err == nil || !strings.HasPrefix(err.Error(), `policy "boom" panicked in run "own", replicate `) {
		t.Errorf("8 replicates: Run = %d results, %v; want none and the panic", len(res), err)
	}
	c.Client.Policy.Own = &PolicyFactory{Name: "nothing", New: func() Policy { return nil }}
	if _, err = Run(context.Background(), []Config{c}, Options{Replicates: 1}); err == nil || err.Error() != `policy "nothing" panicked in run "own", replicate 0: New returned nil` {
		t.Errorf("New returning nil: Run = %v", err)
	}
}

// Check refuses an own policy beside a kind, without New, or without a name.
func TestOwnPolicyChecked(t *testing.T) {
	mk := func() Policy { return new(recentSuccess) }
	for _, tc := range []struct {
		p    PolicyConfig
		path string
	}{
		{PolicyConfig{Kind: Breaker, Threshold: 0.1, Own: &PolicyFactory{Name: "x", New: mk}}, "client.policy.kind"},
		{PolicyConfig{Own: &PolicyFactory{Name: "x"}}, "client.policy.own"},
		{PolicyConfig{Own: &PolicyFactory{New: mk}}, "client.policy.own"},
	} {
		c := independent(0)
		c.Client.Policy = tc.p
		var fe *schema.FieldError
		if err := c.Check(); !errors.As(err, &fe) || fe.Field != tc.path {
			t.Errorf("%+v: Check = %v; want a *FieldError naming %s", tc.p.Own, err, tc.path)
		}
	}
}
