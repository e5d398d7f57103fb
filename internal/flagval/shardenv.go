package flagval

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/sim"
)

// shardEnv are the variables -shard auto reads: the index each engine
// gives its task, and what to subtract to count from 0.
var shardEnv = []struct{ name, engine string }{
	{"JOB_COMPLETION_INDEX", "a Kubernetes Indexed Job"},
	{"SLURM_ARRAY_TASK_ID", "a Slurm job array"},
	{"PARALLEL_SEQ", "GNU parallel"},
}

// ResolveShard reads -shard's value: i/n, auto/n or auto, taking the index
// (and, for auto, the count) from the environment getenv reads.
func ResolveShard(spec string, getenv func(string) string) (index, count int, err error) {
	bad := fmt.Errorf("%q is not a slice i/n with 0 <= i < n <= %d, such as 0/8, or auto/n or auto", spec, sim.MaxShards)
	head, tail, slash := strings.Cut(spec, "/")
	if slash {
		if count, err = strconv.Atoi(tail); err != nil || count < 1 || count > sim.MaxShards {
			return 0, 0, bad
		}
	}
	if head != "auto" {
		if index, err = strconv.Atoi(head); err != nil || !slash || index < 0 || index >= count {
			return 0, 0, bad
		}
		return index, count, nil
	}
	num := func(name string) (int, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, false, fmt.Errorf("%s=%q is not a whole number", name, v)
		}
		return n, true, nil
	}
	found := ""
	for _, e := range shardEnv {
		n, ok, err := num(e.name)
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			continue
		}
		switch e.name {
		case "SLURM_ARRAY_TASK_ID":
			if n, err = slurmIndex(n, num); err != nil {
				return 0, 0, err
			}
		case "PARALLEL_SEQ":
			n-- // GNU parallel counts jobs from 1
		}
		if found != "" && n != index {
			return 0, 0, fmt.Errorf("auto: %s says shard %d but %s says %d; unset one", found, index, e.name, n)
		}
		found, index = e.name, n
	}
	if found == "" {
		var names []string
		for _, e := range shardEnv {
			names = append(names, e.name+" ("+e.engine+")")
		}
		return 0, 0, fmt.Errorf("auto: none of %s is set; give i/n", strings.Join(names, ", "))
	}
	n, ok, err := num("SLURM_ARRAY_TASK_COUNT")
	if err != nil {
		return 0, 0, err
	}
	switch {
	case !slash && !ok:
		return 0, 0, fmt.Errorf("auto: only Slurm gives the count (SLURM_ARRAY_TASK_COUNT); give -shard auto/n")
	case !slash:
		count = n
	case ok && n != count:
		return 0, 0, fmt.Errorf("auto/%d: SLURM_ARRAY_TASK_COUNT says %d", count, n)
	}
	if index < 0 || index >= count {
		return 0, 0, fmt.Errorf("auto/%d: %s gives shard %d, not from 0 to %d", count, found, index, count-1)
	}
	return index, count, nil
}

// slurmIndex is the shard of a Slurm array's task id: its place among
// MIN, MIN + STEP, ...; an array whose ids are no such range is refused.
func slurmIndex(id int, num func(string) (int, bool, error)) (int, error) {
	var v [4]int
	var set [4]bool
	for i, name := range []string{"SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT"} {
		var err error
		if v[i], set[i], err = num(name); err != nil {
			return 0, err
		}
	}
	lo, hi, step, count := v[0], v[1], max(1, v[2]), v[3]
	ids := fmt.Sprintf("SLURM_ARRAY_TASK_ID %d, MIN %d, STEP %d", id, lo, step)
	if set[1] && set[3] {
		ids += fmt.Sprintf(", MAX %d, COUNT %d", hi, count)
		if (hi-lo)%step != 0 || (hi-lo)/step+1 != count {
			return 0, fmt.Errorf("auto: the Slurm array's ids are not MIN, MIN+STEP, ... MAX (%s): give --array a range such as 0-7 or 0-14:2, or -shard i/n", ids)
		}
	}
	if id < lo || (id-lo)%step != 0 {
		return 0, fmt.Errorf("auto: task id %d is not one of the Slurm array's ids (%s)", id, ids)
	}
	return (id - lo) / step, nil
}
