package chain

import (
	"context"
	"testing"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/metastable"
)

// benchModels are the README's example (1,056 states) and a larger chain
// (4,032 states: 192 an orbit size, 21 sizes).
var benchModels = []struct {
	name string
	m    Model
}{
	{"readme", Model{Rate: 1.5, Workers: 2, Queue: 4, ServiceRate: 1, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 10}},
	{"4032", Model{Rate: 1.5, Workers: 2, Queue: 5, ServiceRate: 1, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 20}},
}

func healthy(m Model) Region {
	return func(s fleetdata.MarkovState) bool { return s.InServer <= m.Workers && s.Orbit == 0 }
}

// BenchmarkMean builds the chain and solves for the mean time to health.
func BenchmarkMean(b *testing.B) {
	for _, bm := range benchModels {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				c, err := Build(bm.m)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Mean(healthy(bm.m)); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(c.Len()), "states")
			}
		})
	}
}

// BenchmarkHit computes the probability of health within 60 s of collapse
// on a built chain, by uniformisation.
func BenchmarkHit(b *testing.B) {
	for _, bm := range benchModels {
		b.Run(bm.name, func(b *testing.B) {
			c, err := Build(bm.m)
			if err != nil {
				b.Fatal(err)
			}
			p0 := c.Point(bm.m.Collapsed())
			for b.Loop() {
				if _, err := c.Hit(p0, 0, 60, healthy(bm.m)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.steps(0, 60, nil)), "steps")
		})
	}
}

// BenchmarkSplitting is one splitting of TestSplittingAgreesWithChain's
// probability near 1e-6, splitEffort paths a level.
func BenchmarkSplitting(b *testing.B) {
	cfg := splitModel.Config(splitHorizon + 1)
	levels := make([]int, splitTarget)
	for i := range levels {
		levels[i] = i + 1
	}
	for b.Loop() {
		sp := metastable.Splitting{Importance: func(s fleetdata.MarkovState) int { return s.Orbit }, Levels: levels,
			Horizon: splitHorizon, Effort: splitEffort, Seed: 1}
		est, err := sp.Estimate(context.Background(), &cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(est.Events), "events")
	}
}
