package ownjob_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// checkout is a five-step workflow built in Go, with its own attempts and
// keys on four steps (the run's are 3 attempts and a fresh key on every
// call) and two watched steps: the card, charged with the same key on every
// attempt, and the receipt, which has no key and two attempts.
func checkout() provider.Scenario {
	same, none := schema.SameKey, schema.NoKeys
	return provider.Scenario{
		Name: "checkout",
		Noun: "orders",
		Steps: []provider.Step{
			{Name: "reserve the stock", PFail: 0.2, HonoursKeys: true, Retry: provider.StepRetry{Attempts: 5, Keys: &same}},
			{Name: "charge the card", PFail: 0.1, CanLoseReply: true, LostReply: 0.05, HonoursKeys: true, Retry: provider.StepRetry{Attempts: 4, Keys: &same}},
			{Name: "write the ledger", PFail: 0.05},
			{Name: "send the receipt", PFail: 0.1, CanLoseReply: true, LostReply: 0.1, Retry: provider.StepRetry{Attempts: 2}},
			{Name: "notify the warehouse", PFail: 0.05, CanLoseReply: true, LostReply: 0.05, HonoursKeys: true, Retry: provider.StepRetry{Keys: &none}},
		},
		Watched: []provider.Watch{{Step: 1, Label: "Cards charged twice"}, {Step: 3, Label: "Receipts sent twice"}},
	}
}

// checkoutForms are checkout's closed forms when each step is retried,
// written from the step rules alone: a call of step i is seen to fail with
// f_i = p_i + (1 - p_i) l_i, independently, so the step passes within its
// a_i attempts with probability 1 - f_i^a_i and takes E[min(G, a_i)] =
// sum_{k < a_i} f_i^k calls once reached. The receipt, with no key and two
// attempts, is sent twice when its first call does the work and loses the
// reply, (1 - p) l, and the second does the work, 1 - p.
func checkoutForms(sc provider.Scenario, attempts []int) (failed, calls, receiptTwice float64) {
	reach := 1.0
	for i, s := range sc.Steps {
		f := s.PFail
		if s.CanLoseReply {
			f += (1 - s.PFail) * s.LostReply
		}
		for k := range attempts[i] {
			calls += reach * math.Pow(f, float64(k))
		}
		if i == 3 {
			receiptTwice = reach * (1 - s.PFail) * s.LostReply * (1 - s.PFail)
		}
		reach *= 1 - math.Pow(f, float64(attempts[i]))
	}
	return 1 - reach, calls, receiptTwice
}

// inside reports whether x lies in the rate's interval.
func inside(r retrysim.Rate, x float64) bool { return r.Lo <= x && x <= r.Hi }

