package retrysim_test

import (
	"context"
	"fmt"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// "Our checkout double-charges fewer than 1 in a million": a five-step
// checkout whose card charge can lose its reply, each step retried three
// times, with and without the charge's idempotency key, over ten million
// checkouts. The assertion is on the 95% interval's upper bound, not on the
// count: no double charge in 10^7 checkouts bounds the rate by
// -ln(0.025)/10^7 = 3.7e-7 (Garwood's exact interval for a count of 0), under
// 10^-6. Without the key the charge is done twice when its reply is lost
// (0.2%) and a retry does it again: 0.99 x 0.002 x (0.99 + 0.01 x 0.99) plus
// 0.01 x 0.99 x 0.002 x 0.99, about 2.0e-3, whose interval is 2.0e-3 +- 3e-5.
func Example_checkout() {
	step := func(name string) provider.Step { return provider.Step{Name: name, PFail: 0.01} }
	charge := step("charge the card")
	charge.HonoursKeys, charge.CanLoseReply, charge.LostReply = true, true, 0.002
	checkout := provider.Scenario{
		Name:  "checkout",
		Steps: []provider.Step{step("reserve inventory"), charge, step("create the shipment"), step("send the receipt"), step("update the CRM")},
		// Duplicates are counted for the watched step: the charge.
		Watched: []provider.Watch{{Step: 1, Label: "Checkouts charged twice"}}, Noun: "checkouts",
	}
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{
		Scenario: checkout,
		Strategies: []strategy.Strategy{
			strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey},
			strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.NoKeys},
		},
		Jobs: 10_000_000,
		Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range rep.Rows {
		row := &rep.Rows[i] // a Row is 89 KB: read it in place
		twice, _ := row.Rate("duplicate_rate")
		fmt.Printf("%s: charged twice at most %.1g of the time; under 1 in a million: %t\n", row.Label, twice.Hi, twice.Hi < 1e-6)
	}
	// Output:
	// Retry each step, same key every time: charged twice at most 4e-07 of the time; under 1 in a million: true
	// Retry each step, no key: charged twice at most 0.002 of the time; under 1 in a million: false
}
