package chain

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/limits"
)

// agreeCase is a Memoryless model with a spike of load on [From, To), and
// three events of its path that the chain gives exact probabilities of:
// the orbit reaching Collapse by To+Settle (collapse); the calls in the
// server and the orbit together at most Calm at To+Settle (calm); the
// server and orbit both empty at some time in [To, To+Recover] (recovered).
type agreeCase struct {
	m                 Model
	collapse, calm    int
	settle, recoverBy float64
}

// agreeCases (16 configurations) span one to three workers, queues of 0 to
// 4, retry probabilities 0.5 to 1, failures, and loads from idle to overloaded; their
// thresholds put each probability well inside (0, 1).
var agreeCases = []agreeCase{
	{Model{Rate: 0.5, Peak: 3, From: 2, To: 6, Workers: 1, Queue: 0, ServiceRate: 1.5, TimeoutRate: 0.5, RetryProb: 0.5, BackoffRate: 1, Orbit: 3}, 2, 1, 2, 10},
	{Model{Rate: 0.6, Peak: 2.5, From: 1, To: 5, Workers: 1, Queue: 2, ServiceRate: 1, TimeoutRate: 0.3, RetryProb: 0.7, BackoffRate: 0.5, Orbit: 4}, 3, 2, 2, 14},
	{Model{Rate: 1, Peak: 4, From: 2, To: 6, Workers: 2, Queue: 3, ServiceRate: 1, TimeoutRate: 0.4, RetryProb: 0.8, BackoffRate: 0.7, Orbit: 5}, 3, 3, 2, 14},
	{Model{Rate: 1.2, Peak: 3, From: 1, To: 4, Workers: 2, Queue: 2, ServiceRate: 1, PFail: 0.1, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 6}, 4, 3, 3, 14},
	{Model{Rate: 1.5, Peak: 5, From: 2, To: 5, Workers: 3, Queue: 3, ServiceRate: 1, TimeoutRate: 0.3, RetryProb: 0.6, BackoffRate: 0.8, Orbit: 4}, 3, 4, 2, 12},
	{Model{Rate: 0.4, Peak: 2, From: 1, To: 6, Workers: 1, Queue: 4, ServiceRate: 1, TimeoutRate: 0.4, RetryProb: 1, BackoffRate: 0.4, Orbit: 5}, 3, 3, 2, 16},
	{Model{Rate: 0.8, Peak: 3.5, From: 2, To: 5, Workers: 2, Queue: 1, ServiceRate: 1.2, PFail: 0.2, TimeoutRate: 0.8, RetryProb: 0.75, BackoffRate: 1.5, Orbit: 3}, 2, 2, 1, 8},
	{Model{Rate: 2, Peak: 4, From: 1, To: 3, Workers: 3, Queue: 2, ServiceRate: 0.8, TimeoutRate: 0.6, RetryProb: 0.9, BackoffRate: 1.2, Orbit: 5}, 4, 4, 2, 12},
	{Model{Rate: 0.3, Peak: 2.5, From: 1, To: 4, Workers: 1, Queue: 1, ServiceRate: 0.8, TimeoutRate: 0.6, RetryProb: 0.9, BackoffRate: 0.6, Orbit: 4}, 2, 1, 2, 12},
	{Model{Rate: 0.9, Peak: 3, From: 2, To: 5, Workers: 2, Queue: 0, ServiceRate: 1, PFail: 0.3, TimeoutRate: 0.5, RetryProb: 0.6, BackoffRate: 1, Orbit: 4}, 2, 2, 2, 10},
	{Model{Rate: 1.1, Peak: 4.5, From: 1, To: 3, Workers: 2, Queue: 4, ServiceRate: 1.3, TimeoutRate: 0.35, RetryProb: 0.85, BackoffRate: 0.6, Orbit: 6}, 4, 3, 2, 14},
	{Model{Rate: 1.8, Peak: 5, From: 2, To: 4, Workers: 3, Queue: 1, ServiceRate: 0.9, TimeoutRate: 0.7, RetryProb: 0.5, BackoffRate: 2, Orbit: 3}, 2, 4, 1, 8},
	{Model{Rate: 0.7, Peak: 2, From: 1, To: 7, Workers: 1, Queue: 3, ServiceRate: 1.1, PFail: 0.05, TimeoutRate: 0.25, RetryProb: 0.95, BackoffRate: 0.3, Orbit: 6}, 3, 3, 3, 16},
	{Model{Rate: 1.4, Peak: 3.5, From: 1, To: 4, Workers: 2, Queue: 3, ServiceRate: 1.1, TimeoutRate: 0.45, RetryProb: 0.7, BackoffRate: 0.9, Orbit: 5}, 3, 3, 2, 12},
	{Model{Rate: 0.5, Peak: 4, From: 2, To: 4, Workers: 2, Queue: 2, ServiceRate: 0.7, PFail: 0.15, TimeoutRate: 0.55, RetryProb: 0.8, BackoffRate: 1.1, Orbit: 4}, 3, 2, 2, 12},
	{Model{Rate: 2.5, Peak: 5.5, From: 1, To: 3, Workers: 3, Queue: 3, ServiceRate: 1, TimeoutRate: 0.5, RetryProb: 0.75, BackoffRate: 1.4, Orbit: 5}, 4, 5, 2, 12},
}

