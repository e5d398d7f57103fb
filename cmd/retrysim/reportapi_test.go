package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/report"
	"github.com/retrysim/retrysim/strategy"
)

// documentFormats are the formats every document of package report is
// written in (its images aside).
var documentFormats = []report.Format{report.Table, report.Markdown, report.CSV, report.JSON, report.HTML}

// written is what rep writes, failing the test on an error.
func written(t *testing.T, r report.Reporter, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Report(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// command is what the command prints for args, failing the test unless it
// succeeds.
func command(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := retrysim(t, args...)
	if code != 0 {
		t.Fatalf("retrysim %q: status %d: %s", args, code, errOut)
	}
	return out
}

// TestReportPackageIsTheCommands runs experiments in Go, renders their
// reports with package report in every format, and compares the bytes
// with the command's for the same run: the sign-up, with and without
// expectations and intervals; the delivery model; a scenario file.
func TestReportPackageIsTheCommands(t *testing.T) {
	strategies, err := api.ParseStrategies(strategy.DefaultIDs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	signup := api.Experiment{Scenario: api.DefaultScenario(), Strategies: strategies, Jobs: 50_000, Seed: 1}
	q := delivery.Defaults()
	queued := signup
	queued.Delivery = &q
	loaded, err := scenario.LoadJob("../../examples/checkout.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := signup
	file.Scenario, file.Delivery, *jobapi.ScenarioFile(&file) = loaded.Scenario, loaded.Queue, "../../examples/checkout.yaml"
	for _, tc := range []struct {
		name string
		e    api.Experiment
		opts report.Options
		args []string
	}{
		{"sign-up", signup, report.Options{}, nil},
		{"sign-up, intervals and expectations", signup, report.Options{Intervals: true, Expect: true}, []string{"-ci", "-expect"}},
		{"delivery model", queued, report.Options{Intervals: true}, []string{"-model", "delivery", "-ci"}},
		{"scenario file", file, report.Options{}, []string{"-scenario", "../../examples/checkout.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := api.Run(context.Background(), tc.e)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range documentFormats {
				tc.opts.Format = f
				r, err := report.NewReport(rep, tc.opts)
				got := written(t, r, err)
				want := command(t, append([]string{"-jobs", "50000", "-format", string(f)}, tc.args...)...)
				if got != want {
					t.Errorf("%s from Go differs from the command's:\n got %.600s\nwant %.600s", f, got, want)
				}
			}
		})
	}
}

// TestReportSweepIsTheCommands renders a sweep run in Go in every format
// and compares the bytes with the command's.
func TestReportSweepIsTheCommands(t *testing.T) {
	strategies, err := api.ParseStrategies(strategy.DefaultIDs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	sw := api.Sweep{Experiment: api.Experiment{Strategies: strategies, Seed: 1}, Axes: []api.Axis{
		{Name: "p_fail", Values: []float64{0.01, 0.02}}, {Name: "jobs", Values: []float64{20_000}}}}
	s, err := api.RunSweep(context.Background(), sw)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range documentFormats {
		r, err := report.NewSweep(s, report.Options{Format: f})
		got := written(t, r, err)
		want := command(t, "sweep", "-p-fail", "0.01,0.02", "-jobs", "20000", "-format", string(f))
		if got != want {
			t.Errorf("%s from Go differs from the command's:\n got %.600s\nwant %.600s", f, got, want)
		}
	}
	plot := filepath.Join(t.TempDir(), "sweep.svg")
	command(t, "sweep", "-p-fail", "0.01,0.02", "-jobs", "20000", "-log-y", "-plot", plot)
	r, err := report.NewSweep(s, report.Options{Format: report.SVG, LogY: true})
	if got, want := written(t, r, err), readFile(t, plot); got != want {
		t.Errorf("the plot drawn from Go differs from the command's -plot")
	}
}

// readFile is the file at path, failing the test on an error.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestReportFleetIsTheCommands runs the fleet model in Go, renders the run
// in every format and as an svg plot, and compares the bytes with the
// command's. The run is short (2 s): the bytes must match whatever the
// duration.
func TestReportFleetIsTheCommands(t *testing.T) {
	one := fleet.DefaultConfig()
	one.Duration = 2 * time.Second
	opts := fleet.Options{Replicates: 2, Seed: 1, Workers: 2}
	res, err := fleet.Run(context.Background(), []fleet.Config{one}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range documentFormats {
		r, err := report.NewFleet(res, opts, report.Options{Format: f})
		got := written(t, r, err)
		want := command(t, "fleet", "-duration", "2s", "-replicates", "2", "-format", string(f))
		if got != want {
			t.Errorf("%s from Go differs from the command's:\n got %.600s\nwant %.600s", f, got, want)
		}
	}
	plot := filepath.Join(t.TempDir(), "plot.svg")
	command(t, "fleet", "-duration", "2s", "-replicates", "2", "-plot", plot)
	r, err := report.NewFleet(res, opts, report.Options{Format: report.SVG})
	if got, want := written(t, r, err), readFile(t, plot); got != want {
		t.Errorf("the plot drawn from Go differs from the command's -plot")
	}
}

// TestReportMarshalIsTheCommandsJSON marshals a Report with encoding/json:
// indented as the command indents, the bytes are its -format json.
func TestReportMarshalIsTheCommandsJSON(t *testing.T) {
	strategies, err := api.ParseStrategies(strategy.DefaultIDs(), 3)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := api.Run(context.Background(), api.Experiment{Scenario: api.DefaultScenario(), Strategies: strategies, Jobs: 50_000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := jsonIndent(rep)
	if err != nil {
		t.Fatal(err)
	}
	if want := command(t, "-jobs", "50000", "-format", "json"); got != want {
		t.Errorf("json.MarshalIndent(report) differs from -format json:\n got %.600s\nwant %.600s", got, want)
	}
}

// jsonIndent is v as json.MarshalIndent writes it, two spaces, then a newline.
func jsonIndent(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b) + "\n", err
}
