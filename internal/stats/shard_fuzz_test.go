package stats_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/stats"
)

// twoJobs is a shard Check accepts, worked out by hand: two jobs of two steps
// and up to three attempts, one of which failed after six calls, having done
// one step's work five times; the other made one call.
func twoJobs() stats.Shard {
	c := stats.Counters{Jobs: 2, Failed: 1, Calls: 7, SideEffects: 7, RepeatedSteps: 4, DuplicateUsers: 1,
		CallsSq: stats.Wide{Lo: 1*1 + 6*6}, RepeatedSq: stats.Wide{Lo: 4 * 4},
		RepeatedByStep: stats.StepCounts{4}, TwiceByStep: stats.StepCounts{1}}
	return stats.Shard{Format: stats.ShardFormat, Index: 0, Count: 1,
		Params: stats.Params{Scenario: "two", Steps: 2, Jobs: 2, PFail: 0.5, LostReply: 0.5, Attempts: 3, RNG: "pcg", Engine: "plain", Replicates: 1},
		Rows:   []stats.Row{{ID: "step-nokey", Label: "Retry each step, no key", Counters: c}, {ID: "job-samekey", Label: "Retry the whole job, same key", Counters: c}}}
}

// twoJobsQueue is twoJobs run by the delivery model, worked out by hand: the
// failed job was delivered twice and the other once (3 deliveries, at most
// 10 each), each job timed once, the success in completion and the failure
// in failed_completion; the shard carries its model, two steps, the first
// watched, and the queue.
func twoJobsQueue() stats.Shard {
	sh := twoJobs()
	for i := range sh.Rows {
		c := &sh.Rows[i].Counters
		c.Deliveries = 3
		c.Completion.AddSeconds(1e-4)
		c.FailedCompletion.AddSeconds(1e-3)
	}
	sh.Delivery = &stats.DeliveryParams{Settings: stats.Settings{{Key: "store", Value: "claim"}, {Key: "ttl", Value: "24h0m0s"},
		{Key: "lease", Value: "30s"}, {Key: "visibility", Value: "30s"}, {Key: "max_deliveries", Value: int64(10)}, {Key: "repeat", Value: 0.0},
		{Key: "repeat_delay", Value: "fixed 0s"}, {Key: "crash", Value: 0.0}, {Key: "crash_at", Value: "before-key"}, {Key: "max_crashes", Value: int64(0)}},
		Backoff: "full-jitter base 100ms cap 2s", Latency: "fixed 10ms"}
	sh.Model = &stats.Model{Name: "two", Noun: "jobs",
		Steps:   []stats.ModelStep{modelStep("charge", 0.5, false, 0, 1e7), modelStep("email", 0.5, true, 0.5, 1e7)},
		Watched: []stats.ModelWatch{{Step: 0, Label: "Jobs charged twice"}},
		Queue: stats.Settings{{Key: "store", Value: "claim"}, {Key: "ttl_ns", Value: int64(864e11)}, {Key: "lease_ns", Value: int64(3e10)},
			{Key: "visibility_ns", Value: int64(3e10)}, {Key: "max_deliveries", Value: int64(10)}, {Key: "repeat", Value: 0.0},
			{Key: "repeat_delay_ns", Value: int64(0)}, {Key: "repeat_delay_p99_ns", Value: int64(0)}, {Key: "crash", Value: 0.0},
			{Key: "crash_at", Value: "before-key"}, {Key: "max_crashes", Value: int64(0)}, {Key: "backoff", Value: "full-jitter"},
			{Key: "backoff_base_ns", Value: int64(1e8)}, {Key: "backoff_cap_ns", Value: int64(2e9)}}}
	return sh
}

