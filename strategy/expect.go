package strategy

import (
	"math"

	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/results"
)

// Expect returns r's closed-form expectations on sc: the probability that a job
// fails, the expected calls and repeated side effects per job, and the
// probability that the watched step's side effect happens twice or more. The
// derivations, for a step i whose call errors with f_i = p_i + (1-p_i) l_i
// (l_i is 0 on a step that cannot lose its reply):
//
// Each step. Step i is reached with R_i = prod_{j<i} (1 - f_j^A) and gives up
// after A errors in a row: P(fail) = 1 - prod_i (1 - f_i^A). It makes
// sum_{k<A} f_i^k calls once reached. Its work happens on every call that does
// not fail, (1-p_i) sum_{k<A} f_i^k times on average, and at least once with
// 1 - p_i^A, so without a useful key it repeats the difference. Twice or more:
// 1 - p^A - (1-p)(1-l) sum_{k<A} p^k - A (1-p) l p^(A-1), the complement of the
// sequences with at most one side effect.
//
// Whole job. An attempt reaches step i with r_i = prod_{j<i} (1 - f_j) and
// succeeds with r_n; attempt a runs with q^a, q = 1 - r_n: P(fail) = q^A and
// calls sum_{a<A} q^a sum_i r_i. Step i's work happens in an attempt with
// s_i = r_i (1-p_i), on average s_i sum_{a<A} q^a times. An attempt without
// it always fails, so none at all has (1-s_i)^A; exactly once is N^k then a
// succeeding attempt (r_n), or one failing attempt with the work (s_i - r_n)
// among A: r_n sum_{k<A} (1-s_i)^k + A (s_i - r_n)(1-s_i)^(A-1).
//
// Whole job with the store. Finished steps are skipped, so attempts are spent
// on errors alone and the job is a walk over (step, errors so far): an exact
// dynamic programme over at most n x A states, tracking the watched step's
// side effects up to two.
//
// A key, when the provider honours it, keeps the work of that step to one.
func (r Retry) Expect(sc provider.Scenario) results.Expected {
	st := sc.Steps
	n, a := len(st), r.Attempts
	f := make([]float64, n)
	for i, s := range st {
		f[i] = s.PFail
		if s.CanLoseReply {
			f[i] += (1 - s.PFail) * s.LostReply
		}
	}
	keyed := func(i int) bool { return r.Keys == SameKey && st[i].HonoursKeys }
	var e results.Expected
	switch {
	case r.Scope == EachStep:
		reach := 1.0
		for i, s := range st {
			geo := geometric(f[i], a) // expected calls once reached
			e.CallsPerJob += reach * geo
			if !keyed(i) {
				e.RepeatedPerJob += reach * ((1-s.PFail)*geo - (1 - math.Pow(s.PFail, float64(a))))
				if i == sc.Watched {
					e.DuplicateRate = reach * twiceEachStep(s, a)
				}
			}
			reach *= 1 - math.Pow(f[i], float64(a))
		}
		e.FailedRate = 1 - reach
	case !r.SkipFinished:
		ok := 1.0
		for i := range st {
			ok *= 1 - f[i]
		}
		q := 1 - ok
		attempts := geometric(q, a) // expected attempts
		reach := 1.0
		for i, s := range st {
			e.CallsPerJob += attempts * reach
			if !keyed(i) {
				work := reach * (1 - s.PFail)
				none := math.Pow(1-work, float64(a))
				e.RepeatedPerJob += work*attempts - (1 - none)
				if i == sc.Watched {
					// An attempt with the work succeeds with ok (the work's own
					// reply included); the other attempts with the work fail.
					once := ok*geometric(1-work, a) + float64(a)*(work-ok)*math.Pow(1-work, float64(a-1))
					e.DuplicateRate = 1 - none - once
				}
			}
			reach *= 1 - f[i]
		}
		e.FailedRate = math.Pow(q, float64(a))
	default:
		e = r.expectStore(sc)
	}
	return e
}

// geometric is sum_{k<a} x^k: the expected number of tries of something that
// goes on with probability x, a tries at most.
func geometric(x float64, a int) float64 {
	s, t := 0.0, 1.0
	for range a {
		s += t
		t *= x
	}
	return s
}

// twiceEachStep is the chance that a step retried on its own does its work two
// or more times: one minus the sequences with none (p^A), with one that ends in
// success (F^k S) and with one lost reply among A failures.
func twiceEachStep(s provider.Step, a int) float64 {
	p, l := s.PFail, 0.0
	if s.CanLoseReply {
		l = s.LostReply
	}
	af := float64(a)
	return 1 - math.Pow(p, af) - (1-p)*(1-l)*geometric(p, a) - af*(1-p)*l*math.Pow(p, af-1)
}

// expectStore walks the whole-job retry with the store as an exact dynamic
// programme over (step, errors so far, the step's side effects capped at 2).
// Every call moves to more errors or to the next step, so each state is
// visited at most once and the visit probabilities add up to the calls.
func (r Retry) expectStore(sc provider.Scenario) results.Expected {
	a := r.Attempts
	var e results.Expected
	entering := make([]float64, a) // P(the step starts with errs errors so far)
	entering[0] = 1
	for i, s := range sc.Steps {
		keyed := r.Keys == SameKey && s.HonoursKeys
		l := 0.0
		if s.CanLoseReply {
			l = s.LostReply
		}
		pFail, pLost, pOK := s.PFail, (1-s.PFail)*l, (1-s.PFail)*(1-l)
		twice := func(effects int) bool { return i == sc.Watched && effects == 2 }
		at := make([][3]float64, a)
		for errs := range a {
			at[errs][0] = entering[errs]
		}
		next := make([]float64, a)
		for errs := range a {
			for c := range 3 {
				m := at[errs][c]
				if m == 0 {
					continue
				}
				e.CallsPerJob += m
				// A call that passes the failure draw does the work, unless
				// the provider has seen this step's key already.
				c2 := c
				if !keyed || c == 0 {
					c2 = min(c+1, 2)
				}
				if c >= 1 && !keyed {
					e.RepeatedPerJob += m * (pLost + pOK)
				}
				next[errs] += m * pOK
				if twice(c2) {
					e.DuplicateRate += m * pOK
				}
				if errs+1 < a {
					at[errs+1][c] += m * pFail
					at[errs+1][c2] += m * pLost
					continue
				}
				e.FailedRate += m * (pFail + pLost)
				if twice(c) {
					e.DuplicateRate += m * pFail
				}
				if twice(c2) {
					e.DuplicateRate += m * pLost
				}
			}
		}
		entering = next
	}
	return e
}
