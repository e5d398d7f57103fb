package rng

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Lognormal's variates follow e^(σZ) for narrow and wide σ and every
// generator, the 32-bit one included: a chi-square over 200 equiprobable bins
// (each spans a few strips, so a wrong strip, inner bound or density test
// shows), a Kolmogorov-Smirnov distance, and the counts beyond the base
// rectangle's ends and beyond z = ±4.5, which only the tail algorithm reaches.
func TestLognormalDistribution(t *testing.T) {
	const n, bins = 1_000_000, 200
	chiBound := distuv.ChiSquared{K: bins - 1}.Quantile(1 - 1e-4)
	ksBound := 2.0 / math.Sqrt(n) // Kolmogorov's 1e-4 point is 1.95/sqrt(n)
	for _, sigma := range []float64{0.05, 0.5, 0.99, 2, 4} {
		l := NewLognormal(sigma)
		for _, g := range Generators() {
			s := NewStream(g.New(11, 5))
			zs := make([]float64, n)
			count := make([]float64, bins)
			for k := range zs {
				z := math.Log(l.Draw(s)) / sigma
				zs[k] = z
				count[min(int(distuv.UnitNormal.CDF(z)*bins), bins-1)]++
			}
			var chi float64
			for _, c := range count {
				chi += (c - n/bins) * (c - n/bins) / (n / bins)
			}
			if chi > chiBound {
				t.Errorf("σ %v, %s: chi-square %.1f over %d bins, bound %.1f", sigma, g.Name, chi, bins, chiBound)
			}
			slices.Sort(zs)
			var d float64
			for k, z := range zs {
				f := distuv.UnitNormal.CDF(z)
				d = max(d, math.Abs(f-float64(k)/n), math.Abs(float64(k+1)/n-f))
			}
			if d > ksBound {
				t.Errorf("σ %v, %s: Kolmogorov-Smirnov distance %.5f, bound %.5f", sigma, g.Name, d, ksBound)
			}
			for _, cut := range [][2]float64{{l.cutL, l.cutR}, {-4.5, 4.5}} {
				below, _ := slices.BinarySearch(zs, cut[0])
				above, _ := slices.BinarySearch(zs, cut[1])
				for side, c := range map[string]struct{ got, p float64 }{
					"below": {float64(below), distuv.UnitNormal.CDF(cut[0])},
					"above": {float64(n - above), distuv.UnitNormal.Survival(cut[1])},
				} {
					if sd := math.Sqrt(n * c.p * (1 - c.p)); math.Abs(c.got-n*c.p) > 4*sd+1 {
						t.Errorf("σ %v, %s: %v variates %s z = %.3f, want %.1f ± %.1f", sigma, g.Name, c.got, side, cut, n*c.p, 4*sd)
					}
				}
			}
		}
	}
}

// Nearly every variate takes one draw: the strips' inner parts hold almost
// all of the area, less as σ grows and the peak sharpens (σ 0.99 is a p99 ten
// times the median; σ 4, eleven thousand times).
func TestLognormalMostlyOneDraw(t *testing.T) {
	for _, c := range []struct{ sigma, most float64 }{{0.05, 1.01}, {0.99, 1.015}, {4, 1.05}} {
		s := NewStream(pcgGenerator.New(1, 0))
		l := NewLognormal(c.sigma)
		const n = 100_000
		for range n {
			l.Draw(s)
		}
		if per := float64(s.Draws()) / n; per > c.most {
			t.Errorf("σ %v: %.3f draws a variate, want at most %v", c.sigma, per, c.most)
		}
	}
}

// Lognormals takes the same draws and gives the same variates as Draw called
// for each in turn, over enough variates that every slow path is taken.
func TestLognormalsIsDrawInTurn(t *testing.T) {
	ls := []*Lognormal{NewLognormal(0.3), NewLognormal(0.99), NewLognormal(4), NewLognormal(0.99)}
	a, b := NewStream(pcgGenerator.New(2, 0)), NewStream(pcgGenerator.New(2, 0))
	got := make([]float64, len(ls))
	for n := range 200_000 {
		Lognormals(ls, a, got)
		for k, l := range ls {
			if want := l.Draw(b); got[k] != want {
				t.Fatalf("batch %d, variate %d: Lognormals gives %v, Draw %v", n, k, got[k], want)
			}
		}
		if a.Draws() != b.Draws() {
			t.Fatalf("batch %d: Lognormals took %d draws, Draw %d", n, a.Draws(), b.Draws())
		}
	}
}

// The chord test's shortcut holds: where a wedge is called convex the
// density lies below its chord, where concave above, checked against the
// density itself at points across every strip's two wedges.
func TestLognormalChords(t *testing.T) {
	for _, sigma := range []float64{0.05, 0.99, 4} {
		l := NewLognormal(sigma)
		bends := map[curve]int{}
		for i := uint32(1); i < strips; i++ {
			st, w := &l.strip[i], &l.wedge[i]
			for _, side := range [][2]float64{{st.left, w.in0}, {w.in1, w.hi}} {
				for k := 1; k < 16; k++ {
					x := side[0] + float64(k)/16*(side[1]-side[0])
					c, bend := l.chord(i, x)
					bends[bend]++
					chord := l.y[i] + c*(l.y[i+1]-l.y[i])
					f := l.density(x)
					if bend == convex && f > chord*(1+1e-12) || bend == concave && f < chord*(1-1e-12) {
						t.Fatalf("σ %v, strip %d, x %v: density %v, chord %v, called %d", sigma, i, x, f, chord, bend)
					}
				}
			}
		}
		if bends[convex] == 0 || bends[concave] == 0 {
			t.Errorf("σ %v: wedges by curve %v, want both kinds", sigma, bends)
		}
	}
}
