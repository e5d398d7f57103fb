package chain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/limits"
)

// Config is the fleet engine's run of the model for duration seconds: the
// queue server without network delay, Memoryless on, and MaxAttempts tries,
// the closest the engine comes to the chain's unlimited ones.
func (m Model) Config(duration float64) fleet.Config {
	c := fleet.DefaultConfig()
	c.Name = "memoryless"
	c.Duration = seconds(duration)
	c.Load = fleet.Shape{Kind: fleet.ConstantLoad, Rate: m.Rate}
	if m.To > m.From {
		c.Load = fleet.Shape{Kind: fleet.SpikeLoad, Rate: m.Rate, Peak: m.Peak, From: seconds(m.From), To: seconds(m.To)}
	}
	c.Server = fleet.Server{Kind: fleet.QueueServer, Workers: m.Workers, QueueMax: m.Queue,
		Service: fleet.Service{Dist: fleet.ExponentialService, Median: seconds(1 / m.ServiceRate)}, PFail: m.PFail}
	c.Net = 0
	c.Client.Attempts = limits.FleetAttempts
	*fleetrun.Fleet().Memoryless(&c) = fleetdata.Memoryless{On: true, TimeoutRate: m.TimeoutRate, RetryProb: m.RetryProb,
		BackoffRate: m.BackoffRate, Orbit: m.Orbit}
	return c
}

// seconds is s seconds as a time.Duration, to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// maxCondition is the condition number above which a solve's figures are
// noise: past 1e16 no digit of a float64 survives (gonum's
// mat.ConditionTolerance).
const maxCondition = 1e16

// condition is m's condition number in the maximum row sum norm, the
// norm of m times that of its inverse (computed from f, m's
// factorisation): exact, where gonum's LAPACK estimated it from below.
func (f *lu) condition(m *dense) float64 {
	inv := newDense(f.n, f.n)
	for i := range f.n {
		inv.row(i)[i] = 1
	}
	f.solve(inv)
	return rowSumNorm(m) * rowSumNorm(inv)
}

// rowSumNorm is the largest sum of the absolute values of a row of m.
func rowSumNorm(m *dense) float64 {
	var largest float64
	for i := range m.r {
		var s float64
		for _, v := range m.row(i) {
			s += math.Abs(v)
		}
		largest = max(largest, s)
	}
	return largest
}

// At is the probability that the chain, started from p0 at time 0, is in
// region r at time t.
func (c *Chain) At(p0 []float64, t float64, r Region) (float64, error) {
	p, err := c.Distribution(p0, t)
	if err != nil {
		return 0, err
	}
	return mass(p, c.in(r)), nil
}

// Before is, for each state, the probability of reaching region a before
// region b (1 in a, 0 in b but not a), the arrival rate Rate throughout. It
// is an error if some state can reach neither.
func (c *Chain) Before(a, b Region) ([]float64, error) {
	ina, inb := c.in(a), c.in(b)
	fixed := make([]bool, len(ina))
	value := make([]float64, len(ina))
	for i := range fixed {
		fixed[i] = ina[i] || inb[i]
		if ina[i] {
			value[i] = 1
		}
	}
	if err := c.reaches(fixed); err != nil {
		return nil, err
	}
	return c.solve(fixed, value, 0)
}

// Stationary is the chain's stationary distribution at arrival rate Rate,
// by a dense solve: for chains of at most MaxBlock states.
func (c *Chain) Stationary() ([]float64, error) {
	n := len(c.States)
	if n > MaxBlock {
		return nil, fmt.Errorf("the stationary solve takes at most %d states (MaxBlock), not %d", MaxBlock, n)
	}
	// Q^T pi = 0 with the last equation replaced by sum pi = 1.
	a := newDense(n, n)
	for _, tr := range c.trans {
		r := tr.at(c.Model.Rate)
		a.add(int(tr.to), int(tr.from), r)
		a.add(int(tr.from), int(tr.from), -r)
	}
	for j := range n {
		a.row(n - 1)[j] = 1
	}
	rhs := make([]float64, n)
	rhs[n-1] = 1
	f, ok := factor(a)
	if !ok {
		return nil, errors.New("chain: stationary solve: the matrix is singular")
	}
	if k := f.condition(a); k > maxCondition {
		return nil, fmt.Errorf("chain: stationary solve: the matrix is near-singular, with condition number %.4e", k)
	}
	return f.solveVec(rhs), nil
}

// Run answers q and runs its items, the splittings on up to workers
// goroutines; the Stats are the same whatever the workers.
func (q Question) Run(ctx context.Context, workers int) (Stats, error) {
	a, err := q.Answer()
	if err != nil {
		return Stats{}, err
	}
	var items []Item
	if q.Split != nil {
		if items, err = q.RunItems(ctx, 0, q.Items(), workers); err != nil {
			return Stats{}, err
		}
	}
	return q.Stats(a, items), nil
}

// Distribution is the chain's distribution at time t, started from p (not changed) at 0.
func (c *Chain) Distribution(p []float64, t float64) ([]float64, error) {
	if err := c.checkSteps(0, t, nil, 0); err != nil {
		return nil, err
	}
	return c.evolve(p, 0, t, nil), nil
}