// FuzzReadShard: ReadShard never panics, and a shard it accepts holds no
// control character in any text, renders in every format with finite,
// non-negative rates (shares at most 1), and encodes to a shard it reads
// back the same.
func FuzzReadShard(f *testing.F) {
	valid, err := json.Marshal(twoJobs())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	for _, edit := range [][2]string{
		{`"rows":[`, `"rows":[],"x":[`},
		{`"failed":1`, `"failed":-11`},
		{`"attempts":3`, `"attempts":0`},
		{`"failed":1`, `"failed":9223372036854775807`},
		{`"calls_sq":37`, `"calls_sq":36`},
		{`"repeated_by_step":[4,`, `"repeated_by_step":[3,`},
		{`"twice_by_step":[1,`, `"twice_by_step":[5,`},
		{`"retrysim_shard":3`, `"retrysim_shard":3,"surprise":true`},
		{`"label":"Retry each step, no key"`, `"label":"Retry\u001b[2J"`},
		{`"failed":1`, `"FAILED":1`},
		{`"failed":1`, `"failed":1,"failed":-1`},
	} {
		f.Add(bytes.Replace(valid, []byte(edit[0]), []byte(edit[1]), 1))
	}
	queue, err := json.Marshal(twoJobsQueue())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(queue)
	for _, edit := range [][2]string{
		{`"deliveries":3`, `"deliveries":1`},
		{`"deliveries":3`, `"deliveries":21`},
		{`"lost_work":0`, `"lost_work":2`},
		{`"max_deliveries":10,"repeat"`, `"max_deliveries":0,"repeat"`},
		{`"queue":{`, `"queuee":{`},
		{`"watched":[{"step":0`, `"watched":[{"step":7`},
		{`"name":"charge"`, "\"name\":\"charge\x1b[2J\""},
		{`"model":{`, `"model":null,"x":{`},
		{`"latency_p99_ns":0},{"name":"email"`, `"latency_p99_ns":0,"attempts":5,"keys":"same","backoff":{"policy":"constant","base_ns":1000000000,"cap_ns":0}},{"name":"email"`},
		// a step's settings (stats.Settings), which package sim reads
		{`"p_fail":0.5,"can_lose_reply":false`, `"p_fail":"0.5","can_lose_reply":false`},
		{`"p_fail":0.5,"can_lose_reply":false`, `"p_fail":1,"can_lose_reply":false`},
		{`"p_fail":0.5,"can_lose_reply":false`, `"p_fail":1.5,"can_lose_reply":false`},
		{`"can_lose_reply":false`, `"can_lose_reply":0`},
		{`"can_lose_reply":false,`, ``},
		{`"keyed":false`, `"keyed":true`},
		{`"keyed":false`, `"keyed":false,"colour":"red"`},
		{`"keyed":false`, `"keyed":false,"keyed":true`},
		{`"latency_ns":10000000`, `"latency_ns":1e7`},
		{`"latency_ns":10000000`, `"latency_ns":-1`},
		{`,"latency_p99_ns":0}`, `}`},
		{`"latency_p99_ns":0}`, `"latency_p99_ns":0,"backoff":{"policy":"constant"}}`},
		{`"latency_p99_ns":0}`, `"latency_p99_ns":0,"backoff":"constant"}`},
		{`"latency_p99_ns":0}`, `"latency_p99_ns":0,"attempts":2.5}`},
		{`"latency_p99_ns":0}`, `"latency_p99_ns":0,"keys":true}`},
		{`"name":"charge"`, `"name":7`},
		{`{"name":"charge",`, `{`},
		// the queue's settings (stats.Settings), which package sim reads
		{`"ttl_ns":86400000000000`, `"ttl_ns":"24h"`},
		{`"ttl_ns":86400000000000`, `"ttl_ns":8.64e13`},
		{`"ttl_ns":86400000000000`, `"ttl_ns":{}`},
		{`"ttl_ns":86400000000000`, `"ttl_ns":null`},
		{`"ttl_ns":86400000000000`, `"ttl_ns":1e400`},
		{`"ttl_ns":86400000000000,`, ``},
		{`"ttl_ns":86400000000000`, `"ttl_ns":86400000000000,"ttl_ns":1`},
		{`"ttl_ns":86400000000000`, `"ttl_ns":86400000000000,"surprise":1`},
		{`"lease_ns":30000000000`, `"lease_ns":-30000000000`},
		{`"max_deliveries":10,"repeat":0,"repeat_delay_ns"`, `"max_deliveries":"10","repeat":0,"repeat_delay_ns"`},
		{`"repeat":0,"repeat_delay_ns"`, `"repeat":0.5,"repeat_delay_ns"`},
		{`"crash_at":"before-key","max_crashes":0,"backoff"`, `"crash_at":"lunch","max_crashes":0,"backoff"`},
		{`"queue":{"store"`, `"queue":{"store":"claim","x"`},
		// the completion histograms (hist.Histogram's [index, count] pairs)
		{`"completion":[[850,1]]`, `"completion":[[850,1],[851,1]]`},
		{`"completion":[[850,1]]`, `"completion":[[851,0],[850,1]]`},
		{`"completion":[[850,1]]`, `"completion":[[850,1],[850,1]]`},
		{`"completion":[[850,1]]`, `"completion":[[850,0]]`},
		{`"completion":[[850,1]]`, `"completion":[[850,-1],[851,2]]`},
		{`"completion":[[850,1]]`, `"completion":[[5506,1]]`},
		{`"completion":[[850,1]]`, `"completion":[[-1,1]]`},
		{`"completion":[[850,1]]`, `"completion":[[850,1,2]]`},
		{`"completion":[[850,1]]`, `"completion":[[850.5,1]]`},
		{`"completion":[[850,1]]`, `"completion":[850,1]`},
		{`"completion":[[850,1]]`, `"completion":null`},
		{`"completion":[[850,1]]`, `"completion":[]`},
		{`"completion":[[850,1]]`, `"completion":[[5505,1]]`},
		{`"completion":[[850,1]]`, `"completion":[[0,1]]`},
		{`"completion":[[850,1]]`, `"completion":[[1,9223372036854775807],[2,1]]`},
		{`"failed_completion":[[1284,1]]`, `"failed_completion":[[1284,1]],"failed_completion":[[1284,1]]`},
		{`,"failed_completion":[[1284,1]]`, ``},
		{`"retrysim_shard":3`, `"retrysim_shard":2`},
	} {
		if !bytes.Contains(queue, []byte(edit[0])) {
			f.Fatalf("%s is not in the shard", edit[0])
		}
		f.Add(bytes.Replace(queue, []byte(edit[0]), []byte(edit[1]), 1))
	}
	// A shard whose steps carry their own policy (sim.ModelOf), and edits of it.
	policy := twoJobsQueue()
	ownPolicy(&policy.Model.Steps[0])
	policyJSON, err := json.Marshal(policy)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(policyJSON)
	for _, edit := range [][2]string{
		{`"attempts":5`, `"attempts":1001`},
		{`"attempts":5`, `"attempts":-5`},
		{`"keys":"same"`, `"keys":"s\u001b[2J"`},
		{`"policy":"constant"`, `"policy":"later"`},
		{`"base_ns":50000000`, `"base_ns":-1`},
		{`"backoff":{`, `"backoff":{"jitter":1,`},
		{`"attempts":5`, `"attempts":0`},
		{`"keys":"same"`, `"keys":""`},
		{`"attempts":5`, `"attempts":null`},
		{`"keys":"same"`, `"keys":null`},
		{`"backoff":{"policy":"constant","base_ns":50000000,"cap_ns":2000000000}`, `"backoff":null`},
		{`"policy":"constant"`, `"policy":"constant\u0007"`},
		{`"store":"claim","ttl_ns"`, `"store":"claim\r","ttl_ns"`},
		{`"crash_at":"before-key"`, `"crash_at":"before-key\u009b"`},
	} {
		f.Add(bytes.Replace(policyJSON, []byte(edit[0]), []byte(edit[1]), 1))
	}
	// Shards of strategies that set their own limits (TestReadShardOwnStrategy).
	for _, sh := range []stats.Shard{ownShard(), onlyOwn()} {
		own, err := json.Marshal(sh)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(own)
		for _, edit := range [][2]string{
			{`"own_strategy":true`, `"own_strategy":false`},
			{`"attempts":`, `"attempts":1`},
			{`"calls":9`, `"calls":9223372036854775807`},
		} {
			f.Add(bytes.Replace(own, []byte(edit[0]), []byte(edit[1]), 1))
		}
	}
	f.Add(append(append([]byte{}, valid...), "{}"...))
	f.Add([]byte("1,000,000 sign-ups"))
	f.Add([]byte(`{"rows": []}`))
	f.Add([]byte{0, 0, 0})
	f.Add([]byte(issue21Shard))
	f.Fuzz(func(t *testing.T, data []byte) {
		sh, err := stats.ReadShard(bytes.NewReader(data))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("ReadShard error spans lines: %q", err)
			}
			return
		}
		again, err := json.Marshal(sh)
		if err != nil {
			t.Fatalf("accepted shard does not encode: %v", err)
		}
		if s, ok := printableJSON(again); !ok {
			t.Fatalf("accepted shard holds a control character in %q", s)
		}
		back, err := stats.ReadShard(bytes.NewReader(again))
		if err != nil || !bytes.Equal(mustJSON(t, back), again) {
			t.Fatalf("shard does not read back: %v\n%s", err, again)
		}
		checkModel(t, sh.Model)
		for i, row := range sh.Rows {
			checkHistograms(t, i, row.Counters)
		}
		checkRendered(t, stats.Report{Params: sh.Params, Rows: sh.Rows, ShowCI: true})
	})
}

