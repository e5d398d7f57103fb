package fleetpreset

import (
	"context"
	"math"
	"testing"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"gonum.org/v1/gonum/stat/distuv"
)

// The engine's test helpers the presets' tests share with fleet's.

// within99_9 reports whether want lies in the 99.9% Student t interval of
// the mean of xs: a false failure once in 1,000 comparisons when the model is
// right (for xs normal enough, which means of thousands of requests are).
func within99_9(xs []float64, want float64) (mean, lo, hi float64, ok bool) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - 0.001/2)
	half := t * math.Sqrt(ss/(n-1)/n)
	return mean, mean - half, mean + half, want >= mean-half && want <= mean+half
}

// run is reps replicates of cfg, seed 7.
func run(t *testing.T, cfg fleet.Config, reps int) []fleetdata.Replicate {
	t.Helper()
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	res, err := fleet.Run(context.Background(), []fleet.Config{cfg}, fleet.Options{Replicates: reps, Seed: 7, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return fleetrun.Fleet().Replicates(res[0])
}

// meanVar is xs's mean and variance.
func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs)-1)
}
