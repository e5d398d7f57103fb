package retrysim_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// A sweep run in slices of its points, their counters put together by
// SweepOf, is the sweep RunSweep returns, replicates included; SweepOf
// refuses points that are not the grid's.
func TestSweepSlicesMakeTheSweep(t *testing.T) {
	sw := retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: []strategy.Strategy{strategy.Retry{Scope: strategy.EachStep, Keys: schema.NoKeys, Attempts: 3}, strategy.Retry{Scope: strategy.WholeJob, Keys: schema.SameKey, Attempts: 3}}, Seed: 7, Replicates: 2, Workers: 2}, Axes: []retrysim.Axis{{Name: "p_fail", Values: []float64{0.01, 0.2}}, {Name: "attempts", Values: []float64{2, 3, 5}}, {Name: "jobs", Values: []float64{300}}}}
	res, err := retrysim.RunSweep(context.Background(), sw)
	if err != nil {
		t.Fatal(err)
	}
	whole := res.Stats()
	n, err := jobapi.SweepPoints(sw)
	if err != nil || n != 6 {
		t.Fatalf("Points() = %d, %v; want 6", n, err)
	}
	var points []jobapi.SweepPoint
	for _, cut := range [][2]int{{0, 1}, {1, 1}, {1, 4}, {4, 6}} {
		sl, err := jobapi.RunSweepPoints(context.Background(), sw, cut[0], cut[1])
		if err != nil || len(sl) != cut[1]-cut[0] {
			t.Fatalf("RunSweepPoints(%d, %d): %d points, %v", cut[0], cut[1], len(sl), err)
		}
		points = append(points, sl...)
	}
	got, err := jobapi.SweepOf(sw, points)
	// A metric holds funcs, which DeepEqual never takes as equal: compare its name.
	if got.Metric.Name != whole.Metric.Name {
		t.Errorf("SweepOf's metric %s; want %s", got.Metric.Name, whole.Metric.Name)
	}
	got.Metric, whole.Metric = stats.Metric{}, stats.Metric{}
	if err != nil || !reflect.DeepEqual(got, whole) {
		t.Fatalf("SweepOf: %v; equal to RunSweep's: %v", err, reflect.DeepEqual(got, whole))
	}
	if _, err := jobapi.RunSweepPoints(context.Background(), sw, 4, 7); err == nil || err.Error() != "points: 4 to 7 is not a slice of the 6 points" {
		t.Errorf("RunSweepPoints(4, 7) = %v", err)
	}
	short := slices.Clone(points)
	short[2].Replicates = short[2].Replicates[:1]
	for want, pts := range map[string][]jobapi.SweepPoint{
		"points: 5 given; the grid has 6":                      points[:5],
		"points: point 2 holds 1 replicates; the sweep runs 2": short,
	} {
		if _, err := jobapi.SweepOf(sw, pts); err == nil || err.Error() != want {
			t.Errorf("SweepOf = %v; want %q", err, want)
		}
	}
	bad := slices.Clone(points)
	bad[0].Replicates = [][]stats.Counters{slices.Clone(points[0].Replicates[0]), points[0].Replicates[1]}
	bad[0].Replicates[0][1].Jobs++
	if _, err := jobapi.SweepOf(sw, bad); err == nil || err.Error() != "points: point 0, replicate 0, strategy 1 ran 301 jobs; the point runs 300" {
		t.Errorf("SweepOf with a point's jobs off by one = %v", err)
	}
	bad[0].Replicates[0][1].Jobs--
	bad[0].Replicates[0][1].Failed = 301
	if _, err := jobapi.SweepOf(sw, bad); err == nil || err.Error() != "points: point 0, replicate 0, strategy 1: failed: 301 is more than the 300 jobs" {
		t.Errorf("SweepOf with more failed jobs than jobs = %v", err)
	}
}
