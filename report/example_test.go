package report_test

import (
	"context"
	"os"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/report"
	"github.com/retrysim/retrysim/strategy"
)

// A run's report as markdown, with each figure's 95% interval: the bytes
// the retrysim command prints for the same run.
func ExampleNewReport() {
	strategies, err := retrysim.ParseStrategies(strategy.DefaultIDs(), 3)
	if err != nil {
		panic(err)
	}
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: retrysim.Signup(), Strategies: strategies, Jobs: 100_000, Seed: 1})
	if err != nil {
		panic(err)
	}
	r, err := report.NewReport(rep, report.Options{Format: report.Markdown, Intervals: true})
	if err != nil {
		panic(err)
	}
	if err := r.Report(os.Stdout); err != nil {
		panic(err)
	}
}
