package fleetpreset

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
)

// TestCheckReplicateTakesRuns: every replicate of the first and last run of
// every preset (at its duration, with a spike and an outage too) passes CheckReplicate, and the map
// cells' observations CheckObservations, so a merge refuses no real shard.
func TestCheckReplicateTakesRuns(t *testing.T) {
	var cfgs []fleet.Config
	for _, p := range Presets() {
		runs := p.Runs(p.Duration)
		cfgs = append(cfgs, runs[0], runs[len(runs)-1])
	}
	spike := fleet.DefaultConfig()
	spike.Duration, spike.Load.Kind, spike.Load.From, spike.Load.To, spike.Load.Peak = 40*time.Second, fleet.SpikeLoad, 5*time.Second, 10*time.Second, 3*spike.Load.Rate
	out := fleet.DefaultConfig()
	out.Duration, out.Outage.From, out.Outage.To = 40*time.Second, 5*time.Second, 8*time.Second
	cfgs = append(cfgs, spike, out)
	opts := fleet.Options{Replicates: 2, Seed: 1, Workers: 1}
	res, err := fleet.Run(context.Background(), cfgs, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		for k := range fleetrun.Fleet().Replicates(r) {
			if err := fleetrun.Fleet().CheckReplicate(&cfgs[i], &fleetrun.Fleet().Replicates(r)[k]); err != nil {
				t.Errorf("run %d (%s), replicate %d: %v", i, cfgs[i].Name, k, err)
			}
		}
		if err := fleetrun.Fleet().CheckObservations(&cfgs[i], fleetrun.Fleet().Observations(r), opts.Replicates); err != nil {
			t.Errorf("run %d (%s): observations: %v", i, cfgs[i].Name, err)
		}
	}
}

// TestGraphCheckReplicate: every replicate of every graph preset and worker
// fleet preset (at 30 s, so that their outages fall in it or not) passes
// Graph.CheckReplicate, and a replicate of another shape, with a negative
// count, successes beyond its requests, quantiles out of order or a drain
// its series does not give is refused, naming what is wrong.
func TestGraphCheckReplicate(t *testing.T) {
	var graphs []fleet.Graph
	for _, p := range GraphPresets() {
		graphs = append(graphs, p.Runs(30*time.Second)...)
	}
	for _, p := range WorkersPresets() {
		for _, w := range p.Runs(30 * time.Second) {
			graphs = append(graphs, w.Graph())
		}
	}
	res, err := fleet.RunGraph(context.Background(), graphs, fleet.Options{Replicates: 2, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		for k := range fleetrun.Fleet().GraphReplicates(r) {
			if err := fleetrun.Fleet().CheckGraphReplicate(&graphs[i], &fleetrun.Fleet().GraphReplicates(r)[k]); err != nil {
				t.Errorf("graph %d, replicate %d: %v", i, k, err)
			}
		}
	}
	g, good := &graphs[0], fleetrun.Fleet().GraphReplicates(res[0])[0]
	for _, tc := range []struct {
		name string
		edit func(r *fleetdata.GraphReplicate)
		want string
	}{
		{"a service less", func(r *fleetdata.GraphReplicate) { r.Services = r.Services[1:] }, "services and"},
		{"negative events", func(r *fleetdata.GraphReplicate) { r.Events = -1 }, "events: -1, not from 0"},
		{"negative requests", func(r *fleetdata.GraphReplicate) { r.Edges[0].Requests = -3 }, "edges[0].requests: -3 is negative"},
		{"more successes", func(r *fleetdata.GraphReplicate) { r.Edges[0].Succeeded = r.Edges[0].Requests + 1 }, "edges[0]: succeeded"},
		{"short series", func(r *fleetdata.GraphReplicate) { r.Services[0].Series = r.Services[0].Series[1:] }, "services[0]: series of 29, 30 and 30 seconds; the run has 30"},
		{"quantiles", func(r *fleetdata.GraphReplicate) { r.Services[0].P50, r.Services[0].P95 = 2, 1 }, "services[0]: p50, p95, p99"},
		{"NaN wait", func(r *fleetdata.GraphReplicate) { r.Services[0].Wait = math.NaN() }, "services[0].wait: NaN is not a finite number"},
		{"drain", func(r *fleetdata.GraphReplicate) {
			r.Services[0].Drain, r.Services[0].DrainVerdict = 3, fleetdata.Recovered
		}, "services[0]: drained in 3 s"},
	} {
		r := good
		r.Services = append([]fleetdata.ServiceReplicate(nil), good.Services...)
		r.Edges = append([]fleetdata.EdgeReplicate(nil), good.Edges...)
		tc.edit(&r)
		if err := fleetrun.Fleet().CheckGraphReplicate(g, &r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckReplicate = %v; want an error with %q", tc.name, err, tc.want)
		}
	}
}
