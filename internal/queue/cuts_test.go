package queue

import (
	"fmt"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// given hands out its draws in order, then fresh ones from more.
type given struct {
	draws []uint64
	more  *rng.Stream
}

func (g *given) Uint64() uint64 {
	if len(g.draws) == 0 {
		return g.more.Next()
	}
	u := g.draws[0]
	g.draws = g.draws[1:]
	return u
}

// atOrAbove is the least draw of the generators (53 bits shifted up, the low
// 11 bits zero) at or above cut: the clean side's edge, 2^11 above the event
// side's, so that a Float64 below a probability and a draw below its cut
// (rng.Threshold) both see it on its side.
func atOrAbove(cut uint64) uint64 { return (cut>>11 + min(cut&(1<<11-1), 1)) << 11 }

// Cuts are the draws a clean job takes, in order: a job whose draws sit each
// at its cut's clean edge is one delivery that calls each step once and takes
// exactly those draws, and moving any one of them to the event side's edge
// makes a job that calls more, delivers more, fails, loses work (a claim a
// failed call kept, which a whole-job retry then skips) or takes longer (a
// lost reply's retry, which finds the step claimed), for every store and
// crash point, with requests repeated and without.
func TestCutsAreTheCleanJobsDraws(t *testing.T) {
	sc := provider.Signup(0.01, 0.005)
	for i := range sc.Steps {
		sc.Steps[i].Latency = provider.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	}
	strategies := []strategy.Retry{
		{Scope: strategy.EachStep, Attempts: 3},
		{Scope: strategy.WholeJob, Attempts: 3, SkipFinished: true},
	}
	for _, store := range []delivery.Store{delivery.NoStore, delivery.After, delivery.Loose, delivery.Claim, delivery.Lease} {
		for _, at := range []delivery.CrashPoint{delivery.BeforeKey, delivery.AfterKey, delivery.AfterWork, delivery.BeforeAck} {
			for _, repeat := range []float64{0, 0.01} {
				for si, s := range strategies {
					cfg := delivery.Defaults()
					cfg.Store, cfg.CrashP, cfg.CrashAt, cfg.RepeatP = store, 0.01, at, repeat
					name := fmt.Sprintf("%s/%s/repeat=%v/%d", store, at, repeat, si)
					cuts := newRunner(cfg, s, sc, nil).Cuts()
					clean := make([]uint64, len(cuts))
					for k, cut := range cuts {
						clean[k] = atOrAbove(cut)
					}
					calls, cleanOut, draws := runGiven(cfg, s, sc, clean)
					if calls != int64(len(sc.Steps)) || cleanOut.Deliveries != 1 || cleanOut.Failed || cleanOut.Lost || draws != int64(len(cuts)) {
						t.Errorf("%s, every draw clean: %d calls, %+v, %d draws; want %d calls, 1 delivery, nothing failed or lost, %d draws",
							name, calls, cleanOut, draws, len(sc.Steps), len(cuts))
					}
					for k := range cuts {
						if clean[k] == 0 {
							continue // a cut of 0: nothing can happen there
						}
						d := append([]uint64(nil), clean...)
						d[k] -= 1 << 11
						if calls, out, _ := runGiven(cfg, s, sc, d); calls == int64(len(sc.Steps)) && out == cleanOut {
							t.Errorf("%s, draw %d of %d on the event side: the clean job (%d calls, %+v)", name, k, len(cuts), calls, out)
						}
					}
				}
			}
		}
	}
}

// newRunner is a Runner of sc through s, its draws those of src, or fresh
// ones if src is nil.
func newRunner(cfg delivery.Config, s strategy.Strategy, sc provider.Scenario, src *given) *Runner {
	stream := rng.NewStream(rng.PCGGenerator().New(1, 0))
	if src != nil {
		stream = rng.StreamOf(src)
	}
	return NewRunner(cfg, s, sc, jobsim.New(sc, stream), stream, rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(1), 0)))
}

// runGiven runs one job whose draws start with draws and reports its calls,
// its outcome and how many draws it took.
func runGiven(cfg delivery.Config, s strategy.Strategy, sc provider.Scenario, draws []uint64) (calls int64, out Outcome, took int64) {
	src := &given{draws: draws, more: rng.NewStream(rng.PCGGenerator().New(2, 0))}
	stream := rng.StreamOf(src)
	j := jobsim.New(sc, stream)
	x := NewRunner(cfg, s, sc, j, stream, rng.NewStream(rng.PCGGenerator().New(rng.LatencySeed(1), 0)))
	defer x.Close()
	out = x.Run()
	return j.Calls(), out, stream.Draws()
}
