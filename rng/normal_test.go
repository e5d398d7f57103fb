package rng

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Normal's variates follow the standard normal for every generator, the
// 32-bit one included: a chi-square over 200 equiprobable bins (each a few
// layers wide, so a wrong layer or wedge shows), a Kolmogorov-Smirnov
// distance, and the counts past the base layer's edge and past 4, where only
// the tail algorithm reaches, on either side.
func TestNormalIsStandardNormal(t *testing.T) {
	const n, bins = 2_000_000, 200
	chiBound := distuv.ChiSquared{K: bins - 1}.Quantile(1 - 1e-4)
	ksBound := 2.0 / math.Sqrt(n) // Kolmogorov's 1e-4 point is 1.95/sqrt(n)
	edges := []float64{zigR, 4}
	for _, g := range Generators {
		s := NewStream(g.New(7, 3))
		xs := make([]float64, n)
		count := make([]float64, bins)
		var below, above [2]float64
		for i := range xs {
			x := s.Normal()
			xs[i] = x
			b := int(distuv.UnitNormal.CDF(x) * bins)
			count[min(b, bins-1)]++
			for k, e := range edges {
				if x < -e {
					below[k]++
				}
				if x > e {
					above[k]++
				}
			}
		}
		var chi float64
		for _, c := range count {
			chi += (c - n/bins) * (c - n/bins) / (n / bins)
		}
		if chi > chiBound {
			t.Errorf("%s: chi-square %.1f over %d bins, bound %.1f", g.Name, chi, bins, chiBound)
		}
		slices.Sort(xs)
		var d float64
		for i, x := range xs {
			f := distuv.UnitNormal.CDF(x)
			d = max(d, math.Abs(f-float64(i)/n), math.Abs(float64(i+1)/n-f))
		}
		if d > ksBound {
			t.Errorf("%s: Kolmogorov-Smirnov distance %.5f, bound %.5f", g.Name, d, ksBound)
		}
		for k, e := range edges {
			p := distuv.UnitNormal.Survival(e)
			sd := math.Sqrt(n * p * (1 - p))
			if math.Abs(below[k]-n*p) > 4*sd || math.Abs(above[k]-n*p) > 4*sd {
				t.Errorf("%s: %v draws below -%.2f and %v above %.2f, want %.0f ± %.0f each", g.Name, below[k], e, above[k], e, n*p, 4*sd)
			}
		}
	}
}