// checkHistograms checks an accepted row's completion histograms: they time
// every job once (the successes in completion, the failures in
// failed_completion) or, without the delivery model, none; their quantiles
// rise with p and are bucket middles or past the range; and a histogram
// merged with itself counts twice as many with the same quantiles, each
// duration being there twice.
func checkHistograms(t *testing.T, i int, c stats.Counters) {
	t.Helper()
	if n, f := c.Completion.Count(), c.FailedCompletion.Count(); (n != 0 || f != 0) && (n != c.Jobs-c.Failed || f != c.Failed) {
		t.Fatalf("rows[%d]: completion counts %d and failed_completion %d of %d jobs, %d failed", i, n, f, c.Jobs, c.Failed)
	}
	for _, h := range []hist.Histogram{c.Completion, c.FailedCompletion} {
		if h.Count() == 0 {
			continue
		}
		twice := h
		if err := twice.Merge(&h); err != nil || twice.Count() != 2*h.Count() {
			t.Fatalf("rows[%d]: a histogram of %d merged with itself: %v, %d", i, h.Count(), err, twice.Count())
		}
		last := 0.0
		for _, p := range []float64{0, 0.5, 0.95, 0.99, 1} {
			q := h.QuantileSeconds(p)
			if q < last || q < 0 || (q >= hist.Top() && !math.IsInf(q, 1)) || math.IsNaN(q) {
				t.Fatalf("rows[%d]: p%v of %v s after %v s", i, 100*p, q, last)
			}
			if q2 := twice.QuantileSeconds(p); q2 != q {
				t.Fatalf("rows[%d]: p%v of %v s, merged with itself %v s", i, 100*p, q, q2)
			}
			last = q
		}
	}
}

