package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/testhook"
	"github.com/retrysim/retrysim/scenario"
	"github.com/retrysim/retrysim/schema"
)

// The fleet's settings are declared once, in fleet.Params, and every layer
// is derived from that table: a setting added there (a row with its path,
// key, usage and field) gets a flag named by its key with its usage in
// -help, a key in a scenario file's fleet section, a place in the json
// echo of the settings a run read, and errors naming its path are written
// with its flag. The test walks the table, so a row added to it is checked
// here without a line of this test changing.
func TestFleetSchemaReachesEveryLayer(t *testing.T) { checkFleetSchema(t) }

// checkFleetSchema checks that every fleet.Params row reaches every layer.
func checkFleetSchema(t *testing.T) {
	t.Helper()
	help, _, code := retrysim(t, "fleet", "-help")
	help = unwrapHelp(help)
	if code != 0 {
		t.Fatalf("fleet -help: exit %d", code)
	}
	entries := helpEntries(help)
	var fileKeys []string
	for _, k := range scenario.Keys() {
		if rest, ok := strings.CutPrefix(k.Path, "fleet."); ok {
			fileKeys = append(fileKeys, rest)
		}
	}
	out, errOut, code := retrysim(t, "fleet", "-duration", "2s", "-replicates", "1", "-format", "json")
	if code != 0 {
		t.Fatalf("fleet -format json: exit %d, %s", code, errOut)
	}
	var doc struct {
		Rows []struct {
			Params map[string]any `json:"params"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Rows) != 1 {
		t.Fatalf("fleet -format json: %v, %d runs", err, len(doc.Rows))
	}
	unread := fleet.DefaultConfig().Unread()
	for _, p := range fleet.Params() {
		i := slices.IndexFunc(entries, func(e helpEntry) bool { return e.name == p.Key })
		if i < 0 || !strings.HasPrefix(entries[i].usage, strings.ReplaceAll(fleetWords(p.Usage), "`", "")[:20]) {
			t.Errorf("%s: -help has no flag -%s with its usage", p.Path, p.Key)
		}
		fileKey := strings.ReplaceAll(p.Key, "-", "_")
		if !slices.Contains(fileKeys, fileKey) {
			t.Errorf("%s: scenario key fleet.%s not listed", p.Path, fileKey)
		}
		if _, echoed := doc.Rows[0].Params[fileKey]; echoed != (unread[p.Path] == "") {
			t.Errorf("%s: echoed as %s %v; want %v (read by the default run)", p.Path, fileKey, echoed, unread[p.Path] == "")
		}
		err := fleetFlagError(schema.Errorf(p.Path, "bad, unlike %s", schema.Path(p.Path)))
		if want := "-" + p.Key + ": bad, unlike -" + p.Key; err.Error() != want {
			t.Errorf("%s: error %q; want %q", p.Path, err, want)
		}
	}
	for _, k := range fileKeys {
		if _, ok := fleet.LookupKey(strings.ReplaceAll(k, "_", "-")); !ok {
			t.Errorf("scenario key fleet.%s is no fleet.Param", k)
		}
	}
}

