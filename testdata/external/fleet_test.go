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
	c.Server = fleet.Server{Kind: fleet.Independent, Base: 50 * time.Millisecond, PFail: 0.45}
	c.Client.Backoff = backoff.Policy{Kind: backoff.Constant, Base: 200 * time.Millisecond, Cap: fleet.NoCap}
	return c
}

// TestFleetOwnPolicy runs the team's own policy, one state for the fleet,
// and reads the run's per-second series: second by second it is what the
// policy was told (starts, retries decided and sent, successes), its sums
// plus what the policy saw after the arrivals stopped are the run's
// totals, every refusal is a denied request, and the policy sends fewer
// retries than the same run without it. Over three replicates, the averaged
// series sums to the totals over the replicates and does not depend on the
// workers.
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
	rep := res[0].Replicates[0]
	series := res[0].Series()
	if len(series) != 30 {
		t.Fatalf("%d seconds in the series; want 30", len(series))
	}
	var starts, successes, sent float64
	for _, p := range series {
		if p.Run != "flaky" || p.Starts != float64(state.starts[p.T]) || p.RetriesDecided != float64(state.allowed[p.T]) ||
			p.RetriesSent != float64(state.sent[p.T]) || p.Successes != float64(state.successes[p.T]) || p.Timeouts != 0 {
			t.Errorf("second %d of %q: %+v; the policy was told of %d starts, %d retries allowed, %d sent, %d successes, and no timeout",
				p.T, p.Run, p, state.starts[p.T], state.allowed[p.T], state.sent[p.T], state.successes[p.T])
		}
		starts += p.Starts
		successes += p.Successes
		sent += p.RetriesSent
	}
	// What happened after the arrivals stopped counts in the totals, not
	// in the series (here, a few retries sent after 30 s).
	var lateSuccesses, lateSent int64
	for s := 30; s < 40; s++ {
		lateSuccesses += state.successes[s]
		lateSent += state.sent[s]
	}
	tot := res[0].Totals()
	if int64(starts) != rep.Requests || int64(starts) != tot.Requests || int64(successes)+lateSuccesses != rep.Succeeded ||
		int64(successes)+lateSuccesses != tot.Succeeded || int64(sent)+lateSent != rep.Retries || rep.Requests < 500 || lateSent == 0 {
		t.Errorf("series sums: %g starts, %g successes (+%d later), %g retries sent (+%d later); the run's %d requests, %d succeeded, %d retries; totals %+v",
			starts, successes, lateSuccesses, sent, lateSent, rep.Requests, rep.Succeeded, rep.Retries, tot)
	}
	if rep.Denied == 0 || rep.Denied != state.refused || rep.Retries == 0 || rep.Requests != rep.Succeeded+rep.Failed {
		t.Errorf("%d denied, the policy refused %d; %d requests, %d succeeded, %d failed; want some denials, each a refusal, some retries, and every request settled",
			rep.Denied, state.refused, rep.Requests, rep.Succeeded, rep.Failed)
	}
	free := flaky()
	unlimited, err := fleet.Run(context.Background(), []fleet.Config{free}, fleet.Options{Replicates: 1, Seed: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if u := unlimited[0].Replicates[0]; u.Requests != rep.Requests || u.Denied != 0 || rep.Retries >= u.Retries {
		t.Errorf("without the policy: %d requests, %d retries, %d denied; with it %d, %d; want the same requests and fewer retries with it",
			u.Requests, u.Retries, u.Denied, rep.Requests, rep.Retries)
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
	if made != 6 || !reflect.DeepEqual(runs[0][0].Series(), runs[1][0].Series()) || !reflect.DeepEqual(runs[0][0].Totals(), runs[1][0].Totals()) {
		t.Errorf("New called %d times for 2 x 3 replicates (want 6), or the series differ between 1 and 2 workers", made)
	}
	tot = runs[0][0].Totals()
	starts = 0
	for _, p := range runs[0][0].Series() {
		starts += p.Starts
	}
	if math.Abs(3*starts-float64(tot.Requests)) > 1e-9*float64(tot.Requests) {
		t.Errorf("3 replicates: the averaged series starts %g requests a replicate; the totals %d in all", starts, tot.Requests)
	}
}
