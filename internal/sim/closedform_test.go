package sim

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// Closed forms for the signup scenario, n steps with P_FAIL p, the watched step
// w (index 6) losing its reply with l, and A attempts. A call to step i errors
// with f_i = p + (1-p) l_i, where l_i is l for the email and 0 for the others.
//
// Retry each step: a step gives up after A errors in a row, f_i^A, and the job
// fails if any step gives up:
//
//	P(fail) = 1 - prod_i (1 - f_i^A)
//
// Duplicate emails without a useful key: the job must reach the email,
// prod_{i<w} (1 - f_i^A), and then its attempts must do the work twice. An
// attempt is F (fails, p), L (works, reply lost, (1-p) l) or S (works, (1-p)(1-l));
// attempts stop at S or after A. At most one side effect happens in F^k S (k < A)
// and in the A-attempt sequences of one L and A-1 F's, and none in F^A, so
//
//	P(2+ emails | reached) = 1 - p^A - (1-p)(1-l) sum_{k<A} p^k - A (1-p) l p^(A-1)
//
// Retry the whole job: an attempt errors with q = 1 - prod_i (1 - f_i), and the
// job fails when all A attempts do: P(fail) = q^A.
//
// Whole job with the store: finished steps are skipped, so the attempts are
// spent on the errors alone; step i errors N_i times before it succeeds, N_i
// geometric with P(N_i = k) = f_i^k (1 - f_i), and the job fails when the
// errors add up to A: P(fail) = 1 - P(sum_i N_i <= A-1).
//
// With the same key every time, the provider does the email once per key, so
// duplicate users are exactly 0.
type closedForm struct {
	steps    int
	watched  int
	p, l     float64
	attempts int
}

func (c closedForm) f(i int) float64 {
	if i == c.watched {
		return c.p + (1-c.p)*c.l
	}
	return c.p
}

func (c closedForm) failEachStep() float64 {
	ok := 1.0
	for i := range c.steps {
		ok *= 1 - math.Pow(c.f(i), float64(c.attempts))
	}
	return 1 - ok
}

func (c closedForm) duplicateEachStep() float64 {
	reach := 1.0
	for i := range c.watched {
		reach *= 1 - math.Pow(c.f(i), float64(c.attempts))
	}
	p, l, a := c.p, c.l, float64(c.attempts)
	geo := 0.0
	for k := range c.attempts {
		geo += math.Pow(p, float64(k))
	}
	atMostOne := math.Pow(p, a) + (1-p)*(1-l)*geo + a*(1-p)*l*math.Pow(p, a-1)
	return reach * (1 - atMostOne)
}

func (c closedForm) failWholeJob() float64 {
	ok := 1.0
	for i := range c.steps {
		ok *= 1 - c.f(i)
	}
	return math.Pow(1-ok, float64(c.attempts))
}

func (c closedForm) failWholeJobStore() float64 {
	// dist[k] = P(errors so far = k), for k < A.
	dist := make([]float64, c.attempts)
	dist[0] = 1
	for i := range c.steps {
		f := c.f(i)
		next := make([]float64, c.attempts)
		for k, pk := range dist {
			for e := 0; k+e < c.attempts; e++ {
				next[k+e] += pk * math.Pow(f, float64(e)) * (1 - f)
			}
		}
		dist = next
	}
	ok := 0.0
	for _, pk := range dist {
		ok += pk
	}
	return 1 - ok
}

// within4SD fails t when count is more than 4 binomial standard deviations from n*prob.
func within4SD(t *testing.T, what string, count, n int64, prob float64) {
	t.Helper()
	mean := float64(n) * prob
	sd := math.Sqrt(float64(n) * prob * (1 - prob))
	if z := (float64(count) - mean) / sd; math.Abs(z) > 4 || math.IsNaN(z) {
		t.Errorf("%s = %d; want %.1f ± 4 × %.1f (z = %.2f)", what, count, mean, sd, z)
	}
}

func TestPCGAgreesWithClosedForms(t *testing.T) {
	const jobs = 1_000_000
	for _, pt := range []struct{ p, l float64 }{{0.01, 0.005}, {0.05, 0.02}} {
		t.Run(fmt.Sprintf("p=%v/l=%v", pt.p, pt.l), func(t *testing.T) {
			sc := provider.Signup(pt.p, pt.l)
			cf := closedForm{steps: len(sc.Steps), watched: sc.Watched[0].Step, p: pt.p, l: pt.l, attempts: 3}
			var strats []strategy.Strategy
			for _, id := range strategy.DefaultIDs() {
				s, err := strategy.Parse(id, cf.attempts)
				if err != nil {
					t.Fatal(err)
				}
				strats = append(strats, s)
			}
			got, err := Run(context.Background(), Config{Scenario: sc, Strategies: strats, Jobs: jobs, Seed: 5, Generator: rng.PCGGenerator()})
			if err != nil {
				t.Fatal(err)
			}
			wantFail := []float64{cf.failEachStep(), cf.failEachStep(), cf.failEachStep(), cf.failWholeJob(), cf.failWholeJobStore()}
			wantDup := []float64{cf.duplicateEachStep(), cf.duplicateEachStep(), 0, 0, 0}
			for i, id := range strategy.DefaultIDs() {
				within4SD(t, id+" failed", got[i].Failed, jobs, wantFail[i])
				if wantDup[i] == 0 {
					if got[i].DuplicateUsers != 0 {
						t.Errorf("%s duplicate users = %d; want 0 (the provider honours the key)", id, got[i].DuplicateUsers)
					}
					continue
				}
				within4SD(t, id+" duplicate users", got[i].DuplicateUsers, jobs, wantDup[i])
			}
		})
	}
}

// The closed forms themselves, against the article's published counts: each
// within 4 standard deviations at 1,000,000 jobs.
func TestClosedFormsNearArticle(t *testing.T) {
	cf := closedForm{steps: 10, watched: 6, p: 0.01, l: 0.005, attempts: 3}
	within4SD(t, "each step failed", 11, 1e6, cf.failEachStep())
	within4SD(t, "each step duplicates", 4939, 1e6, cf.duplicateEachStep())
	within4SD(t, "whole job failed", 995, 1e6, cf.failWholeJob())
	within4SD(t, "whole job with store failed", 250, 1e6, cf.failWholeJobStore())
}
