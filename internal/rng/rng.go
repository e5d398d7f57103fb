// Package rng holds the deterministic random streams the simulator draws from, and the
// rule that says when a latency is lognormal.
//
// Every draw is a 64-bit fixed-point fraction, U standing for U/2^64 in [0, 1), scaled so
// that it equals exactly the float the generator's own API returns: "u < p" stays
// bit-exact with other implementations while the hot path compares integers. A stream is
// a pure function of its generator, seed and block; nothing here reads the clock.
package rng

import (
	"math"
	"slices"
	"strings"
)

// Source is a deterministic generator of fractions: Fill overwrites dst with the next
// len(dst) draws. Not safe for concurrent use.
type Source interface {
	Fill(dst []uint64)
}

// Generator names a kind of Source and how to seed it.
type Generator struct {
	// Name is what -rng takes.
	Name string
	// Doc is one line for -help.
	Doc string
	// Sequential generators have one stream a seed: New ignores block; jobs run in order.
	Sequential bool
	// New returns the stream for block of a run seeded with seed.
	New func(seed, block uint64) Source
}

// generators are every generator, the default first.
var generators = []Generator{pcgGenerator, mulberry32Generator, xexpGenerator}

// Generators lists every generator, the default first, in a fresh slice.
func Generators() []Generator { return slices.Clone(generators) }

// PCGGenerator is the default: math/rand/v2's PCG, a stream for every block of jobs.
func PCGGenerator() Generator { return pcgGenerator }

// Mulberry32Generator reproduces the article's simulation exactly, on one stream.
func Mulberry32Generator() Generator { return mulberry32Generator }

// XExpGenerator is golang.org/x/exp/rand's PCGSource, for comparison only.
func XExpGenerator() Generator { return xexpGenerator }

// Lookup returns the generator called name.
func Lookup(name string) (Generator, bool) {
	i := slices.IndexFunc(generators, func(g Generator) bool { return g.Name == name })
	if i < 0 {
		return Generator{}, false
	}
	return generators[i], true
}

// Names lists the generator names, comma-separated, for error messages.
func Names() string {
	names := make([]string, len(generators))
	for i, g := range generators {
		names[i] = g.Name
	}
	return strings.Join(names, ", ")
}

// Threshold returns the cut t such that a draw U is below probability p, in the
// sense U/2^64 < p, exactly when U < t. It is ceil(p * 2^64); p = 1 gives the
// largest uint64, which every draw is below because no generator here sets the
// low 11 bits. p must be in [0, 1].
func Threshold(p float64) uint64 {
	if p >= 1 {
		return math.MaxUint64
	}
	return uint64(math.Ceil(math.Ldexp(p, 64)))
}

// mix is the splitmix64 finaliser, which spreads (seed, block) pairs' generator seeds.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ReplicateSeed is the seed of replicate r (0: the run itself) of a run seeded with seed.
func ReplicateSeed(seed, r uint64) uint64 {
	if r == 0 {
		return seed
	}
	return mix(seed ^ mix(r^0x5eed))
}

// LatencySeed seeds a run's latency streams, apart from its outcome draws.
func LatencySeed(seed uint64) uint64 {
	return mix(seed ^ mix(0x1a7e))
}
