package tune_test

import (
	"context"
	"fmt"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/tune"
)

// The fewest attempts a step that keep failed sign-ups under 1 in 10,000
// when each call fails 5% of the time: a job of ten steps fails with
// probability 1-(1-0.05^a)^10, 1.25e-3 at 3 attempts and 6.25e-5 at 4.
func Example() {
	strategies, err := retrysim.ParseStrategies([]string{"step-samekey"}, 3)
	if err != nil {
		panic(err)
	}
	e := retrysim.Experiment{Scenario: provider.Signup(0.05, 0), Strategies: strategies, Seed: 1}
	res, err := tune.Run(context.Background(), e, tune.Search{
		Set:       []string{"attempts=2:5:4"},
		Objective: "attempts",
		Require:   []string{"failed_rate<=1e-4"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("best:", res.Best.Settings)
	for _, c := range res.Candidates {
		j := c.Judged[0]
		fmt.Printf("attempts=%d %-6s failed_rate %.3g [%.3g, %.3g] %s\n", c.Settings["attempts"], c.Status, j.Estimate.Value, j.Estimate.Lo, j.Estimate.Hi, j.Verdict)
	}
	fmt.Println("jobs:", res.Spent)
	// Output:
	// best: map[attempts:4]
	// attempts=2 fails  failed_rate 0.0273 [0.0242, 0.0307] fails
	// attempts=3 fails  failed_rate 0.0012 [0.00062, 0.0021] fails
	// attempts=4 best   failed_rate 5.48e-05 [3.19e-05, 8.78e-05] holds
	// attempts=5 beaten failed_rate 0 [0, 5.27e-05] holds
	// jobs: 400000
}
