package fleetrun

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
)

// Every hook is set once fleet is loaded, and each typed function calls its
// own: a nil or mistyped one would panic here, not in a command.
func TestEveryHook(t *testing.T) {
	if h == nil {
		t.Fatal("fleet set no hooks of its types")
	}
	v := reflect.ValueOf(Fleet())
	for i := range v.NumField() {
		if v.Field(i).IsNil() {
			t.Errorf("fleetdata.Hooks.%s is not set", v.Type().Field(i).Name)
		}
	}
	ctx := context.Background()
	cfg := fleet.DefaultConfig()
	cfg.Duration = 5 * time.Second
	res, err := fleet.Run(ctx, []fleet.Config{cfg}, fleet.Options{Replicates: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := h.Result(res[0].Config, h.Replicates(res[0]))
	if len(h.Replicates(r)) != 2 || h.Summary(r).Replicates != 2 || h.Totals(r).Requests == 0 || len(h.Series(r)) != 5 {
		t.Errorf("a fleet run's result made of its replicates: %+v", h.Summary(r))
	}
	_, _ = h.Observations(r), h.RecoveryCurve(r)
	_ = h.DuplicatesPerRequest(r)
	if err := h.CheckReplicate(&cfg, &h.Replicates(r)[0]); err != nil {
		t.Error(err)
	}
	if err := h.CheckObservations(&cfg, h.Observations(r), 2); err != nil {
		t.Error(err)
	}
	if _, err := SweepConfigs([]fleet.Config{cfg}, []string{"client.attempts"}, [][]string{{"2"}}); err != nil {
		t.Error(err)
	}
	if err := h.CheckCost([]fleet.Config{cfg}, fleet.Options{Replicates: 2}); err != nil {
		t.Error(err)
	}
	if s, p := h.SeriesBytes(&cfg), h.PathBytes(&cfg); !(0 < s && s < p) {
		t.Errorf("series %g bytes, a path %g; want a path to hold more than its series", s, p)
	}
	g := cfg.Graph()
	if err := h.CheckGraphCost([]fleet.Graph{g}, fleet.Options{Replicates: 2}); err != nil {
		t.Error(err)
	}
	if es := h.Edges(&g); len(es) != 1 || es[0] != (fleetdata.Edge{From: -1, Index: 0, To: 0}) {
		t.Errorf("a run's graph has edges %+v; want its one entry's", es)
	}
	if _, _, ok := h.OutageWindow(&g); ok {
		t.Error("a run without outage has an outage window")
	}
	gres, err := fleet.RunGraph(ctx, []fleet.Graph{g}, fleet.Options{Replicates: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	gr := h.GraphResult(gres[0].Graph, h.GraphReplicates(gres[0]))
	if len(h.GraphReplicates(gr)) != 2 || len(h.Rows(gr)) == 0 || len(h.GraphSeries(gr)) == 0 {
		t.Errorf("a graph run's result made of its replicates: %d rows", len(h.Rows(gr)))
	}
	if err := h.CheckGraphReplicate(&g, &h.GraphReplicates(gr)[0]); err != nil {
		t.Error(err)
	}
}
