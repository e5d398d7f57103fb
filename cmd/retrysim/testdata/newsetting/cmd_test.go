package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/schema"
)

// A setting of a fleet, one field and one declaration in decl.Params[fleet.Config] (see
// TestNewSettingOfEachKind), reaches every layer: here client.spare, a new
// field of the client, and memoryless.retry_prob, a Config field no Param
// held before (which a run without Memoryless.On never reads). Each gets a
// flag in -help with its usage (the paths it names written as flags), the
// flag sets its field, which the json echo of the run's settings shows, a
// scenario file's fleet section sets it too, a value outside its bounds is
// refused naming the flag or the file's line, the shard carries it and
// merge refuses another value, an error naming its path names its flag,
// and checkFleetSchema's walk over the table passes with it.
func TestAddedFleetParams(t *testing.T) {
	for _, tc := range []struct {
		path                   string
		flag, set, echo, other string
		bad, badMsg            string
	}{
		{"client.spare", "spare", "7", "7", "9", "101", "-spare: want a whole number from 0 to 100"},
		{"memoryless.retry_prob", "retry-prob", "0.25", "0.25", "0.5", "2", "-retry-prob: 2 is not a probability in [0, 1]"},
	} {
		p, ok := decl.LookupParam[fleet.Config](tc.path)
		if !ok {
			t.Fatalf("decl.Params[fleet.Config]() does not declare %s", tc.path)
		}
		t.Run(p.Path, func(t *testing.T) {
			help, _, _ := retrysim(t, "fleet", "-help")
			help = unwrapHelp(help)
			entries := helpEntries(help)
			i := slices.IndexFunc(entries, func(e helpEntry) bool { return e.name == tc.flag })
			want := strings.ReplaceAll(p.Usage.Words(func(string) string { return "-attempts" }), "`", "")
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
			if err := cli.FleetFlagError(&schema.FieldError{Field: p.Path, Msg: "bad"}); err.Error() != "-"+tc.flag+": bad" {
				t.Errorf("an error for %s reads %q; want -%s: bad", p.Path, err, tc.flag)
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
	var sh struct{ Echo []map[string]json.RawMessage }
	if err := json.Unmarshal(data, &sh); err != nil || len(sh.Echo) != 1 || string(sh.Echo[0][key]) != echo {
		t.Fatalf("the shard file's echo = %v (%v); want one run's params, %s %s", sh.Echo, err, key, echo)
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
	if _, errOut, code := retrysim(t, "merge", a, b); code == 0 || !strings.Contains(errOut, "merge: the shards ran with [{") {
		t.Errorf("merge of shards with %s %s, the file now %s: exit %d, %q; want the settings refused", key, set, other, code, errOut)
	}
}

// A graph's new settings, an entry's nack (decl.EntryParams[fleet.Entry]) and a
// client's spare (decl.Params[fleet.Config]), each one field and one declaration (see
// TestNewSettingOfEachKind): help scenario lists them, a graph section
// gives them (the client's echoed in the run's json), a value out of
// bounds is refused at its line and path, and Go sets them on a graph and
// a worker fleet by path, refusing such a value naming the path.
func TestAddedGraphSettings(t *testing.T) {
	help, _, code := retrysim(t, "help", "scenario", "-format", "markdown")
	for _, key := range []string{"`graph.entries[].nack`", "`graph.services[].calls[].client.spare`"} { // an entry's client keys are a call's
		if code != 0 || !strings.Contains(help, key) {
			t.Errorf("help scenario (exit %d) does not list %s", code, key)
		}
	}
	if !strings.Contains(help, "share of the entry's requests a worker hands back unworked") {
		t.Errorf("help scenario does not say what graph.entries[].nack means")
	}
	file := filepath.Join(t.TempDir(), "g.yaml")
	write := func(nack, spare string) {
		text := "graph:\n  entries:\n    - to: a\n      nack: " + nack + "\n      client: {spare: " + spare + "}\n  services:\n    - name: a\n"
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("0.05", "3")
	out, errOut, code := retrysim(t, "graph", "-scenario", file, "-duration", "2s", "-replicates", "1", "-format", "json")
	if code != 0 || !strings.Contains(out, "\"spare\": 3") {
		t.Errorf("graph -scenario with nack 0.05 and spare 3: exit %d, %s; want the client's spare echoed:\n%s", code, errOut, out)
	}
	for _, tc := range []struct{ nack, spare, want string }{
		{"2", "3", file + `:4: graph.entries[0].nack: "2" is not a probability from 0 to 1`},
		{"0", "101", file + ":5: graph.entries[0].client.spare: 101 is not a whole number from 0 to 100"},
	} {
		write(tc.nack, tc.spare)
		if _, errOut, code := retrysim(t, "graph", "-scenario", file); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("graph -scenario with nack %s, spare %s: exit %d, %q; want 2 and %s", tc.nack, tc.spare, code, errOut, tc.want)
		}
	}

	w := fleetpreset.WorkersPresets()[0].Runs(time.Minute)[0]
	for _, set := range [][2]string{{"graph.entries[0].nack", "0.05"}, {"graph.entries[0].client.spare", "3"}, {"graph.services[workers].calls[0].client.spare", "4"}} {
		if err := w.Set(set[0], set[1]); err != nil {
			t.Errorf("Set(%s, %s) = %v", set[0], set[1], err)
		}
	}
	if g := w.Graph(); g.Entries[0].Nack != 0.05 || w.Queue.Spare != 3 || w.Steps[0].Client.Spare != 4 {
		t.Errorf("after Set, nack %g, the queue's spare %d, the first step's %d; want 0.05, 3, 4", g.Entries[0].Nack, w.Queue.Spare, w.Steps[0].Client.Spare)
	}
	for _, set := range [][3]string{
		{"graph.entries[0].nack", "2", "2 is not a probability in [0, 1]"},
		{"graph.entries[0].client.spare", "101", "101 is not a whole number from 0 to 100"},
	} {
		var fe *schema.FieldError
		if err := w.Set(set[0], set[1]); !errors.As(err, &fe) || fe.Field != set[0] || fe.Msg != set[2] {
			t.Errorf("Set(%s, %s) = %v; want %s: %s", set[0], set[1], err, set[0], set[2])
		}
	}
}

// The queue's and a step's new settings at the command: each a flag of
// retrysim table, with its usage in -help, which sets it (a step's on
// every step of a scenario file), as the run's json echo shows, and
// refuses a value out of its bounds naming the flag.
func TestAddedSettingFlags(t *testing.T) {
	help, _, _ := retrysim(t, "table", "-help")
	for _, want := range []string{"-redelivery-after duration", "an unacked message comes back after this duration", "-p-error probability", "probability that a call errs before doing anything"} {
		if !strings.Contains(unwrapHelp(help), want) {
			t.Errorf("table -help does not hold %q", want)
		}
	}
	file := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(file, []byte("watched: a\nsteps:\n  - name: a\n  - name: b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := retrysim(t, "table", "-scenario", file, "-model", "delivery", "-redelivery-after", "45s", "-p-error", "0.25", "-jobs", "100", "-format", "json")
	if code != 0 || !strings.Contains(out, `"redelivery_after": "45s"`) || strings.Count(out, `"p_error": 0.25`) != 2 {
		t.Errorf("table -redelivery-after 45s -p-error 0.25: exit %d, %s; want both echoed, p_error in each step's step_params:\n%s", code, errOut, out)
	}
	for _, tc := range [][2]string{{"-redelivery-after", "-1s"}, {"-p-error", "2"}} {
		if _, errOut, code := retrysim(t, "table", "-model", "delivery", tc[0], tc[1]); code != 2 || !strings.HasPrefix(errOut, "retrysim: "+tc[0]+": ") {
			t.Errorf("table %s %s: exit %d, %q; want 2 and an error naming %s", tc[0], tc[1], code, errOut, tc[0])
		}
	}
	var keys []string
	for _, k := range scenario.Keys() {
		keys = append(keys, k.Path)
	}
	for _, k := range []string{"queue.redelivery_after", "steps[].p_error", "fleet.spare", "fleet.retry_prob", "graph.entries[].nack"} {
		if !slices.Contains(keys, k) {
			t.Errorf("scenario.Keys() does not list %s", k)
		}
	}
}
