package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// allIDs are the twelve strategies strategy.Parse knows.
var allIDs = func() (ids []string) {
	for _, scope := range []string{"step", "job"} {
		for _, keys := range []string{"nokey", "newkey", "samekey"} {
			ids = append(ids, scope+"-"+keys, scope+"-"+keys+"-skip")
		}
	}
	return ids
}()

// ShardConfig's checks are bounds on what one run can produce, so every run
// must pass them: every strategy, at failure rates 0, between and 1 and reply losses between and 1, few and many
// attempts, each generator and engine, and slices with and without jobs.
func TestShardConfigAcceptsEveryRun(t *testing.T) {
	for _, gen := range []rng.Generator{rng.PCGGenerator(), rng.Mulberry32Generator(), rng.XExpGenerator()} {
		for _, engine := range []Engine{Plain, Skip} {
			if engine == Skip && gen.Sequential {
				continue
			}
			for _, attempts := range []int{1, 4} {
				for _, pFail := range []float64{0, 0.3, 1} {
					for _, lost := range []float64{0, 0.5, 1} {
						checkShardOfRun(t, gen, engine, attempts, pFail, lost, 3000, Shard{Index: 0, Count: 1})
					}
				}
			}
		}
	}
	for i := range 3 { // of 2 blocks: one slice is empty
		checkShardOfRun(t, rng.PCGGenerator(), Skip, 3, 0.3, 0.5, BlockJobs+100, Shard{Index: i, Count: 3})
	}
}

func checkShardOfRun(t *testing.T, gen rng.Generator, engine Engine, attempts int, pFail, lost float64, jobs int64, sh Shard) {
	t.Helper()
	cfg := Config{Scenario: provider.Signup(pFail, lost), Jobs: jobs, Seed: 7, Generator: gen, Engine: engine, Shard: sh}
	rows := make([]stats.Row, len(allIDs))
	for i, id := range allIDs {
		s, err := strategy.Parse(id, attempts)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Strategies = append(cfg.Strategies, s)
		rows[i] = stats.Row{ID: id, Label: s.Name()}
	}
	counters, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Counters = counters[i]
	}
	shard := stats.Shard{Format: stats.ShardFormat, Index: sh.Index, Count: sh.Count, Rows: rows, Params: stats.Params{
		Scenario: "signup", Steps: 10, Jobs: cfg.Jobs, PFail: pFail, LostReply: lost, Attempts: attempts,
		RNG: gen.Name, Seed: cfg.Seed, Engine: cfg.EngineUsed().String(), Replicates: 1,
	}}
	name := fmt.Sprintf("%s %s attempts %d p_fail %v lost_reply %v shard %d/%d", gen.Name, engine, attempts, pFail, lost, sh.Index, sh.Count)
	if _, err := ShardConfig(shard); err != nil {
		t.Errorf("%s: ShardConfig = %v; want nil", name, err)
	}
}
