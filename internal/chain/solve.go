package chain

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Empty is the distribution that starts the chain empty, as every engine replicate starts.
func (c *Chain) Empty() []float64 { return c.Point(State{}) }

// Point is the distribution that starts the chain in state s, one of States.
func (c *Chain) Point(s State) []float64 {
	p := make([]float64, len(c.States))
	p[c.index[s]] = 1
	return p
}

// Hit is the probability that the chain, from p0 at 0, is in r at some time in [from, to].
func (c *Chain) Hit(p0 []float64, from, to float64, r Region) (float64, error) {
	in := c.in(r)
	if err := c.checkSteps(from, to, in, c.steps(0, from, nil)); err != nil {
		return 0, err
	}
	return mass(c.evolve(c.evolve(p0, 0, from, nil), from, to, in), in), nil // the check counted the steps to from
}

func mass(p []float64, in []bool) float64 {
	var m float64
	for i, v := range p {
		if in[i] {
			m += v
		}
	}
	return m
}

// checkSteps refuses times that are not 0 <= t0 <= t1 < Inf, and a transient that would
// take, with before, more than MaxSteps steps.
func (c *Chain) checkSteps(t0, t1 float64, absorbing []bool, before int) error {
	if math.IsNaN(t0) || math.IsNaN(t1) || t0 < 0 || t1 < t0 || math.IsInf(t1, 1) {
		return fmt.Errorf("times %g to %g are not finite with 0 <= from <= to", t0, t1)
	}
	n := before + c.steps(t0, t1, absorbing)
	if n > MaxSteps {
		return fmt.Errorf("uniformisation would take %d steps, more than %d (MaxSteps): a shorter time or lower rates", n, MaxSteps)
	}
	if w := float64(n) * float64(len(c.trans)); w > MaxWork {
		return fmt.Errorf("uniformisation would take %d steps over %d rates, %.3g multiply-adds, more than %g (MaxWork): a shorter time, lower rates or a smaller chain", n, len(c.trans), w, float64(MaxWork))
	}
	return nil
}

// spans calls f with each span [t, end) of constant arrival rate in [t0, t1).
func (c *Chain) spans(t0, t1 float64, f func(t, end, lambda float64)) {
	m := c.Model
	cuts := []float64{t1}
	if m.To > m.From {
		cuts = []float64{m.From, m.To, t1}
	}
	for t := t0; t < t1; {
		end := t1
		for _, x := range cuts {
			if x > t && x < end {
				end = x
			}
		}
		f(t, end, m.rateAt(t))
		t = end
	}
}

// steps is how many steps uniformisation takes from t0 to t1.
func (c *Chain) steps(t0, t1 float64, absorbing []bool) int {
	n := 0
	c.spans(t0, t1, func(t, end, lambda float64) {
		if _, big := c.exits(lambda, absorbing); big > 0 {
			n += poissonCut(big * (end - t))
		}
	})
	return n
}

// poissonCut is the last term uniformisation sums for a Poisson mean a (a tail below
// 1e-15); past MaxSteps, MaxSteps + 1.
func poissonCut(a float64) int {
	if a > MaxSteps {
		return MaxSteps + 1
	}
	return int(math.Ceil(a + 10*math.Sqrt(a) + 40))
}

// evolve carries p from t0 to t1 by uniformisation, the absorbing states keeping their mass.
func (c *Chain) evolve(p []float64, t0, t1 float64, absorbing []bool) []float64 {
	p = append([]float64(nil), p...)
	c.spans(t0, t1, func(t, end, lambda float64) {
		p = c.uniformise(p, lambda, end-t, absorbing)
	})
	return p
}

// exits are the jumps out of the states not absorbing, each at its rate at arrival rate
// lambda, and the largest of the states' total rates of leaving.
func (c *Chain) exits(lambda float64, absorbing []bool) ([]transition, float64) {
	q := make([]float64, len(c.States))
	var out []transition
	for _, tr := range c.trans {
		if absorbing == nil || !absorbing[tr.from] {
			tr.rate, tr.arrival = tr.at(lambda), false
			q[tr.from] += tr.rate
			out = append(out, tr)
		}
	}
	return out, slices.Max(append(q, 0))
}

// uniformise is p after dt at arrival rate lambda: with Λ the largest exit rate and
// P = I + Q/Λ, the sum over k of Poisson(k; Λ dt) p P^k, cut by poissonCut.
func (c *Chain) uniformise(p []float64, lambda, dt float64, absorbing []bool) []float64 {
	jumps, big := c.exits(lambda, absorbing)
	if big == 0 || dt == 0 {
		return p
	}
	a := big * dt
	kmax := poissonCut(a)
	for i := range jumps { // the jumps' rates over Λ
		jumps[i].rate /= big
	}
	out := make([]float64, len(p))
	v := p
	next := make([]float64, len(p))
	la := math.Log(a)
	for k := 0; k <= kmax; k++ {
		if k > 0 {
			copy(next, v)
			for _, j := range jumps {
				f := j.rate * v[j.from]
				next[j.from] -= f
				next[j.to] += f
			}
			v, next = next, v
		}
		lg, _ := math.Lgamma(float64(k + 1))
		wk := math.Exp(-a + float64(k)*la - lg)
		for i, x := range v {
			out[i] += wk * x
		}
	}
	return out
}

