package retrysim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/internal/shardfile"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// Shard is one slice of an experiment's run (Experiment.Shard), for a Merger to add up.
type Shard struct {
	s stats.Shard
}

// MarshalJSON writes the shard as WriteShard does, unindented.
func (sh Shard) MarshalJSON() ([]byte, error) { return json.Marshal(sh.s) }

// Shard runs slice index of count equal slices of e's jobs and returns its raw counters, which a
// Merger adds up to exactly what Run reports. e's own Merger merges the slices of any experiment;
// the zero Merger (MergeFiles) rebuilds the run from the shards, so only of unlabelled
// strategy.Retry strategies of one number of attempts. It refuses replicates, and a generator with
// one stream for all jobs unless count is 1.
func (e Experiment) Shard(ctx context.Context, index, count int) (Shard, error) {
	if err := e.checkShard(index, count); err != nil {
		return Shard{}, err
	}
	sh, err := e.runShard(ctx, index, count)
	return Shard{sh}, err
}

// checkShard refuses an experiment that cannot be run or cut into count slices, and a slice that is
// not one.
func (e Experiment) checkShard(index, count int) error {
	sh := sim.Shard{Index: index, Count: count}
	if err := sh.Check(); err != nil {
		return fieldErr("shard", "%v", err)
	}
	if err := e.Check(); err != nil {
		return err
	}
	g, _ := e.generator()
	switch {
	case e.Replicates > 1:
		return fieldErr("shard", "replicates cannot be split into shards; shard each replicate's seed instead")
	case count > 1 && g.Sequential:
		return fieldErr("shard", "%s has one stream for all jobs, so its runs cannot be split; use %s pcg", g.Name, pathtext.Path("generator"))
	}
	return nil
}

// runShard runs slice index of count of a checked experiment.
func (e Experiment) runShard(ctx context.Context, index, count int) (stats.Shard, error) {
	rep := e.newReport()
	cfg := e.config(0, sim.Shard{Index: index, Count: count})
	counters, err := sim.RunAll(ctx, []sim.Config{cfg}, cfg.Workers, nil)
	if err != nil {
		return stats.Shard{}, err
	}
	out := stats.Shard{Format: stats.ShardFormat, Index: index, Count: count, Params: shardParams(rep.params)}
	signup := provider.Signup(rep.params.PFail, rep.params.LostReply) // a shard names it without a model
	if e.Delivery != nil || e.scenarioFile != "" || !reflect.DeepEqual(e.Scenario, signup) {
		out.Model = sim.ModelOf(e.Scenario, e.Delivery)
	}
	for i := range rep.Rows {
		r := &rep.Rows[i] // by index: a Row's counters are 89 KB
		out.Rows = append(out.Rows, stats.Row{ID: r.ID, Label: r.Label, OwnStrategy: ownStrategy(e.Strategies[i]), Counters: counters[0][i]})
	}
	return out, nil
}

// ownStrategy reports whether s is not a strategy.Retry (stats.Row.OwnStrategy).
func ownStrategy(s strategy.Strategy) bool {
	_, ok := s.(strategy.Retry)
	return !ok
}

// shardable refuses an experiment that its shards' parameters do not describe, so that merge
// refuses no shard written.
func (e Experiment) shardable() error {
	par := e.params()
	for i, s := range e.Strategies {
		r, ok := s.(strategy.Retry)
		if !ok || r.Label != "" || r.Attempts != par.Attempts {
			return fieldErr(fmt.Sprintf("strategies[%d]", i), "merge rebuilds unlabelled strategy.Retry strategies of one number of attempts only, not %s", s.Name())
		}
	}
	return nil
}

// WriteShard writes sh for ReadShard to read on another machine: indented json, then a newline.
func WriteShard(w io.Writer, sh Shard) error { return reportjson.WriteIndented(w, sh.s) }

// ReadShard reads the shard file at path, refusing a file that is not a regular one and counters no
// run can produce.
func ReadShard(path string) (Shard, error) {
	f, err := shardfile.Open(path)
	if err != nil {
		return Shard{}, err
	}
	defer f.Close()
	sh, err := stats.ReadShard(f)
	if err == nil && sh.Model != nil {
		// Only the models' declarations can check a model's settings by key.
		_, _, err = sim.FromModel(*sh.Model)
		err = fieldpath.Within("model", err)
	}
	if err != nil {
		return Shard{sh}, fmt.Errorf("%s: %w", path, err)
	}
	return Shard{sh}, nil
}

