// Package chain is the exact oracle of the fleet model's Memoryless runs: the
// continuous-time Markov chain their rules (fleetdata.Memoryless) define, and its
// transient, hitting and mean-time answers computed without sampling.
package chain

import (
	"fmt"
	"math"
	"slices"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
)

// Limits on a chain, checked before any work: its states, the states of one orbit size
// (a dense block each, at most MaxStates x MaxBlock x 8 bytes), and uniformisation's steps
// and multiply-adds.
const (
	MaxStates = 20_000
	MaxBlock  = 500
	MaxSteps  = 10_000_000
	MaxWork   = 500_000_000
	// MaxQueue bounds Model.Queue: a state keeps the queue's calls as the bits of a word.
	MaxQueue = 20
)

// Model is a Memoryless fleet run's parameters.
type Model struct {
	// Rate is λ, requests a second; during a spike, [From, To) with To > From, it is Peak.
	Rate, Peak, From, To float64
	// Workers is c, Queue is K, ServiceRate is μ, the calls a worker finishes a second.
	Workers, Queue int
	ServiceRate    float64
	// PFail is the probability that a served call fails.
	PFail float64
	// TimeoutRate is θ, RetryProb p, BackoffRate ν and Orbit the orbit's cap, as in
	// fleetdata.Memoryless; TimeoutRate 0 (no timeouts) is for the queues' closed forms.
	TimeoutRate, RetryProb, BackoffRate float64
	Orbit                               int
}

// FromConfig is the model of cfg: Memoryless, with a constant or spike load.
func FromConfig(cfg fleet.Config) (Model, error) {
	if err := cfg.Check(); err != nil {
		return Model{}, err
	}
	m := fleetrun.Fleet().Memoryless(&cfg)
	if !m.On {
		return Model{}, pathtext.Errorf("memoryless.on", "the chain models only Memoryless runs")
	}
	md := Model{Rate: cfg.Load.Rate, Workers: cfg.Server.Workers, Queue: cfg.Server.QueueMax,
		ServiceRate: 1 / cfg.Server.Service.Median.Seconds(), PFail: cfg.Server.PFail,
		TimeoutRate: m.TimeoutRate, RetryProb: m.RetryProb, BackoffRate: m.BackoffRate, Orbit: m.Orbit}
	if cfg.Load.FirstCall {
		return Model{}, pathtext.Errorf("load.first_call", "a first call a client is not Poisson; the chain takes Poisson arrivals only")
	}
	switch cfg.Load.Kind {
	case fleet.ConstantLoad:
	case fleet.SpikeLoad:
		md.Peak, md.From, md.To = cfg.Load.Peak, cfg.Load.From.Seconds(), cfg.Load.To.Seconds()
	default:
		return Model{}, pathtext.Errorf("load.kind", "%v is not piecewise constant; the chain takes constant or spike", cfg.Load.Kind)
	}
	return md, md.check()
}

// check refuses a model with a rate, count or probability out of its bounds.
func (m Model) check() error {
	pos := func(name string, v float64) error {
		if math.IsNaN(v) || v <= 0 || v > limits.FleetRate {
			return fmt.Errorf("chain: %s: %g is not a rate above 0 and at most %g a second", name, v, float64(limits.FleetRate))
		}
		return nil
	}
	switch {
	case math.IsNaN(m.Rate) || m.Rate < 0 || m.Rate > limits.FleetRate:
		return fmt.Errorf("chain: Rate: %g is not from 0 to %g a second", m.Rate, float64(limits.FleetRate))
	case m.To > m.From && (math.IsNaN(m.Peak) || m.Peak < 0 || m.Peak > limits.FleetRate):
		return fmt.Errorf("chain: Peak: %g is not from 0 to %g a second", m.Peak, float64(limits.FleetRate))
	case m.Workers < 1 || m.Queue < 0 || m.Queue > MaxQueue:
		return fmt.Errorf("chain: Workers, Queue: %d and %d are not at least 1 and from 0 to %d", m.Workers, m.Queue, MaxQueue)
	case math.IsNaN(m.PFail) || m.PFail < 0 || m.PFail > 1:
		return fmt.Errorf("chain: PFail: %g is not a probability", m.PFail)
	case math.IsNaN(m.RetryProb) || m.RetryProb < 0 || m.RetryProb > 1:
		return fmt.Errorf("chain: RetryProb: %g is not a probability", m.RetryProb)
	case m.Orbit < 0:
		return fmt.Errorf("chain: Orbit: %d is below 0", m.Orbit)
	}
	if err := pos("ServiceRate", m.ServiceRate); err != nil {
		return err
	}
	if m.TimeoutRate != 0 { // 0: no timeouts, for the closed forms
		if err := pos("TimeoutRate", m.TimeoutRate); err != nil {
			return err
		}
	}
	return pos("BackoffRate", m.BackoffRate)
}

// State is one state of the chain.
type State struct {
	// Live and Abandoned count the workers' calls whose client waits, and those timed out.
	Live, Abandoned int
	// Queued is the queue's length and LiveMask its calls, bit k set when the k-th is live.
	Queued   int
	LiveMask uint32
	// Orbit counts the requests waiting out a backoff.
	Orbit int
}

// Observed is what the engine shows of the state (fleetdata.MarkovState).
func (s State) Observed() fleetdata.MarkovState {
	return fleetdata.MarkovState{InServer: s.Live + s.Abandoned + s.Queued, Orbit: s.Orbit}
}

// Region is a set of states, as the engine can tell them apart.
type Region func(fleetdata.MarkovState) bool

// transition is a jump at rate rate (a second), or rate x λ when arrival.
type transition struct {
	from, to int32
	arrival  bool
	rate     float64
}

