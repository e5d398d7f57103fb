package closedform_test

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/retrysim/retrysim/internal/closedform"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// The references below are exact rational arithmetic on the float inputs, so
// any difference is Expect's rounding. Every figure must hold its relative
// precision, however small: |got - want| <= relTol |want|, and exactly 0
// where the truth is 0.
const relTol = 1e-12

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

func ratInt(n int) *big.Rat { return new(big.Rat).SetInt64(int64(n)) }

func add(a, b *big.Rat) *big.Rat { return new(big.Rat).Add(a, b) }
func sub(a, b *big.Rat) *big.Rat { return new(big.Rat).Sub(a, b) }
func mul(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }

func pow(x *big.Rat, k int) *big.Rat {
	out := big.NewRat(1, 1)
	for range k {
		out = mul(out, x)
	}
	return out
}

// geom is sum_{k<a} x^k.
func geom(x *big.Rat, a int) *big.Rat {
	s, t := new(big.Rat), big.NewRat(1, 1)
	for range a {
		s, t = add(s, t), mul(t, x)
	}
	return s
}

func checkClose(t *testing.T, what string, got float64, want *big.Rat) {
	t.Helper()
	w, _ := want.Float64()
	if want.Sign() == 0 {
		if got != 0 {
			t.Errorf("%s = %g; want exactly 0", what, got)
		}
		return
	}
	if math.Abs(got-w) > relTol*math.Abs(w) || math.IsNaN(got) {
		t.Errorf("%s = %.17g; want %.17g (relative error %.3g)", what, got, w, math.Abs(got-w)/math.Abs(w))
	}
}

// closedForms evaluates, in exact rationals, the closed forms of the retries
// without the store (the derivations Expect's doc comment summarises). In
// floating point they subtract numbers near 1; in rationals nothing is lost.
func closedForms(sc provider.Scenario, r strategy.Retry) (failed, calls, repeated, twice *big.Rat) {
	one := big.NewRat(1, 1)
	a := r.Attempts
	n := len(sc.Steps)
	p, l, f := make([]*big.Rat, n), make([]*big.Rat, n), make([]*big.Rat, n)
	for i, s := range sc.Steps {
		p[i], l[i] = rat(s.PFail), new(big.Rat)
		if s.CanLoseReply {
			l[i] = rat(s.LostReply)
		}
		f[i] = add(p[i], mul(sub(one, p[i]), l[i])) // the call errors
	}
	keyed := func(i int) bool { return r.Keys == schema.SameKey && sc.Steps[i].HonoursKeys }
	calls, repeated, twice = new(big.Rat), new(big.Rat), new(big.Rat)
	if r.Scope == strategy.EachStep {
		// Step i is reached with the product of (1 - f_j^A) before it; once
		// reached it makes sum_{k<A} f^k calls, works (1-p) of them, at least
		// once with 1 - p^A; twice or more is the complement of no work
		// (p^A), of one that ends in success (p^k then (1-p)(1-l)) and of one
		// lost reply among the A errors.
		reach := big.NewRat(1, 1)
		for i := range n {
			g := geom(f[i], a)
			calls = add(calls, mul(reach, g))
			if !keyed(i) {
				repeated = add(repeated, mul(reach, sub(mul(sub(one, p[i]), g), sub(one, pow(p[i], a)))))
				if i == sc.Watched[0].Step {
					once := add(mul(mul(sub(one, p[i]), sub(one, l[i])), geom(p[i], a)),
						mul(mul(ratInt(a), mul(sub(one, p[i]), l[i])), pow(p[i], a-1)))
					twice = mul(reach, sub(sub(one, pow(p[i], a)), once))
				}
			}
			reach = mul(reach, sub(one, pow(f[i], a)))
		}
		return sub(one, reach), calls, repeated, twice
	}
	// Whole job: an attempt reaches step i with r_i = prod_{j<i} (1 - f_j)
	// and succeeds with ok = r_n; attempt a runs with q^a, q = 1 - ok. Step
	// i's work happens in an attempt with s_i = r_i (1-p_i); none at all with
	// (1-s_i)^A; exactly once is attempts without it then a succeeding one,
	// or one failing attempt with the work among A.
	ok := big.NewRat(1, 1)
	for i := range n {
		ok = mul(ok, sub(one, f[i]))
	}
	q := sub(one, ok)
	attempts := geom(q, a)
	reach := big.NewRat(1, 1)
	for i := range n {
		calls = add(calls, mul(attempts, reach))
		if !keyed(i) {
			s := mul(reach, sub(one, p[i]))
			none := pow(sub(one, s), a)
			repeated = add(repeated, sub(mul(s, attempts), sub(one, none)))
			if i == sc.Watched[0].Step {
				once := add(mul(ok, geom(sub(one, s), a)), mul(mul(ratInt(a), sub(s, ok)), pow(sub(one, s), a-1)))
				twice = sub(sub(one, none), once)
			}
		}
		reach = mul(reach, sub(one, f[i]))
	}
	return pow(q, a), calls, repeated, twice
}

