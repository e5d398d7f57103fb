package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A worker's replicate that reuses the memory of the one before it (sim.reuse)
// reports what it reports run alone, in a fresh sim: every replicate of
// brooker-collapse and of sqs-visibility's graphs (a stall, a lease store,
// heartbeats: every slice reuse empties), run one after another on one
// worker, against the same replicate run by itself (Options.First).
func TestReplicatesReuseMemory(t *testing.T) {
	const reps = 3
	cfgs := brookerCollapse.Runs(30 * time.Second)
	all, err := Run(context.Background(), cfgs, Options{Replicates: reps, Seed: 7, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var graphs []Graph
	for _, w := range sqsVisibility.Runs(4 * time.Minute) {
		graphs = append(graphs, w.Graph())
	}
	allGraphs, err := RunGraph(context.Background(), graphs, Options{Replicates: reps, Seed: 7, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for r := range reps {
		one, err := Run(context.Background(), cfgs, Options{Replicates: 1, Seed: 7, First: r, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i := range cfgs {
			// Sprint, not DeepEqual: a quantile with no success is NaN.
			if got, want := fmt.Sprint(all[i].replicates[r]), fmt.Sprint(one[i].replicates[0]); got != want {
				t.Errorf("%s replicate %d after another: %.300s\nalone: %.300s", cfgs[i].Name, r, got, want)
			}
		}
		oneGraph, err := RunGraph(context.Background(), graphs, Options{Replicates: 1, Seed: 7, First: r, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i := range graphs {
			if got, want := fmt.Sprint(allGraphs[i].replicates[r]), fmt.Sprint(oneGraph[i].replicates[0]); got != want {
				t.Errorf("%s replicate %d after another: %.300s\nalone: %.300s", graphs[i].Name, r, got, want)
			}
		}
	}
	if all[0].replicates[1].Events == all[0].replicates[0].Events {
		t.Error("replicates 0 and 1 ran the same number of events: the test compares nothing")
	}
}