// Mean is each state's expected time to reach r at rate Rate; an error if one cannot.
func (c *Chain) Mean(r Region) ([]float64, error) {
	in := c.in(r)
	if err := c.reaches(in); err != nil {
		return nil, err
	}
	return c.solve(in, make([]float64, len(in)), 1)
}

// reaches checks that every state can reach target at the arrival rate Rate.
func (c *Chain) reaches(target []bool) error {
	into := make([][]int32, len(c.States))
	for _, tr := range c.trans {
		if tr.arrival && c.Model.Rate == 0 {
			continue
		}
		into[tr.to] = append(into[tr.to], tr.from)
	}
	ok := append([]bool(nil), target...)
	var todo []int32
	for i, t := range target {
		if t {
			todo = append(todo, int32(i))
		}
	}
	for len(todo) > 0 {
		x := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, y := range into[x] {
			if !ok[y] {
				ok[y] = true
				todo = append(todo, y)
			}
		}
	}
	for i, v := range ok {
		if !v {
			return fmt.Errorf("state %+v never reaches the region", c.States[i])
		}
	}
	return nil
}

// solve solves, at arrival rate Rate, h = value on the fixed states and Q h = -rhs on the
// others, by block elimination over orbit sizes (Q is block tridiagonal).
func (c *Chain) solve(fixed []bool, value []float64, rhs float64) ([]float64, error) {
	L := c.States[len(c.States)-1].Orbit + 1 // the orbit sizes reached: 0 to the largest
	size := func(l int) int { return c.level[l+1] - c.level[l] }
	lambda := c.Model.Rate
	diag := make([]*dense, L)
	up := make([]*dense, L)
	down := make([]*dense, L)
	b := make([][]float64, L)
	for l := range L {
		n := size(l)
		diag[l] = newDense(n, n)
		b[l] = make([]float64, n)
		if l+1 < L && size(l+1) > 0 {
			up[l] = newDense(n, size(l+1))
		}
		if l > 0 {
			down[l] = newDense(n, size(l-1))
		}
	}
	for i := range c.States {
		l := c.States[i].Orbit
		k := i - c.level[l]
		if fixed[i] {
			diag[l].add(k, k, 1)
			b[l][k] = value[i]
		} else {
			b[l][k] = -rhs
		}
	}
	for _, tr := range c.trans {
		if fixed[tr.from] {
			continue
		}
		r := tr.at(lambda)
		lf, lt := c.States[tr.from].Orbit, c.States[tr.to].Orbit
		kf, kt := int(tr.from)-c.level[lf], int(tr.to)-c.level[lt]
		diag[lf].add(kf, kf, -r)
		switch lt {
		case lf:
			diag[lf].add(kf, kt, r)
		case lf + 1:
			up[lf].add(kf, kt, r)
		case lf - 1:
			down[lf].add(kf, kt, r)
		default:
			return nil, errors.New("chain: a jump of more than one in the orbit")
		}
	}
	// Forward: diag[l] h_l + up[l] h_{l+1} = b_l once down[l] is eliminated;
	// x[l] = diag[l]^-1 up[l] and y[l] = diag[l]^-1 b_l.
	x := make([]*dense, L)
	y := make([][]float64, L)
	for l := range L {
		if l > 0 {
			t := mul(down[l], x[l-1])
			for k, v := range t.a {
				diag[l].a[k] -= v
			}
			for k, v := range mulVec(down[l], y[l-1]) {
				b[l][k] -= v
			}
		}
		f, ok := factor(diag[l])
		if !ok {
			return nil, fmt.Errorf("chain: orbit size %d: the block is singular", l)
		}
		y[l] = f.solveVec(b[l])
		if up[l] != nil {
			x[l] = &dense{r: up[l].r, c: up[l].c, a: slices.Clone(up[l].a)}
			f.solve(x[l])
		}
	}
	h := make([]float64, len(c.States))
	var next []float64
	for l := L - 1; l >= 0; l-- {
		hl := slices.Clone(y[l])
		if x[l] != nil {
			for k, v := range mulVec(x[l], next) {
				hl[k] -= v
			}
		}
		copy(h[c.level[l]:], hl)
		next = hl
	}
	return h, nil
}
