package ownjob_test

import (
	"context"
	"math"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
)

// recentSuccess is the team's own retry policy, "retry while the last 10 s
// succeeded above 50%": it keeps the outcomes of the last 10 s and allows a
// retry while fewer than 10 are in (too few to judge) or more than half
// succeeded. It also tallies, second by second, what the engine tells it,
// as a team's policy might log: requests started, retries allowed and sent,
// successes, and the retries it refused.
type recentSuccess struct {
	at []float64
	ok []bool

	starts, allowed, sent, successes map[int]int64
	refused                          int64
}

func newRecentSuccess() *recentSuccess {
	return &recentSuccess{starts: map[int]int64{}, allowed: map[int]int64{}, sent: map[int]int64{}, successes: map[int]int64{}}
}

func (p *recentSuccess) record(now float64, ok bool) {
	p.at, p.ok = append(p.at, now), append(p.ok, ok)
}

func (p *recentSuccess) Start(now, _ float64) bool { p.starts[int(now)]++; return true }

func (p *recentSuccess) Retry(now float64, _ bool, _ float64) (bool, float64) {
	i := 0
	for i < len(p.at) && p.at[i] <= now-10 {
		i++
	}
	p.at, p.ok = p.at[i:], p.ok[i:]
	good := 0
	for _, ok := range p.ok {
		if ok {
			good++
		}
	}
	if len(p.ok) < 10 || 2*good > len(p.ok) {
		p.allowed[int(now)]++
		return true, 0
	}
	p.refused++
	return false, 0
}

func (p *recentSuccess) Sent(now float64, retry bool) {
	if retry {
		p.sent[int(now)]++
	}
}

func (p *recentSuccess) Answered(float64, bool) {}

func (p *recentSuccess) Success(now float64, _ bool, _ float64) {
	p.successes[int(now)]++
	p.record(now, true)
}

func (p *recentSuccess) Failure(now float64, _, _ bool) { p.record(now, false) }

func (p *recentSuccess) Cancel(float64, bool) {}

// flaky is a fleet run of 30 s at 20 requests a second on a server whose
// calls take 50 ms and fail 45% of the time, whatever the load; 3 tries, a
// constant 200 ms backoff, so retries are sent in a later instant than they
// are decided.
func flaky() fleet.Config {
	c := fleet.DefaultConfig()
	c.Name = "flaky"
	c.Duration, c.Load.Rate, c.Net = 30*time.Second, 20, 0
	c.Server = fleet.Server{Kind: fleet.IndependentServer, Base: 50 * time.Millisecond, PFail: 0.45}
	c.Client.Backoff = backoff.Schedule{Kind: backoff.Constant, Base: 200 * time.Millisecond}
	return c
}