// checkModel rebuilds the run of m as a merge does (sim.FromModel), which
// must not panic, and checks that a model it accepts is written again with
// the same steps and queue: each setting read is one written, under its
// key, with its value, whatever the file's order of keys.
func checkModel(t *testing.T, m *stats.Model) {
	t.Helper()
	if m == nil {
		return
	}
	sc, q, err := sim.FromModel(*m)
	if err != nil {
		return
	}
	var readSteps, writtenSteps []map[string]any
	if json.Unmarshal(mustJSON(t, m.Steps), &readSteps) != nil || json.Unmarshal(mustJSON(t, sim.ModelOf(sc, q).Steps), &writtenSteps) != nil || !reflect.DeepEqual(readSteps, writtenSteps) {
		t.Fatalf("model.steps read as %s is written again as %s", mustJSON(t, m.Steps), mustJSON(t, sim.ModelOf(sc, q).Steps))
	}
	if q == nil {
		return
	}
	var read, written map[string]any
	if json.Unmarshal(mustJSON(t, m.Queue), &read) != nil || json.Unmarshal(mustJSON(t, sim.ModelOf(sc, q).Queue), &written) != nil || !reflect.DeepEqual(read, written) {
		t.Fatalf("model.queue read as %+v is written again as %s", m.Queue, mustJSON(t, sim.ModelOf(sc, q).Queue))
	}
}

