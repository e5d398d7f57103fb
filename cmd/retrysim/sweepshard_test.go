package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sweepArgs are a small 2-axis sweep: 2 failure rates x 3 attempts, 6
// points, 2 replicates each.
var sweepArgs = []string{"sweep", "-p-fail", "0.01,0.2", "-attempts", "2,3,5", "-jobs", "400", "-replicates", "2", "-strategies", "step-nokey,job-samekey"}

// runSweepShards runs sweepArgs plus extra as n shards, writing each to
// dir, and returns their files in the order given to merge (shuffled, as
// a shell glob may not sort them as the slices).
func runSweepShards(t *testing.T, dir string, n int, extra ...string) []string {
	t.Helper()
	var files []string
	for i := n - 1; i >= 0; i-- {
		path := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		args := append(append(append([]string{}, sweepArgs...), extra...), "-shard", fmt.Sprintf("%d/%d", i, n), "-o", path, "-workers", fmt.Sprint(1+i%2))
		if out, errOut, code := retrysim(t, args...); code != 0 || out != "" {
			t.Fatalf("shard %d/%d: exit %d, stdout %q: %s", i, n, code, out, errOut)
		}
		files = append(files, path)
	}
	return files
}

// A sweep run in 4 shards (6 points: slices of 1, 2, 1 and 2) and merged
// prints the single sweep's bytes, in the table, csv and json, and draws
// its picture; in 3 shards too.
func TestSweepShardsMerge(t *testing.T) {
	for _, tc := range []struct {
		format string
		shards int
	}{{"table", 4}, {"csv", 4}, {"json", 3}} {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			whole, errOut, code := retrysim(t, append(sweepArgs[:len(sweepArgs):len(sweepArgs)], "-format", tc.format, "-plot", filepath.Join(dir, "whole.svg"))...)
			if code != 0 || whole == "" {
				t.Fatalf("whole sweep: exit %d: %s", code, errOut)
			}
			files := runSweepShards(t, dir, tc.shards)
			merged, errOut, code := retrysim(t, append(append([]string{"merge"}, files...), "-format", tc.format, "-plot", filepath.Join(dir, "merged.svg"))...)
			if code != 0 || merged != whole {
				t.Fatalf("merge: exit %d, %s; stdout\n%s\nwant the whole sweep's\n%s", code, errOut, merged, whole)
			}
			a, _ := os.ReadFile(filepath.Join(dir, "whole.svg"))
			b, _ := os.ReadFile(filepath.Join(dir, "merged.svg"))
			if len(a) == 0 || string(a) != string(b) {
				t.Errorf("merged picture (%d bytes) differs from the whole sweep's (%d bytes)", len(b), len(a))
			}
		})
	}
}

// A scenario file's sweep with -set merges too, the -set flags carried in
// the shard; a shard of an edited file is refused.
func TestSweepShardsMergeScenario(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/signup-queue.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "queue.yaml")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"sweep", "-scenario", file, "-set", "queue.ttl=1h,72h", "-p-fail", "0.01,0.1", "-jobs", "300"}
	whole, errOut, code := retrysim(t, append(args, "-format", "csv")...)
	if code != 0 {
		t.Fatalf("whole sweep: exit %d: %s", code, errOut)
	}
	var files []string
	for i := range 3 {
		files = append(files, filepath.Join(dir, fmt.Sprintf("s%d.json", i)))
		if _, errOut, code := retrysim(t, append(args[:len(args):len(args)], "-shard", fmt.Sprintf("%d/3", i), "-o", files[i])...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
	}
	if merged, errOut, code := retrysim(t, append(append([]string{"merge"}, files...), "-format", "csv")...); code != 0 || merged != whole {
		t.Fatalf("merge: exit %d, %s; equal to the whole sweep's: %v", code, errOut, merged == whole)
	}
	if err := os.WriteFile(file, append(src, "\n# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "retrysim: merge: the shards ran with {\"scenario_sha256\":"
	if _, errOut, code := retrysim(t, append([]string{"merge"}, files...)...); code != 2 || !strings.HasPrefix(errOut, want) || !strings.HasSuffix(errOut, "(a scenario file changed since?)\n") {
		t.Errorf("merge after the file changed: exit %d, %q; want 2, %q", code, errOut, want)
	}
}

// merge refuses a missing shard, a repeated one and one of another sweep
// (another seed), each with one line and exit 2; a shard draws nothing.
func TestSweepShardsRefused(t *testing.T) {
	dir := t.TempDir()
	files := runSweepShards(t, dir, 4) // shard-3 to shard-0
	other := filepath.Join(dir, "other.json")
	if _, errOut, code := retrysim(t, append(sweepArgs[:len(sweepArgs):len(sweepArgs)], "-seed", "2", "-shard", "0/4", "-o", other)...); code != 0 {
		t.Fatalf("other sweep: exit %d: %s", code, errOut)
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"missing", files[:3], "merge: shard 0/4 is missing (run by -shard 0/4, or by -shard auto as the Slurm array's task MIN+0*STEP (0 of --array=0-3, 0 of --array=0-6:2), the Kubernetes completion index 0 or GNU parallel's job 1)"},
		{"repeated", append(files[:3:3], files[1]), "merge: " + files[1] + " repeats shard 2/4"},
		{"another seed", append(files[:3:3], other), "merge: " + other + " is a shard of another run than " + files[0] + ` (-seed="2"; want no more settings)`},
	} {
		out, errOut, code := retrysim(t, append([]string{"merge"}, tc.files...)...)
		if code != 2 || out != "" || errOut != "retrysim: "+tc.want+"\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and %q", tc.name, code, out, errOut, tc.want)
		}
	}
	_, errOut, code := retrysim(t, append(sweepArgs[:len(sweepArgs):len(sweepArgs)], "-shard", "0/2", "-plot", filepath.Join(dir, "x.png"))...)
	if want := "retrysim: -plot: a shard draws nothing; give -plot to retrysim merge\n"; code != 2 || errOut != want {
		t.Errorf("a shard with -plot: exit %d, %q; want 2, %q", code, errOut, want)
	}
}
