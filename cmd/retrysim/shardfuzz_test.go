package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzMerge fuzzes the second of two shards of a run of every kind whose
// shards are envelopes (hostileKinds, the kind picked by k), seeded with
// the real ones: merge either prints or refuses with exit 2 and one line,
// never panics, never writes a file.
func FuzzMerge(f *testing.F) {
	dir := f.TempDir()
	firsts := make([]string, len(hostileKinds))
	for k, kind := range hostileKinds {
		files := writeTwoShards(f, filepath.Join(dir, kind.name), kind.args...)
		real, err := os.ReadFile(files[1])
		if err != nil {
			f.Fatal(err)
		}
		firsts[k] = files[0]
		f.Add(uint8(k), real)
	}
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		d := t.TempDir()
		second := filepath.Join(d, "s1.json")
		if err := os.WriteFile(second, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := retrysim(t, "merge", firsts[int(k)%len(firsts)], second)
		if code != 0 && (code != 2 || strings.Count(errOut, "\n") != 1) {
			t.Fatalf("merge: exit %d, %q; want 0, or 2 and one line", code, errOut)
		}
		if entries, _ := os.ReadDir(d); len(entries) != 1 {
			t.Fatalf("merge wrote %d files beside the shard", len(entries)-1)
		}
	})
}
