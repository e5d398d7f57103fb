package retrysim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/jobapi"
)

// TestRunSweepsIsRunSweep: sweeps run on one pool of workers give each the
// rows RunSweep gives it alone, on any number of replicates.
func TestRunSweepsIsRunSweep(t *testing.T) {
	strategies, err := retrysim.ParseStrategies([]string{"step-nokey", "job-samekey-skip"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ss []retrysim.Sweep
	for i, attempts := range []float64{2, 3, 4} {
		s := retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: strategies, Seed: uint64(i), Workers: 3, Replicates: i + 1}, Axes: []retrysim.Axis{{Name: "p_fail", Values: []float64{0.05, 0.1}}, {Name: "attempts", Values: []float64{attempts}}, {Name: "jobs", Values: []float64{70_000}}}}
		ss = append(ss, s)
	}
	got, err := jobapi.RunSweeps(context.Background(), ss)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range ss {
		want, err := retrysim.RunSweep(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		// (%+v: reflect.DeepEqual finds no two funcs equal, and a sweep's metric holds some.)
		if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", want.Stats()) {
			t.Errorf("sweep %d: RunSweeps gives\n%+v\nRunSweep\n%+v", i, got[i].Rows, want.Stats().Rows)
		}
	}
}
