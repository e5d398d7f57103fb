package chain

import (
	"math"
	"slices"
)

// The chain's linear algebra: dense matrices, products and LU with partial pivoting,
// each operation in gonum v0.17's amd64 order without fused multiply-adds, so that every
// figure is gonum's to the last bit (TestDenseIsGonums).

// dense is a row-major matrix of r rows and c columns.
type dense struct {
	r, c int
	a    []float64
}

func newDense(r, c int) *dense { return &dense{r: r, c: c, a: make([]float64, r*c)} }

// row is row i, shared with m.
func (m *dense) row(i int) []float64 { return m.a[i*m.c : (i+1)*m.c] }

// add adds v to the element at row i, column j.
func (m *dense) add(i, j int, v float64) { m.a[i*m.c+j] += v }

// axpy adds t times x to y, element by element.
func axpy(t float64, x, y []float64) {
	for j, v := range x {
		y[j] += float64(t * v)
	}
}

// mul is a times b, as gonum's Dgemm adds it.
func mul(a, b *dense) *dense {
	p := newDense(a.r, b.c)
	for i := range a.r {
		pi := p.row(i)
		for l, v := range a.row(i) {
			if v != 0 {
				axpy(v, b.row(l), pi)
			}
		}
	}
	return p
}

// mulVec is a times x, each row summed as gonum's amd64 Dgemv kernel does: even and odd
// columns in two sums, the last odd column's product placed as that kernel places it.
func mulVec(a *dense, x []float64) []float64 {
	y := make([]float64, a.r)
	pairs := a.c &^ 1
	for i := range a.r {
		row := a.row(i)
		var even, odd float64
		for j := 0; j < pairs; j += 2 {
			even += float64(row[j] * x[j])
			odd += float64(row[j+1] * x[j+1])
		}
		switch {
		case pairs == a.c:
			y[i] = even + odd
		case i == a.r-1 && a.r%2 == 1:
			y[i] = (even + float64(row[pairs]*x[pairs])) + odd
		default:
			y[i] = (even + odd) + float64(row[pairs]*x[pairs])
		}
	}
	return y
}

// lu is a square matrix's LU factorisation with partial pivoting, as LAPACK's dgetf2.
type lu struct {
	n    int
	a    []float64
	swap []int
}

// factor factorises m; ok is false if a pivot is exactly 0 (m singular).
func factor(m *dense) (f *lu, ok bool) {
	n := m.r
	f = &lu{n: n, a: slices.Clone(m.a), swap: make([]int, n)}
	a := f.a
	ok = true
	for j := range n {
		p, largest := j, math.Abs(a[j*n+j])
		for i := j + 1; i < n; i++ {
			if v := math.Abs(a[i*n+j]); v > largest {
				p, largest = i, v
			}
		}
		f.swap[j] = p
		if a[p*n+j] == 0 {
			ok = false
		} else {
			if p != j {
				swapRows(a, n, j, p)
			}
			d := a[j*n+j]
			if math.Abs(d) >= 0x1p-1022 {
				s := 1 / d
				for i := j + 1; i < n; i++ {
					a[i*n+j] *= s
				}
			} else {
				for i := j + 1; i < n; i++ {
					a[i*n+j] /= d
				}
			}
		}
		for i := j + 1; i < n; i++ {
			axpy(-a[i*n+j], a[j*n+j+1:(j+1)*n], a[i*n+j+1:(i+1)*n])
		}
	}
	return f, ok
}

// swapRows swaps rows i and k of the row-major a of c columns.
func swapRows(a []float64, c, i, k int) {
	for j := range c {
		a[i*c+j], a[k*c+j] = a[k*c+j], a[i*c+j]
	}
}

// solve overwrites b with the solution x of A x = b (LAPACK's dgetrs).
func (f *lu) solve(b *dense) {
	n, a := f.n, f.a
	for i, p := range f.swap {
		if p != i {
			swapRows(b.a, b.c, i, p)
		}
	}
	for i := range n {
		bi := b.row(i)
		for k, v := range a[i*n : i*n+i] {
			if v != 0 {
				axpy(-v, b.row(k), bi)
			}
		}
	}
	for i := n - 1; i >= 0; i-- {
		bi := b.row(i)
		for k, v := range a[i*n+i+1 : (i+1)*n] {
			if v != 0 {
				axpy(-v, b.row(i+1+k), bi)
			}
		}
		s := 1 / a[i*n+i]
		for j := range bi {
			bi[j] *= s
		}
	}
}

// solveVec is the solution x of A x = b, A the factorised matrix.
func (f *lu) solveVec(b []float64) []float64 {
	x := &dense{r: len(b), c: 1, a: slices.Clone(b)}
	f.solve(x)
	return x.a
}
