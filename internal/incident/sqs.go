package incident

import (
	"time"

	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/fleetrun"
)

// sqsStall is how long the payment call stalls, and sqsArrivals its jobs a second (assumed).
const (
	sqsStall    = 100 * time.Second
	sqsArrivals = 1.0
)

// SQSDuplicatesClosedForm is the duplicate charges a replicate of no_key
// expects: a job arriving u seconds before the stall's end is received again
// every visibility seconds (maxReceive times at most), integrated over the
// stall at rate jobs a second.
func SQSDuplicatesClosedForm(rate float64, stall, visibility time.Duration, maxReceive int) float64 {
	s, v := stall.Seconds(), visibility.Seconds()
	var sum float64
	for k := 1; k < maxReceive && float64(k)*v < s; k++ {
		sum += s - float64(k)*v // the stretch of arrivals charging k+1 times or more
	}
	return rate * sum
}

// sqsVisibility is a payment call that outlasts SQS's default visibility
// timeout: fleet's sqs-visibility preset.
func sqsVisibility() Incident {
	p, _ := fleetpreset.LookupWorkersPreset("sqs-visibility") // a preset of the package: it exists
	const d = 10 * time.Minute
	return Incident{
		Name: "sqs-visibility-payment",
		Kind: Workers,
		Source: Source{
			Title:        "Configuring visibility timeouts in Amazon SQS (Amazon SQS Developer Guide; its 2007-05-01 edition at docs.amazonwebservices.com)",
			Organisation: "Amazon Web Services",
			Date:         "2007-05-01 edition and the current guide",
			Link:         "https://docs.amazonaws.cn/en_us/AWSSimpleQueueService/latest/SQSDeveloperGuide/working-with-visibility-timeouts.html",
			Quote: "Once the timeout period expires, the message returns to a subsequent receive request unless you delete it from " +
				"the queue first. (2007-05-01 edition) A longer visibility timeout prevents messages from becoming available to other " +
				"consumers before the original request completes, reducing the risk of duplicate processing. (current edition)",
		},
		Story: "This is a warning in documentation, not an outage report. A message received from an SQS queue is hidden from other " +
			"consumers for the visibility timeout, 30 seconds unless the queue sets another; if the consumer has not deleted it by " +
			"then, the message is received again, even while the first consumer still works on it. A consumer that charges a card " +
			"and then deletes the message charges it again on every receive when the charge takes longer than the timeout. The " +
			"guide's remedies are a visibility timeout longer than the work and extending it while the work goes on " +
			"(ChangeMessageVisibility); an idempotency key held by the charge is the other.",
		Outcome: "charged a card twice or more (a step's side effect done again)",
		FixText: "heartbeat: the worker extends the message's visibility while it holds it (ChangeMessageVisibility, as the guide " +
			"says); lease: no heartbeat, but the charge under a 30 s lease in a key store, so a receive finding it held leaves the " +
			"message and a charge whose lease lapsed rolls back",
		Given: []Given{
			{What: "default visibility timeout", Value: 30, Unit: "s", Replay: "the replay's visibility timeout",
				Note:   "not compared: the replay takes it from the source",
				figure: func(rep *Report) float64 { return rep.Graph[0].Graph.Entries[0].Client.Timeout.Seconds() }},
			{What: "duplicate charges a replicate, closed form from the source's 30 s with the assumed stall and rate (not in the source)",
				Value: SQSDuplicatesClosedForm(sqsArrivals, sqsStall, 30*time.Second, 5), Unit: "charges",
				Replay: "no_key's duplicate charges, mean over replicates", Tolerance: 12,
				Note: "held by TestSQSDuplicatesMatchClosedForm: 12 is 3.5 standard deviations of a mean of 20 replicates " +
					"(the count's variance is 240 a replicate)",
				figure: func(rep *Report) float64 {
					i := rep.runIndex("no_key")
					var sum int64
					for r := range fleetrun.Fleet().GraphReplicates(rep.Graph[i]) {
						sum += jobDuplicates(rep, i, r)
					}
					return float64(sum) / float64(len(fleetrun.Fleet().GraphReplicates(rep.Graph[i])))
				}},
		},
		Assumptions: []Assumption{
			{"jobs", "1 a second, one step each: a charge"},
			{"payment call", "200 ms, stalling every call for 100 s from 2 minutes in (held, then charged)"},
			{"workers", "500, so a message received again finds one free"},
			{"redrive policy", "maxReceiveCount 5, then the dead-letter queue"},
			{"charge's own timeout", "5 minutes (longer than the stall: the worker waits)"},
			{"lease fix", "leases of 30 s, keys kept 24 h"},
			{"network", "1 ms each way"},
			{"run", "10 minutes, 20 replicates"},
		},
		Runs: []Run{
			{Name: "no_key", Scenario: "examples/incidents/sqs-visibility-payment.yaml"},
			{Name: "lease", Fix: true, Scenario: "examples/incidents/sqs-visibility-payment-lease.yaml"},
			{Name: "heartbeat", Fix: true, Scenario: "examples/incidents/sqs-visibility-payment-heartbeat.yaml"},
		},
		Duration: d,
		workers:  p.Runs(d),
		bad:      duplicated,
	}
}
