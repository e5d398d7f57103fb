package shardfile_test

import (
	"fmt"
	"regexp"
	"strconv"
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
