package results

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// twoJobs is a shard Check accepts, worked out by hand: two jobs of two steps
// and up to three attempts, one of which failed after six calls, having done
// one step's work five times; the other made one call.
func twoJobs() Shard {
	c := Counters{Jobs: 2, Failed: 1, Calls: 7, SideEffects: 7, RepeatedSteps: 4, DuplicateUsers: 1,
		CallsSq: Wide{Lo: 1*1 + 6*6}, RepeatedSq: Wide{Lo: 4 * 4}}
	return Shard{Format: ShardFormat, Index: 0, Count: 1,
		Params: Params{Scenario: "two", Steps: 2, Jobs: 2, PFail: 0.5, LostReply: 0.5, Attempts: 3, RNG: "pcg", Engine: "plain", Replicates: 1},
		Rows:   []Row{{ID: "step-nokey", Label: "Retry each step, no key", Counters: c}, {ID: "job-samekey", Label: "Retry the whole job, same key", Counters: c}}}
}

// FuzzReadShard: ReadShard never panics, and a shard it accepts renders in
// every format with finite, non-negative rates (shares at most 1), and
// encodes to a shard it reads back the same.
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
		{`"retrysim_shard":1`, `"retrysim_shard":1,"surprise":true`},
		{`"label":"Retry each step, no key"`, `"label":"Retry\u001b[2J"`},
		{`"failed":1`, `"FAILED":1`},
		{`"failed":1`, `"failed":1,"failed":-1`},
	} {
		f.Add(bytes.Replace(valid, []byte(edit[0]), []byte(edit[1]), 1))
	}
	f.Add(append(append([]byte{}, valid...), "{}"...))
	f.Add([]byte("1,000,000 sign-ups"))
	f.Add([]byte(`{"rows": []}`))
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		sh, err := ReadShard(bytes.NewReader(data))
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
		back, err := ReadShard(bytes.NewReader(again))
		if err != nil || !bytes.Equal(mustJSON(t, back), again) {
			t.Fatalf("shard does not read back: %v\n%s", err, again)
		}
		checkRendered(t, Report{Params: sh.Params, Rows: sh.Rows, ShowCI: true})
	})
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
func checkRendered(t *testing.T, r Report) {
	t.Helper()
	for _, format := range Formats {
		var out bytes.Buffer
		if err := Write(&out, r, format); err != nil {
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
			for _, m := range Metrics {
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
