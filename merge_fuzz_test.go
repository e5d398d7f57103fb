package retrysim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// shardFields are the fields FuzzMerge edits, by number.
var shardFields = []string{
	"jobs", "attempts", "steps", "p_fail", "lost_reply", "seed", "shard_index", "shard_count", "retrysim_shard",
	"replicates", "rng", "engine", "scenario", "rows",
	"rows.jobs", "rows.failed", "rows.calls", "rows.repeated_steps", "rows.duplicate_users", "rows.side_effects",
	"rows.calls_sq", "rows.calls_sq.hi", "rows.repeated_steps_sq", "rows.repeated_steps_sq.hi",
	"rows.deliveries", "rows.lost_work", "rows.repeated_by_step", "rows.completion", "rows.strategy", "rows.label",
	"rows.own_strategy",
}

// names are the strings FuzzMerge puts in text fields: valid and not.
var names = []string{"pcg", "mulberry32", "xexp", "plain", "skip", "auto", "signup", "step-nokey", "job-samekey-skip",
	"Retry each step, no key", "", "dice", "job-maybe", "Retry\x1b[2J", "\x00"}

// editShard sets field number field of sh (of row row, for a row's) from v:
// v itself, or the field's value plus v mod 8 when field's top bit is set, so
// the fuzzer reaches both wild values and the edges of the valid ones.
func editShardField(sh *stats.Shard, field, row uint8, v int64) {
	relative := field&0x80 != 0
	name := shardFields[int(field&0x7f)%len(shardFields)]
	set := func(p *int64) {
		if relative {
			*p += v % 8
		} else {
			*p = v
		}
	}
	setInt := func(p *int) {
		x := int64(*p)
		set(&x)
		*p = int(x)
	}
	setWide := func(p *uint64) {
		x := int64(*p)
		set(&x)
		*p = uint64(x)
	}
	setFloat := func(p *float64) {
		if relative {
			*p += float64(v%8) / 1000
		} else {
			*p = float64(v) / 1000
		}
	}
	text := names[uint64(v)%uint64(len(names))]
	var c *stats.Counters
	if len(sh.Rows) > 0 {
		c = &sh.Rows[int(row)%len(sh.Rows)].Counters
	}
	if c == nil && strings.HasPrefix(name, "rows.") {
		return
	}
	switch name {
	case "jobs":
		set(&sh.Jobs)
	case "attempts":
		setInt(&sh.Attempts)
	case "steps":
		setInt(&sh.Steps)
	case "p_fail":
		setFloat(&sh.PFail)
	case "lost_reply":
		setFloat(&sh.LostReply)
	case "seed":
		sh.Seed = uint64(v)
	case "shard_index":
		setInt(&sh.Index)
	case "shard_count":
		setInt(&sh.Count)
	case "retrysim_shard":
		setInt(&sh.Format)
	case "replicates":
		setInt(&sh.Replicates)
	case "rng":
		sh.RNG = text
	case "engine":
		sh.Engine = text
	case "scenario":
		sh.Scenario = text
	case "rows":
		sh.Rows = sh.Rows[:uint64(v)%uint64(len(sh.Rows)+1)]
	case "rows.jobs":
		set(&c.Jobs)
	case "rows.failed":
		set(&c.Failed)
	case "rows.calls":
		set(&c.Calls)
	case "rows.repeated_steps":
		set(&c.RepeatedSteps)
	case "rows.duplicate_users":
		set(&c.DuplicateUsers)
	case "rows.side_effects":
		set(&c.SideEffects)
	case "rows.calls_sq":
		setWide(&c.CallsSq.Lo)
	case "rows.calls_sq.hi":
		setWide(&c.CallsSq.Hi)
	case "rows.repeated_steps_sq":
		setWide(&c.RepeatedSq.Lo)
	case "rows.repeated_steps_sq.hi":
		setWide(&c.RepeatedSq.Hi)
	case "rows.deliveries":
		set(&c.Deliveries)
	case "rows.lost_work":
		set(&c.LostWork)
	case "rows.repeated_by_step":
		set(&c.RepeatedByStep[uint64(v)%uint64(len(c.RepeatedByStep))])
	case "rows.completion": // one bucket's count set or moved, the rest as they were
		bs := c.Completion.Buckets()
		b := hist.Bucket{Index: int(uint64(v) % hist.HistogramBuckets)}
		if k := slices.IndexFunc(bs, func(x hist.Bucket) bool { return x.Index == b.Index }); k >= 0 {
			b, bs = bs[k], slices.Delete(bs, k, k+1)
		}
		set(&b.Count)
		if b.Count > 0 {
			bs = append(bs, b)
			slices.SortFunc(bs, func(x, y hist.Bucket) int { return x.Index - y.Index })
		}
		if c.Completion.SetBuckets(bs) != nil { // the counts overflow: leave the histogram as it was
			return
		}
	case "rows.strategy":
		sh.Rows[int(row)%len(sh.Rows)].ID = text
	case "rows.label":
		sh.Rows[int(row)%len(sh.Rows)].Label = text
	case "rows.own_strategy":
		sh.Rows[int(row)%len(sh.Rows)].OwnStrategy = v%2 != 0
	}
}

