package retrysim_test

import (
	"context"
	"fmt"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Is retrying each step with the same key better than with no key, on the
// users who get the welcome email twice? With no key, about 0.5% do (the
// email's reply is lost 0.5% of the time and the retry sends it again);
// with the key none can, since the provider has seen the key: over 200,000
// sign-ups the difference is about 1,000 users, far beyond chance.
func ExampleCompare() {
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{
		Scenario: retrysim.DefaultScenario(),
		Strategies: []strategy.Strategy{
			strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.NoKeys},
			strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey},
		},
		Jobs: 200_000,
		Seed: 1,
	})
	if err != nil {
		panic(err)
	}
	c, err := retrysim.Compare(&rep.Rows[0], &rep.Rows[1], "duplicate_rate")
	if err != nil {
		panic(err)
	}
	fmt.Println(c.P < 0.05, c.Better(), c.P < 1e-9, c.Diff.Hi < 0)
	// Output: true true true true
}
