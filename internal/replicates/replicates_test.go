package replicates

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
)

// A sweep's items, run in any slices, are each point's replicates as Run
// makes them for the point's configuration set by hand, and fold back into
// the runs' results (compared as text: a figure not judged is NaN).
func TestRunSlices(t *testing.T) {
	base := fleet.DefaultConfig()
	base.Duration = 5 * time.Second
	runs, err := fleetrun.SweepConfigs([]fleet.Config{base}, []string{"client.timeout", "attempts"}, [][]string{{"1s", "2"}, {"3s", "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Client.Timeout != time.Second || runs[1].Client.Timeout != 3*time.Second || runs[1].Client.Attempts != 2 {
		t.Fatalf("SweepConfigs set %+v, %+v", runs[0].Client, runs[1].Client)
	}
	opt := fleet.Options{Replicates: 3, Seed: 7, Workers: 2}
	ctx := context.Background()
	var items [][]fleetdata.Replicate
	for _, cut := range [][2]int{{0, 2}, {2, 5}, {5, 6}} { // a point cut, a whole one
		got, err := Fleet().Run(ctx, runs, 1, opt, cut[0], cut[1])
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, got...)
	}
	for p, c := range runs {
		c = base
		c.Client.Timeout, c.Client.Attempts = []time.Duration{time.Second, 3 * time.Second}[p], 2
		want, err := fleet.Run(ctx, []fleet.Config{c}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := Fleet().Fold(runs, 1, items)[p]; fmt.Sprintf("%+v", fleetrun.Fleet().Replicates(got)) != fmt.Sprintf("%+v", fleetrun.Fleet().Replicates(want[0])) || got.Config.Client.Timeout != c.Client.Timeout {
			t.Errorf("point %d: the sweep's result is not Run's", p)
		}
	}
}

// Check takes a shard's item only when it holds a replicate of each run of
// its point: not one run too few, not another point's replicate.
func TestCheck(t *testing.T) {
	short, long := fleet.DefaultConfig(), fleet.DefaultConfig()
	short.Duration, long.Duration = 5*time.Second, 10*time.Second
	runs := []fleet.Config{short, long} // two points of one run each
	items, err := Fleet().Run(context.Background(), runs, 1, fleet.Options{Replicates: 2, Seed: 1}, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	for k, item := range items {
		if err := Fleet().Check(runs, 1, 2, k, item, "the settings make %d"); err != nil {
			t.Errorf("Check(item %d) = %v; want nil", k, err)
		}
	}
	if err := Fleet().Check(runs, 1, 2, 0, nil, "the candidate has %d"); err == nil || err.Error() != "0 runs; the candidate has 1" {
		t.Errorf("Check(no replicate) = %v; want 0 runs; the candidate has 1", err)
	}
	if err := Fleet().Check(runs, 1, 2, 2, items[0], "the settings make %d"); err == nil || err.Error()[:7] != "run 0: " {
		t.Errorf("Check(the short run's replicate as the long one's) = %v; want run 0: why", err)
	}
}