// Expect holds its relative precision at extreme rates, where the closed
// forms in floating point printed -1e-20 duplicates (exact 4.5e-41) and
// 1.9e-16 repeats a job (exact 4.4e-17), and at ordinary ones.
func TestExpectExactAtExtremeRates(t *testing.T) {
	points := []struct {
		p, l     float64
		attempts int
	}{
		{0.999, 0.999, 10}, {0.999, 0.999, 1}, {0.999, 0.001, 3},
		{0.01, 0.005, 3}, {0.05, 0.02, 3}, {0.3, 0.5, 4},
		{1e-9, 1e-9, 3}, {1e-9, 0.5, 10}, {0.5, 1e-12, 2},
		{1, 0.3, 3}, {0.4, 1, 3}, {0, 0.2, 5},
	}
	for _, pt := range points {
		sc := provider.Signup(pt.p, pt.l)
		for _, r := range allRetries(pt.attempts) {
			if r.Scope == strategy.WholeJob && r.SkipFinished {
				continue // no closed form: TestExpectMatchesEnumeration covers it
			}
			name := fmt.Sprintf("p=%g l=%g A=%d %s", pt.p, pt.l, pt.attempts, r.Name())
			e := closedform.Retry(r, sc)
			failed, calls, repeated, twice := closedForms(sc, r)
			checkClose(t, name+": failed", e.FailedRate, failed)
			checkClose(t, name+": succeeded", e.SucceededRate, sub(big.NewRat(1, 1), failed))
			checkClose(t, name+": calls", e.CallsPerJob, calls)
			checkClose(t, name+": repeated", e.RepeatedPerJob, repeated)
			checkClose(t, name+": twice", e.DuplicateRate, twice)
		}
	}
}

// outcome is the exact distribution of one job: probability by (calls,
// repeated side effects), failure and the watched step done twice or more.
type outcome struct {
	dist          map[[2]int]*big.Rat
	failed, twice *big.Rat
}

// enumerate walks every sequence of call outcomes of one job under r, as the
// README words it, with its exact probability: a call fails before doing
// anything (p), or does the work and loses its reply (lossy steps only), or
// does the work and succeeds; a provider that honours keys does the work once
// per key it has seen; retrying each step calls a step until it succeeds or
// has erred A times; retrying the whole job starts again from the first step
// (with the store, from the first step not finished) until an attempt
// succeeds or A attempts have failed. It shares nothing with Expect.
func enumerate(sc provider.Scenario, r strategy.Retry) outcome {
	n := len(sc.Steps)
	o := outcome{dist: map[[2]int]*big.Rat{}, failed: new(big.Rat), twice: new(big.Rat)}
	one := big.NewRat(1, 1)
	end := func(prob *big.Rat, calls int, done []int, keysSeen []bool, failed bool) {
		rep := 0
		for _, d := range done {
			rep += max(d-1, 0)
		}
		k := [2]int{calls, rep}
		if o.dist[k] == nil {
			o.dist[k] = new(big.Rat)
		}
		o.dist[k].Add(o.dist[k], prob)
		if failed {
			o.failed.Add(o.failed, prob)
		}
		if done[sc.Watched[0].Step] >= 2 {
			o.twice.Add(o.twice, prob)
		}
	}
	// call runs step i with a key that is new (fresh) or the action's, and
	// hands each outcome, with its probability, to then(succeeded).
	type state struct {
		prob     *big.Rat
		calls    int
		done     []int
		keysSeen []bool
	}
	call := func(s state, i int, then func(state, bool)) {
		st := sc.Steps[i]
		p, l := rat(st.PFail), new(big.Rat)
		if st.CanLoseReply {
			l = rat(st.LostReply)
		}
		work := func(s state) state {
			done := append([]int(nil), s.done...)
			seen := append([]bool(nil), s.keysSeen...)
			sameKey := jobsim.StepKeys(st.Retry, r.Keys) == schema.SameKey
			if !(st.HonoursKeys && sameKey && seen[i]) {
				done[i]++
			}
			seen[i] = true
			return state{s.prob, s.calls, done, seen}
		}
		s.calls++
		if p.Sign() > 0 {
			then(state{mul(s.prob, p), s.calls, s.done, s.keysSeen}, false)
		}
		if lost := mul(sub(one, p), l); lost.Sign() > 0 {
			w := work(s)
			w.prob = mul(s.prob, lost)
			then(w, false)
		}
		if good := mul(sub(one, p), sub(one, l)); good.Sign() > 0 {
			w := work(s)
			w.prob = mul(s.prob, good)
			then(w, true)
		}
	}
	start := state{big.NewRat(1, 1), 0, make([]int, n), make([]bool, n)}
	if r.Scope == strategy.EachStep {
		var step func(s state, i, tries int)
		step = func(s state, i, tries int) {
			if i == n {
				end(s.prob, s.calls, s.done, s.keysSeen, false)
				return
			}
			call(s, i, func(s state, ok bool) {
				switch {
				case ok:
					step(s, i+1, 0)
				case tries+1 == jobsim.StepAttempts(sc.Steps[i].Retry, r.Attempts):
					end(s.prob, s.calls, s.done, s.keysSeen, true)
				default:
					step(s, i, tries+1)
				}
			})
		}
		step(start, 0, 0)
		return o
	}
	var attempt func(s state, a, i int, finished []bool)
	attempt = func(s state, a, i int, finished []bool) {
		for i < n && finished[i] {
			i++
		}
		if i == n {
			end(s.prob, s.calls, s.done, s.keysSeen, false)
			return
		}
		call(s, i, func(s state, ok bool) {
			switch {
			case ok:
				fin := finished
				if r.SkipFinished {
					fin = append([]bool(nil), finished...)
					fin[i] = true
				}
				attempt(s, a, i+1, fin)
			case a+1 == r.Attempts:
				end(s.prob, s.calls, s.done, s.keysSeen, true)
			default:
				attempt(s, a+1, 0, finished)
			}
		})
	}
	attempt(start, 0, 0, make([]bool, n))
	return o
}

