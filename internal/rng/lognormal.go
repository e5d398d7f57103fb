package rng

import (
	"math"
	"sync"
	"time"

	"github.com/retrysim/retrysim/internal/dist"
)

// LognormalDrawn reports whether a latency of median and p99 is lognormal, not fixed.
func LognormalDrawn(median, p99 time.Duration) bool { return p99 > median && median > 0 }

// Lognormal draws e^(σZ) for a standard normal Z, a lognormal of median 1, by a ziggurat
// over its density (Marsaglia and Tsang, 2000): 1,024 equal-area horizontal strips that
// span both sides of the mode, a draw's top 32 bits picking a strip (10 bits) and a
// position (22 bits). More than 99 in 100 draws for σ up to 1 are accepted at once; the
// others are tested against the density or drawn from a tail by Marsaglia's method.
type Lognormal struct {
	sigma float64
	strip [strips]strip
	wedge [strips]wedge
	y     [strips + 1]float64
	// tailL and tailR are the tails' areas beyond the base rectangle's ends.
	tailL, tailR float64
	cutL, cutR   float64
	logNorm      float64 // log(σ √(2π)), the density's constant
}

// strip is what a draw needs of its strip, in one cache line: its rectangle's left end,
// width over positions, and the positions [lo, lo+n) accepted at once.
type strip struct {
	left, step float64
	lo, n      uint32
}

// wedge is what the density test needs of strip i: the next strip's ends (in0, in1), the
// rectangle's right end, and on each side whether the density is convex or concave there,
// so that a point on the far side of the chord is decided without the density.
type wedge struct {
	in0, in1, hi          float64
	leftCurve, rightCurve curve
}

type curve int8

const (
	mixed curve = iota // an inflection point lies between: no chord test
	convex
	concave
)

// chordMargin keeps the chord test off points within rounding of the chord.
const chordMargin = 1e-9

const (
	stripBits = 10
	strips    = 1 << stripBits
	positions = 1 << (32 - stripBits)
)

// lognormals holds the tables made so far, by σ, built once a run.
var lognormals sync.Map

// NewLognormal returns the sampler of e^(σZ); σ must be positive and finite.
func NewLognormal(sigma float64) *Lognormal {
	if l, ok := lognormals.Load(sigma); ok {
		return l.(*Lognormal)
	}
	l, _ := lognormals.LoadOrStore(sigma, newLognormal(sigma))
	return l.(*Lognormal)
}

// density is the lognormal's density at x > 0.
func (l *Lognormal) density(x float64) float64 {
	t := math.Log(x)
	return math.Exp(-t*t/(2*l.sigma*l.sigma) - t - l.logNorm)
}

// span returns where the density equals y (at most its peak), in closed form.
func (l *Lognormal) span(y float64) (lo, hi float64) {
	s2 := l.sigma * l.sigma
	d := max(s2-2*(math.Log(y)+l.logNorm), 0)
	r := l.sigma * math.Sqrt(d)
	return math.Exp(-s2 - r), math.Exp(-s2 + r)
}

func newLognormal(sigma float64) *Lognormal {
	l := &Lognormal{sigma: sigma, logNorm: math.Log(sigma * math.Sqrt(2*math.Pi))}
	peak := l.density(math.Exp(-sigma * sigma))
	// top builds the strips from base height y1 and returns the last one's height.
	top := func(y1 float64) float64 {
		lo, hi := l.span(y1)
		l.tailL = dist.NormalCDF(math.Log(lo) / sigma)
		l.tailR = dist.NormalSurvival(math.Log(hi) / sigma)
		v := y1*(hi-lo) + l.tailL + l.tailR
		l.y[0], l.y[1] = 0, y1
		for i := 1; i < strips; i++ {
			lo, hi := l.span(l.y[i])
			if l.y[i] >= peak || hi <= lo {
				return math.Inf(1)
			}
			l.y[i+1] = l.y[i] + v/(hi-lo)
		}
		return l.y[strips]
	}
	a, b := 0.0, peak
	for range 2000 {
		m := (a + b) / 2
		if m == a || m == b {
			break
		}
		if top(m) > peak {
			b = m
		} else {
			a = m
		}
	}
	top(a)
	l.y[strips] = peak

	lo, hi := l.span(l.y[1])
	l.cutL, l.cutR = math.Log(lo)/sigma, math.Log(hi)/sigma
	v := l.y[1]*(hi-lo) + l.tailL + l.tailR
	base := &l.strip[0]
	base.left, base.step = lo, v/l.y[1]/positions
	base.n = uint32(min((hi-lo)/base.step, positions))
	for i := 1; i < strips; i++ {
		st := &l.strip[i]
		lo, hi := l.span(l.y[i])
		st.left, st.step = lo, (hi-lo)/positions
		// Positions under strip i+1, one in from each end so rounding never accepts outside.
		in0, in1 := l.span(l.y[i+1])
		first, last := math.Ceil((in0-lo)/st.step)+1, math.Floor((in1-lo)/st.step)-1
		if i < strips-1 && first < last {
			st.lo, st.n = uint32(first), uint32(min(last, positions)-first)
		}
		l.wedge[i] = wedge{in0: in0, in1: in1, hi: hi, leftCurve: l.curve(lo, in0), rightCurve: l.curve(in1, hi)}
	}
	return l
}