// at is the jump's rate at arrival rate lambda.
func (tr transition) at(lambda float64) float64 {
	if tr.arrival {
		return tr.rate * lambda
	}
	return tr.rate
}

// Chain is a model's chain over the states reachable from the empty one.
type Chain struct {
	Model Model
	// States are ordered by orbit size, then as found.
	States []State
	index  map[State]int32
	trans  []transition
	// level[o] is the first state of orbit size o; level[Orbit+1] the count.
	level []int
}

// Build enumerates the states of m, as FromConfig makes it, reachable from the empty
// one, at most MaxStates.
func Build(m Model) (*Chain, error) {
	c := &Chain{Model: m, index: map[State]int32{}}
	var found []State
	seen := map[State]bool{{}: true}
	todo := []State{{}}
	for len(todo) > 0 {
		s := todo[0]
		todo = todo[1:]
		found = append(found, s)
		if len(found) > MaxStates {
			return nil, fmt.Errorf("the chain has more than %d states (MaxStates): fewer workers, a shorter queue or a smaller orbit", MaxStates)
		}
		m.moves(s, func(t State, _ float64, _ bool) {
			if !seen[t] {
				seen[t] = true
				todo = append(todo, t)
			}
		})
	}
	slices.SortStableFunc(found, func(a, b State) int { return a.Orbit - b.Orbit })
	c.States = found
	c.level = make([]int, m.Orbit+2)
	for i, s := range found {
		c.index[s] = int32(i)
		c.level[s.Orbit+1] = i + 1
	}
	for o := 1; o < len(c.level); o++ {
		c.level[o] = max(c.level[o], c.level[o-1])
		if n := c.level[o] - c.level[o-1]; n > MaxBlock {
			return nil, fmt.Errorf("orbit size %d has %d states, more than %d (MaxBlock): fewer workers or a shorter queue", o-1, n, MaxBlock)
		}
	}
	for i, s := range found {
		m.moves(s, func(t State, rate float64, arrival bool) {
			c.trans = append(c.trans, transition{int32(i), c.index[t], arrival, rate})
		})
	}
	return c, nil
}

// moves calls f with every other state s jumps to and its rate (times λ when arrival).
func (m Model) moves(s State, f func(t State, rate float64, arrival bool)) {
	emit := func(t State, rate float64, arrival bool) {
		if t != s && rate > 0 {
			f(t, rate, arrival)
		}
	}
	// decide is a failed attempt's retry: the orbit with probability p if it has room.
	decide := func(t State, rate float64, arrival bool) {
		if t.Orbit < m.Orbit {
			u := t
			u.Orbit++
			emit(u, rate*m.RetryProb, arrival)
			emit(t, rate*(1-m.RetryProb), arrival)
			return
		}
		emit(t, rate, arrival)
	}
	// admit is a live call reaching the server in state t.
	admit := func(t State, rate float64, arrival bool) {
		switch {
		case t.Live+t.Abandoned < m.Workers:
			t.Live++
		case t.Queued < m.Queue:
			t.LiveMask |= 1 << t.Queued
			t.Queued++
		default: // rejected
			decide(t, rate, arrival)
			return
		}
		emit(t, rate, arrival)
	}
	// promote gives the worker freed in t to the queue's head.
	promote := func(t State) State {
		if t.Queued > 0 {
			if t.LiveMask&1 != 0 {
				t.Live++
			} else {
				t.Abandoned++
			}
			t.LiveMask >>= 1
			t.Queued--
		}
		return t
	}
	admit(s, 1, true)
	if s.Orbit > 0 {
		t := s
		t.Orbit--
		admit(t, m.BackoffRate*float64(s.Orbit), false)
	}
	mu := m.ServiceRate
	if s.Live > 0 {
		t := s
		t.Live--
		t = promote(t)
		decide(t, mu*float64(s.Live)*m.PFail, false)
		emit(t, mu*float64(s.Live)*(1-m.PFail), false)
		t = s
		t.Live--
		t.Abandoned++
		decide(t, m.TimeoutRate*float64(s.Live), false)
	}
	if s.Abandoned > 0 {
		t := s
		t.Abandoned--
		emit(promote(t), mu*float64(s.Abandoned), false)
	}
	for k := range s.Queued {
		if s.LiveMask&(1<<k) != 0 {
			t := s
			t.LiveMask &^= 1 << k
			decide(t, m.TimeoutRate, false)
		}
	}
}

// Len is the number of states.
func (c *Chain) Len() int { return len(c.States) }

// Transitions is the number of distinct pairs of states joined by a rate above 0.
func (c *Chain) Transitions() int {
	pairs := make(map[[2]int32]bool, len(c.trans))
	for _, tr := range c.trans {
		pairs[[2]int32{tr.from, tr.to}] = true
	}
	return len(pairs)
}

// Index is the index of state s in States, or -1 if s is not reachable.
func (c *Chain) Index(s State) int {
	if i, ok := c.index[s]; ok {
		return int(i)
	}
	return -1
}

// rateAt is the arrival rate at time t.
func (m Model) rateAt(t float64) float64 {
	if m.To > m.From && t >= m.From && t < m.To {
		return m.Peak
	}
	return m.Rate
}

// in is the indicator of a region over the states.
func (c *Chain) in(r Region) []bool {
	b := make([]bool, len(c.States))
	for i, s := range c.States {
		b[i] = r(s.Observed())
	}
	return b
}

// Collapsed is every worker and queue place abandoned, and the orbit full if retried.
func (m Model) Collapsed() State {
	s := State{Abandoned: m.Workers, Queued: m.Queue}
	if m.RetryProb > 0 {
		s.Orbit = m.Orbit
	}
	return s
}
