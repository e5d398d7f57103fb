package retrysim_test

import (
	"context"
	"sync"
	"testing"

	"github.com/retrysim/retrysim"
)

// Run tells its Progress every block of jobs it finishes: 3 x 65,536 + 1
// jobs are 4 blocks, for each of 2 strategies and 3 replicates, 24 in all,
// each told once, the last as 24 of 24 (the table command draws its
// progress line from these; -jobs 2e8 ran 14 s without a word).
func TestRunReportsProgress(t *testing.T) {
	strategies, err := retrysim.ParseStrategies([]string{"step-nokey", "job-samekey"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	totals := map[int64]bool{}
	e := retrysim.Experiment{Scenario: retrysim.DefaultScenario(), Strategies: strategies, Jobs: 3<<16 + 1, Seed: 1, Replicates: 3, Workers: 2,
		Progress: func(done, total int64) {
			mu.Lock()
			defer mu.Unlock()
			seen[done]++
			totals[total] = true
		}}
	if _, err := retrysim.Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if len(totals) != 1 || !totals[24] {
		t.Errorf("Progress was told totals %v; want 24 alone", totals)
	}
	for done := int64(1); done <= 24; done++ {
		if seen[done] != 1 {
			t.Errorf("Progress was told %d done %d times; want once", done, seen[done])
		}
	}
	if len(seen) != 24 {
		t.Errorf("Progress was told %d distinct counts; want 24", len(seen))
	}
}