// Merger adds up the shards of one run, one at a time, checking that they are the slices 0 to n-1
// of one run, each once. The zero Merger rebuilds the run from the first shard's parameters, and so
// refuses a row of your own strategy; an experiment's Merger checks each shard against it. Its
// errors name the shard by the name it was added under.
type Merger struct {
	exp   *Experiment // the run, when the merger was made knowing it
	first string      // the first shard's name, which the others are compared with
	total stats.Shard
	cfg   sim.Config
	seen  map[int]string // name by slice
}

// Merger returns a Merger of e's shards whose Report is what Run(e) reports. It checks each shard's
// parameters, strategies and jobs against e, so it merges the shards of any experiment, and trusts
// the counters but for overflow.
func (e Experiment) Merger() *Merger {
	return &Merger{exp: &e}
}

// Add checks the shard called name and adds its counters.
func (m *Merger) Add(name string, shard Shard) error {
	sh := shard.s
	var cfg sim.Config
	var err error
	if m.exp != nil {
		err = m.exp.sliceOf(sh)
	} else {
		cfg, err = sim.ShardConfig(sh)
	}
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
	// Compared as files write them: a shard in memory also holds json:"-" fields.
	first := m.total
	params, model := jsonDiff(first.Params, sh.Params, ""), jsonDiff(first.Model, sh.Model, "model")
	switch {
	case sh.Count != first.Count:
		return fmt.Errorf("%s is shard %d/%d but %s is of %d shards", name, sh.Index, sh.Count, m.first, first.Count)
	case params != "":
		return fmt.Errorf("%s and %s are shards of different runs: %s", m.first, name, params)
	case model != "":
		return fmt.Errorf("%s and %s are shards of different runs: their models (scenario steps, watched steps or queue) differ: %s", m.first, name, model)
	case !sameStrategies(sh.Rows, first.Rows):
		return fmt.Errorf("%s and %s ran different strategies", m.first, name)
	}
	if other, dup := m.seen[sh.Index]; dup {
		return fmt.Errorf("shard %d/%d is given twice: %s and %s", sh.Index, sh.Count, other, name)
	}
	m.seen[sh.Index] = name
	for i := range m.total.Rows {
		if err := m.total.Rows[i].Counters.AddChecked(&sh.Rows[i].Counters); err != nil {
			return fmt.Errorf("%s: rows[%d].%w", name, i, err)
		}
	}
	return nil
}

// MergeFiles reads the shard files at paths with the zero Merger and returns the merged report; an
// error names the file.
func MergeFiles(paths ...string) (Report, error) {
	var m Merger
	for _, p := range paths {
		sh, err := ReadShard(p)
		if err == nil {
			err = m.Add(p, sh)
		}
		if err != nil {
			return Report{}, err
		}
	}
	return m.Report()
}

// maxMissing is how many missing slices an error lists.
const maxMissing = 10

// Report is the merged run's report, once every slice is in.
func (m *Merger) Report() (Report, error) {
	if m.seen == nil {
		return Report{}, fmt.Errorf("no shards given")
	}
	var missing []string
	var idx []int
	more := false
	for i := range m.total.Count {
		if _, ok := m.seen[i]; !ok {
			if len(idx) == maxMissing {
				missing, more = append(missing, "..."), true
				break
			}
			missing, idx = append(missing, fmt.Sprintf("%d/%d", i, m.total.Count)), append(idx, i)
		}
	}
	if len(missing) > 0 {
		what := "shards %s are missing"
		if len(missing) == 1 {
			what = "shard %s is missing"
		}
		return Report{}, fmt.Errorf(what+" (%d of %d given; %s)", strings.Join(missing, ", "), len(m.seen), m.total.Count, shardfile.Tasks(idx, m.total.Count, more))
	}
	// Every slice is in, each row holding its jobs (Add): the rows hold the run's.
	var e Experiment
	if m.exp != nil {
		e = *m.exp
	} else {
		c := m.cfg
		e = Experiment{Scenario: c.Scenario, scenarioFile: m.total.File, Strategies: c.Strategies, Jobs: c.Jobs, Seed: c.Seed,
			Generator: c.Generator.Name, Engine: c.Engine.String(), Delivery: c.Delivery}
	}
	rep := e.newReport()
	// The merged output must not say what no shard ran.
	rep.params.Overrides = m.total.Overrides
	if d := jsonDiff(shardParams(rep.params), m.total.Params, ""); d != "" {
		return Report{}, fmt.Errorf("%s: the parameters are not the model's: %s", m.first, d)
	}
	for i := range rep.Rows {
		rep.Rows[i].counters = m.total.Rows[i].Counters
	}
	return rep, nil
}

