package chain

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
)

// recoveredCase is a Memoryless run, a spike from 1 to 1.5 requests a
// second for 1 s on two workers, whose recovery verdict the chain bounds
// exactly. Every failed attempt is retried (RetryProb 1), so a request
// fails only by needing a retry while the orbit is full (or by failing
// limits.FleetAttempts times in a row, which the chain leaves out and which
// could only make a replicate late). A replicate whose orbit is never full
// from the first judged window (the whole second after the spike) until
// its last request is done has no failed request in a judged window, so
// fleet judges it recovered at once (Recovered, 0 s): late (judged down, or
// recovered after 0 s) implies a full orbit in that span. The chain's
// arrivals go on recoveredDrain seconds past the run's end where the
// engine's stop, more load and a longer look than the run's drain (a few
// calls and backoffs of mean 1 s), so the chain's probability of a full
// orbit bounds the engine's share of late replicates from above.
var recoveredCase = Model{Rate: 1, Peak: 1.5, From: 10, To: 11, Workers: 2, Queue: 4, ServiceRate: 1,
	TimeoutRate: 0.02, RetryProb: 1, BackoffRate: 1, Orbit: 8}

// recoveredDuration is the run's length, 10 minutes as in issue 34's
// example; recoveredDrain is how long past it the chain looks, the run's
// drain (its requests backing off and in the server at the end).
const recoveredDuration, recoveredDrain = 600, 60

// recoveredRate is the test's false-failure rate: the chance that it fails
// although the verdict is right.
const recoveredRate = 1e-4

// TestRecoveredHeldToChain holds fleet's recovery verdict to the exact
// chain: of 400 replicates of recoveredCase run by fleet.Run, the count
// judged late (not Recovered at 0 s) must not lie in the upper tail, beyond
// recoveredRate, of Binomial(400, q), q the chain's probability that the
// orbit is full at some time in [11 s, 660 s] (Hit). Since late implies
// that event, the late count is at most a Binomial(400, q) in
// distribution, so the test fails a right verdict with probability at most
// recoveredRate (q is 0.068: up to 48 late pass, 27 expected at most; 9
// are). The verdict cannot equal a chain event exactly (it counts
// the share of a window's arrivals that succeed, a path's functional, not
// a state's), so the test holds it one-sided, to the exact event that
// implies it. Judged by the second the successes land in (recovery before
// issue 34), all 400 replicates are late: the last window loses the
// successes that land past the run's end.
func TestRecoveredHeldToChain(t *testing.T) {
	m := recoveredCase
	c, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	full := func(s fleetdata.MarkovState) bool { return s.Orbit >= m.Orbit }
	q, err := c.Hit(c.Empty(), math.Ceil(m.To), recoveredDuration+recoveredDrain, full)
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	res, err := fleet.Run(context.Background(), []fleet.Config{m.Config(recoveredDuration)}, fleet.Options{Replicates: n, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	late := 0
	for _, r := range fleetrun.Fleet().Replicates(res[0]) {
		if r.Verdict != fleetdata.Recovered || r.Recovery != 0 {
			late++
		}
	}
	upper := 1 - distuv.Binomial{N: n, P: q}.CDF(float64(late)-1) // P(X >= late)
	line := fmt.Sprintf("late %d of %d; the chain's full orbit by %d s: %.4f (%.1f expected), P(X >= %d) = %.3g", late, n, recoveredDuration+recoveredDrain, q, q*n, late, upper)
	t.Log(line)
	if upper < recoveredRate {
		t.Errorf("%s: beyond the binomial's upper %g tail", line, recoveredRate)
	}
}
