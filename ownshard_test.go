package retrysim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// bestEffort calls each step once, with no key, and gives the job up at
// its first failure, except on its last step, which is best effort: the job
// succeeds whether or not that call did. It is not a strategy.Retry, so a
// run of it alone has no attempts, and a success need not have done every
// step's work.
type bestEffort struct{}

func (bestEffort) Name() string    { return "Once each, the last best effort" }
func (bestEffort) UsesStore() bool { return false }
func (bestEffort) Run(c strategy.Calls) bool {
	last := c.Steps() - 1
	for i := range last {
		if c.Call(i, provider.NoKey) != provider.ReplyOK {
			return false
		}
	}
	c.Call(last, provider.NoKey)
	return true
}

// TestOwnStrategyShardFiles writes the shards of an experiment of a
// strategy written in Go, alone and beside a strategy.Retry, to files, reads
// them back with ReadShard and merges them with the experiment's Merger:
// the report is Run's. The zero Merger, which rebuilds strategies from
// their ids, refuses them, naming the row, and the experiment's Merger
// refuses a row that says its strategy is a strategy.Retry.
func TestOwnStrategyShardFiles(t *testing.T) {
	retry := strategy.Retry{Scope: strategy.EachStep, Attempts: 2, Keys: schema.SameKey}
	for _, tc := range []struct {
		name       string
		strategies []strategy.Strategy
		attempts   int
	}{
		{"alone", []strategy.Strategy{bestEffort{}}, 0},
		{"beside a Retry", []strategy.Strategy{retry, bestEffort{}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := retrysim.Experiment{Scenario: provider.Signup(0.1, 0.05), Strategies: tc.strategies, Jobs: 2 * sim.BlockJobs, Seed: 3}
			want, err := retrysim.Run(context.Background(), e)
			if err != nil {
				t.Fatal(err)
			}
			if p := want.Params(); p.Attempts != tc.attempts || !p.OwnStrategies {
				t.Errorf("attempts = %d, own strategies %t; want %d, the most a strategy.Retry allows, and true", p.Attempts, p.OwnStrategies, tc.attempts)
			}
			dir := t.TempDir()
			m := e.Merger()
			var zero retrysim.Merger
			for _, i := range []int{1, 0} {
				sh, err := e.Shard(context.Background(), i, 2)
				if err != nil {
					t.Fatal(err)
				}
				data, err := json.Marshal(sh.Stats())
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				read, err := retrysim.ReadShard(path)
				if err != nil {
					t.Fatal(err)
				}
				back := read.Stats()
				if err := m.Add(path, retrysim.ShardOf(back)); err != nil {
					t.Fatal(err)
				}
				own := len(tc.strategies) - 1
				if err := zero.Add(path, retrysim.ShardOf(back)); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("rows[%d].own_strategy: %q is not a strategy.Retry", own, bestEffort{}.Name())) {
					t.Errorf("zero Merger: Add = %v; want rows[%d].own_strategy refused", err, own)
				}
				// A shard that calls the strategy a Retry, whose attempts
				// would bound it, is not one of the experiment's.
				back.Rows[own].OwnStrategy = false
				msg := fmt.Sprintf("rows[%d].own_strategy: false, but it is true for the experiment's %s", own, bestEffort{}.Name())
				if err := e.Merger().Add(path, retrysim.ShardOf(back)); err == nil || !strings.Contains(err.Error(), msg) {
					t.Errorf("Add(own_strategy false) = %v; want %q", err, msg)
				}
			}
			got, err := m.Report()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("merged report differs from Run's:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}