// modelStep is a step of a shard's model as sim.ModelOf writes one that
// keeps the run's policy, its latency fixed at latencyNs.
func modelStep(name string, pFail float64, lossy bool, lostReply float64, latencyNs int64) stats.ModelStep {
	return stats.ModelStep{Name: name, Settings: stats.Settings{{Key: "p_fail", Value: pFail}, {Key: "can_lose_reply", Value: lossy},
		{Key: "lost_reply", Value: lostReply}, {Key: "keyed", Value: false}, {Key: "latency_ns", Value: latencyNs}, {Key: "latency_p99_ns", Value: int64(0)}}}
}

// ownPolicy gives st a policy of its own, as sim.ModelOf writes it: 5
// attempts, the same key, a constant backoff of 50ms capped at 2s.
func ownPolicy(st *stats.ModelStep) {
	st.Set("attempts", int64(5))
	st.Set("keys", "same")
	st.Set("backoff", stats.Settings{{Key: "policy", Value: "constant"}, {Key: "base_ns", Value: int64(5e7)}, {Key: "cap_ns", Value: int64(2e9)}})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkRendered renders r in every format and checks the json's rates.
func checkRendered(t *testing.T, r stats.Report) {
	t.Helper()
	for _, format := range render.Names(render.ReportDoc) {
		rd, err := render.Lookup(render.ReportDoc, format)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := rd.Report(&out, r); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if format != "json" {
			continue
		}
		var doc struct{ Rows []map[string]any }
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		for i, row := range doc.Rows {
			for _, m := range stats.Metrics() {
				if r.Rows[i].Jobs == 0 { // a slice may hold no jobs: no rate
					if row[m.Name] != nil {
						t.Errorf("rows[%d].%s = %v of no jobs; want null", i, m.Name, row[m.Name])
					}
					continue
				}
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
}

// issue21Shard is the shard issue 21 found ReadShard accepting though the
// command's merge refuses it: no jobs, no generator, a row of nothing.
// Rendered, its rates were NaN, which json cannot write.
const issue21Shard = `{"retrysim_shard":3,"shard_count":1,"steps":1,"attempts":1,"rows":[{}]}`

// ReadShard refuses, naming the field, what every shard -shard writes has:
// at least one job, one replicate, a generator and an engine, rows that
// name their strategy and hold the slice's jobs (all the run's in a run of
// one slice), and names CheckName takes.
func TestReadShardRefusesWhatNoRunWrites(t *testing.T) {
	if _, err := stats.ReadShard(strings.NewReader(issue21Shard)); err == nil || err.Error() != "jobs: 0 is not a whole number from 1 to 1000000000000" {
		t.Errorf("ReadShard(%s) = %v; want jobs: 0 is not a whole number from 1 to 1000000000000", issue21Shard, err)
	}
	long := strings.Repeat("x", stats.MaxNameBytes+1)
	for _, tt := range []struct {
		edit func(sh *stats.Shard)
		want string
	}{
		{func(sh *stats.Shard) { sh.Jobs = 0 }, "jobs: 0 is not a whole number from 1 to 1000000000000"},
		{func(sh *stats.Shard) { sh.PFail = 1.5 }, "p_fail: 1.5 is not a probability in [0, 1]"},
		{func(sh *stats.Shard) { sh.Replicates = 2 }, "replicates: 2, but a shard holds one replicate"},
		{func(sh *stats.Shard) { sh.RNG = "" }, "rng: missing; a shard names its generator"},
		{func(sh *stats.Shard) { sh.Engine = "" }, "engine: missing; a shard names its engine"},
		{func(sh *stats.Shard) { sh.Rows[1].ID = "" }, "rows[1].strategy: missing; every row names its strategy"},
		{func(sh *stats.Shard) { sh.Rows[0].Label = long }, `rows[0].label: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... is 201 bytes, more than the 200 a name may be`},
		{func(sh *stats.Shard) { sh.Scenario = "a\u2028b" }, `scenario: "a\u2028b" holds a control character`},
		{func(sh *stats.Shard) { sh.Count, sh.Rows[1].Counters = 2, stats.Counters{} }, "rows[1].jobs: 0, but rows[0] holds 2; every strategy runs the slice's jobs"},
		{func(sh *stats.Shard) { sh.Jobs = 3 }, "rows[0].jobs: 2, but slice 0/1 of 3 jobs holds 3"},
		{func(sh *stats.Shard) { sh.Jobs, sh.Count = 1, 2 }, "rows[0].jobs: 2 is more than the run's 1"},
	} {
		sh := twoJobs()
		tt.edit(&sh)
		data, err := json.Marshal(sh)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stats.ReadShard(bytes.NewReader(data)); err == nil || err.Error() != tt.want {
			t.Errorf("ReadShard = %v; want %s", err, tt.want)
		}
	}
}

// A slice can hold no jobs (-jobs 3 -shard 0/4 with the plain engine):
// its rates are not numbers, so json writes null, csv an empty cell and the
// table "-", where json failed on NaN.
func TestRenderRowOfNoJobs(t *testing.T) {
	sh := twoJobs()
	sh.Count = 2
	for i := range sh.Rows {
		sh.Rows[i].Counters = stats.Counters{}
	}
	data, err := json.Marshal(sh)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stats.ReadShard(bytes.NewReader(data)); err != nil {
		t.Fatalf("ReadShard(a slice of no jobs) = %v; want nil", err)
	}
	checkRendered(t, stats.Report{Params: sh.Params, Rows: sh.Rows, ShowCI: true})
	for format, want := range map[string]string{
		"csv":   "step-nokey,\"Retry each step, no key\",0,0,0,0,0,0,0,,,,",
		"table": "│ Retry each step, no key       │  - [-, -] │    0 [-, -] │      - [-, -] │         0 [-, -] │",
	} {
		rd, err := render.Lookup(render.ReportDoc, format)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := rd.WithWidth(0).Report(&out, stats.Report{Params: sh.Params, Rows: sh.Rows, ShowCI: true}); err != nil { // a row a line
			t.Fatalf("%s: %v", format, err)
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("%s of no jobs:\n%s\nwant it to hold %q", format, out.String(), want)
		}
	}
}

// Keys are field names exactly, once an object: encoding/json alone would
// take "FAILED" or "ſeed" (long s, folded to s) for a field, and keep the
// last of two.
func TestReadShardStrictKeys(t *testing.T) {
	valid, err := json.Marshal(twoJobs())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stats.ReadShard(bytes.NewReader(valid)); err != nil {
		t.Fatalf("ReadShard(twoJobs) = %v; want nil", err)
	}
	for _, tt := range [][3]string{
		{`"failed":1`, `"FAILED":1`, `key "FAILED": field names are lower case`},
		{`"seed":0`, `"\u017feed":0`, `key "ſeed": field names are lower case`},
		{`"failed":1`, `"failed":1,"failed":1`, `key "failed" is given twice in one object`},
		{`"retrysim_shard":3`, `"retrysim_shard":3,"retrysim_shard":3`, `key "retrysim_shard" is given twice`},
	} {
		data := bytes.Replace(valid, []byte(tt[0]), []byte(tt[1]), 1)
		if bytes.Equal(data, valid) {
			t.Fatalf("%s is not in the shard", tt[0])
		}
		if _, err := stats.ReadShard(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), tt[2]) {
			t.Errorf("ReadShard with %s = %v; want %q", tt[1], err, tt[2])
		}
	}
}
