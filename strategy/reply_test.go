package strategy_test

import (
	"context"
	"math"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/closedform"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// errorsOnly retries a step that replied with an error, up to attempts
// calls, and gives the job up on a lost reply: a call that may have done its
// work is not called again.
type errorsOnly struct{ attempts int }

func (errorsOnly) Name() string    { return "retry errors, not lost replies" }
func (errorsOnly) UsesStore() bool { return false }
func (e errorsOnly) Run(c strategy.Calls) bool {
	for i := range c.Steps() {
		reply := c.Call(i, provider.NoKey)
		for a := 1; a < e.attempts && reply == provider.ReplyError; a++ {
			c.Backoff(i, a-1)
			reply = c.Call(i, provider.NoKey)
		}
		if reply != provider.ReplyOK {
			return false
		}
	}
	return true
}

// TestRetryErrorsNotLostReplies holds an own strategy that tells an error
// reply from a lost one to the closed form derived from the model's rules.
// In provider.Signup(p, q) every call errors with p; only the email step
// (index 6 of ten) can lose its reply, with q once the call went through.
// A step retried on errors alone, up to A calls, makes sum_{k<A} p^k =
// (1-p^A)/(1-p) calls once reached and gets through with s = 1-p^A, the email
// step with s(1-q) (a lost reply ends the job). So a job succeeds with
// s^10 (1-q) and makes (1-p^A)/(1-p) * (sum_{i<=6} s^i + (1-q) sum_{7<=i<=9} s^i)
// calls. The counts of 1,000,000 jobs must lie within 5 standard errors of
// those (a false failure about 6e-7 a comparison, 1.2e-6 for both).
func TestRetryErrorsNotLostReplies(t *testing.T) {
	const p, q, attempts, jobs = 0.05, 0.2, 3, 1_000_000
	e := retrysim.Experiment{
		Scenario:   provider.Signup(p, q),
		Strategies: []strategy.Strategy{errorsOnly{attempts}},
		Jobs:       jobs,
		Seed:       37,
	}
	rep, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	c := jobapi.Results(rep, false, false).Rows[0].Counters
	s := 1 - math.Pow(p, attempts)
	perStep := s / (1 - p)
	var reach float64
	for i := range 10 {
		w := math.Pow(s, float64(i))
		if i > 6 {
			w *= 1 - q
		}
		reach += w
	}
	wantFailed := 1 - math.Pow(s, 10)*(1-q)
	wantCalls := perStep * reach

	n := float64(c.Jobs)
	failed := float64(c.Failed) / n
	if se := math.Sqrt(wantFailed * (1 - wantFailed) / n); math.Abs(failed-wantFailed) > 5*se {
		t.Errorf("failed rate = %.6f; want %.6f within 5 standard errors (%.6f)", failed, wantFailed, 5*se)
	}
	calls := float64(c.Calls) / n
	variance := c.CallsSq.Float64()/n - calls*calls
	if se := math.Sqrt(variance / n); math.Abs(calls-wantCalls) > 5*se {
		t.Errorf("calls per job = %.6f; want %.6f within 5 standard errors (%.6f)", calls, wantCalls, 5*se)
	}
	// The built-in retry of each step retries lost replies too: its failed
	// rate is another figure, so the test tells the two apart.
	builtIn, _ := strategy.Parse("step-nokey", attempts)
	if other := closedform.Retry(builtIn, e.Scenario).FailedRate; math.Abs(other-wantFailed) < 0.01 {
		t.Fatalf("the built-in retry fails %.4f of jobs, too close to %.4f to tell them apart", other, wantFailed)
	}
	t.Logf("failed %.6f (closed form %.6f), calls per job %.6f (closed form %.6f)", failed, wantFailed, calls, wantCalls)
}
