package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/chain"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/shardfile"
	"github.com/retrysim/retrysim/internal/stats"
)

// hostileKinds are small runs of each kind of shard merge reads besides
// the job model's (each an envelope, shardfile's), cut in two.
var hostileKinds = []struct {
	name string
	args []string
}{
	{"fleet", []string{"fleet", "-replicates", "2", "-duration", "10s"}},
	{"fleet-map", []string{"fleet-map", "-rates", "10", "-heights", "80", "-lengths", "1s", "-replicates", "2", "-after", "10s", "-from", "2s"}},
	{"sweep", []string{"sweep", "-p-fail", "0.01,0.2", "-jobs", "100", "-strategies", "step-nokey"}},
	{"chain", []string{"chain", "-split-orbit", "3", "-split-horizon", "10s", "-split-runs", "2", "-split-effort", "10"}},
	{"graph", []string{"graph", "-preset", "sre-three-layers", "-duration", "5s", "-replicates", "2"}},
	{"workers", []string{"workers", "-preset", "sidekiq-outage", "-duration", "5s", "-replicates", "2"}},
	{"incident", []string{"incident", "google-cloud-2025-06-12", "-replicates", "2"}},
	{"sweep fleet", []string{"sweep", "fleet", "-set", "client.attempts=1,2", "-duration", "10s", "-replicates", "2"}},
	{"tune workers", []string{"tune", "workers", "-scenario", "../../examples/workers-drain.yaml", "-search", "graph.services[workers].server.capacity=5:6:2",
		"-minimize", "graph.services[workers].server.capacity", "-require", "drain_seconds<=13", "-budget", "20"}},
}

