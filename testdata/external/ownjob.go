// Package ownjob is a team's own job and strategy for retrysim, written
// outside its module as any importer would write them: it sees only
// github.com/retrysim/retrysim and its public packages. The main module's
// TestExternalModule builds and tests it as a module of its own.
package ownjob

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// Budget retries each step with the same key, but gives up the job once a
// delivery has retried Retries times in all, across its steps: a bound on
// what one job can cost that a per-step attempt count does not give.
type Budget struct {
	Retries int
}

// NewBudget is Budget with its fast path: it calls each step once, in
// order, while calls succeed, so the engines may settle its clean starts
// and the skip engine may run it. The opt-in is explicit (a
// strategy.Straight), never found on a type by its methods.
func NewBudget(retries int) strategy.Straight {
	b := Budget{Retries: retries}
	return strategy.Straight{Strategy: b, Resume: b.Resume}
}

// Name is the row's label.
func (b Budget) Name() string { return fmt.Sprintf("Same key, %d retries a job", b.Retries) }

// UsesStore is false: the strategy keeps no store of finished steps of its own.
func (b Budget) UsesStore() bool { return false }

// Run drives one delivery.
func (b Budget) Run(c strategy.Calls) bool { return b.Resume(c, 0) }

// Resume drives a delivery from step from on; the steps before it were each
// called once and succeeded, which cost no retry. Every call sends the
// step's own key, the same on every attempt.
func (b Budget) Resume(c strategy.Calls, from int) bool {
	left := b.Retries
	for i := from; i < c.Steps(); i++ {
		if c.Enter(i) {
			continue
		}
		for n := 0; c.Call(i, provider.StepKey) != provider.ReplyOK; n++ {
			if left == 0 {
				return false
			}
			left--
			c.Backoff(i, n)
		}
	}
	return true
}

// Counted is the library's Retry with the team's bookkeeping: its Run
// counts the deliveries it drives, then runs the Retry. It embeds the Retry
// for its name and store; the engines still run its own Run, which they
// call from several goroutines at once, hence the atomic counter.
type Counted struct {
	strategy.Retry
	Runs *atomic.Int64
}

// Run counts the delivery and drives it as the Retry does.
func (c Counted) Run(calls strategy.Calls) bool {
	c.Runs.Add(1)
	return c.Retry.Run(calls)
}

// Name tells the row from the plain Retry's.
func (c Counted) Name() string { return c.Retry.Name() + ", counted" }

// Invoice is the team's job: look the order up, charge the card (the
// payment provider honours keys, and its reply can be lost), render the
// invoice and email it (no key, so a lost reply and a retry send it twice).
// The charge and the email are watched, each in its own column.
func Invoice() provider.Scenario {
	ms := func(n int) provider.Latency { return provider.Latency{Median: time.Duration(n) * time.Millisecond} }
	return provider.Scenario{
		Name: "invoice",
		Noun: "invoices",
		Steps: []provider.Step{
			{Name: "look the order up", PFail: 0.02, Latency: ms(5)},
			{Name: "charge the card", PFail: 0.05, CanLoseReply: true, LostReply: 0.01, HonoursKeys: true,
				Latency: provider.Latency{Median: 300 * time.Millisecond, P99: 2 * time.Second}},
			{Name: "render the invoice", PFail: 0.03, Latency: ms(50)},
			{Name: "email the invoice", PFail: 0.04, CanLoseReply: true, LostReply: 0.02, Latency: ms(100)},
		},
		Watched: []provider.Watch{{Step: 1, Label: "Invoices charged twice"}, {Step: 3, Label: "Invoices emailed twice"}},
	}
}
