package chain

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"gonum.org/v1/gonum/mat"
)

// The chain's solves give, to the last bit, what they gave when they were
// gonum's mat (v0.17, amd64): the mean time to health and the probability
// of health before collapse from every state, on chains whose orbit sizes
// have blocks of 1 to 192 states (LAPACK's blocked factorisation starts
// past 64, the product kernels group rows by 4, 2 and 1 and columns by 4,
// 2 and 1), and the stationary distribution.
func TestDenseIsGonums(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("gonum's kernels sum in this order on amd64 only")
	}
	models := []Model{
		{Rate: 1.5, Workers: 2, Queue: 4, ServiceRate: 1, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 10},
		{Rate: 1.5, Workers: 2, Queue: 5, ServiceRate: 1, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 20},
		{Rate: 0.5, Peak: 3, From: 2, To: 6, Workers: 1, Queue: 0, ServiceRate: 1.5, TimeoutRate: 0.5, RetryProb: 0.5, BackoffRate: 1, Orbit: 3},
		{Rate: 1.2, Workers: 2, Queue: 2, ServiceRate: 1, PFail: 0.1, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 6},
		{Rate: 2.5, Workers: 3, Queue: 3, ServiceRate: 1, TimeoutRate: 0.5, RetryProb: 0.75, BackoffRate: 1.4, Orbit: 5},
		{Rate: 0.7, Workers: 1, Queue: 3, ServiceRate: 1.1, PFail: 0.05, TimeoutRate: 0.25, RetryProb: 0.95, BackoffRate: 0.3, Orbit: 7},
		{Rate: 2, Workers: 4, Queue: 3, ServiceRate: 0.5, TimeoutRate: 0.3, RetryProb: 0.9, BackoffRate: 0.6, Orbit: 9},
	}
	for _, m := range models {
		c := build(t, m)
		health := c.in(healthy(m))
		collapsed := c.in(func(s fleetdata.MarkovState) bool { return s.Orbit == m.Orbit })
		fixed := make([]bool, len(health))
		value := make([]float64, len(health))
		for i := range fixed {
			fixed[i] = health[i] || collapsed[i]
			if health[i] {
				value[i] = 1
			}
		}
		for _, s := range []struct {
			name  string
			fixed []bool
			value []float64
			rhs   float64
		}{
			{"mean time to health", health, make([]float64, len(health)), 1},
			{"health before collapse", fixed, value, 0},
		} {
			got, err := c.solve(s.fixed, s.value, s.rhs)
			if err != nil {
				t.Fatal(err)
			}
			want, err := gonumSolve(c, s.fixed, s.value, s.rhs)
			if err != nil {
				t.Fatal(err)
			}
			same(t, m, s.name, got, want)
		}
		if c.Len() > MaxBlock {
			continue
		}
		got, err := c.Stationary()
		if err != nil {
			t.Fatal(err)
		}
		same(t, m, "stationary", got, gonumStationary(t, c))
	}
}

func same(t *testing.T, m Model, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Errorf("%+v: %s, state %d: %.17g; gonum's mat gave %.17g", m, what, i, got[i], want[i])
			return
		}
	}
}

// gonumStationary is Stationary as gonum's mat solved it.
func gonumStationary(t *testing.T, c *Chain) []float64 {
	n := len(c.States)
	a := mat.NewDense(n, n, nil)
	for _, tr := range c.trans {
		r := tr.at(c.Model.Rate)
		a.Set(int(tr.to), int(tr.from), a.At(int(tr.to), int(tr.from))+r)
		a.Set(int(tr.from), int(tr.from), a.At(int(tr.from), int(tr.from))-r)
	}
	for j := range n {
		a.Set(n-1, j, 1)
	}
	rhs := mat.NewVecDense(n, nil)
	rhs.SetVec(n-1, 1)
	var pi mat.VecDense
	if err := pi.SolveVec(a, rhs); err != nil {
		t.Fatal(err)
	}
	return pi.RawVector().Data
}

// gonumSolved is nil for a solve that succeeded or only warned of a large
// condition number.
func gonumSolved(err error) error {
	var cond mat.Condition
	if err == nil || errors.As(err, &cond) {
		return nil
	}
	return err
}

// gonumSolve is solve as it was, on gonum's mat.
func gonumSolve(c *Chain, fixed []bool, value []float64, rhs float64) ([]float64, error) {
	L := c.States[len(c.States)-1].Orbit + 1 // the orbit sizes reached: 0 to the largest
	size := func(l int) int { return c.level[l+1] - c.level[l] }
	lambda := c.Model.Rate
	diag := make([]*mat.Dense, L)
	up := make([]*mat.Dense, L)
	down := make([]*mat.Dense, L)
	b := make([]*mat.VecDense, L)
	for l := range L {
		n := size(l)
		diag[l] = mat.NewDense(n, n, nil)
		b[l] = mat.NewVecDense(n, nil)
		if l+1 < L && size(l+1) > 0 {
			up[l] = mat.NewDense(n, size(l+1), nil)
		}
		if l > 0 {
			down[l] = mat.NewDense(n, size(l-1), nil)
		}
	}
	for i := range c.States {
		l := c.States[i].Orbit
		k := i - c.level[l]
		if fixed[i] {
			diag[l].Set(k, k, 1)
			b[l].SetVec(k, value[i])
		} else {
			b[l].SetVec(k, -rhs)
		}
	}
	for _, tr := range c.trans {
		if fixed[tr.from] {
			continue
		}
		r := tr.at(lambda)
		lf, lt := c.States[tr.from].Orbit, c.States[tr.to].Orbit
		kf, kt := int(tr.from)-c.level[lf], int(tr.to)-c.level[lt]
		diag[lf].Set(kf, kf, diag[lf].At(kf, kf)-r)
		switch lt {
		case lf:
			diag[lf].Set(kf, kt, diag[lf].At(kf, kt)+r)
		case lf + 1:
			up[lf].Set(kf, kt, up[lf].At(kf, kt)+r)
		case lf - 1:
			down[lf].Set(kf, kt, down[lf].At(kf, kt)+r)
		default:
			return nil, errors.New("chain: a jump of more than one in the orbit")
		}
	}
	// Forward: diag[l] h_l + up[l] h_{l+1} = b_l once down[l] is eliminated;
	// x[l] = diag[l]^-1 up[l] and y[l] = diag[l]^-1 b_l.
	x := make([]*mat.Dense, L)
	y := make([]*mat.VecDense, L)
	for l := range L {
		if l > 0 {
			var t mat.Dense
			t.Mul(down[l], x[l-1])
			diag[l].Sub(diag[l], &t)
			var v mat.VecDense
			v.MulVec(down[l], y[l-1])
			b[l].SubVec(b[l], &v)
		}
		var lu mat.LU
		lu.Factorize(diag[l])
		y[l] = new(mat.VecDense)
		if err := gonumSolved(lu.SolveVecTo(y[l], false, b[l])); err != nil {
			return nil, err
		}
		if up[l] != nil {
			x[l] = new(mat.Dense)
			if err := gonumSolved(lu.SolveTo(x[l], false, up[l])); err != nil {
				return nil, err
			}
		}
	}
	h := make([]float64, len(c.States))
	var next *mat.VecDense
	for l := L - 1; l >= 0; l-- {
		hl := mat.VecDenseCopyOf(y[l])
		if x[l] != nil {
			var v mat.VecDense
			v.MulVec(x[l], next)
			hl.SubVec(hl, &v)
		}
		for k := range hl.Len() {
			h[c.level[l]+k] = hl.AtVec(k)
		}
		next = hl
	}
	return h, nil
}