// FuzzMerge is structure-aware: it decodes the two shards of a valid run,
// edits fields of either from the fuzzer's numbers, encodes them again and
// merges them as retrysim merge does. Merging never panics, and what it accepts
// renders with -ci and -expect in every format with finite, non-negative
// rates (shares at most 1).
func FuzzMerge(f *testing.F) {
	e := retrysim.Experiment{Scenario: provider.Signup(0.01, 0.005), Jobs: 100_000, Seed: 1}
	for _, id := range strategy.DefaultIDs() {
		s, _ := strategy.Parse(id, 3)
		e.Strategies = append(e.Strategies, s)
	}
	var base [2]stats.Shard
	for i := range base {
		sh, err := retrysim.RunShard(context.Background(), e, i, 2)
		if err != nil {
			f.Fatal(err)
		}
		// Through json, as a shard file is written and read.
		data, err := json.Marshal(sh)
		if err != nil {
			f.Fatal(err)
		}
		if base[i], err = stats.ReadShard(bytes.NewReader(data)); err != nil {
			f.Fatal(err)
		}
	}
	field := func(name string) uint8 {
		for i, n := range shardFields {
			if n == name {
				return uint8(i)
			}
		}
		f.Fatalf("no field %s", name)
		return 0
	}
	// The reproducers, and edits at the edges.
	f.Add(uint8(0), field("rows"), uint8(0), int64(0), field("jobs"), int64(0))
	f.Add(uint8(0), field("rows.failed"), uint8(0), int64(-11), field("jobs"), int64(0))
	f.Add(uint8(1), field("attempts"), uint8(0), int64(0), field("jobs"), int64(0))
	f.Add(uint8(0), field("rows.failed"), uint8(2), int64(1_000_000_000), field("rows.failed"), int64(1_000_000_000))
	f.Add(uint8(0), field("rows.failed"), uint8(0), int64(math.MaxInt64), field("rows.failed")|0x80, int64(1))
	f.Add(uint8(1), field("rows.calls_sq")|0x80, uint8(3), int64(-1), field("rows.calls")|0x80, int64(1))
	f.Add(uint8(0), field("attempts")|0x80, uint8(0), int64(5), field("p_fail"), int64(1000))
	f.Add(uint8(1), field("rows.label"), uint8(1), int64(13), field("rows.strategy"), int64(8))
	// A row that says it is not a strategy.Retry, with the run's attempts
	// and with none (TestOwnStrategyShardFiles): the zero Merger cannot
	// rebuild it.
	f.Add(uint8(0), field("rows.own_strategy"), uint8(0), int64(1), field("jobs")|0x80, int64(0))
	f.Add(uint8(0), field("rows.own_strategy"), uint8(0), int64(1), field("attempts"), int64(0))
	f.Fuzz(func(t *testing.T, which, field1, row uint8, v1 int64, field2 uint8, v2 int64) {
		shards := [2]stats.Shard{base[0], base[1]}
		for i := range shards {
			shards[i].Rows = append([]stats.Row(nil), base[i].Rows...)
		}
		editShardField(&shards[which%2], field1, row, v1)
		editShardField(&shards[which/2%2], field2, row/2, v2)
		var m retrysim.Merger
		for i, sh := range shards {
			data, err := json.Marshal(sh)
			if err != nil {
				return // not json: nothing to merge
			}
			read, err := stats.ReadShard(bytes.NewReader(data))
			if err == nil {
				err = m.Add([]string{"0.json", "1.json"}[i], retrysim.ShardOf(read))
			}
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error spans lines: %q", err)
				}
				return
			}
		}
		rep, err := m.Report()
		if err != nil {
			return
		}
		for _, format := range render.Names(render.ReportDoc) {
			r, err := render.Lookup(render.ReportDoc, format)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := r.Report(&out, rep.Results(true, true)); err != nil {
				t.Fatalf("%s: merged shards do not render: %v", format, err)
			}
			if format == "json" {
				checkRates(t, out.Bytes())
			}
		}
	})
}

// checkRates checks every rate of a json report: a finite number, at least
// 0, and at most 1 for a share of jobs.
func checkRates(t *testing.T, out []byte) {
	t.Helper()
	var doc struct{ Rows []map[string]any }
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	for i, row := range doc.Rows {
		for _, m := range stats.Metrics() {
			v, ok := row[m.Name].(float64)
			if !ok || math.IsInf(v, 0) || v < 0 {
				t.Errorf("rows[%d].%s = %v; want a finite rate at least 0", i, m.Name, row[m.Name])
			}
			if share := m.Name != "calls_per_job" && m.Name != "repeated_per_job"; share && v > 1 {
				t.Errorf("rows[%d].%s = %v; want a share at most 1", i, m.Name, v)
			}
		}
	}
}