// meanVar are the exact mean and variance of the count picked by k.
func (o outcome) meanVar(k int) (mean, variance *big.Rat) {
	mean, sq := new(big.Rat), new(big.Rat)
	for key, p := range o.dist {
		x := ratInt(key[k])
		mean = add(mean, mul(p, x))
		sq = add(sq, mul(p, mul(x, x)))
	}
	return mean, sub(sq, mul(mean, mean))
}

// Every retry, the store included, against the exact distribution of a small
// job: a plain step, a keyed step that can lose its reply (watched, or not),
// and a plain one that can, at extreme and ordinary rates. The variances of
// calls and repeats are what z-scores divide by.
func TestExpectMatchesEnumeration(t *testing.T) {
	for _, pt := range []struct{ p, l float64 }{
		{0.999, 0.999}, {0.05, 0.02}, {0.3, 0.5}, {1e-9, 1e-6}, {0.5, 1e-12}, {1, 0.5}, {0.2, 1}, {0, 0.4},
	} {
		for k := range 4 {
			watched, own := 1+k%2, k >= 2
			sc := provider.Scenario{Watched: []provider.Watch{{Step: watched}}, Steps: []provider.Step{
				{PFail: pt.p},
				{PFail: pt.p, CanLoseReply: true, LostReply: pt.l, HonoursKeys: true},
				{PFail: pt.p / 2, CanLoseReply: true, LostReply: pt.l / 3},
			}}
			if own {
				// Each step's own policy, overriding the run's: one
				// attempt for the first, the same key for the keyed one
				// whatever the run sends, two attempts and no key for
				// the last.
				same, none := schema.SameKey, schema.NoKeys
				sc.Steps[0].Retry = provider.StepRetry{Attempts: 1}
				sc.Steps[1].Retry = provider.StepRetry{Keys: &same}
				sc.Steps[2].Retry = provider.StepRetry{Attempts: 2, Keys: &none}
			}
			for _, attempts := range []int{1, 3} {
				for _, r := range allRetries(attempts) {
					name := fmt.Sprintf("p=%g l=%g watched %d own policies %v A=%d %s", pt.p, pt.l, watched, own, attempts, r.Name())
					e := closedform.Retry(r, sc)
					o := enumerate(sc, r)
					calls, callsVar := o.meanVar(0)
					rep, repVar := o.meanVar(1)
					checkClose(t, name+": failed", e.FailedRate, o.failed)
					checkClose(t, name+": succeeded", e.SucceededRate, sub(big.NewRat(1, 1), o.failed))
					checkClose(t, name+": calls", e.CallsPerJob, calls)
					checkClose(t, name+": calls variance", e.CallsVar, callsVar)
					checkClose(t, name+": repeated", e.RepeatedPerJob, rep)
					checkClose(t, name+": repeated variance", e.RepeatedVar, repVar)
					checkClose(t, name+": twice", e.DuplicateRate, o.twice)
				}
			}
		}
		// Both steps watched, the last first: each watched step's rate is
		// the enumeration's for that step alone, in the scenario's order.
		both := provider.Scenario{Watched: []provider.Watch{{Step: 2}, {Step: 1}}, Steps: []provider.Step{
			{PFail: pt.p},
			{PFail: pt.p, CanLoseReply: true, LostReply: pt.l, HonoursKeys: true},
			{PFail: pt.p / 2, CanLoseReply: true, LostReply: pt.l / 3},
		}}
		for _, r := range allRetries(3) {
			e := closedform.Retry(r, both)
			if len(e.DuplicateRates) != 2 {
				t.Fatalf("%s: %d duplicate rates for 2 watched steps", r.Name(), len(e.DuplicateRates))
			}
			for k, w := range both.Watched {
				one := both
				one.Watched = []provider.Watch{w}
				checkClose(t, fmt.Sprintf("p=%g l=%g %s: watched[%d] twice", pt.p, pt.l, r.Name(), k), e.DuplicateRates[k], enumerate(one, r).twice)
			}
		}
	}
}
