package render

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/schema"
)

// sameEstimate reports whether a and b are the same figure, NaN equal to
// NaN.
func sameEstimate(a, b schema.Estimate) bool {
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return same(a.Value, b.Value) && same(a.Lo, b.Lo) && same(a.Hi, b.Hi)
}

// checkSummary holds a public fleet.Summary to the figures json writes of
// its row: every figure json writes with an interval (key, key_lo, key_hi)
// is the Summary's under the same key, every key the Summary has is one
// json writes, and a key it lacks is an error.
func checkSummary(t *testing.T, kind string, s fleet.Summary, json Figures, jsonKeys, keys []string) {
	t.Helper()
	for _, k := range jsonKeys {
		if !slices.Contains(jsonKeys, k+"_lo") {
			continue
		}
		got, err := s.Figure(k)
		if want := json.Get(k); err != nil || !sameEstimate(got, want) {
			t.Errorf("%s %q: Figure(%q) = %+v, %v; json writes %+v", kind, s.Run, k, got, err, want)
		}
	}
	for _, k := range keys {
		if !slices.Contains(jsonKeys, k) {
			t.Errorf("%s: Summary's figure %q is no key json writes", kind, k)
		}
	}
	if _, err := s.Figure("no_such_figure"); err == nil {
		t.Errorf("%s: Figure(no_such_figure) is no error", kind)
	}
}

// A fleet run's, a graph's and a worker fleet's public Summary read the
// figures json writes, under json's keys; their Series the figures the
// series' csv and json write, second by second.
func TestPublicFiguresAreJSONs(t *testing.T) {
	ctx := context.Background()
	opt := fleet.Options{Replicates: 3, Seed: 2}
	cfg := fleet.DefaultConfig()
	cfg.Duration = 40 * time.Second
	cfg.Load = fleet.Shape{Kind: fleet.SpikeLoad, Rate: 20, Peak: 60, From: 10 * time.Second, To: 15 * time.Second}
	res, err := fleet.Run(ctx, []fleet.Config{cfg}, opt)
	if err != nil {
		t.Fatal(err)
	}
	row := fleetrun.Fleet().Summary(res[0])
	checkSummary(t, "fleet", res[0].Summary(), FleetTable().Figures([]fleetdata.RunRow{row})[0], FleetTable().FigureKeys(), fleetdata.Keys(fleetdata.RunFigures()))
	reps := fleetrun.Fleet().Replicates(res[0])
	var requests, succeeded, calls float64 // the means over replicates, from the replicates
	for _, r := range reps {
		requests += float64(r.Requests) / 3
		succeeded += float64(r.Succeeded) / float64(r.Requests) / 3
		calls += float64(r.Calls) / float64(r.Requests) / 3
	}
	for key, want := range map[string]float64{"requests": requests, "succeeded": succeeded, "amplification": calls} {
		if got, _ := res[0].Summary().Figure(key); math.Abs(got.Value-want) > 1e-12 || got.N != 3 {
			t.Errorf("%s %+v; want the mean over the 3 replicates, %g", key, got, want)
		}
	}
	ser := res[0].Series()
	for _, c := range fleetSeries {
		vals, err := ser.Figure(c.key)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range fleetrun.Fleet().Series(res[0]) {
			if vals[i] != c.get(p) {
				t.Errorf("series %q second %d: %g; json writes %g", c.key, i, vals[i], c.get(p))
			}
		}
	}

	w := fleet.Workers{Name: "w", Duration: 30 * time.Second, Load: fleet.Shape{Kind: fleet.ConstantLoad, Rate: 20},
		Queue: fleet.Client{Attempts: 3, Timeout: fleet.NoVisibility}, WorkerCount: 50, QueueMax: limits.FleetQueue,
		Steps:        []fleet.WorkerStep{{To: "d", Client: fleet.Client{Attempts: 2}}},
		Dependencies: []fleet.Node{{Name: "d", Server: fleet.Server{Kind: fleet.IndependentServer, Base: time.Millisecond, PFail: 0.3}}}}
	gres, err := fleet.RunGraph(ctx, []fleet.Graph{w.Graph()}, opt)
	if err != nil {
		t.Fatal(err)
	}
	rows := fleetrun.Fleet().Rows(gres[0])
	sums := gres[0].Summaries()
	if len(sums) != len(rows) {
		t.Fatalf("%d summaries for %d rows", len(sums), len(rows))
	}
	for i, s := range sums {
		if s.Service != rows[i].Service || s.Run != rows[i].Run || s.Replicates != 3 {
			t.Errorf("summary %d names %q %q of %d replicates; the row %q %q", i, s.Run, s.Service, s.Replicates, rows[i].Run, rows[i].Service)
		}
		checkSummary(t, "graph", s, GraphTable().Figures(rows)[i], GraphTable().FigureKeys(), fleetdata.Keys(fleetdata.GraphFigures()))
	}
	checkSummary(t, "workers", gres[0].WorkersSummary(), WorkersTable().Figures(fleetrun.Fleet().WorkersRows(gres[0]))[0], WorkersTable().FigureKeys(), fleetdata.Keys(fleetdata.WorkersFigures()))
	pts := fleetrun.Fleet().GraphSeries(gres[0])
	for _, s := range gres[0].Series() {
		t0 := slices.IndexFunc(pts, func(p fleetdata.GraphPoint) bool { return p.Service == s.Service })
		for _, c := range graphSeries {
			vals, err := s.Figure(c.key)
			if err != nil || len(vals) != 30 {
				t.Fatalf("%s series %q: %d values, %v; want 30", s.Service, c.key, len(vals), err)
			}
			for i, v := range vals {
				if want := c.get(pts[t0+i]); v != want || pts[t0+i].T != i {
					t.Errorf("%s series %q second %d: %g; json writes %g", s.Service, c.key, i, v, want)
				}
			}
		}
	}
}
