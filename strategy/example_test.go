package strategy_test

import (
	"context"
	"fmt"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// run prints what 100,000 sign-ups do under s, with the article's generator
// and rates.
func run(s strategy.Strategy) {
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: provider.Signup(0.01, 0.005),
		Strategies: []strategy.Strategy{s}, Jobs: 100_000, Seed: 1, Generator: "mulberry32"})
	if err != nil {
		panic(err)
	}
	c := rep.Rows[0].Counters()
	fmt.Printf("%s: %d failed, %d calls, %d steps done again, %d users emailed twice\n",
		s.Name(), c.Failed, c.Calls, c.RepeatedSteps, c.DuplicateUsers)
}

// Retrying each step with no key: a lost reply sends the email again.
func ExampleRetry_eachStep() {
	run(strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.NoKeys})
	// Output: Retry each step, no key: 0 failed, 1010586 calls, 524 steps done again, 523 users emailed twice
}

// A fresh key on every call is no key at all: the same draws, the same duplicates.
func ExampleRetry_freshKeys() {
	run(strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.FreshKeys})
	// Output: Retry each step, new key on every call: 0 failed, 1010586 calls, 524 steps done again, 523 users emailed twice
}

// The same key every time: the provider sends the email once per key.
func ExampleRetry_sameKey() {
	run(strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey})
	// Output: Retry each step, same key every time: 0 failed, 1010586 calls, 0 steps done again, 0 users emailed twice
}

// Retrying the whole job repeats the steps that send no key.
func ExampleRetry_wholeJob() {
	run(strategy.Retry{Scope: strategy.WholeJob, Attempts: 3, Keys: schema.SameKey})
	// Output: Retry the whole job, same key: 100 failed, 1061040 calls, 47063 steps done again, 0 users emailed twice
}

// A store of finished steps makes the whole-job retry repeat nothing.
func ExampleRetry_skipFinished() {
	run(strategy.Retry{Scope: strategy.WholeJob, Attempts: 3, Keys: schema.SameKey, SkipFinished: true})
	// Output: Retry the whole job, same key, skip finished steps: 19 failed, 1010522 calls, 0 steps done again, 0 users emailed twice
}

func ExampleParse() {
	s, err := strategy.Parse("job-samekey-skip", 3)
	fmt.Println(s.Name(), err)
	_, err = strategy.Parse("job-twice", 3)
	fmt.Println(err)
	// Output:
	// Retry the whole job, same key, skip finished steps <nil>
	// unknown strategy "job-twice" (want scope-keys or scope-keys-skip, scope step or job, keys nokey, newkey or samekey: step-nokey, step-newkey, step-samekey, job-samekey, job-samekey-skip)
}
