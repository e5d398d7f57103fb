package fleetpreset

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetrun"
)

// A worker's replicate that reuses the memory of the one before it (sim.reuse)
// reports what it reports run alone, in a fresh sim: every replicate of
// brooker-collapse and of sqs-visibility's graphs (a stall, a lease store,
// heartbeats: every slice reuse empties), run one after another on one
// worker, against the same replicate run by itself (fleetrun.Fleet().First).
func TestReplicatesReuseMemory(t *testing.T) {
	const reps = 3
	cfgs := brookerCollapse.Runs(30 * time.Second)
	all, err := fleet.Run(context.Background(), cfgs, fleet.Options{Replicates: reps, Seed: 7, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var graphs []fleet.Graph
	for _, w := range sqsVisibility.Runs(4 * time.Minute) {
		graphs = append(graphs, w.Graph())
	}
	allGraphs, err := fleet.RunGraph(context.Background(), graphs, fleet.Options{Replicates: reps, Seed: 7, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for r := range reps {
		opt := fleet.Options{Replicates: 1, Seed: 7, Workers: 1}
		*fleetrun.Fleet().First(&opt) = r
		one, err := fleet.Run(context.Background(), cfgs, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cfgs {
			// Sprint, not DeepEqual: a quantile with no success is NaN.
			if got, want := fmt.Sprint(fleetrun.Fleet().Replicates(all[i])[r]), fmt.Sprint(fleetrun.Fleet().Replicates(one[i])[0]); got != want {
				t.Errorf("%s replicate %d after another: %.300s\nalone: %.300s", cfgs[i].Name, r, got, want)
			}
		}
		oneGraph, err := fleet.RunGraph(context.Background(), graphs, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range graphs {
			if got, want := fmt.Sprint(fleetrun.Fleet().GraphReplicates(allGraphs[i])[r]), fmt.Sprint(fleetrun.Fleet().GraphReplicates(oneGraph[i])[0]); got != want {
				t.Errorf("%s replicate %d after another: %.300s\nalone: %.300s", graphs[i].Name, r, got, want)
			}
		}
	}
	if fleetrun.Fleet().Replicates(all[0])[1].Events == fleetrun.Fleet().Replicates(all[0])[0].Events {
		t.Error("replicates 0 and 1 ran the same number of events: the test compares nothing")
	}
}
