package stats_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/stats"
)

// ownJobs are the counters of two jobs of two steps under a strategy that
// sets its own limits, worked out by hand: the first called step 0 nine times
// (eight failed, the ninth did the work), gave up on step 1 as best effort
// and called the job a success; the second gave up before any call. Nine
// calls are more than the 2 x 3 a strategy.Retry of 3 attempts makes, and
// the success did one step's work of two: a Retry row can have neither.
func ownJobs() stats.Counters {
	return stats.Counters{Jobs: 2, Failed: 1, Calls: 9, CallsSq: stats.Wide{Lo: 9*9 + 0*0}, SideEffects: 1}
}

// ownShard is twoJobs with a row of ownJobs after its strategy.Retry rows.
func ownShard() stats.Shard {
	sh := twoJobs()
	sh.Rows = append(sh.Rows, stats.Row{ID: "Budget", Label: "Budget", OwnStrategy: true, Counters: ownJobs()})
	return sh
}

// onlyOwn is a shard of strategies that all set their own limits: no
// strategy.Retry, so attempts is 0.
func onlyOwn() stats.Shard {
	sh := ownShard()
	sh.Attempts = 0
	sh.Rows = sh.Rows[2:]
	return sh
}

// A shard of strategies that are not strategy.Retry reads back: attempts 0
// when none is a Retry, and an own row's calls bounded by nothing in the
// file. What is inconsistent is still refused: attempts 0 beside a Retry row,
// attempts without one, a Retry row with an own row's counters, and counters
// no strategy can have.
func TestReadShardOwnStrategy(t *testing.T) {
	for _, tc := range []struct {
		name string
		sh   func() stats.Shard
		want string // "" if accepted
	}{
		{"beside strategy.Retry", ownShard, ""},
		{"alone, attempts 0", onlyOwn, ""},
		{"a Retry row, attempts 0", func() stats.Shard { sh := ownShard(); sh.Attempts = 0; return sh },
			"attempts: 0, but rows[0] is a strategy.Retry, which makes at least 1"},
		{"no Retry row, attempts 3", func() stats.Shard { sh := onlyOwn(); sh.Attempts = 3; return sh },
			"attempts: 3, but every row is a strategy that sets its own limits"},
		{"attempts negative", func() stats.Shard { sh := onlyOwn(); sh.Attempts = -1; return sh }, "attempts: -1 is negative"},
		{"own counters in a Retry row", func() stats.Shard { sh := ownShard(); sh.Rows[2].OwnStrategy = false; return sh },
			"rows[2].side_effects: 1, less 0 repeated, is fewer than the 2 steps of the 1 jobs that succeeded"},
		{"more work than calls", func() stats.Shard { sh := onlyOwn(); sh.Rows[0].SideEffects = 10; return sh },
			"rows[0].side_effects: 10 is more than the 9 calls"},
		{"squares below the calls", func() stats.Shard { sh := onlyOwn(); sh.Rows[0].CallsSq = stats.Wide{Lo: 40}; return sh },
			"rows[0].calls_sq: 40 is less than the square of the sum 9 over the 2 jobs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.sh())
			if err != nil {
				t.Fatal(err)
			}
			_, err = stats.ReadShard(bytes.NewReader(data))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("ReadShard = %v; want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("ReadShard = %v; want %q", err, tc.want)
			}
		})
	}
}