// rate is the row's rate called name (Row.Rate).
func rate(t *testing.T, r *retrysim.Row, name string) retrysim.Rate {
	t.Helper()
	out, err := r.Rate(name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readWatched reads both watched steps of rep's first row by their names,
// checks what each says of itself, and returns them: the card, then the
// receipt.
func readWatched(t *testing.T, rep retrysim.Report) (card, receipt retrysim.WatchedRate) {
	t.Helper()
	r := &rep.Rows[0]
	card, err := rep.WatchedStep(r, "charge the card")
	if err != nil {
		t.Fatal(err)
	}
	receipt, err = rep.WatchedStep(r, "send the receipt")
	if err != nil {
		t.Fatal(err)
	}
	if card.Step != 1 || card.Label != "Cards charged twice" || card.Twice != r.Counters().TwiceByStep[1] ||
		receipt.Step != 3 || receipt.Label != "Receipts sent twice" || receipt.Twice != r.Counters().TwiceByStep[3] {
		t.Errorf("watched steps %+v and %+v; want steps 1 and 3, their labels and the row's counts %d and %d",
			card, receipt, r.Counters().TwiceByStep[1], r.Counters().TwiceByStep[3])
	}
	if _, err := rep.WatchedStep(r, "write the ledger"); err == nil {
		t.Error(`WatchedStep("write the ledger") = nil error; want an error, the step is not watched`)
	}
	// The card's key holds on every attempt: never charged twice.
	if card.Twice != 0 || card.Value != 0 {
		t.Errorf("%d cards charged twice (%g); want 0", card.Twice, card.Value)
	}
	return card, receipt
}

// TestWorkflowInCode runs checkout, built in Go, in the job model against
// its closed forms (per-step attempts 5, 4, the run's 3, 2 and 3), and in
// the delivery model, once with one delivery a job (the same forms hold)
// and once with repeated requests, reading both watched steps by name in each.
func TestWorkflowInCode(t *testing.T) {
	sc := checkout()
	run := strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.FreshKeys}
	failed, calls, receiptTwice := checkoutForms(sc, []int{5, 4, 3, 2, 3})
	e := retrysim.Experiment{Scenario: sc, Strategies: []strategy.Strategy{run}, Jobs: 100_000, Seed: 9}
	job, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	card, receipt := readWatched(t, job)
	r := &job.Rows[0]
	if f := rate(t, r, "failed_rate"); !inside(f, failed) {
		t.Errorf("job model: failed %g [%g, %g]; the closed form is %g", f.Value, f.Lo, f.Hi, failed)
	}
	if c := rate(t, r, "calls_per_job"); !inside(c, calls) {
		t.Errorf("job model: %g [%g, %g] calls per order; the closed form is %g", c.Value, c.Lo, c.Hi, calls)
	}
	if !inside(receipt.Rate, receiptTwice) || receipt.Twice == 0 {
		t.Errorf("job model: receipts sent twice %d, %g [%g, %g]; the closed form is %g", receipt.Twice, receipt.Value, receipt.Lo, receipt.Hi, receiptTwice)
	}
	// The library's own expectation, in each rate of the row, counts the
	// step policies as the forms do.
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"failed", rate(t, r, "failed_rate").Expected, failed}, {"calls", rate(t, r, "calls_per_job").Expected, calls}, {"receipts twice", receipt.Expected, receiptTwice}} {
		if math.Abs(c.got-c.want) > 1e-12*c.want {
			t.Errorf("the row's expectation: %s %.15g; the closed form is %.15g", c.name, c.got, c.want)
		}
	}
	if card.Expected != 0 {
		t.Errorf("the row's expectation: cards charged twice %g; want 0", card.Expected)
	}

	// The delivery model, one delivery a job: the same forms hold.
	q := delivery.Defaults()
	q.MaxDeliveries = 1
	e.Delivery, e.Jobs = &q, 50_000
	once, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	_, receipt = readWatched(t, once)
	r = &once.Rows[0]
	if f := rate(t, r, "failed_rate"); r.Counters().Deliveries != 50_000 || !inside(f, failed) || !inside(receipt.Rate, receiptTwice) {
		t.Errorf("delivery model, one delivery: %d deliveries, failed %+v, receipts twice %+v; want 50000, around %g and %g",
			r.Counters().Deliveries, f, receipt.Rate, failed, receiptTwice)
	}

	// A tenth of the requests sent twice, a second later: the copy is
	// delivered as a job of its own, so there are more deliveries than
	// orders; the card's key holds across deliveries (never charged twice),
	// while the receipt, which has no key, is sent again by nearly every
	// copy, far above the job model's closed form.
	q.MaxDeliveries, q.RepeatP, q.RepeatDelay = 10, 0.1, provider.Latency{Median: time.Second}
	again, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	_, receipt = readWatched(t, again)
	c := again.Rows[0].Counters()
	if c.Deliveries <= c.Jobs || receipt.Lo <= 2*receiptTwice {
		t.Errorf("delivery model, repeated requests: %d deliveries of %d orders, receipts sent twice %+v; want more deliveries than orders, and more than twice the job model's %g",
			c.Deliveries, c.Jobs, receipt.Rate, receiptTwice)
	}
}
