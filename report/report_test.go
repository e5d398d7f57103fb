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

// TestImages draws a sweep's and a fleet run's plots as png and svg: each
// starts as its encoding does.
func TestImages(t *testing.T) {
	strategies, err := retrysim.ParseStrategies([]string{"step-nokey", "job-samekey"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	s, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: strategies, Seed: 1}, Axes: []retrysim.Axis{{Name: "p_fail", Values: []float64{0.01, 0.02}}, {Name: "jobs", Values: []float64{2000}}}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := fleet.DefaultConfig()
	cfg.Duration = 3 * time.Second
	res, err := fleet.Run(context.Background(), []fleet.Config{cfg}, fleet.Options{Replicates: 1, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	run := fleet.Options{Replicates: 1, Seed: 1}
	png, svg := []byte("\x89PNG\r\n"), []byte("<?xml")
	for _, tc := range []struct {
		name  string
		r     func() (report.Reporter, error)
		start []byte
	}{
		{"sweep png", func() (report.Reporter, error) { return report.NewSweep(s, report.Options{Format: report.PNG}) }, png},
		{"sweep svg", func() (report.Reporter, error) {
			return report.NewSweep(s, report.Options{Format: report.SVG, LogY: true})
		}, svg},
		{"fleet png", func() (report.Reporter, error) { return report.NewFleet(res, run, report.Options{Format: report.PNG}) }, png},
		{"fleet svg", func() (report.Reporter, error) { return report.NewFleet(res, run, report.Options{Format: report.SVG}) }, svg},
	} {
		r, err := tc.r()
		if got := bytesOf(t, r, err); !bytes.HasPrefix(got, tc.start) {
			t.Errorf("%s starts %q; want %q", tc.name, got[:min(len(got), 20)], tc.start)
		}
	}
}

// TestRefused names what cannot be written: an unknown format, a report
// drawn as an image, expectations of the delivery model, a log scale or a
// plot the sweep does not have, a fleet run without its results.
func TestRefused(t *testing.T) {
	q := delivery.Defaults()
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Jobs: 1000, Seed: 1, Delivery: &q,
		Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}, Seed: 1}, Axes: []retrysim.Axis{{Name: "jobs", Values: []float64{1000, 2000}}}})
	if err != nil {
		t.Fatal(err)
	}
	s0, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}, Seed: 1}, Axes: []retrysim.Axis{{Name: "jobs", Values: []float64{1000}}}})
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
		{"a report as an image", second(report.NewReport(rep, report.Options{Format: report.PNG})), `unknown format "png" (want one of table, markdown, csv, json, html)`},
		{"log scale of no line plot", second(report.NewSweep(s0, report.Options{Format: report.HTML, LogY: true})), "Options.LogY shapes a line plot, of one swept parameter; this sweep has 0"},
		{"plot of no swept parameter", second(report.NewSweep(s0, report.Options{Format: report.SVG})), "a plot needs one or two swept parameters; this sweep has 0"},
		{"unknown sweep format", second(report.NewSweep(s, report.Options{Format: "gif"})), `unknown format "gif" (want one of table, markdown, csv, json, html)`},
		{"fleet run without results", second(report.NewFleet(nil, fleet.Options{}, report.Options{Format: report.JSON})), "NewFleet: no results"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, tc.err, tc.want)
		}
	}
}

// second is a constructor's error.
func second(_ report.Reporter, err error) error { return err }