// writeTwoShards runs args as shards 0/2 and 1/2 into dir and returns their
// files.
func writeTwoShards(t testing.TB, dir string, args ...string) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	for i, slice := range []string{"0/2", "1/2"} {
		out, errOut, code := retrysimTB(t, append(args[:len(args):len(args)], "-shard", slice)...)
		if code != 0 {
			t.Fatalf("%v -shard %s: exit %d, %s", args, slice, code, errOut)
		}
		files = append(files, filepath.Join(dir, "s"+string(rune('0'+i))+".json"))
		if err := os.WriteFile(files[i], []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// retrysimTB is retrysim for a test or a fuzz target, in-process.
func retrysimTB(t testing.TB, args ...string) (stdout, stderr string, code int) {
	var out, errOut strings.Builder
	code = run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// editEnvelope rewrites the shard file at path with edit applied to its json
// object.
func editEnvelope(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	kind, _ := json.Marshal(m["kind"]) // first, as a shard writes it
	delete(m, "kind")
	var rest strings.Builder
	enc := json.NewEncoder(&rest)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	out := "{\n  \"kind\": " + string(kind) + ",\n  " + strings.TrimPrefix(rest.String(), "{\n  ")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editItems rewrites the shard file at path with edit applied to its
// items, encoded again under its own header, as a crafted file would be:
// only the kind's check of each item can refuse it.
func editItems[T any](t *testing.T, path string, edit func(items []T)) {
	t.Helper()
	sh, err := shardfile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	items, err := shardfile.Decode[T](path, sh, "items")
	if err != nil {
		t.Fatal(err)
	}
	edit(items)
	data, err := shardfile.Encode(sh.Header, items)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShardDecidesNoOutput: shards whose settings carry -series=FILE,
// -o FILE or -help make merge neither write that file nor print help: the
// pair is refused with one line and exit 2, and nothing is written (the
// file the shard names keeps its bytes), for every kind.
func TestShardDecidesNoOutput(t *testing.T) {
	for _, k := range hostileKinds {
		for _, bad := range []struct{ flag, value string }{{"series", "t2.json"}, {"o", "X"}, {"help", "true"}, {"plot", "p.png"}, {"format", "json"}} {
			t.Run(k.name+"/"+bad.flag, func(t *testing.T) {
				dir := t.TempDir()
				files := writeTwoShards(t, dir, k.args...)
				target := filepath.Join(dir, bad.value)
				if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
					t.Fatal(err)
				}
				for _, f := range files {
					editEnvelope(t, f, func(m map[string]any) {
						m["settings"] = append(m["settings"].([]any), map[string]any{"flag": bad.flag, "value": target})
					})
				}
				out, errOut, code := retrysim(t, "merge", files[0], files[1])
				want := "retrysim: merge: " + files[0] + ": settings["
				if code != 2 || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
					t.Errorf("merge: exit %d, stdout %q, stderr %q; want 2, nothing, one line starting %q", code, out, errOut, want)
				}
				if b, _ := os.ReadFile(target); string(b) != "keep" {
					t.Errorf("%s now holds %q; want it untouched", target, b)
				}
				entries, _ := os.ReadDir(dir)
				if len(entries) != 3 {
					t.Errorf("%d files in the directory after merge; want the 2 shards and %s", len(entries), bad.value)
				}
			})
		}
	}
}

// Merge's own outputs never name one of its shards, for every kind (the
// job model's and sweep's merges refused it; fleet, fleet-map and chain
// merges wrote their table, series or picture over a shard, exit 0).
func TestMergeOutputsAreNotShards(t *testing.T) {
	for _, k := range hostileKinds {
		for _, flag := range []string{"o", "series", "plot"} {
			t.Run(k.name+"/"+flag, func(t *testing.T) {
				files := writeTwoShards(t, t.TempDir(), k.args...)
				before, _ := os.ReadFile(files[1])
				_, errOut, code := retrysim(t, "merge", "-"+flag, files[1], files[0], files[1])
				if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "-"+flag+": ") {
					t.Errorf("merge -%s naming a shard: exit %d, %q; want 2 and one line naming -%s", flag, code, errOut, flag)
				}
				if after, _ := os.ReadFile(files[1]); !bytes.Equal(after, before) {
					t.Errorf("merge -%s wrote over the shard %s", flag, files[1])
				}
			})
		}
	}
}

// TestShardHeaderCounts: a format, a count, an index or a number of items
// that no run writes is refused with one line and exit 2, never a panic (a
// fleet-map shard of count -1 or cells -5 and a sweep shard of points -3
// made merge panic in makeslice), and so is an item no run makes, encoded
// under a true header.
func TestShardHeaderCounts(t *testing.T) {
	for _, tc := range []struct {
		kind  int // in hostileKinds
		field string
		value any
		want  string
	}{
		{1, "count", -1, "index, count: 0/-1 is not a slice"},
		{1, "count", 2_000_000, "index, count: 0/2000000 is not a slice"},
		{1, "items", -5, "items: -5, not from 0 to 1048576"},
		{2, "items", 3, "shard of another run"},
		{0, "index", 7, "index, count: 7/2 is not a slice"},
		{0, "items", 5_000_000, "items: 5000000, not from 0 to 1048576"},
		{3, "format", 3, "format: 3; this retrysim reads format 4"},
		{4, "items", -2, "items: -2, not from 0"},
		{5, "settings", []any{map[string]any{"flag": "-o", "value": "x"}}, `settings[0].flag: "-o" is not a flag's name`},
	} {
		k := hostileKinds[tc.kind]
		t.Run(k.name+"/"+tc.field, func(t *testing.T) {
			files := writeTwoShards(t, t.TempDir(), k.args...)
			editEnvelope(t, files[0], func(m map[string]any) { m[tc.field] = tc.value })
			_, errOut, code := retrysim(t, "merge", files[0], files[1])
			if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("merge: exit %d, %q; want 2 and one line with %q", code, errOut, tc.want)
			}
		})
	}
	// Both shards saying the same impossible count of items: the settings
	// make another, and that is said.
	for _, tc := range []struct {
		kind         int
		field, value string
		want         string
	}{
		{1, "items", "5", "its settings make 1 cells, not 5"},
		{2, "items", "3", "its settings make 2 points, not 3"},
		{4, "items", "3", "its settings make 2 replicates, not 3"},
	} {
		files := writeTwoShards(t, t.TempDir(), hostileKinds[tc.kind].args...)
		for _, f := range files {
			editEnvelope(t, f, func(m map[string]any) { m[tc.field] = json.Number(tc.value) })
		}
		if _, errOut, code := retrysim(t, "merge", files[0], files[1]); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s %s in both: exit %d, %q; want 2 and %q", tc.field, tc.value, code, errOut, tc.want)
		}
	}
	// Items no run makes, under a true header: 9e18 events in each shard's
	// splitting run and crude replicates summed past int64 and printed
	// negative (found by a review); a graph replicate of another shape, or
	// with a negative count.
	for _, tc := range []struct {
		kind int
		edit func(path string)
		want string
	}{
		{3, func(p string) { editItems(t, p, func(it []chain.Item) { it[0].Events = 9e18 }) }, "and 0 to 1e+10 events"},
		{3, func(p string) { editItems(t, p, func(it []chain.Item) { it[len(it)-1].Events = 9e18 }) }, "not 0 to 1e+10"},
		{0, func(p string) { editItems(t, p, func(it [][]fleetdata.Replicate) { it[0][0].Series = nil }) }, "series: 0 seconds; the run has 10"},
		{1, func(p string) { editItems(t, p, func(it [][]stats.Observation) { it[0] = append(it[0], it[0]...) }) }, "4 replicates; the run has 2"}, // in s1, the one cell's shard
		{4, func(p string) { editItems(t, p, func(it [][]fleetdata.GraphReplicate) { it[0][0].Services = nil }) }, "0 services and"},
		{5, func(p string) {
			editItems(t, p, func(it [][]fleetdata.GraphReplicate) { it[0][0].Edges[0].Requests = -1 })
		}, "requests: -1 is negative"},
		{5, func(p string) { editItems(t, p, func(it [][]fleetdata.GraphReplicate) { it[0] = it[0][:0] }) }, "0 runs; the settings make 2"},
		{2, func(p string) { editItems(t, p, func(it []jobapi.SweepPoint) { it[0].Replicates[0][0].Jobs = 7 }) }, "ran 7 jobs; the point runs 100"},
	} {
		k := hostileKinds[tc.kind]
		t.Run(k.name+"/items", func(t *testing.T) {
			files := writeTwoShards(t, t.TempDir(), k.args...)
			if k.name == "fleet-map" {
				files[0], files[1] = files[1], files[0]
			}
			tc.edit(files[0])
			_, errOut, code := retrysim(t, "merge", files[0], files[1])
			if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("merge: exit %d, %q; want 2 and one line with %q", code, errOut, tc.want)
			}
		})
	}
}

