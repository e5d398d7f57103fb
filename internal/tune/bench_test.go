package tune

import (
	"context"
	"testing"
	"time"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetpreset"
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
	base := api.Sweep{Experiment: api.Experiment{Strategies: strategies, Seed: 1}, Axes: []api.Axis{{Name: "p_fail", Values: []float64{0.45}}, {Name: "lost_reply", Values: []float64{0}}}}
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

// BenchmarkRaceVersusGridWorkers searches 20 candidates of a workers
// preset: backlog-drain's fleets, 12 minutes (the workers down from 1 to
// 4 minutes in), for the fastest drain of its capped run with 2 to 21
// workers, requiring none of its jobs dead: 12 workers and more overload
// its API (100 calls a second) and kill jobs, so 10 of the 20 fail. The
// objective is a metric, told apart on common random numbers. It reports
// the replicates the race spent over those a full grid at the same
// confidence would (every candidate, the current settings' too, given the
// most any one needed) and both counts; ns/op is a search's wall time.
func BenchmarkRaceVersusGridWorkers(b *testing.B) {
	p, err := fleetpreset.LookupWorkersPreset("backlog-drain")
	if err != nil {
		b.Fatal(err)
	}
	var graphs []fleet.Graph
	for _, r := range p.Runs(12 * time.Minute) {
		graphs = append(graphs, r.Graph())
	}
	k, axes, err := NewGraphKind(graphs, true, fleet.Options{Seed: 1}, []string{"graph.services[workers].server.capacity=2:21:20"})
	if err != nil {
		b.Fatal(err)
	}
	req, _ := ParseRequirement("capped:dead<=0")
	s := Search{Axes: axes, Objective: "capped:drain_seconds", Require: []Requirement{req}, Budget: k.Budget()}
	var res Result
	for b.Loop() {
		if res, err = Race(context.Background(), k, s); err != nil {
			b.Fatal(err)
		}
	}
	fails := 0
	for _, c := range res.Candidates {
		if c.Status == "fails" {
			fails++
		}
	}
	if fails != 10 || res.Best < 0 {
		b.Fatalf("%d of %d candidates fail, best %d; want 10 of 21 (20 and the preset's own) and an answer", fails, len(res.Candidates), res.Best)
	}
	b.ReportMetric(float64(res.Spent)/float64(res.FullGrid), "race/grid")
	b.ReportMetric(float64(res.Spent), "race-replicates")
	b.ReportMetric(float64(res.FullGrid), "grid-replicates")
}
