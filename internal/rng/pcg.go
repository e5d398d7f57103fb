package rng

import (
	"math/rand/v2"

	xrand "golang.org/x/exp/rand" //lint:ignore SA1019 the xexp generator reproduces this package's PCGSource, deprecated or not
)

// pcg adapts math/rand/v2's PCG-DXSM.
type pcg struct{ rand.PCG }

// Fill keeps the low 53 bits of each output, as rand.Float64 does.
func (p *pcg) Fill(dst []uint64) {
	for i := range dst {
		dst[i] = p.Uint64() << 11
	}
}

// pcgGenerator is the default: math/rand/v2's PCG, a stream for every block of jobs.
var pcgGenerator = Generator{
	Name: "pcg",
	Doc:  "math/rand/v2 PCG-DXSM; a stream per block of jobs",
	New: func(seed, block uint64) Source {
		s := mix(seed ^ mix(block))
		return &pcg{*rand.NewPCG(s, mix(s))}
	},
}

// xexpPCG adapts golang.org/x/exp/rand's PCGSource.
type xexpPCG struct{ xrand.PCGSource }

// Fill keeps the low 53 bits of each output, as rand.Float64 does.
func (p *xexpPCG) Fill(dst []uint64) {
	for i := range dst {
		dst[i] = p.Uint64() << 11
	}
}

// xexpGenerator is golang.org/x/exp/rand's PCGSource, deprecated upstream: for comparison.
var xexpGenerator = Generator{
	Name: "xexp",
	Doc:  "golang.org/x/exp/rand PCGSource (deprecated upstream: use pcg)",
	New: func(seed, block uint64) Source {
		p := &xexpPCG{}
		p.Seed(mix(seed ^ mix(block)))
		return p
	},
}