// chainValues are the chain's probabilities of a case's three events.
func (a agreeCase) chainValues() ([3]float64, error) {
	var v [3]float64
	c, err := Build(a.m)
	if err != nil {
		return v, err
	}
	end := a.m.To + a.settle
	if v[0], err = c.Hit(c.Empty(), 0, end, func(s fleetdata.MarkovState) bool { return s.Orbit >= a.collapse }); err != nil {
		return v, err
	}
	if v[1], err = c.At(c.Empty(), end, func(s fleetdata.MarkovState) bool { return s.InServer+s.Orbit <= a.calm }); err != nil {
		return v, err
	}
	v[2], err = c.Hit(c.Empty(), a.m.To, a.m.To+a.recoverBy, func(s fleetdata.MarkovState) bool { return s == fleetdata.MarkovState{} })
	return v, err
}

// engineCounts runs n replicates of the case on the fleet engine, seeds
// first to first+n-1, and counts those in which each event happened.
func (a agreeCase) engineCounts(first uint64, n int) ([3]int, error) {
	var k [3]int
	end := a.m.To + a.settle
	last := math.Max(end, a.m.To+a.recoverBy)
	cfg := a.m.Config(math.Ceil(last) + 1)
	if err := cfg.Check(); err != nil {
		return k, err
	}
	for r := range n {
		var collapsed, calm, recovered bool
		_, err := fleetrun.Fleet().NewTracer(&cfg, first+uint64(r)).Run(context.Background(), func(from, to float64, s fleetdata.MarkovState) bool {
			if from <= end && s.Orbit >= a.collapse {
				collapsed = true
			}
			if from <= end && end < to && s.InServer+s.Orbit <= a.calm {
				calm = true
			}
			if from <= a.m.To+a.recoverBy && to > a.m.To && s == (fleetdata.MarkovState{}) {
				recovered = true
			}
			return from > last
		})
		if err != nil {
			return k, err
		}
		for i, b := range []bool{collapsed, calm, recovered} {
			if b {
				k[i]++
			}
		}
	}
	return k, nil
}

// agreeReplicates is the replicates of each case.
const agreeReplicates = 3000

// agreeFamilyRate is the chance that the whole test fails although the
// engine is right: each of the 24 comparisons fails at 1e-4/24 (Bonferroni,
// which holds whatever their dependence), split between the two tails of
// the exact binomial distribution of the count under the chain's value.
const agreeFamilyRate = 1e-4

// TestEngineAgreesWithChain holds the fleet engine's Memoryless replicates
// to the exact chain (each case on seeds of its own, so that no two cases
// share arrivals): for each of 8 cases x 3 events, the count of
// replicates in which the event happened must not be in either tail of
// Binomial(agreeReplicates, chain value) beyond agreeFamilyRate/24/2. The
// log gives each comparison's z, (k/n - p)/sqrt(p(1-p)/n).
func TestEngineAgreesWithChain(t *testing.T) {
	checks := 3 * len(agreeCases)
	alpha := agreeFamilyRate / float64(checks) / 2
	for i, a := range agreeCases {
		want, err := a.chainValues()
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.engineCounts(uint64(i*agreeReplicates), agreeReplicates)
		if err != nil {
			t.Fatal(err)
		}
		for j, name := range []string{"collapse", "calm", "recovered"} {
			p, k, n := want[j], got[j], agreeReplicates
			b := distuv.Binomial{N: float64(n), P: p}
			lower := b.CDF(float64(k))
			upper := 1 - b.CDF(float64(k)-1)
			z := (float64(k)/float64(n) - p) / math.Sqrt(p*(1-p)/float64(n))
			line := fmt.Sprintf("case %d %-9s chain %.6f engine %4d/%d z %+.2f", i, name, p, k, n, z)
			t.Log(line)
			if lower < alpha || upper < alpha {
				t.Errorf("%s: outside the binomial's %g tails", line, alpha)
			}
		}
	}
}

