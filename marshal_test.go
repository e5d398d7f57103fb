package retrysim_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// TestReportJSONRoundTrip marshals reports with encoding/json and reads them
// back: the parameters, the watched steps (each step, name and label), a
// scenario file's steps' own policies, the counters the json carries, and a
// strategy that repeats nothing come back, and the report read back
// marshals to the same bytes. The sign-up's json names no watched step (the
// Part 5 outputs); reading it back gives the sign-up's.
func TestReportJSONRoundTrip(t *testing.T) {
	loaded, err := scenario.LoadJob("examples/checkout.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := article(t, 20_000, "")
	file.Scenario, *jobapi.ScenarioFile(&file) = loaded.Scenario, "examples/checkout.yaml"
	two := article(t, 20_000, "")
	two.Scenario.Name = "two watched"
	two.Scenario.Watched = append(two.Scenario.Watched, provider.Watch{Step: 2, Label: "Workspaces made twice"})
	for _, tc := range []struct {
		name string
		e    retrysim.Experiment
	}{{"sign-up", article(t, 20_000, "")}, {"two watched steps", two}, {"a scenario file's steps and policies", file}} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := retrysim.Run(context.Background(), tc.e)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			var back retrysim.Report
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			want := rep.Params()
			if tc.name != "sign-up" { // only titles show them, and the json does not carry them
				want.Noun, want.LossyStep = "", ""
			}
			if !reflect.DeepEqual(back.Params(), want) {
				t.Errorf("parameters read back:\n got %+v\nwant %+v", back.Params(), want)
			}
			if len(back.Rows) != len(rep.Rows) {
				t.Fatalf("%d rows read back; want %d", len(back.Rows), len(rep.Rows))
			}
			for i, r := range rep.Rows {
				b, c := back.Rows[i], (*r.Stats())
				bc := (*b.Stats())
				if b.ID != r.ID || b.Label != r.Label || b.NoRepeats() != r.NoRepeats() || bc.Jobs != c.Jobs || bc.Failed != c.Failed ||
					bc.Calls != c.Calls || bc.RepeatedSteps != c.RepeatedSteps || bc.DuplicateUsers != c.DuplicateUsers ||
					bc.CallsSq != c.CallsSq || bc.RepeatedSq != c.RepeatedSq {
					t.Errorf("row %d read back as %+v; want %+v", i, b, r)
				}
				for k, w := range rep.Params().Watched {
					if got, want := bc.Twice(k, w), c.Twice(k, w); got != want {
						t.Errorf("row %d, watched step %q: %d jobs twice read back; want %d", i, w.Name, got, want)
					}
				}
			}
			again, err := json.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(data) {
				t.Errorf("the report read back marshals otherwise:\n got %s\nwant %s", again, data)
			}
		})
	}
}

// TestReportJSONDeliveryCounters reads back a delivery model's report: the
// step names of its table by step, and its deliveries, lost work and repeats
// by step. Its completion times the json holds as quantiles only.
func TestReportJSONDeliveryCounters(t *testing.T) {
	q := delivery.Defaults()
	q.CrashP = 0.05
	e := article(t, 20_000, "")
	e.Delivery = &q
	rep, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back retrysim.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := back.Params().Delivery.StepNames, rep.Params().Delivery.StepNames; !reflect.DeepEqual(got, want) {
		t.Errorf("step names read back %q; want %q", got, want)
	}
	for i, r := range rep.Rows {
		b, c := (*back.Rows[i].Stats()), (*r.Stats())
		if b.Deliveries != c.Deliveries || b.LostWork != c.LostWork || b.RepeatedByStep != c.RepeatedByStep || b.Deliveries <= b.Jobs {
			t.Errorf("%s: read back %d deliveries, %d lost, %v by step; want %d, %d, %v (more deliveries than jobs)",
				r.ID, b.Deliveries, b.LostWork, b.RepeatedByStep[:10], c.Deliveries, c.LostWork, c.RepeatedByStep[:10])
		}
	}
}

// A report read back from its json holds the experiment's echoed Jobs,
// Seed, Generator, Engine and Replicates, as the report it was written from
// resolved them.
func TestUnmarshalEchoesExperiment(t *testing.T) {
	e := retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}},
		Jobs: 2000, Seed: 9, Replicates: 2}
	rep, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back retrysim.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	got, ran := back.Experiment, rep.Experiment
	if got.Jobs != 2000 || got.Seed != 9 || got.Replicates != 2 || got.Generator != "pcg" || got.Generator != ran.Generator || got.Engine != ran.Engine || ran.Engine == "" {
		t.Errorf("read back: jobs %d, seed %d, replicates %d, generator %q, engine %q; the run's %q, %q (want 2000, 9, 2, pcg)",
			got.Jobs, got.Seed, got.Replicates, got.Generator, got.Engine, ran.Generator, ran.Engine)
	}
}