// A setting added to fleet.Params, and nothing else changed, reaches every
// layer: here two Config fields no Param holds (Memoryless's, which a
// run without Memoryless.On never reads), added through the test hook. Each
// gets a flag in -help with its usage (the paths it names written as
// flags), the flag sets its field, which the json echo of the run's
// settings shows, a value outside its bounds is refused naming the flag, an
// error naming its path names its flag, and checkFleetSchema's walk over
// the table passes with it.
func TestFleetParamAddedReachesEveryLayer(t *testing.T) {
	for _, tc := range []struct {
		p                      fleet.Param
		flag, set, echo, other string
		bad, badMsg            string
	}{
		{fleet.Param{Path: "memoryless.retry_prob", Probability: true,
			Field: func(c *fleet.Config) any { return &c.Memoryless.RetryProb },
			Usage: schema.Textf("`probability` that a failed attempt is retried while %s allows", schema.Path("client.attempts"))},
			"retry-prob", "0.25", "0.25", "0.5", "2", "-retry-prob: 2 is not a probability in [0, 1]"},
		{fleet.Param{Path: "memoryless.orbit", Lo: 0, Hi: fleet.MaxOrbit,
			Field: func(c *fleet.Config) any { return &c.Memoryless.Orbit },
			Usage: schema.Textf("at most `n` requests wait out a backoff at once")},
			"orbit", "7", "7", "9", "-1", "-orbit: want a whole number from 0 to 1000000"},
		{fleet.Param{Path: "client.tries", Lo: 1, Hi: fleet.MaxAttempts,
			Field: func(c *fleet.Config) any { return &c.Client.Attempts },
			Usage: schema.Textf("`n` tries a request in all, %s by another name", schema.Path("client.attempts"))},
			"tries", "3", "3", "4", "0", "-tries: want a whole number from 1 to 100"},
	} {
		t.Run(tc.p.Path, func(t *testing.T) {
			defer testhook.SetFleetParams([]fleet.Param{tc.p})()
			help, _, _ := retrysim(t, "fleet", "-help")
			help = unwrapHelp(help)
			entries := helpEntries(help)
			i := slices.IndexFunc(entries, func(e helpEntry) bool { return e.name == tc.flag })
			want := strings.ReplaceAll(tc.p.Usage.Words(func(string) string { return "-attempts" }), "`", "")
			if i < 0 || !strings.HasPrefix(entries[i].usage, want) {
				t.Fatalf("fleet -help has no -%s with usage %q", tc.flag, want)
			}
			out, errOut, code := retrysim(t, "fleet", "-"+tc.flag, tc.set, "-duration", "2s", "-replicates", "1", "-format", "json")
			var doc struct {
				Rows []struct {
					Params map[string]json.RawMessage `json:"params"`
				} `json:"rows"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Rows) != 1 {
				t.Fatalf("fleet -%s %s -format json: exit %d, %s", tc.flag, tc.set, code, errOut)
			}
			key := strings.ReplaceAll(tc.flag, "-", "_")
			if got := string(doc.Rows[0].Params[key]); got != tc.echo {
				t.Errorf("json params[%s] = %s; want %s", key, got, tc.echo)
			}
			// A scenario file's fleet section sets it too, and refuses a
			// value out of its bounds with the file's line.
			file := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(file, []byte("fleet:\n  "+key+": "+tc.set+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code = retrysim(t, "fleet", "-scenario", file, "-duration", "2s", "-replicates", "1", "-format", "json")
			if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || string(doc.Rows[0].Params[key]) != tc.echo {
				t.Errorf("fleet -scenario with %s: %s: exit %d, %s; want params[%s] %s", key, tc.set, code, errOut, key, tc.echo)
			}
			if err := os.WriteFile(file, []byte("fleet:\n  "+key+": "+tc.bad+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, errOut, code := retrysim(t, "fleet", "-scenario", file); code != 2 || !strings.Contains(errOut, file+":2: fleet."+key+": ") {
				t.Errorf("fleet -scenario with %s: %s: exit %d, %q; want 2 and %s:2: fleet.%s", key, tc.bad, code, errOut, file, key)
			}
			checkFleetShardSetting(t, key, tc.set, tc.echo, tc.other)
			if _, errOut, code := retrysim(t, "fleet", "-"+tc.flag, tc.bad); code != 2 || !strings.Contains(errOut, tc.badMsg) {
				t.Errorf("fleet -%s %s: exit %d, %q; want 2 and %q", tc.flag, tc.bad, code, errOut, tc.badMsg)
			}
			if err := fleetFlagError(&fleet.FieldError{Field: tc.p.Path, Msg: "bad"}); err.Error() != "-"+tc.flag+": bad" {
				t.Errorf("an error for %s reads %q; want -%s: bad", tc.p.Path, err, tc.flag)
			}
			checkFleetSchema(t)
		})
	}
}

// checkFleetShardSetting runs two fleet shards from a scenario file that
// sets key to set, and checks that the shard file carries the setting
// (echo as the json format's params write it), that merge prints it, and
// that merge refuses a third shard run after the file was changed to other,
// and the two shards once the file says other: the shard's flags (its
// -scenario) are the same, its settings are not.
func checkFleetShardSetting(t *testing.T, key, set, echo, other string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.yaml")
	shard := func(value, slice, name string) string {
		if err := os.WriteFile(file, []byte("fleet:\n  "+key+": "+value+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name)
		if _, errOut, code := retrysim(t, "fleet", "-scenario", file, "-duration", "2s", "-replicates", "2", "-shard", slice, "-o", out); code != 0 {
			t.Fatalf("fleet -scenario with %s: %s -shard %s: exit %d, %s", key, value, slice, code, errOut)
		}
		return out
	}
	a, b := shard(set, "0/2", "a.json"), shard(set, "1/2", "b.json")
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	var sh struct{ Params []map[string]json.RawMessage }
	if err := json.Unmarshal(data, &sh); err != nil || len(sh.Params) != 1 || string(sh.Params[0][key]) != echo {
		t.Fatalf("the shard file's params = %v (%v); want one run's, %s %s", sh.Params, err, key, echo)
	}
	out, errOut, code := retrysim(t, "merge", a, b, "-format", "json")
	var doc struct {
		Rows []struct {
			Params map[string]json.RawMessage `json:"params"`
		} `json:"rows"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Rows) != 1 || string(doc.Rows[0].Params[key]) != echo {
		t.Fatalf("merge of the shards with %s %s: exit %d, %s; want params[%s] %s", key, set, code, errOut, key, echo)
	}
	c := shard(other, "1/2", "c.json")
	if _, errOut, code := retrysim(t, "merge", a, c); code != 2 || !strings.Contains(errOut, "c.json is a shard of another run than "+a+": its settings differ") {
		t.Errorf("merge of shards with %s %s and %s: exit %d, %q; want 2, another run", key, set, other, code, errOut)
	}
	if _, errOut, code := retrysim(t, "merge", a, b); code == 0 || !strings.Contains(errOut, "merge: the shards ran run run with the settings") {
		t.Errorf("merge of shards with %s %s, the file now %s: exit %d, %q; want the settings refused", key, set, other, code, errOut)
	}
}

// The scenario package names a setting in its errors by its path; the
// command writes it as its flag: a policy a client with one attempt never
// asks is refused naming -attempts.
func TestFleetScenarioErrorNamesFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(file, []byte("fleet:\n  policy: finagle-budget\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := retrysim(t, "fleet", "-attempts", "1", "-scenario", file)
	if want := "retrysim: -scenario: " + file + ":2 sets policy finagle-budget, which with -attempts 1 and no hedges is never asked\n"; code != 2 || errOut != want {
		t.Errorf("exit %d, %q; want 2, %q", code, errOut, want)
	}
}
