package report_test

import (
	"context"
	"os"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/report"
	"github.com/retrysim/retrysim/strategy"
)

// The article's table as markdown: the bytes `retrysim -rng mulberry32
// -format markdown` prints, which reproduce the Part 5 post's table digit
// for digit (cmd/retrysim/testdata/article.markdown).
func ExampleNewReport() {
	strategies, err := retrysim.ParseStrategies(strategy.DefaultIDs(), 3)
	if err != nil {
		panic(err)
	}
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: strategies,
		Jobs: 1_000_000, Seed: 1, Generator: "mulberry32"})
	if err != nil {
		panic(err)
	}
	r, err := report.NewReport(rep, report.Options{Format: report.Markdown})
	if err != nil {
		panic(err)
	}
	if err := r.Report(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// **1,000,000 sign-ups, 10 steps, each call fails 1% of the time, the reply to "send the welcome email" is lost 0.5% of the time, up to 3 attempts; mulberry32, seed 1**
	//
	// | Strategy                                           | Succeeded | Failed jobs | Calls per job | Steps done again | Users with 2+ welcome emails |
	// |:---------------------------------------------------|----------:|------------:|--------------:|-----------------:|-----------------------------:|
	// | Retry each step, no key                            |   99.999% |          11 |         10.11 |            4,971 |                        4,939 |
	// | Retry each step, new key on every call             |   99.999% |          11 |         10.11 |            4,971 |                        4,939 |
	// | Retry each step, same key every time               |   99.999% |          11 |         10.11 |                0 |                            0 |
	// | Retry the whole job, same key                      |   99.900% |         995 |          10.6 |          464,233 |                            0 |
	// | Retry the whole job, same key, skip finished steps |   99.975% |         250 |         10.11 |                0 |                            0 |
}
