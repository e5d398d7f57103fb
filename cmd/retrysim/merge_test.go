package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	os.WriteFile(bad, []byte(`{"retrysim_shard": 1, "surprise": true}`), 0o644)
	notJSON := filepath.Join(dir, "table.txt")
	os.WriteFile(notJSON, []byte("1,000,000 sign-ups"), 0o644)

	tests := []struct {
		name  string
		files []string
		want  string
	}{
		{"missing", four[:3], "merge: shards 3/4 are missing"},
		{"missing two", []string{four[0], four[2]}, "merge: shards 1/4, 3/4 are missing"},
		{"twice", []string{four[0], four[1], four[1], four[2], four[3]}, "merge: shard 1/4 is given twice"},
		{"other seed", []string{four[0], four[1], four[2], otherSeed[3]}, "are shards of different runs: seed is 1 in one and 2 in the other"},
		{"other p-fail", []string{four[0], otherP[1], four[2], four[3]}, "are shards of different runs: p_fail is 0.01 in one and 0.02 in the other"},
		{"other count", []string{four[0], four[1], three[2], four[3]}, "is shard 2/3 but"},
		{"other strategies", []string{four[0], otherStrategies[1], four[2], four[3]}, "ran different strategies"},
		{"unknown field", []string{bad}, `is not a retrysim shard: json: unknown field "surprise"`},
		{"not json", []string{notJSON}, "is not a retrysim shard"},
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
		{[]string{"-engine", "skip", "-rng", "mulberry32"}, "-engine: skip cannot replay mulberry32's single stream draw by draw"},
		{[]string{"-shard", "8/8"}, `-shard: "8/8" is not a slice i/n with 0 <= i < n <= 1000000`},
		{[]string{"-shard", "1/"}, `-shard: "1/" is not a slice`},
		{[]string{"-shard", "1/4x"}, `-shard: "1/4x" is not a slice`},
		{[]string{"-shard", "1/4", "-rng", "mulberry32"}, "-shard: mulberry32 has one stream for all jobs"},
		{[]string{"-shard", "1/4", "-ci"}, "-shard writes raw json for merge; give -ci to retrysim merge instead"},
		{[]string{"-shard", "1/4", "-replicates", "3"}, "-shard: -replicates cannot be split"},
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