// sliceOf reports why sh is not a slice of e.
func (e Experiment) sliceOf(sh stats.Shard) error {
	s := sim.Shard{Index: sh.Index, Count: sh.Count}
	if err := e.checkShard(s.Index, s.Count); err != nil {
		return fmt.Errorf("shard_index, shard_count: %w", err)
	}
	rep := e.newReport()
	params := jsonDiff(sh.Params, shardParams(rep.params), "")
	switch {
	case params != "": // a shard is read (ReadShard) or run (Shard) in this retrysim's format
		return fmt.Errorf("not a shard of this experiment: %s", params)
	case len(sh.Rows) != len(rep.Rows):
		return fmt.Errorf("rows: %d, but the experiment has %d strategies", len(sh.Rows), len(rep.Rows))
	}
	want := e.config(0, s).ShardJobs()
	for i := range sh.Rows {
		r := &sh.Rows[i]
		switch {
		case r.ID != rep.Rows[i].ID || r.Label != rep.Rows[i].Label:
			return fmt.Errorf("rows[%d]: strategy %s (%q), but the experiment's is %s (%q)", i, r.ID, r.Label, rep.Rows[i].ID, rep.Rows[i].Label)
		case r.OwnStrategy != ownStrategy(e.Strategies[i]):
			return fmt.Errorf("rows[%d].own_strategy: %t, but it is %t for the experiment's %s", i, r.OwnStrategy, !r.OwnStrategy, r.ID)
		case r.Jobs != want:
			return fmt.Errorf("rows[%d].jobs: %d, but slice %d/%d of %d jobs holds %d", i, r.Jobs, sh.Index, sh.Count, e.Jobs, want)
		}
	}
	return nil
}

// sameStrategies reports whether rows a and b are of the same strategies, without copying 89 KB rows.
func sameStrategies(a, b []stats.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
	}
	return true
}

// maxDiffValue is the longest value, in bytes of JSON, that jsonDiff quotes.
const maxDiffValue = 60

// jsonDiff names the first field in which a and b, written as JSON at root, differ
// (model.steps[1].name), with both values, whatever the order of an object's keys; "" when none
// does.
func jsonDiff(a, b any, root string) string {
	var values [2]any
	for i, x := range []any{a, b} {
		data, err := json.Marshal(x)
		if err == nil {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber() // exact, as the files are
			err = dec.Decode(&values[i])
		}
		if err != nil {
			return err.Error()
		}
	}
	return firstDiff(values[0], values[1], root)
}

// firstDiff is jsonDiff of decoded JSON values a and b at path.
func firstDiff(a, b any, path string) string {
	at := func(key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		both := maps.Clone(x)
		maps.Copy(both, y) // for its keys, those of x and y
		for _, k := range slices.Sorted(maps.Keys(both)) {
			va, inA := x[k]
			vb, inB := y[k]
			switch {
			case !inA:
				return fmt.Sprintf("%s is absent in one and %s in the other", at(k), jsonValue(vb))
			case !inB:
				return fmt.Sprintf("%s is %s in one and absent in the other", at(k), jsonValue(va))
			}
			if d := firstDiff(va, vb, at(k)); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s has %d entries in one and %d in the other", path, len(x), len(y))
		}
		for i := range x {
			if d := firstDiff(x[i], y[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(a, b) {
		return ""
	}
	return fmt.Sprintf("%s is %s in one and %s in the other", path, jsonValue(a), jsonValue(b))
}

// jsonValue is v as JSON, cut after maxDiffValue bytes at a rune's start.
func jsonValue(v any) string {
	data, _ := json.Marshal(v)
	if len(data) <= maxDiffValue {
		return string(data)
	}
	n := maxDiffValue
	for !utf8.RuneStart(data[n]) {
		n--
	}
	return string(data[:n]) + "..."
}

// shardParams are a report's parameters as its shards carry them: without the model's name, which
// the shard's model says.
func shardParams(p stats.Params) stats.Params {
	p.Model = ""
	return p
}
