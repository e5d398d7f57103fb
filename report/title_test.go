package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/report"
	"github.com/retrysim/retrysim/strategy"
)

// The title of a scenario built in Go says what ran: steps failing at
// 0.1%, 30% and 50% are named so, not by the first step's rate (issue 37:
// "each call fails 0.1% of the time" above a 40.9% success rate), and a
// scenario with no Noun counts "jobs" (it read "1,000 , 3 steps").
func TestTitleOfAScenarioBuiltInGo(t *testing.T) {
	sc := provider.Scenario{Name: "checkout",
		Steps: []provider.Step{
			{Name: "reserve", PFail: 0.001},
			{Name: "charge", PFail: 0.3, CanLoseReply: true, LostReply: 0.02, HonoursKeys: true},
			{Name: "ship", PFail: 0.5},
		},
		Watched: []provider.Watch{{Step: 1}}}
	for _, tc := range []struct {
		name  string
		sc    func(provider.Scenario) provider.Scenario
		title string
	}{
		{"rates that differ", func(sc provider.Scenario) provider.Scenario { return sc },
			`1,000 jobs, 3 steps, calls fail 0.1%, 30%, 50% of the time, step by step, the reply to "charge" is lost 2% of the time, up to 3 attempts; pcg, seed 1`},
		{"one rate", func(sc provider.Scenario) provider.Scenario {
			sc.Steps = append([]provider.Step(nil), sc.Steps...)
			for i := range sc.Steps {
				sc.Steps[i].PFail = 0.3
			}
			sc.Noun = "checkouts"
			return sc
		}, `1,000 checkouts, 3 steps, each call fails 30% of the time, the reply to "charge" is lost 2% of the time, up to 3 attempts; pcg, seed 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: tc.sc(sc),
				Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}, Jobs: 1000, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			r, err := report.NewReport(rep, report.Options{Format: report.Markdown})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := r.Report(&b); err != nil {
				t.Fatal(err)
			}
			if first, _, _ := strings.Cut(b.String(), "\n"); !strings.Contains(first, tc.title) {
				t.Errorf("title = %q; want it to hold %q", first, tc.title)
			}
		})
	}
}