// figures are a run's series' figures keyed keys, a value a second each.
func figures(t *testing.T, s fleet.Series, keys ...string) [][]float64 {
	t.Helper()
	out := make([][]float64, len(keys))
	for i, k := range keys {
		v, err := s.Figure(k)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out
}

// figure is a run's figure keyed key, its mean over replicates.
func figure(t *testing.T, s fleet.Summary, key string) float64 {
	t.Helper()
	e, err := s.Figure(key)
	if err != nil {
		t.Fatal(err)
	}
	return e.Value
}

// sum is xs summed.
func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// TestFleetOwnPolicy runs the team's own policy, one state for the fleet,
// and reads the run's per-second series: second by second it is what the
// policy was told (starts, retries decided and sent, successes), its sums
// plus what the policy saw after the arrivals stopped are the run's
// figures, and the policy refuses retries and sends fewer than the same
// run without it. Over three replicates, the averaged series sums to the
// mean requests a replicate and does not depend on the workers.
func TestFleetOwnPolicy(t *testing.T) {
	var state *recentSuccess
	c := flaky()
	c.Client.Policy = fleet.PolicyConfig{Shared: true, Own: &fleet.PolicyFactory{Name: "recent-success", New: func() fleet.Policy {
		state = newRecentSuccess()
		return state
	}}}
	res, err := fleet.Run(context.Background(), []fleet.Config{c}, fleet.Options{Replicates: 1, Seed: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := figures(t, res[0].Series(), "starts", "retries_decided", "retries_sent", "successes", "timeouts")
	starts, decided, sent, successes, timeouts := f[0], f[1], f[2], f[3], f[4]
	if len(starts) != 30 {
		t.Fatalf("%d seconds in the series; want 30", len(starts))
	}
	for s := range starts {
		if starts[s] != float64(state.starts[s]) || decided[s] != float64(state.allowed[s]) || sent[s] != float64(state.sent[s]) ||
			successes[s] != float64(state.successes[s]) || timeouts[s] != 0 {
			t.Errorf("second %d: %g starts, %g retries decided, %g sent, %g successes, %g timeouts; the policy was told of %d starts, %d retries allowed, %d sent, %d successes, and no timeout",
				s, starts[s], decided[s], sent[s], successes[s], timeouts[s], state.starts[s], state.allowed[s], state.sent[s], state.successes[s])
		}
	}
	// What happened after the arrivals stopped counts in the run's figures,
	// not in the series (here, a few retries sent after 30 s).
	var lateSuccesses, lateSent int64
	for s := 30; s < 40; s++ {
		lateSuccesses += state.successes[s]
		lateSent += state.sent[s]
	}
	sum1 := res[0].Summary()
	requests, succeeded := figure(t, sum1, "requests"), figure(t, sum1, "succeeded")*figure(t, sum1, "requests")
	if res[0].Summary().Run != "flaky" || sum(starts) != requests || math.Abs(sum(successes)+float64(lateSuccesses)-succeeded) > 1e-9*requests ||
		requests < 500 || lateSent == 0 {
		t.Errorf("series sums: %g starts, %g successes (+%d later), %g retries sent (+%d later); the run's %g requests, %g succeeded",
			sum(starts), sum(successes), lateSuccesses, sum(sent), lateSent, requests, succeeded)
	}
	free := flaky()
	unlimited, err := fleet.Run(context.Background(), []fleet.Config{free}, fleet.Options{Replicates: 1, Seed: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	u := figures(t, unlimited[0].Series(), "starts", "retries_sent")
	if sum(u[0]) != sum(starts) || state.refused == 0 || sum(sent) >= sum(u[1]) {
		t.Errorf("without the policy: %g requests, %g retries sent; with it %g, %g, %d refused; want the same requests, some refusals and fewer retries with it",
			sum(u[0]), sum(u[1]), sum(starts), sum(sent), state.refused)
	}

	// Three replicates, a state each, made from two goroutines at once.
	var mu sync.Mutex
	made := 0
	c.Client.Policy.Own = &fleet.PolicyFactory{Name: "recent-success", New: func() fleet.Policy {
		mu.Lock()
		made++
		mu.Unlock()
		return newRecentSuccess()
	}}
	var runs [2][]fleet.Result
	for w := range runs {
		if runs[w], err = fleet.Run(context.Background(), []fleet.Config{c}, fleet.Options{Replicates: 3, Seed: 5, Workers: w + 1}); err != nil {
			t.Fatal(err)
		}
	}
	if made != 6 || !reflect.DeepEqual(runs[0][0].Series(), runs[1][0].Series()) ||
		figure(t, runs[0][0].Summary(), "succeeded") != figure(t, runs[1][0].Summary(), "succeeded") {
		t.Errorf("New called %d times for 2 x 3 replicates (want 6), or the series differ between 1 and 2 workers", made)
	}
	mean := figure(t, runs[0][0].Summary(), "requests")
	if avg := sum(figures(t, runs[0][0].Series(), "starts")[0]); math.Abs(avg-mean) > 1e-9*mean {
		t.Errorf("3 replicates: the averaged series starts %g requests a replicate; the run's mean is %g", avg, mean)
	}
}