// meanCase is a Memoryless model at a constant rate, the orbit size its
// mean time to reach is compared, and the probability that a request
// enters the orbit before the server is full (every worker busy and the
// queue full), both from an empty server.
type meanCase struct {
	m     Model
	orbit int
}

var meanCases = []meanCase{
	{Model{Rate: 1, Workers: 1, Queue: 2, ServiceRate: 1.5, TimeoutRate: 0.5, RetryProb: 0.8, BackoffRate: 1, Orbit: 4}, 3},
	{Model{Rate: 1.5, Workers: 2, Queue: 2, ServiceRate: 1, TimeoutRate: 0.4, RetryProb: 0.9, BackoffRate: 0.8, Orbit: 5}, 3},
	{Model{Rate: 2, Workers: 3, Queue: 1, ServiceRate: 1, PFail: 0.1, TimeoutRate: 0.6, RetryProb: 0.7, BackoffRate: 1.5, Orbit: 4}, 3},
	{Model{Rate: 0.8, Workers: 1, Queue: 3, ServiceRate: 1.2, TimeoutRate: 0.3, RetryProb: 1, BackoffRate: 0.5, Orbit: 5}, 3},
}

// TestEngineAgreesWithChainSolves holds the engine to the chain's linear
// solves, Mean and Before, on 4 cases x 2 figures from agreeReplicates
// replicates: the mean time to reach the case's orbit size within the
// normal quantile of its standard error (the mean of thousands of hitting
// times is near normal), the share that entered the orbit before the server
// was full outside neither exact binomial tail, each at agreeFamilyRate/8
// two-sided (Bonferroni).
func TestEngineAgreesWithChainSolves(t *testing.T) {
	const checks = 8
	alpha := agreeFamilyRate / checks / 2
	zmax := distuv.UnitNormal.Quantile(1 - alpha)
	for i, mc := range meanCases {
		c, err := Build(mc.m)
		if err != nil {
			t.Fatal(err)
		}
		reach := func(s fleetdata.MarkovState) bool { return s.Orbit >= mc.orbit }
		entered := func(s fleetdata.MarkovState) bool { return s.Orbit >= 1 }
		full := func(s fleetdata.MarkovState) bool { return s.InServer >= mc.m.Workers+mc.m.Queue }
		h, err := c.Mean(reach)
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.Before(entered, full)
		if err != nil {
			t.Fatal(err)
		}
		wantMean, wantBefore := h[c.Index(State{})], b[c.Index(State{})]
		cfg := mc.m.Config(limits.FleetDuration)
		var sum, sum2 float64
		first := 0
		for r := range agreeReplicates {
			decided, hit := false, math.NaN()
			if _, err := fleetrun.Fleet().NewTracer(&cfg, uint64((len(agreeCases)+i)*agreeReplicates+r)).Run(context.Background(), func(from, _ float64, s fleetdata.MarkovState) bool {
				if !decided && (entered(s) || full(s)) {
					decided = true
					if entered(s) {
						first++
					}
				}
				if reach(s) {
					hit = from
				}
				return !math.IsNaN(hit)
			}); err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(hit) || !decided {
				t.Fatalf("case %d replicate %d: the orbit never reached %d in %d s", i, r, mc.orbit, limits.FleetDuration)
			}
			sum += hit
			sum2 += hit * hit
		}
		n := float64(agreeReplicates)
		mean := sum / n
		se := math.Sqrt((sum2 - sum*sum/n) / (n - 1) / n)
		z := (mean - wantMean) / se
		line := fmt.Sprintf("case %d mean time to orbit %d: chain %.4f s, engine %.4f ± %.3f s, z %+.2f", i, mc.orbit, wantMean, mean, se, z)
		t.Log(line)
		if math.Abs(z) > zmax {
			t.Errorf("%s: beyond %.2f", line, zmax)
		}
		bin := distuv.Binomial{N: n, P: wantBefore}
		zb := (float64(first)/n - wantBefore) / math.Sqrt(wantBefore*(1-wantBefore)/n)
		line = fmt.Sprintf("case %d orbit before full: chain %.6f, engine %d/%d, z %+.2f", i, wantBefore, first, agreeReplicates, zb)
		t.Log(line)
		if bin.CDF(float64(first)) < alpha || 1-bin.CDF(float64(first)-1) < alpha {
			t.Errorf("%s: outside the binomial's %g tails", line, alpha)
		}
	}
}