// curve tells how the density bends on [a, b], from its inflection points (the roots of
// u² + u - 1/σ², u = ln(x)/σ² + 1).
func (l *Lognormal) curve(a, b float64) curve {
	s2 := l.sigma * l.sigma
	r := math.Sqrt(1 + 4/s2)
	inflect := func(u float64) float64 { return math.Exp(s2 * (u - 1)) }
	x1, x2 := inflect((-1-r)/2), inflect((-1+r)/2)
	switch {
	case b < x1 || a > x2:
		return convex
	case a > x1 && b < x2:
		return concave
	}
	return mixed
}

// Draw returns one variate.
func (l *Lognormal) Draw(s *Stream) float64 {
	for {
		d := s.Next()
		if x, ok := l.fast(d); ok {
			return x
		}
		if x, ok := l.slow(s, d); ok {
			return x
		}
	}
}

// fast is the variate of draw d if d falls under the next strip up.
func (l *Lognormal) fast(d uint64) (float64, bool) {
	w := uint32(d >> 32)
	st, u := &l.strip[w&(strips-1)], w>>stripBits
	return st.left + float64(u)*st.step, u-st.lo < st.n
}

// Lognormals sets dst[k] to a variate of ls[k], in order, as that many Draw calls would.
func Lognormals(ls []*Lognormal, s *Stream, dst []float64) {
	for k := 0; k < len(ls); {
		d := s.Peek(len(ls) - k)
		j := 0
		for ; j < len(d); j++ {
			x, ok := ls[k].fast(d[j])
			if !ok {
				break
			}
			dst[k] = x
			k++
		}
		s.Skip(j)
		if k < len(ls) {
			dst[k] = ls[k].Draw(s)
			k++
		}
	}
}

// slow finishes a point outside its strip's inner part: a tail, the density, or rejection.
func (l *Lognormal) slow(s *Stream, d uint64) (float64, bool) {
	bits := uint32(d >> 32)
	i, u := bits&(strips-1), bits>>stripBits
	if i == 0 {
		if s.Float64()*(l.tailL+l.tailR) < l.tailL {
			return math.Exp(-l.sigma * normalTail(s, -l.cutL)), true
		}
		return math.Exp(l.sigma * normalTail(s, l.cutR)), true
	}
	x := l.strip[i].left + float64(u)*l.strip[i].step
	h := s.Float64() // the point's height in the strip, from y[i] to y[i+1]
	c, bend := l.chord(i, x)
	switch {
	case bend == convex && h >= c+chordMargin:
		return x, false // above the chord, which is above the density
	case bend == concave && h < c-chordMargin:
		return x, true // below the chord, which is below the density
	}
	return x, l.y[i]+h*(l.y[i+1]-l.y[i]) < l.density(x)
}

// chord returns where strip i's wedge's chord crosses x, as a fraction of its height.
func (l *Lognormal) chord(i uint32, x float64) (float64, curve) {
	st, w := &l.strip[i], &l.wedge[i]
	switch {
	case x < w.in0:
		return (x - st.left) / (w.in0 - st.left), w.leftCurve
	case x > w.in1:
		return (w.hi - x) / (w.hi - w.in1), w.rightCurve
	}
	return 0, mixed
}

// normalTail draws a standard normal beyond a > 0 (Marsaglia, 1964).
func normalTail(s *Stream, a float64) float64 {
	for {
		x := -math.Log(s.Open()) / a
		y := -math.Log(s.Open())
		if y+y >= x*x {
			return a + x
		}
	}
}
