package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/stats"
)

// writeShards runs the shards of args into dir and returns their paths.
func writeShards(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	var paths []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.json", i, n))
		_, errOut, code := retrysim(t, append(args, "-shard", fmt.Sprintf("%d/%d", i, n), "-o", p)...)
		if code != 0 {
			t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, errOut)
		}
		paths = append(paths, p)
	}
	return paths
}

// Merging the n shards of a run prints exactly what the run prints whole, for
// n from 1 to 8 (more shards than blocks included) and every format.
func TestMergeEqualsSingleRun(t *testing.T) {
	args := []string{"-jobs", "400000", "-p-fail", "0.03", "-seed", "12"} // 7 blocks
	for _, format := range []string{"table", "json"} {
		want, _, _ := retrysim(t, append(args, "-format", format, "-ci", "-expect")...)
		for n := 1; n <= 8; n++ {
			paths := writeShards(t, t.TempDir(), n, args...)
			got, errOut, code := retrysim(t, append([]string{"merge", "-format", format, "-ci", "-expect"}, paths...)...)
			if code != 0 || got != want {
				t.Errorf("%s, %d shards: exit %d, stderr %q; merged output differs from the single run:\n%s\nwant\n%s", format, n, code, errOut, got, want)
			}
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	four := writeShards(t, dir, 4, "-jobs", "300000")
	otherSeed := writeShards(t, t.TempDir(), 4, "-jobs", "300000", "-seed", "2")
	otherP := writeShards(t, t.TempDir(), 4, "-jobs", "300000", "-p-fail", "0.02")
	three := writeShards(t, t.TempDir(), 3, "-jobs", "300000")
	otherStrategies := writeShards(t, t.TempDir(), 4, "-jobs", "300000", "-strategies", "step-nokey")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"retrysim_shard": 3, "surprise": true}`), 0o644)
	notJSON := filepath.Join(dir, "table.txt")
	os.WriteFile(notJSON, []byte("1,000,000 sign-ups"), 0o644)

	tests := []struct {
		name  string
		files []string
		want  string
	}{
		// a missing shard named in a launcher's terms too, a Slurm array's
		// with a step among them (TestTasksResolveToTheShard reads each back)
		{"missing", four[:3], "merge: shard 3/4 is missing (3 of 4 given; run by -shard 3/4, or by -shard auto as the Slurm array's task MIN+3*STEP (3 of --array=0-3, 6 of --array=0-6:2), the Kubernetes completion index 3 or GNU parallel's job 4)\n"},
		{"missing two", []string{four[0], four[2]}, "merge: shards 1/4, 3/4 are missing (2 of 4 given; run by -shard 1/4, 3/4, or by -shard auto as the Slurm array's tasks MIN+i*STEP for i 1, 3 (1, 3 of --array=0-3; 2, 6 of --array=0-6:2), the Kubernetes completion indexes 1, 3 or GNU parallel's jobs 2, 4)\n"},
		{"twice", []string{four[0], four[1], four[1], four[2], four[3]}, "merge: shard 1/4 is given twice"},
		{"other seed", []string{four[0], four[1], four[2], otherSeed[3]}, "are shards of different runs: seed is 1 in one and 2 in the other"},
		{"other p-fail", []string{four[0], otherP[1], four[2], four[3]}, "are shards of different runs: p_fail is 0.01 in one and 0.02 in the other"},
		{"other count", []string{four[0], four[1], three[2], four[3]}, "is shard 2/3 but"},
		{"other strategies", []string{four[0], otherStrategies[1], four[2], four[3]}, "ran different strategies"},
		{"unknown field", []string{bad}, `bad.json: not a retrysim shard: json: unknown field "surprise"`},
		{"not json", []string{notJSON}, "table.txt: not a retrysim shard"},
		// written by the retrysim before shard format 3 (its histograms
		// had 256 counts, 20 a decade): refused before its rows are read
		{"older format", []string{filepath.Join("testdata", "shard-format2.json")}, "retrysim: merge: testdata/shard-format2.json: retrysim_shard: format 2 was written by an older retrysim; this one reads format 3 only (its completion histograms changed): run the shard again\n"},
		{"no such file", []string{filepath.Join(dir, "nope.json")}, "no such file or directory"},
		{"no files", nil, "merge: no shard files given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := retrysim(t, append([]string{"merge"}, tt.files...)...)
			if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line containing %q", code, out, errOut, tt.want)
			}
		})
	}
}

func TestEngineAndShardFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-engine", "fast"}, `-engine: unknown engine "fast" (want auto, plain or skip)`},
		{[]string{"-engine", "skip", "-rng", "mulberry32"}, "-engine: skip cannot replay mulberry32's single stream draw by draw; use -engine plain, or -rng pcg\n"},
		{[]string{"-shard", "8/8"}, `-shard: "8/8" is not a slice i/n with 0 <= i < n <= 1000000`},
		{[]string{"-shard", "1/"}, `-shard: "1/" is not a slice`},
		{[]string{"-shard", "1/4x"}, `-shard: "1/4x" is not a slice`},
		{[]string{"-shard", "1/4", "-rng", "mulberry32"}, "-shard: mulberry32 has one stream for all jobs, so its runs cannot be split; use -rng pcg\n"},
		{[]string{"-shard", "1/4", "-ci"}, "-ci: -shard writes raw json for merge; give -ci to retrysim merge instead"},
		{[]string{"-shard", "1/4", "-replicates", "3"}, "-shard: replicates cannot be split"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := retrysim(t, append(tt.args, "-jobs", "1000")...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
		})
	}
	// mulberry32 stays exact under -engine plain and auto.
	for _, e := range []string{"plain", "auto"} {
		out, _, code := retrysim(t, "-rng", "mulberry32", "-engine", e, "-format", "csv", "-strategies", "step-nokey")
		if code != 0 || !strings.Contains(out, ",1000000,11,") {
			t.Errorf("-rng mulberry32 -engine %s: exit %d, output %q; want the article's 11 failed", e, code, out)
		}
	}
}

// editShard writes beside path a copy of the shard there with each field of
// edits set to its value; a field is named by its keys and indexes
// ("rows.0.failed").
func editShard(t *testing.T, path string, edits map[string]any) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // keeps 128-bit sums of squares exact
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for field, v := range edits {
		keys := strings.Split(field, ".")
		node := doc
		for i, k := range keys {
			last := i == len(keys)-1
			switch n := node.(type) {
			case map[string]any:
				if last {
					n[k] = v
				}
				node = n[k]
			case []any:
				j, err := strconv.Atoi(k)
				if err != nil || j >= len(n) {
					t.Fatalf("%s: no index %s", field, k)
				}
				if last {
					n[j] = v
				}
				node = n[j]
			default:
				t.Fatalf("%s: %s is not in the shard", field, k)
			}
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(edited, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return edited
}

// appendTo writes beside path a copy of the file there with tail after it.
func appendTo(t *testing.T, path, tail string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(edited, append(data, tail...), 0o644); err != nil {
		t.Fatal(err)
	}
	return edited
}

// Issue 10 item 4: merge refuses, with one line naming the file and the field
// and exit 2, every shard no run can have written; the first five cases are the
// issue's reproducers (three panics, two tables of impossible numbers).
func TestMergeRefusesImpossibleShards(t *testing.T) {
	one := writeShards(t, t.TempDir(), 1, "-jobs", "1000000")[0]
	two := writeShards(t, t.TempDir(), 2, "-jobs", "1000000")
	maxInt := json.Number(strconv.FormatInt(math.MaxInt64, 10))
	// The shard's first row, step-nokey at the defaults (10 steps, 3
	// attempts): 12 failed, 10106280 calls, 5078 repeated, 5059 duplicates.
	tests := []struct {
		name  string
		flags []string
		files []string
		want  string
	}{
		{"no rows", nil, []string{editShard(t, one, map[string]any{"rows": []any{}})}, "rows: none"},
		{"negative failed", []string{"-ci"}, []string{editShard(t, one, map[string]any{"rows.0.failed": -11})}, "rows[0].failed: -11 is negative"},
		{"no attempts", []string{"-expect"}, []string{editShard(t, one, map[string]any{"attempts": 0})}, "attempts: 0, but rows[0] is a strategy.Retry, which makes at least 1"},
		{"more failed than jobs", nil, []string{editShard(t, one, map[string]any{"rows.0.failed": 1_000_000_000})},
			"rows[0].failed: 1000000000 is more than the 1000000 jobs"},
		{"failed sum overflows", nil, []string{editShard(t, two[0], map[string]any{"rows.0.failed": maxInt}), editShard(t, two[1], map[string]any{"rows.0.failed": maxInt})},
			"rows[0].failed: 9223372036854775807 is more than the"},

		{"negative jobs", nil, []string{editShard(t, one, map[string]any{"rows.1.jobs": -1})}, "rows[1].jobs: -1 is negative"},
		{"row jobs not the slice's", nil, []string{editShard(t, one, map[string]any{"rows.1.jobs": 999_999})}, "rows[1].jobs: 999999, but slice 0/1 of 1000000 jobs holds 1000000"},
		{"duplicates over jobs", nil, []string{editShard(t, one, map[string]any{"rows.0.duplicate_users": 1_000_001})}, "rows[0].duplicate_users: 1000001 is more than the 1000000 jobs"},
		{"fewer calls than jobs", nil, []string{editShard(t, one, map[string]any{"rows.0.calls": 999_999})}, "rows[0].calls: 999999 is fewer than one call for each of the 1000000 jobs"},
		{"more calls than attempts allow", nil, []string{editShard(t, one, map[string]any{"rows.0.calls": 30_000_001})}, "rows[0].calls: 30000001 is more than 1000000 jobs make at 30 calls each"},
		{"more side effects than calls", nil, []string{editShard(t, one, map[string]any{"rows.0.side_effects": 10_106_281})}, "rows[0].side_effects: 10106281 is more than the 10106280 calls"},
		{"more duplicates than repeats", nil, []string{editShard(t, one, map[string]any{"rows.0.duplicate_users": 5079})}, "rows[0].duplicate_users: 5079 is more than the 5078 repeated"},
		{"steps not done", nil, []string{editShard(t, one, map[string]any{"rows.0.side_effects": 9_000_000})}, "rows[0].side_effects: 9000000, less 5078 repeated, is fewer than the 9999880 steps of the 999988 jobs that succeeded"},
		// 10106280^2 / 10^6 = 102136895.4 is the least a sum of squares of
		// that many calls over a million jobs can be; 30 x 10106280 the most.
		{"squares below the mean's", nil, []string{editShard(t, one, map[string]any{"rows.0.calls_sq": 102136895})}, "rows[0].calls_sq: 102136895 is less than the square of the sum"},
		{"squares above the bound", nil, []string{editShard(t, one, map[string]any{"rows.0.calls_sq": 303188401})}, "rows[0].calls_sq: 303188401 is more than 30 x the sum 10106280"},
		{"squares under the sum", nil, []string{editShard(t, one, map[string]any{"rows.0.repeated_steps_sq": 5077})}, "rows[0].repeated_steps_sq: 5077 is less than"},
		{"completion counted", nil, []string{editShard(t, one, map[string]any{"rows.2.completion": [][]int{{7, 1}}})}, "rows[2].deliveries, lost_work, completion, failed_completion: not zero"},
		{"failed completion counted", nil, []string{editShard(t, one, map[string]any{"rows.0.failed_completion": [][]int{{0, 1}}})}, "rows[0].deliveries, lost_work"},
		{"histogram of format 2", nil, []string{editShard(t, one, map[string]any{"rows.0.completion": make([]int, 256)})}, "histogram: not a list of [index, count] pairs of whole numbers"},
		{"histogram out of order", nil, []string{editShard(t, one, map[string]any{"rows.0.completion": [][]int{{9, 1}, {8, 1}}})}, "histogram bucket 8: after bucket 9, not in increasing order"},
		{"histogram past its buckets", nil, []string{editShard(t, one, map[string]any{"rows.0.completion": [][]int{{5506, 1}}})}, "histogram: pair 0: bucket 5506 is not from 0 to 5505"},
		{"delivery without its model", nil, []string{editShard(t, one, map[string]any{"delivery": map[string]any{"store": "claim"}})}, "delivery, model.queue: a run of the delivery model carries both"},

		{"p_fail", nil, []string{editShard(t, one, map[string]any{"p_fail": 1.5})}, "p_fail: 1.5 is not a probability in [0, 1]"},
		{"jobs", nil, []string{editShard(t, one, map[string]any{"jobs": 0})}, "jobs: 0 is not a whole number from 1 to 1000000000000"},
		{"too many attempts", nil, []string{editShard(t, one, map[string]any{"attempts": 1001})}, "attempts: 1001 is not a whole number from 1 to 1000"},
		{"rng", nil, []string{editShard(t, one, map[string]any{"rng": "dice"})}, `rng: unknown generator "dice"`},
		{"engine", nil, []string{editShard(t, one, map[string]any{"engine": "fast"})}, `engine: unknown engine "fast"`},
		{"engine not as run", nil, []string{editShard(t, one, map[string]any{"engine": "auto"})}, "engine: auto, but a run with pcg draws with skip"},
		{"strategy", nil, []string{editShard(t, one, map[string]any{"rows.3.strategy": "job-maybe"})}, `rows[3].strategy: unknown strategy "job-maybe"`},
		{"label", nil, []string{editShard(t, one, map[string]any{"rows.0.label": "Retry forever"})}, `rows[0].label: "Retry forever", but strategy step-nokey is`},
		{"control character", nil, []string{editShard(t, one, map[string]any{"rows.0.label": "Retry\x1b[2J"})}, `rows[0].label: "Retry\x1b[2J" holds a control character`},
		{"scenario", nil, []string{editShard(t, one, map[string]any{"scenario": "checkout"})}, "scenario: \"checkout\""},
		// 11 steps: the million jobs' 10005014 - 5078 steps done are fewer than 11 a job that succeeded.
		{"steps", nil, []string{editShard(t, one, map[string]any{"steps": 11})}, "rows[0].side_effects: 10005014, less 5078 repeated, is fewer than the 10999868 steps"},
		{"steps over the most", nil, []string{editShard(t, one, map[string]any{"steps": 65})}, "steps: 65 is not from 1 to 64"},
		{"replicates", nil, []string{editShard(t, one, map[string]any{"replicates": 2})}, "replicates: 2, but a shard holds one replicate"},
		{"shard count", nil, []string{editShard(t, one, map[string]any{"shard_count": 0})}, "shard_count: 0 is not at least 1"},
		{"shard count above the flag's", nil, []string{editShard(t, one, map[string]any{"shard_index": 1_000_000, "shard_count": 1_000_001})},
			"shard_index, shard_count: 1000000/1000001 is not a slice"},
		{"format", nil, []string{editShard(t, one, map[string]any{"retrysim_shard": 1})}, "retrysim_shard: format 1 was written by an older retrysim; this one reads format 3 only"},
		{"format to come", nil, []string{editShard(t, one, map[string]any{"retrysim_shard": 4})}, "retrysim_shard: 4 is not a shard format this retrysim reads (3)"},
		{"unknown field in a row", nil, []string{editShard(t, one, map[string]any{"rows.0.bonus": 1})}, `unknown field "bonus"`},
		{"data after the object", nil, []string{appendTo(t, one, "{}")}, "data after the JSON object"},
		{"garbage after the object", nil, []string{appendTo(t, one, "x")}, "data after the JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := retrysim(t, append(append([]string{"merge"}, tt.flags...), tt.files...)...)
			file := filepath.Base(tt.files[0])
			if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, file+": ") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line naming %s and containing %q", code, out, errOut, file, tt.want)
			}
		})
	}
	// White space after the object is not data.
	if _, errOut, code := retrysim(t, "merge", appendTo(t, one, "\n\t \n")); code != 0 {
		t.Errorf("a shard with white space after it: exit %d, %s; want 0", code, errOut)
	}
}

// Issue 10 item 3: merge -o naming one of its inputs, under any name, is
// refused before anything is read or written, and the input is left whole.
func TestMergeOutputIsNotAnInput(t *testing.T) {
	dir := t.TempDir()
	shards := writeShards(t, dir, 2, "-jobs", "100000")
	link := filepath.Join(dir, "hard.json")
	if err := os.Link(shards[1], link); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "sym.json")
	if err := os.Symlink(shards[0], sym); err != nil {
		t.Fatal(err)
	}
	before := [2][]byte{}
	for i, p := range shards {
		before[i], _ = os.ReadFile(p)
	}
	for _, tt := range []struct{ name, out string }{
		{"same path", shards[0]},
		{"another spelling", filepath.Join(dir, "..", filepath.Base(dir), ".", filepath.Base(shards[1]))},
		{"hard link", link},
		{"symlink", sym},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := retrysim(t, "merge", "-o", tt.out, shards[0], shards[1])
			if code != 2 || out != "" || !strings.Contains(errOut, "retrysim: -o: "+tt.out+" is the shard file") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and -o: %s is the shard file", code, out, errOut, tt.out)
			}
			for i, p := range shards {
				if now, _ := os.ReadFile(p); !bytes.Equal(now, before[i]) {
					t.Errorf("%s changed", p)
				}
			}
		})
	}
	// Another file in the same directory is fine.
	if _, errOut, code := retrysim(t, "merge", "-o", filepath.Join(dir, "merged.table"), shards[0], shards[1]); code != 0 {
		t.Errorf("-o merged.table: exit %d, %s", code, errOut)
	}
}

// Issue 10 item 11: flags after the file names work as before them, and a
// file whose name starts with a dash comes after "--".
func TestMergeFlagsAfterFiles(t *testing.T) {
	dir := t.TempDir()
	shards := writeShards(t, dir, 2, "-jobs", "100000")
	want, _, code := retrysim(t, "merge", "-ci", "-format", "markdown", shards[0], shards[1])
	if code != 0 {
		t.Fatalf("merge -ci -format markdown: exit %d", code)
	}
	dashed := filepath.Join(dir, "-1.json")
	if err := os.Rename(shards[1], dashed); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	first := filepath.Base(shards[0])
	for _, args := range [][]string{
		{first, "-ci", "-format", "markdown", "--", "-1.json"},
		{first, "-format=markdown", "-ci", "--", "-1.json"},
		{"-ci", first, "-format", "markdown", "--", "-1.json"},
		{"-ci=true", "-format", "markdown", "--", first, "-1.json"},
	} {
		got, errOut, code := retrysim(t, append([]string{"merge"}, args...)...)
		if code != 0 || got != want {
			t.Errorf("merge %s: exit %d, stderr %q, output\n%s\nwant\n%s", strings.Join(args, " "), code, errOut, got, want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{first, "-format"}, "flag needs an argument: -format"},
		{[]string{first, "-format", "pdf"}, `-format: unknown format "pdf"`},
		{[]string{first, "-1.json"}, "flag provided but not defined: -1.json"},
	} {
		_, errOut, code := retrysim(t, append([]string{"merge"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("merge %s: exit %d, stderr %q; want 2 and %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
	}
}

// Issue 10 item 6: a shard file longer than stats.MaxShardBytes is refused
// having read no more than that, and a directory or a device at once.
func TestMergeRefusesHugeAndIrregularFiles(t *testing.T) {
	one := writeShards(t, t.TempDir(), 1, "-jobs", "100000")[0]
	huge := appendTo(t, one, strings.Repeat(" ", stats.MaxShardBytes))
	for _, tt := range []struct{ file, want string }{
		{huge, filepath.Base(huge) + ": larger than the 24 MiB a shard may be"},
		{t.TempDir(), ": not a regular file (a directory), which a shard is\n"},
		{os.DevNull, "retrysim: merge: " + os.DevNull + ": not a regular file (a device), which a shard is\n"},
	} {
		_, errOut, code := retrysim(t, "merge", tt.file)
		if code != 2 || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("merge %s: exit %d, stderr %q; want 2 and %q", tt.file, code, errOut, tt.want)
		}
	}
	if help, _, _ := retrysim(t, "merge", "-help"); !strings.Contains(strings.Join(strings.Fields(help), " "), "not a regular file, or is larger than 24 MiB (the table's shards; 256 MiB the other kinds'), is refused") {
		t.Errorf("merge -help does not state the limit:\n%s", help)
	}
	// No run writes more strategies than a shard holds: each is named once.
	many := strings.TrimSuffix(strings.Repeat("step-nokey,", stats.MaxShardRows+1), ",")
	if _, errOut, code := retrysim(t, "-jobs", "1000", "-shard", "0/2", "-strategies", many); code != 2 || !strings.Contains(errOut, `-strategies: "step-nokey" is listed twice`) {
		t.Errorf("-shard with %d strategies: exit %d, stderr %q; want 2 and a refusal", stats.MaxShardRows+1, code, errOut)
	}
}
