package stats_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/stats"
)

// TestShardCheckStepAttempts: a step's own attempts may exceed the run's, so
// a job's calls are bounded by steps x the most attempts any step has. Here
// one job makes 8 calls in 2 steps, more than the run's 3 attempts allow (6)
// but within the first step's own 5 (10): its shard is one a run writes, and
// the same counters without the step's attempts are not.
func TestShardCheckStepAttempts(t *testing.T) {
	sh := twoJobs()
	for i := range sh.Rows {
		c := &sh.Rows[i].Counters
		c.Calls, c.CallsSq = 1+8, stats.Wide{Lo: 1*1 + 8*8}
	}
	sh.Model = &stats.Model{Name: "two", Noun: "jobs",
		Steps:   []stats.ModelStep{modelStep("charge", 0.5, false, 0, 0), modelStep("email", 0.5, true, 0.5, 0)},
		Watched: []stats.ModelWatch{{Step: 0}}}
	sh.Model.Steps[0].Set("attempts", int64(5))
	if err := sh.Check(); err != nil {
		t.Errorf("Check() = %v; want the step's 5 attempts to allow 8 calls a job", err)
	}
	sh.Model.Steps[0].Settings = slices.DeleteFunc(sh.Model.Steps[0].Settings, func(x stats.Setting) bool { return x.Key == "attempts" })
	if err := sh.Check(); err == nil || !strings.Contains(err.Error(), "calls_sq: 65 is more than 6 x the sum 9, 6 being the most a job can count") {
		t.Errorf("Check() without the step's attempts = %v; want the run's 3 attempts to refuse 8 calls a job", err)
	}
}
