package fleet

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/stats"
)

// TestCheckReplicateTakesRuns: every replicate of the first and last run of
// every preset (at its duration, with a spike and an outage too) passes CheckReplicate, and the map
// cells' observations CheckObservations, so a merge refuses no real shard.
func TestCheckReplicateTakesRuns(t *testing.T) {
	var cfgs []Config
	for _, p := range Presets() {
		runs := p.Runs(p.Duration)
		cfgs = append(cfgs, runs[0], runs[len(runs)-1])
	}
	spike := DefaultConfig()
	spike.Duration, spike.Load.Kind, spike.Load.From, spike.Load.To, spike.Load.Peak = 40*time.Second, Spike, 5*time.Second, 10*time.Second, 3*spike.Load.Rate
	out := DefaultConfig()
	out.Duration, out.Outage.From, out.Outage.To = 40*time.Second, 5*time.Second, 8*time.Second
	cfgs = append(cfgs, spike, out)
	opts := Options{Replicates: 2, Seed: 1, Workers: 1}
	res, err := Run(context.Background(), cfgs, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		for k := range r.replicates {
			if err := cfgs[i].checkReplicate(&r.replicates[k]); err != nil {
				t.Errorf("run %d (%s), replicate %d: %v", i, cfgs[i].Name, k, err)
			}
		}
		if err := cfgs[i].checkObservations(r.observations(), opts.Replicates); err != nil {
			t.Errorf("run %d (%s): observations: %v", i, cfgs[i].Name, err)
		}
	}
}

// TestCheckReplicateRefuses: a replicate of another run's length, with
// impossible totals, quantiles out of order or a recovery its series does
// not give is refused, naming what is wrong.
func TestCheckReplicateRefuses(t *testing.T) {
	c := DefaultConfig()
	c.Duration, c.Load.Kind, c.Load.From, c.Load.To, c.Load.Peak = 20*time.Second, Spike, 2*time.Second, 4*time.Second, 3*c.Load.Rate
	res, err := Run(context.Background(), []Config{c}, Options{Replicates: 1, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	good := res[0].replicates[0]
	if err := c.checkReplicate(&good); err != nil {
		t.Fatalf("the run's own replicate: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(r *fleetdata.Replicate)
		want string
	}{
		{"short series", func(r *fleetdata.Replicate) { r.Series = r.Series[:5] }, "series: 5 seconds; the run has 20"},
		{"negative", func(r *fleetdata.Replicate) { r.Calls = -1 }, "calls: -1 is negative"},
		{"more succeeded", func(r *fleetdata.Replicate) { r.Succeeded = r.Requests + 1 }, "more than the"},
		{"duplicates", func(r *fleetdata.Replicate) { r.Duplicates = r.Effects + 1 }, "more than the"},
		{"quantiles", func(r *fleetdata.Replicate) { r.P95 = r.P99 + 25026 }, "not in order"},
		{"nan end", func(r *fleetdata.Replicate) { r.End = math.NaN() }, "end: NaN"},
		{"starts", func(r *fleetdata.Replicate) {
			r.Series = append([]fleetdata.Second(nil), r.Series...)
			r.Series[3].Starts++
		}, "requests start in it"},
		{"recovery", func(r *fleetdata.Replicate) { r.Recovery++ }, "recovery:"},
		// Found by a review's forged shards: a series served beside 0
		// succeeded, timeouts 100 times the calls, counts past the cost bound.
		{"served, none succeeded", func(r *fleetdata.Replicate) {
			r.Series = append([]fleetdata.Second(nil), r.Series...)
			for i := range r.Series {
				r.Series[i].Served = r.Series[i].Starts
			}
			r.Succeeded, r.Failed = 0, 0
		}, "served and"},
		{"served beyond starts", func(r *fleetdata.Replicate) {
			r.Series = append([]fleetdata.Second(nil), r.Series...)
			r.Series[3].Served = r.Series[3].Starts + 1
		}, "requests served"},
		{"timeouts", func(r *fleetdata.Replicate) { r.Timeouts = 100 * r.Calls }, "one is more than the"},
		{"events", func(r *fleetdata.Replicate) { r.Events = 1 << 62 }, "beyond what a run of these settings reaches"},
		{"calls", func(r *fleetdata.Replicate) { r.Calls, r.Entered = 1<<62, 1<<62 }, "beyond what a run of these settings reaches"},
	} {
		r := good
		tc.edit(&r)
		if err := c.checkReplicate(&r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.want)
		}
	}
	obs := res[0].observations()
	for _, tc := range []struct {
		name string
		obs  []stats.Observation
		want string
	}{
		{"too many", append(obs, obs...), "2 replicates; the run has 1"},
		{"negative", []stats.Observation{{Time: -1, Recovered: true}}, "not from 0 to 16 s"},
		{"late", []stats.Observation{{Time: 17, Recovered: true}}, "not from 0 to 16 s"},
		{"down early", []stats.Observation{{Time: 3}}, "censored at 16 s"},
	} {
		if err := c.checkObservations(tc.obs, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("observations %s: %v; want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestGraphCheckReplicate: every replicate of every graph preset and worker
// fleet preset (at 30 s, so that their outages fall in it or not) passes
// Graph.CheckReplicate, and a replicate of another shape, with a negative
// count, successes beyond its requests, quantiles out of order or a drain
// its series does not give is refused, naming what is wrong.
func TestGraphCheckReplicate(t *testing.T) {
	var graphs []Graph
	for _, p := range GraphPresets() {
		graphs = append(graphs, p.Runs(30*time.Second)...)
	}
	for _, p := range WorkersPresets() {
		for _, w := range p.Runs(30 * time.Second) {
			graphs = append(graphs, w.Graph())
		}
	}
	res, err := RunGraph(context.Background(), graphs, Options{Replicates: 2, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		for k := range r.replicates {
			if err := graphs[i].checkReplicate(&r.replicates[k]); err != nil {
				t.Errorf("graph %d, replicate %d: %v", i, k, err)
			}
		}
	}
	g, good := &graphs[0], res[0].replicates[0]
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
		if err := g.checkReplicate(&r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckReplicate = %v; want an error with %q", tc.name, err, tc.want)
		}
	}
}
