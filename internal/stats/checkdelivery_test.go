package stats_test

import (
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/stats"
)

// CheckDelivery's bounds for twoJobsQueue's counters (two jobs, one failed,
// 3 deliveries of at most 10 a job, 2 steps, 3 attempts: at most 60 calls a
// job), each just past its edge; the valid counters pass, and the shard as a
// whole is read.
func TestCheckDeliveryEdges(t *testing.T) {
	sh := twoJobsQueue()
	ok := sh.Rows[0].Counters
	if err := ok.Check(2, 3, 10); err != nil {
		t.Fatalf("Check = %v; want nil", err)
	}
	if err := sh.Check(); err != nil {
		t.Fatalf("Check(twoJobsQueue) = %v; want nil", err)
	}
	for _, tt := range []struct {
		name string
		edit func(c *stats.Counters)
		want string
	}{
		{"fewer deliveries than jobs", func(c *stats.Counters) { c.Deliveries = 1 }, "deliveries: 1 is fewer than one for each of the 2 jobs"},
		{"more deliveries than allowed", func(c *stats.Counters) { c.Deliveries = 21 }, "deliveries: 21 is more than 2 jobs get at 10 deliveries each"},
		{"lost work of a failed job", func(c *stats.Counters) { c.LostWork = 2 }, "lost_work: 2 is more than the 1 jobs that succeeded"},
		{"calls past 60 a job", func(c *stats.Counters) { c.Calls = 121 }, "calls: 121 is more than 2 jobs make at 60 calls each"},
		{"a job timed twice", func(c *stats.Counters) { c.Completion.AddSeconds(1e-3) }, "completion: its counts add up to 2, not the 1 jobs it times"},
		{"a failure not timed", func(c *stats.Counters) { c.FailedCompletion = hist.Histogram{} }, "failed_completion: its counts add up to 0, not the 1 jobs it times"},
		{"by step not the total", func(c *stats.Counters) { c.RepeatedByStep[0] = 3 }, "repeated_by_step: the steps' 3 add up to other than repeated_steps 4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.edit(&c)
			if err := c.Check(2, 3, 10); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v; want %q", err, tt.want)
			}
		})
	}
}
