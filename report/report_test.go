package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/report"
	"github.com/retrysim/retrysim/strategy"
)

// bytesOf is what r writes, failing the test on an error.
func bytesOf(t *testing.T, r report.Reporter, err error) []byte {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Report(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImagesAndSeries draws a sweep's and a fleet run's plots as png and
// svg and writes the fleet run's series as csv and json: each starts as
// its encoding does.
func TestImagesAndSeries(t *testing.T) {
	strategies, err := retrysim.ParseStrategies([]string{"step-nokey", "job-samekey"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	s, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{Strategies: strategies, Seed: 1,
		Axes: []retrysim.Axis{{Name: "p_fail", Values: []float64{0.01, 0.02}}, {Name: "jobs", Values: []float64{2000}}}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := fleet.DefaultConfig()
	cfg.Duration = 3 * time.Second
	res, err := fleet.Run(context.Background(), []fleet.Config{cfg}, fleet.Options{Replicates: 1, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	run := report.FleetRun{Configs: []fleet.Config{cfg}, Results: res, Replicates: 1, Seed: 1}
	png, svg := []byte("\x89PNG\r\n"), []byte("<?xml")
	for _, tc := range []struct {
		name  string
		r     func() (report.Reporter, error)
		start []byte
	}{
		{"sweep png", func() (report.Reporter, error) { return report.NewSweepPlot(s, report.PNG, report.PlotOptions{}) }, png},
		{"sweep svg", func() (report.Reporter, error) {
			return report.NewSweepPlot(s, report.SVG, report.PlotOptions{LogY: true})
		}, svg},
		{"fleet png", func() (report.Reporter, error) { return report.NewFleetPlot(run, report.PNG) }, png},
		{"fleet series csv", func() (report.Reporter, error) { return report.NewFleetSeries(run, report.CSV) }, []byte("run,t,")},
		{"fleet series json", func() (report.Reporter, error) { return report.NewFleetSeries(run, report.JSON) }, []byte("[\n  {")},
	} {
		r, err := tc.r()
		if got := bytesOf(t, r, err); !bytes.HasPrefix(got, tc.start) {
			t.Errorf("%s starts %q; want %q", tc.name, got[:min(len(got), 20)], tc.start)
		}
	}
}

// TestRefused names what cannot be written: an unknown format or image,
// expectations of the delivery model, opposite scales, a scale the plot
// does not have, a fleet run without its results.
func TestRefused(t *testing.T) {
	q := delivery.Defaults()
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Jobs: 1000, Seed: 1, Delivery: &q,
		Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}, Seed: 1,
		Axes: []retrysim.Axis{{Name: "jobs", Values: []float64{1000, 2000}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"unknown format", second(report.NewReport(rep, report.Options{Format: "yaml"})), `unknown format "yaml" (want one of table, markdown, csv, json, html)`},
		{"expect of the delivery model", second(report.NewReport(rep, report.Options{Expect: true})), "Options.Expect: the closed forms cover the job model, not the delivery model"},
		{"opposite scales", second(report.NewSweepPlot(s, report.PNG, report.PlotOptions{LogY: true, LinearY: true})), "PlotOptions: LogY and LinearY ask for opposite scales; set one"},
		{"heat maps of one parameter", second(report.NewSweep(s, report.SweepOptions{Format: report.HTML, Plot: report.PlotOptions{OwnScales: true}})), "PlotOptions: OwnScales shapes heat maps, of two swept parameters; this sweep has 1"},
		{"unknown image", second(report.NewSweepPlot(s, "gif", report.PlotOptions{})), `unknown image "gif" (want png or svg)`},
		{"fleet run without results", second(report.NewFleet(report.FleetRun{Configs: []fleet.Config{fleet.DefaultConfig()}}, report.JSON)), "FleetRun: 1 configurations and 0 results; want one result a configuration, at least one"},
		{"unknown preset", second(report.NewFleet(report.FleetRun{Preset: "nope", Configs: []fleet.Config{fleet.DefaultConfig()}, Results: make([]fleet.Result, 1)}, report.JSON)), `FleetRun: unknown preset "nope" (want brooker-collapse,`},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, tc.err, tc.want)
		}
	}
}

// second is a constructor's error.
func second(_ report.Reporter, err error) error { return err }
