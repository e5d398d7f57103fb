// Package closedform holds a strategy.Retry's exact expectations on a scenario, which every
// job-model row carries and the tests hold the simulation to.
package closedform

import (
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Retry returns r's exact expectations on sc, which must be valid: the probability that a
// job fails, the mean and variance of its calls and repeated side effects, and each
// watched step's probability of a side effect twice or more (DuplicateRates, the first
// also DuplicateRate). A dynamic programme over one job's states, every probability a sum
// of non-negative products, keeps each figure's relative precision however small, where
// closed forms such as 1 - none - once print negative probabilities at extreme rates.
func Retry(r strategy.Retry, sc provider.Scenario) stats.Expected {
	var e stats.Expected
	for k, wa := range sc.Watched {
		x := expectWatching(r, sc, wa.Step)
		if k == 0 {
			e = x
		}
		e.DuplicateRates = append(e.DuplicateRates, x.DuplicateRate)
	}
	return e
}

// expectWatching is Retry with the one watched step watched.
func expectWatching(r strategy.Retry, sc provider.Scenario, watched int) stats.Expected {
	w := walk{keyed: make([]bool, len(sc.Steps)), watched: watched}
	att := make([]int, len(sc.Steps)) // each step's own attempts, when each step retries
	for i, s := range sc.Steps {
		w.keyed[i] = jobsim.StepKeys(s.Retry, r.Keys) == schema.SameKey && s.HonoursKeys
		att[i] = r.Attempts
		if r.Scope == strategy.EachStep {
			att[i] = jobsim.StepAttempts(s.Retry, r.Attempts)
		}
		w.fail = append(w.fail, s.PFail)
		l := 0.0
		if s.CanLoseReply {
			l = s.LostReply
		}
		w.lost = append(w.lost, (1-s.PFail)*l)
		w.ok = append(w.ok, (1-s.PFail)*(1-l))
	}
	switch {
	case r.Scope == strategy.EachStep:
		w.steps(att, false)
	case r.SkipFinished:
		w.steps(att, true)
	default:
		w.attempts(r.Attempts)
	}
	return w.expected()
}

// walk accumulates a job's outcomes over its states, every end state merged into one.
type walk struct {
	fail, lost, ok []float64 // each step's call outcome probabilities
	keyed          []bool    // the step's provider does the work once per key
	watched        int

	failed, succeeded, twice float64
	end                      mass
}

// finish records mass m that ends the job, its watched step's effects capped at two.
func (w *walk) finish(m mass, failed bool, effects int) {
	if failed {
		w.failed += m.p
	} else {
		w.succeeded += m.p
	}
	if effects == 2 {
		w.twice += m.p
	}
	w.end = w.end.merge(m)
}

func (w *walk) expected() stats.Expected {
	e := stats.Expected{
		SucceededRate:  w.succeeded,
		FailedRate:     w.failed,
		DuplicateRate:  w.twice,
		CallsPerJob:    w.end.calls.mean,
		RepeatedPerJob: w.end.repeated.mean,
	}
	if w.end.p > 0 {
		e.CallsVar = w.end.calls.m2 / w.end.p
		e.RepeatedVar = w.end.repeated.m2 / w.end.p
	}
	return e
}

// steps walks a job step by step, step i called until it succeeds or the errors reach
// att[i]; with carry errors count over the whole job (a whole-job retry with the store).
func (w *walk) steps(att []int, carry bool) {
	entering := []mass{{p: 1}} // by errors so far
	for i := range w.fail {
		attempts := att[i]
		if !carry {
			entering = entering[:1] // only the step's own errors count
		}
		var at = make([][3]mass, attempts) // by errors, then the step's side effects
		for errs, m := range entering {
			at[errs][0] = m
		}
		next := make([]mass, attempts)
		for errs := range attempts {
			for c := range 3 {
				m := at[errs][c]
				if m.p == 0 {
					continue
				}
				m = m.add(1, 0)
				// A call past the failure draw does the work, unless its key was seen.
				c2, rep := c, 0.0
				if !w.keyed[i] || c == 0 {
					c2 = min(c+1, 2)
					if c > 0 {
						rep = 1
					}
				}
				effects := func(c int) int { // the watched step's, for finish
					if i == w.watched {
						return c
					}
					return 0
				}
				done := m.add(0, rep)
				to := 0
				if carry {
					to = errs
				}
				next[to] = next[to].merge(done.scale(w.ok[i]))
				if i == w.watched {
					w.twice += done.p * w.ok[i] * boolFloat(c2 == 2)
				}
				if errs+1 < attempts {
					at[errs+1][c] = at[errs+1][c].merge(m.scale(w.fail[i]))
					at[errs+1][c2] = at[errs+1][c2].merge(done.scale(w.lost[i]))
					continue
				}
				w.finish(m.scale(w.fail[i]), true, effects(c))
				w.finish(done.scale(w.lost[i]), true, effects(c2))
			}
		}
		entering = next
	}
	for _, m := range entering {
		w.finish(m, false, 0) // the watched step's twice was counted as it ended
	}
}

// attempts walks a whole-job retry without the store over (longest prefix worked, the
// watched step's effects).
func (w *walk) attempts(attempts int) {
	n := len(w.fail)
	free := make([]float64, n+1) // free[k]: steps before k whose provider does the work again
	for k, keyed := range w.keyed {
		free[k+1] = free[k] + boolFloat(!keyed)
	}
	cur := make([][3]mass, n+1) // by longest prefix worked, then the watched step's side effects
	cur[0][0] = mass{p: 1}
	for a := range attempts {
		last := a == attempts-1
		next := make([][3]mass, n+1)
		for longest := range n + 1 {
			for effects := range 3 {
				m := cur[longest][effects]
				if m.p == 0 {
					continue
				}
				// worked ends an attempt that worked wk steps and made calls calls, with probability q.
				worked := func(wk int, calls int, q float64, succeeded bool) {
					if q == 0 {
						return
					}
					e := effects
					if w.watched < wk && (!w.keyed[w.watched] || e == 0) {
						e = min(e+1, 2)
					}
					o := m.add(float64(calls), free[min(wk, longest)]).scale(q)
					if succeeded || last {
						w.finish(o, !succeeded, e)
						return
					}
					l := max(longest, wk)
					next[l][e] = next[l][e].merge(o)
				}
				reach := 1.0
				for k := range n {
					worked(k, k+1, reach*w.fail[k], false)
					worked(k+1, k+1, reach*w.lost[k], false)
					reach *= w.ok[k]
				}
				worked(n, n, reach, true)
			}
		}
		cur = next
	}
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// moments are a count's mean over some mass and its probability-weighted squared
// deviations (Welford's M2), which merge without cancellation.
type moments struct{ mean, m2 float64 }

// mass is the probability of a set of a job's paths and their calls' and repeats' moments.
type mass struct {
	p               float64
	calls, repeated moments
}

// add shifts every path's calls and repeated side effects by dc and dr.
func (m mass) add(dc, dr float64) mass {
	m.calls.mean += dc
	m.repeated.mean += dr
	return m
}

// scale keeps the share q of the paths (the next outcome's probability).
func (m mass) scale(q float64) mass {
	m.p *= q
	m.calls.m2 *= q
	m.repeated.m2 *= q
	return m
}

// merge pools two disjoint sets of paths (Chan, Golub and LeVeque).
func (m mass) merge(o mass) mass {
	if o.p == 0 {
		return m
	}
	if m.p == 0 {
		return o
	}
	p := m.p + o.p
	// Weighted means of non-negative counts never cancel, as a.mean + d*(o.p/p) would.
	pool := func(a, b moments) moments {
		d := b.mean - a.mean
		return moments{(m.p*a.mean + o.p*b.mean) / p, a.m2 + b.m2 + d*d*(m.p/p)*o.p}
	}
	return mass{p, pool(m.calls, o.calls), pool(m.repeated, o.repeated)}
}
