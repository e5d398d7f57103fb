package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzMerge fuzzes the second of two shards of the run of kind k (in
// hostileKinds), seeded with the real one: merge either prints or refuses
// with exit 2 and one line, never panics, never writes a file.
func fuzzMerge(f *testing.F, k int) {
	dir := f.TempDir()
	files := writeTwoShards(f, dir, hostileKinds[k].args...)
	real, err := os.ReadFile(files[1])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	f.Fuzz(func(t *testing.T, data []byte) {
		d := t.TempDir()
		second := filepath.Join(d, "s1.json")
		if err := os.WriteFile(second, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := retrysim(t, "merge", files[0], second)
		if code != 0 && (code != 2 || strings.Count(errOut, "\n") != 1) {
			t.Fatalf("merge: exit %d, %q; want 0, or 2 and one line", code, errOut)
		}
		if entries, _ := os.ReadDir(d); len(entries) != 1 {
			t.Fatalf("merge wrote %d files beside the shard", len(entries)-1)
		}
	})
}

func FuzzMergeFleetShard(f *testing.F) { fuzzMerge(f, 0) }

func FuzzMergeMapShard(f *testing.F) { fuzzMerge(f, 1) }

func FuzzMergeSweepShard(f *testing.F) { fuzzMerge(f, 2) }

func FuzzMergeChainShard(f *testing.F) { fuzzMerge(f, 3) }
