package retrysim

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"syscall"

	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/stats"
	"github.com/retrysim/retrysim/strategy"
)

// RunShard runs slice index of count equal slices of the experiment's jobs
// and returns its raw counters, for a Merger that adds the count slices up
// to exactly what Run reports. A shard is rebuilt by the merger from its
// parameters alone, so the experiment must be one the parameters describe:
// the built-in sign-up (provider.Signup) with unlabelled strategy.Retry
// strategies of one number of attempts, one replicate, no delivery model and
// a generator with a stream a block (not mulberry32, unless count is 1).
func RunShard(ctx context.Context, e Experiment, index, count int) (stats.Shard, error) {
	sh := sim.Shard{Index: index, Count: count}
	if err := sh.Check(); err != nil {
		return stats.Shard{}, fieldErr("shard", "%v", err)
	}
	if err := e.Check(); err != nil {
		return stats.Shard{}, err
	}
	if err := e.shardable(count); err != nil {
		return stats.Shard{}, err
	}
	rep := e.newReport()
	counters, err := sim.Run(ctx, e.config(0, sh))
	if err != nil {
		return stats.Shard{}, err
	}
	out := stats.Shard{Format: stats.ShardFormat, Index: index, Count: count, Params: rep.Params}
	for i, r := range rep.Rows {
		out.Rows = append(out.Rows, stats.Row{ID: r.ID, Label: r.Label, Counters: counters[i]})
	}
	return out, nil
}

// shardable refuses an experiment that its shards' parameters do not
// describe, so that no shard is written that merge would refuse.
func (e Experiment) shardable(count int) error {
	g, _ := e.generator()
	par := e.Params()
	switch {
	case e.Replicates > 1:
		return fieldErr("shard", "replicates cannot be split into shards; shard each replicate's seed instead")
	case count > 1 && g.Sequential:
		return fieldErr("shard", "%s has one stream for all jobs, so its runs cannot be split; use -rng pcg", g.Name)
	case e.Delivery != nil || e.ScenarioFile != "" || !reflect.DeepEqual(e.Scenario, provider.Signup(par.PFail, par.LostReply)):
		return fieldErr("shard", "merge rebuilds the built-in sign-up only; runs with -scenario or the delivery model cannot be sharded yet")
	}
	for i, s := range e.Strategies {
		r, ok := s.(strategy.Retry)
		if !ok || r.Label != "" || r.Attempts != par.Attempts {
			return fieldErr("strategies", "[%d]: merge rebuilds unlabelled strategy.Retry strategies of one number of attempts only, not %s", i, s.Name())
		}
	}
	return nil
}

// ReadShard reads the shard file at path (stats.ReadShard). It refuses at
// once a file that is not a regular one: a FIFO would block, a device never
// end. The file is opened without blocking, so a FIFO with no writer is seen
// as such rather than waited on.
func ReadShard(path string) (stats.Shard, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return stats.Shard{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return stats.Shard{}, err
	}
	if !info.Mode().IsRegular() {
		return stats.Shard{}, fmt.Errorf("%s: not a regular file (%s); a shard is a file written by retrysim -shard", path, fileKind(info.Mode()))
	}
	sh, err := stats.ReadShard(f)
	if err != nil {
		return sh, fmt.Errorf("%s: %w", path, err)
	}
	return sh, nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// Merger adds up the shards of one run, one at a time, checking each
// (sim.ShardConfig: every number is one a run can produce) and that they are
// the slices 0 to n-1 of one run, each once. It keeps the sums and which
// slices it has seen, not the shards. Its errors name the shard by the name
// it was added under.
type Merger struct {
	first string // the first shard's name, which the others are compared with
	total stats.Shard
	cfg   sim.Config
	seen  map[int]string // name by slice
}

// Add checks the shard called name and adds its counters.
func (m *Merger) Add(name string, sh stats.Shard) error {
	cfg, err := sim.ShardConfig(sh)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if m.seen == nil {
		m.first, m.cfg, m.seen = name, cfg, make(map[int]string)
		m.total = sh
		m.total.Rows = slices.Clone(sh.Rows)
		for i := range m.total.Rows {
			m.total.Rows[i].Counters = stats.Counters{}
		}
	}
	first := m.total
	switch {
	case sh.Count != first.Count:
		return fmt.Errorf("%s is shard %d/%d but %s is of %d shards", name, sh.Index, sh.Count, m.first, first.Count)
	case !reflect.DeepEqual(sh.Params, first.Params):
		return fmt.Errorf("%s and %s are shards of different runs: %s", m.first, name, paramDiff(first.Params, sh.Params))
	case !slices.EqualFunc(sh.Rows, first.Rows, func(a, b stats.Row) bool { return a.ID == b.ID }):
		return fmt.Errorf("%s and %s ran different strategies", m.first, name)
	}
	if other, dup := m.seen[sh.Index]; dup {
		return fmt.Errorf("shard %d/%d is given twice: %s and %s", sh.Index, sh.Count, other, name)
	}
	m.seen[sh.Index] = name
	for i := range m.total.Rows {
		if err := m.total.Rows[i].Counters.AddChecked(sh.Rows[i].Counters); err != nil {
			return fmt.Errorf("%s: rows[%d].%w", name, i, err)
		}
	}
	return nil
}

// maxMissing is how many missing slices an error lists.
const maxMissing = 10

// Report is the merged run's report, once every slice is in: what Run
// reports for the experiment the shards are slices of.
func (m *Merger) Report() (Report, error) {
	if m.seen == nil {
		return Report{}, fmt.Errorf("no shards given")
	}
	var missing []string
	for i := range m.total.Count {
		if _, ok := m.seen[i]; !ok {
			if len(missing) == maxMissing {
				missing = append(missing, "...")
				break
			}
			missing = append(missing, fmt.Sprintf("%d/%d", i, m.total.Count))
		}
	}
	if len(missing) > 0 {
		return Report{}, fmt.Errorf("shards %s are missing (%d of %d given)", strings.Join(missing, ", "), len(m.seen), m.total.Count)
	}
	for i, r := range m.total.Rows {
		if r.Jobs != m.total.Jobs {
			return Report{}, fmt.Errorf("rows[%d]: the shards hold %d jobs but the run has %d", i, r.Jobs, m.total.Jobs)
		}
	}
	c := m.cfg
	e := Experiment{Scenario: c.Scenario, Strategies: c.Strategies, Jobs: c.Jobs, Seed: c.Seed,
		Generator: c.Generator.Name, Engine: c.Engine.String()}
	rep := e.newReport()
	for i := range rep.Rows {
		rep.Rows[i].Counters = m.total.Rows[i].Counters
	}
	return rep, nil
}

// paramDiff names the first parameter in which two shards differ.
func paramDiff(a, b stats.Params) string {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var ma, mb map[string]any
	json.Unmarshal(ja, &ma)
	json.Unmarshal(jb, &mb)
	keys := make([]string, 0, len(ma))
	for k := range ma {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if fmt.Sprint(ma[k]) != fmt.Sprint(mb[k]) {
			return fmt.Sprintf("%s is %v in one and %v in the other", k, ma[k], mb[k])
		}
	}
	return "their parameters differ"
}
