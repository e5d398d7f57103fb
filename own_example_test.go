package retrysim_test

import (
	"context"
	"fmt"
	"math"
	"reflect"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// errorsOnly retries a step that replied with an error, up to three calls,
// and gives the job up on a lost reply, whose work may be done.
type errorsOnly struct{}

func (errorsOnly) Name() string    { return "retry errors, not lost replies" }
func (errorsOnly) UsesStore() bool { return false }
func (errorsOnly) Run(c strategy.Calls) bool {
	for i := range c.Steps() {
		reply := c.Call(i, provider.NoKey)
		for a := 1; a < 3 && reply == provider.ReplyError; a++ {
			c.Backoff(i, a-1)
			reply = c.Call(i, provider.NoKey)
		}
		if reply != provider.ReplyOK {
			return false
		}
	}
	return true
}

// An own job (three steps, the charge losing 2% of its replies) and an own
// strategy that retries errors but never a lost reply, beside the built-in
// retry of each step, which retries both; each job's failure rate beside its
// closed form: 1 - (1 - p^3)^3 (1 - q) for the own strategy, and for the
// built-in one 1 - (1 - p^3)^2 (1 - f^3), f = p + (1 - p) q the charge's
// chance to error.
func Example_ownStrategy() {
	const p, q = 0.1, 0.02
	job := provider.Scenario{Name: "order", Noun: "orders",
		Steps: []provider.Step{
			{Name: "reserve", PFail: p},
			{Name: "charge", PFail: p, CanLoseReply: true, LostReply: q},
			{Name: "ship", PFail: p},
		},
		Watched: []provider.Watch{{Step: 1, Label: "Orders charged twice"}}}
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: job,
		Strategies: []strategy.Strategy{errorsOnly{}, strategy.Retry{Attempts: 3}}, Jobs: 200_000, Seed: 1})
	if err != nil {
		panic(err)
	}
	s, f := 1-p*p*p, p+(1-p)*q
	want := []float64{1 - s*s*s*(1-q), 1 - s*s*(1-f*f*f)}
	for i, row := range rep.Rows {
		c := (*row.Stats())
		fmt.Printf("%s: %.3f failed (closed form %.3f), %d charged twice\n", row.Label, float64(c.Failed)/float64(c.Jobs), want[i], c.DuplicateUsers)
	}
	// Output:
	// retry errors, not lost replies: 0.023 failed (closed form 0.023), 0 charged twice
	// Retry each step, no key: 0.004 failed (closed form 0.004), 3886 charged twice
}

// A sweep over the sign-up's failure rate, each point's failed rate beside
// its closed form: a job fails when one of its ten steps fails three times,
// the welcome email's call failing with a lost reply too.
func Example_sweep() {
	sw := retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}, Seed: 1}}
	for _, axis := range []string{"p_fail=0.1,0.3", "jobs=100000"} {
		if err := sw.Set(axis); err != nil {
			panic(err)
		}
	}
	res, err := retrysim.RunSweep(context.Background(), sw)
	if err != nil {
		panic(err)
	}
	for _, row := range res.Rows {
		r := row.Row()
		c := r.Counters()
		p := row.Point[0]               // the sweep's axes: p_fail, lost_reply, attempts, jobs
		email := p + (1-p)*row.Point[1] // the welcome email's call fails or loses its reply
		closed := 1 - math.Pow(1-p*p*p, 9)*(1-email*email*email)
		fmt.Printf("p_fail %.1f: %.3f failed (closed form %.3f)\n", p, float64(c.Failed)/float64(c.Jobs), closed)
	}
	// Output:
	// p_fail 0.1: 0.010 failed (closed form 0.010)
	// p_fail 0.3: 0.240 failed (closed form 0.240)
}

// An experiment cut into three shards, each of which could run on another
// machine (WriteShard and ReadShard carry it as a file), and merged: the
// merged report is the single run's, count for count.
func Example_shards() {
	strategies, err := retrysim.ParseStrategies([]string{"step-samekey", "job-samekey"}, 3)
	if err != nil {
		panic(err)
	}
	e := retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: strategies, Jobs: 300_000, Seed: 7}
	m := e.Merger()
	for i := range 3 {
		sh, err := e.Shard(context.Background(), i, 3)
		if err != nil {
			panic(err)
		}
		if err := m.Add(fmt.Sprint("shard ", i), sh); err != nil {
			panic(err)
		}
	}
	merged, err := m.Report()
	if err != nil {
		panic(err)
	}
	whole, err := retrysim.Run(context.Background(), e)
	if err != nil {
		panic(err)
	}
	fmt.Println("merged equals the single run:", reflect.DeepEqual(merged, whole))
	for _, row := range merged.Rows {
		fmt.Printf("%s: %d of %d failed\n", row.ID, row.Counters().Failed, row.Counters().Jobs)
	}
	// Output:
	// merged equals the single run: true
	// step-samekey: 5 of 300000 failed
	// job-samekey: 304 of 300000 failed
}