// TestFleetShardDataBound: a fleet shard's data spliced from another run's
// shard (a 5 s run's into a 10 s run's, a seed 9 run's into a seed 1
// run's) is refused with one line and exit 2: it made merge panic (index
// out of range) or print the other seed's figures as seed 1's.
func TestFleetShardDataBound(t *testing.T) {
	base := hostileKinds[0].args[:3] // all but the duration
	for _, tc := range []struct {
		name  string
		other []string
	}{
		{"5s into 10s", []string{"-duration", "5s"}},
		{"seed 9 into seed 1", []string{"-duration", "10s", "-seed", "9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := writeTwoShards(t, dir, append(base[:3:3], "-duration", "10s")...)
			other := writeTwoShards(t, t.TempDir(), append(base[:3:3], tc.other...)...)
			dataOf := regexp.MustCompile(`"data": "[^"]*"`)
			theirs, _ := os.ReadFile(other[1])
			ours, _ := os.ReadFile(files[1])
			spliced := dataOf.ReplaceAll(ours, dataOf.Find(theirs))
			if err := os.WriteFile(files[1], spliced, 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := retrysim(t, "merge", files[0], files[1])
			want := "retrysim: merge: " + files[1] + ": its data is not of the run and slice its header names\n"
			if code != 2 || errOut != want {
				t.Errorf("merge: exit %d, %q; want 2, %q", code, errOut, want)
			}
		})
	}
}

// TestIncidentShardWithoutName: an incident shard whose settings lost the
// incident's name is refused with one line and exit 2, nothing on stdout
// (the gallery's list is no merge of a replay), not a panic.
func TestIncidentShardWithoutName(t *testing.T) {
	files := writeTwoShards(t, t.TempDir(), "incident", "dynamodb-2015-09-20", "-replicates", "2", "-workers", "1")
	for _, f := range files {
		editEnvelope(t, f, func(m map[string]any) { m["settings"] = []any{} })
	}
	out, errOut, code := retrysim(t, append([]string{"merge"}, files...)...)
	if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "its settings make 0 replicates, not 2") {
		t.Errorf("merge of nameless incident shards: exit %d, stdout %d bytes, stderr %q; want exit 2, nothing on stdout, one line: its settings make 0 replicates, not 2", code, len(out), errOut)
	}
}
