package shardfile_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/shardfile"
)

// Each task a missing shard's message names runs that shard: the Slurm
// array tasks of its two examples, the completion index and the GNU parallel
// job, each read back by -shard auto's own resolver (flagval.ResolveShard)
// under the environment its launcher sets, give the shard's index.
func TestTasksResolveToTheShard(t *testing.T) {
	re := regexp.MustCompile(`^run by -shard (\d+)/(\d+), or by -shard auto as the Slurm array's task MIN\+(\d+)\*STEP \((\d+) of --array=0-(\d+), (\d+) of --array=0-(\d+):2\), the Kubernetes completion index (\d+) or GNU parallel's job (\d+)$`)
	for n := 1; n <= 6; n++ {
		for i := range n {
			msg := shardfile.Tasks([]int{i}, n, false)
			m := re.FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("Tasks([%d], %d) = %q; want it to match %s", i, n, msg, re)
			}
			num := make([]int, len(m))
			for k := 1; k < len(m); k++ {
				num[k], _ = strconv.Atoi(m[k])
			}
			if num[1] != i || num[2] != n || num[3] != i {
				t.Errorf("Tasks([%d], %d) = %q: names another shard", i, n, msg)
			}
			for _, env := range []map[string]string{
				{"SLURM_ARRAY_TASK_ID": m[4], "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": m[5], "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": strconv.Itoa(n)},
				{"SLURM_ARRAY_TASK_ID": m[6], "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": m[7], "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": strconv.Itoa(n)},
				{"JOB_COMPLETION_INDEX": m[8]},
				{"PARALLEL_SEQ": m[9]},
			} {
				index, count, err := flagval.ResolveShard(fmt.Sprintf("auto/%d", n), func(k string) string { return env[k] })
				if err != nil || index != i || count != n {
					t.Errorf("Tasks([%d], %d) = %q: under %v -shard auto/%d resolves to %d/%d, %v; want %d/%d", i, n, msg, env, n, index, count, err, i, n)
				}
			}
		}
	}
}

// TestSlice: the shards' slices of n items are contiguous, in order, cover
// every cell once, and differ in size by at most one.
func TestSlice(t *testing.T) {
	for _, n := range []int{1, 7, 100} {
		for _, count := range []int{1, 3, 4, 8} {
			next := 0
			for i := range count {
				lo, hi := shardfile.Slice(n, i, count)
				if lo != next || hi < lo || hi-lo > n/count+1 || hi-lo < n/count {
					t.Errorf("shardfile.Slice(%d, %d, %d) = %d, %d; want from %d, %d or %d items", n, i, count, lo, hi, next, n/count, n/count+1)
				}
				next = hi
			}
			if next != n {
				t.Errorf("shardfile.Slice(%d, _, %d) ends at %d; want %d", n, count, next, n)
			}
		}
	}
}

// TestEnvelope: a run of 5 items in 2 shards, written by Encode and read by
// ReadAll and Gather, gives back its items bit for bit (a NaN too), in
// order; a shard whose items are spliced into another's header, a missing
// shard, another kind and an item the check refuses are refused.
func TestEnvelope(t *testing.T) {
	dir := t.TempDir()
	items := []float64{1, math.NaN(), 3, math.Inf(1), 5}
	write := func(name string, h shardfile.Header, slice []float64) string {
		data, err := shardfile.Encode(h, slice)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	h := shardfile.Header{Kind: "test", Settings: []shardfile.Setting{{Flag: "seed", Value: "1"}}, Count: 2, Items: len(items)}
	var paths []string
	for i := range 2 {
		h.Index = i
		lo, hi := shardfile.Slice(len(items), i, 2)
		paths = append(paths, write(fmt.Sprintf("s%d.json", i), h, items[lo:hi]))
	}
	ok := func(int, *float64) error { return nil }
	shards, err := shardfile.ReadAll(paths)
	if err != nil {
		t.Fatal(err)
	}
	got, err := shardfile.Gather(len(items), "items", paths, shards, ok)
	if err != nil || len(got) != len(items) {
		t.Fatalf("Gather = %v, %v; want %v", got, err, items)
	}
	for i := range items {
		if math.Float64bits(got[i]) != math.Float64bits(items[i]) {
			t.Errorf("item %d = %v; want %v", i, got[i], items[i])
		}
	}
	other := h
	other.Index, other.Settings = 1, []shardfile.Setting{{Flag: "seed", Value: "2"}}
	spliced, _ := os.ReadFile(write("other.json", other, items[2:]))
	ours, _ := os.ReadFile(paths[1])
	data := regexp.MustCompile(`"data": "[^"]*"`)
	if err := os.WriteFile(paths[1], data.ReplaceAll(ours, data.Find(spliced)), 0o644); err != nil {
		t.Fatal(err)
	}
	shards, _ = shardfile.ReadAll(paths)
	if _, err := shardfile.Gather(len(items), "items", paths, shards, ok); err == nil || !strings.Contains(err.Error(), "its data is not of the run and slice its header names") {
		t.Errorf("spliced data: %v; want refused", err)
	}
	if _, err := shardfile.ReadAll(paths[:1]); err == nil || !strings.Contains(err.Error(), "shard 1/2 is missing") {
		t.Errorf("one of two shards: %v; want the other missing", err)
	}
	h.Index, h.Kind = 1, "other"
	if _, err := shardfile.ReadAll([]string{paths[0], write("kind.json", h, items[2:])}); err == nil || !strings.Contains(err.Error(), "is a other, but") {
		t.Errorf("another kind: %v; want refused", err)
	}
	shards, _ = shardfile.ReadAll(paths[:1])
	refuse := func(k int, _ *float64) error { return fmt.Errorf("no item %d", k) }
	if _, err := shardfile.Gather(len(items), "items", paths, shards, refuse); err == nil || !strings.Contains(err.Error(), "items[0]: no item 0") {
		t.Errorf("a refused item: %v; want items[0] named", err)
	}
}
