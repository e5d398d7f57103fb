package tune

import (
	"context"
	"testing"

	api "github.com/retrysim/retrysim"
)

// BenchmarkRaceVersusGrid searches 20 candidates, 1 to 20 attempts of a
// ten-step job whose calls fail 45% of the time, for the fewest attempts
// with failed_rate <= 1e-3: 1 to 11 attempts fail it (1.5e-3 at 11), 12 to
// 20 meet it (6.9e-4 at 12). It reports the jobs the race spent over those
// a full grid at the same confidence would (every candidate given the most
// any one needed), and both counts.
func BenchmarkRaceVersusGrid(b *testing.B) {
	strategies, err := api.ParseStrategies([]string{"step-samekey"}, 3)
	if err != nil {
		b.Fatal(err)
	}
	base := api.Sweep{Strategies: strategies, Seed: 1, Axes: []api.Axis{{Name: "p_fail", Values: []float64{0.45}}, {Name: "lost_reply", Values: []float64{0}}}}
	k, axes, err := NewTableKind(base, []string{"attempts=1:20:20"})
	if err != nil {
		b.Fatal(err)
	}
	req, _ := ParseRequirement("failed_rate<=1e-3")
	s := Search{Axes: axes, Objective: "attempts", Require: []Requirement{req}, Budget: 100_000_000}
	var res Result
	for b.Loop() {
		if res, err = Race(context.Background(), k, s); err != nil {
			b.Fatal(err)
		}
	}
	if res.Best < 0 || res.Candidates[res.Best].Point[0] != 12 {
		b.Fatalf("best %d; want 12 attempts", res.Best)
	}
	b.ReportMetric(float64(res.Spent)/float64(res.FullGrid), "race/grid")
	b.ReportMetric(float64(res.Spent), "race-jobs")
	b.ReportMetric(float64(res.FullGrid), "grid-jobs")
}
