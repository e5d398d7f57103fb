package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFleetShardsMerge runs fleet runs in shards of their replicates and
// wants merge to print the single run's bytes: one run in three shards
// (table and series), and a preset in two (json and picture); a missing,
// repeated or foreign shard is refused.
func TestFleetShardsMerge(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		shards int
		extra  string   // an output file flag, given to the whole run and to merge
		format []string // given to the whole run and to merge, never to a shard
	}{
		{"one run", []string{"fleet", "-shape", "spike", "-rate", "40", "-peak", "80", "-from", "10s", "-to", "15s", "-duration", "40s", "-replicates", "7"}, 3, "-series", nil},
		{"preset", []string{"fleet", "-preset", "brooker-collapse", "-duration", "30s", "-replicates", "4"}, 2, "-plot", []string{"-format", "json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ext := map[string]string{"-series": ".csv", "-plot": ".png"}[tc.extra]
			wholeFile, mergedFile := filepath.Join(dir, tc.name+"-whole"+ext), filepath.Join(dir, tc.name+"-merged"+ext)
			whole, errOut, code := retrysim(t, append(append(tc.args, tc.format...), tc.extra, wholeFile)...)
			if code != 0 {
				t.Fatalf("whole run: exit %d: %s", code, errOut)
			}
			var files []string
			for i := tc.shards - 1; i >= 0; i-- { // any order
				f := filepath.Join(dir, tc.name+"-shard-"+strconv.Itoa(i)+".json")
				if _, e, c := retrysim(t, append(tc.args, "-shard", strconv.Itoa(i)+"/"+strconv.Itoa(tc.shards), "-o", f)...); c != 0 {
					t.Fatalf("shard %d: exit %d: %s", i, c, e)
				}
				files = append(files, f)
			}
			merged, errOut, code := retrysim(t, append(append(append([]string{"merge"}, files...), tc.format...), tc.extra, mergedFile)...)
			if code != 0 || merged != whole {
				t.Fatalf("merge: exit %d, %s; printed\n%s\nwant\n%s", code, errOut, merged, whole)
			}
			a, _ := os.ReadFile(wholeFile)
			b, _ := os.ReadFile(mergedFile)
			if len(a) == 0 || string(a) != string(b) {
				t.Errorf("merged %s (%d bytes) differs from the whole run's (%d bytes)", tc.extra, len(b), len(a))
			}
			other := filepath.Join(dir, tc.name+"-other.json")
			if _, e, c := retrysim(t, append(tc.args, "-seed", "2", "-shard", "0/"+strconv.Itoa(tc.shards), "-o", other)...); c != 0 {
				t.Fatalf("other run: exit %d: %s", c, e)
			}
			for _, bad := range []struct {
				files []string
				want  string
			}{
				{files[1:], "is missing"},
				{append(files[:1:1], files...), "repeats shard"},
				{append(files[:len(files)-1:len(files)-1], other), "is a shard of another run"},
				{append(files[:len(files):len(files)], "-expect"), "-expect: " + files[0] + " is a fleet shard, whose merge takes -o, -format, -width, -series, -plot"},
			} {
				_, e, c := retrysim(t, append([]string{"merge"}, bad.files...)...)
				if c != 2 || !strings.Contains(e, bad.want) {
					t.Errorf("merge %v: exit %d, %q; want 2 and %q", bad.files, c, e, bad.want)
				}
			}
		})
	}
}
