package rng

import "math"

// Normal variates come from Marsaglia and Tsang's ziggurat ("The Ziggurat
// Method for Generating Random Variables", 2000) with 256 layers, read from the
// top 32 bits of a draw, which every generator here fills: 8 bits pick the
// layer and the other 24 are a signed position in it. math/rand/v2 has the
// same method but reads the low 32 bits, which mulberry32's draws leave zero
// (every variate would be 0), and cannot be inlined: a lognormal latency for
// every call is the time model's main cost.
const (
	zigLayers = 256
	zigR      = 3.6541528853610088 // where the base layer's tail begins
	zigV      = 4.92867323399e-3   // each layer's area
	zigScale  = 1 << 23            // |position| <= zigScale: 24 signed bits
)

// zigK[i] is the position below which layer i's point is accepted at once,
// zigW[i] turns a position into x, and zigF[i] is the density at layer i's
// outer edge.
var zigK [zigLayers]int32
var zigW, zigF [zigLayers]float64

func init() {
	f := func(x float64) float64 { return math.Exp(-0.5 * x * x) }
	d, t := zigR, zigR
	q := zigV / f(d)
	zigK[0] = int32(d / q * zigScale)
	zigK[1] = 0
	zigW[0] = q / zigScale
	zigW[zigLayers-1] = d / zigScale
	zigF[0] = 1
	zigF[zigLayers-1] = f(d)
	for i := zigLayers - 2; i >= 1; i-- {
		d = math.Sqrt(-2 * math.Log(zigV/d+f(d)))
		zigK[i+1] = int32(d / t * zigScale)
		t = d
		zigF[i] = f(d)
		zigW[i] = d / zigScale
	}
}

// Normal returns a standard normal draw.
func (s *Stream) Normal() float64 {
	var z [1]float64
	s.Normals(z[:])
	return z[0]
}

// Normals fills dst with standard normal draws, as that many calls of Normal
// would. Nine hundred and ninety-odd in a thousand take one draw and a
// multiplication, in this loop.
func (s *Stream) Normals(dst []float64) {
	for k := range dst {
		u := uint32(s.Next() >> 32)
		i := u & (zigLayers - 1)
		j := int32(u) >> 8
		if j < zigK[i] && -j < zigK[i] {
			dst[k] = float64(j) * zigW[i]
		} else {
			dst[k] = s.normalSlow(i, j)
		}
	}
}

// normalSlow finishes a draw that fell outside its layer's inner rectangle:
// the base layer's tail, or a wedge tested against the density, drawing again
// when rejected.
func (s *Stream) normalSlow(i uint32, j int32) float64 {
	for {
		x := float64(j) * zigW[i]
		if i == 0 {
			for {
				x = -math.Log(s.Open()) / zigR
				y := -math.Log(s.Open())
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return zigR + x
			}
			return -zigR - x
		}
		if zigF[i]+s.Float64()*(zigF[i-1]-zigF[i]) < math.Exp(-0.5*x*x) {
			return x
		}
		u := uint32(s.Next() >> 32)
		i = u & (zigLayers - 1)
		j = int32(u) >> 8
		if j < zigK[i] && -j < zigK[i] {
			return float64(j) * zigW[i]
		}
	}
}
