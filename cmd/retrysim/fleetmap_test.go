package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/flagval"
)

// mapArgs are a small map: 2 rates x 2 heights x 2 lengths, 3 replicates.
var mapArgs = []string{"fleet-map", "-rates", "10,50", "-heights", "80,150", "-lengths", "1s,5s", "-replicates", "3", "-after", "10s", "-from", "5s"}

// TestFleetMapShardsMerge runs the small map in four shards, two at a
// time through xargs -P 2 (this test binary serving as retrysim), merges
// them, and wants the single run's bytes, in json and with its picture.
func TestFleetMapShardsMerge(t *testing.T) {
	if _, err := exec.LookPath("xargs"); err != nil {
		t.Skip("no xargs")
	}
	dir := t.TempDir()
	whole, errOut, code := retrysim(t, append(mapArgs, "-format", "json", "-plot", filepath.Join(dir, "whole.png"))...)
	if code != 0 {
		t.Fatalf("whole run: exit %d: %s", code, errOut)
	}
	cmd := exec.Command("xargs", "-P", "2", "-I{}", os.Args[0])
	cmd.Args = append(cmd.Args, append(mapArgs, "-shard", "{}/4", "-o", filepath.Join(dir, "shard-{}.json"))...)
	cmd.Stdin = strings.NewReader("0\n1\n2\n3\n")
	cmd.Env = append(os.Environ(), asRetrysim+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xargs: %v\n%s", err, out)
	}
	shards := []string{filepath.Join(dir, "shard-2.json"), filepath.Join(dir, "shard-0.json"), filepath.Join(dir, "shard-3.json"), filepath.Join(dir, "shard-1.json")}
	merged, errOut, code := retrysim(t, append(append([]string{"merge"}, shards...), "-format", "json", "-plot", filepath.Join(dir, "merged.png"))...)
	if code != 0 || merged != whole {
		t.Fatalf("merge: exit %d, %s; stdout equal to the whole run's: %v", code, errOut, merged == whole)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "whole.png"))
	b, _ := os.ReadFile(filepath.Join(dir, "merged.png"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("merged picture (%d bytes) differs from the whole run's (%d bytes)", len(b), len(a))
	}

	// Refusals: a missing shard, a repeated one, and a shard of another run.
	other := filepath.Join(dir, "other.json")
	if _, e, c := retrysim(t, append(mapArgs[:len(mapArgs):len(mapArgs)], "-seed", "2", "-shard", "1/4", "-o", other)...); c != 0 {
		t.Fatalf("other run: exit %d: %s", c, e)
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"missing", shards[:3], "shard 1/4 is missing (run by -shard 1/4, or by -shard auto as the Slurm array's task MIN+1*STEP (1 of --array=0-3, 2 of --array=0-6:2), the Kubernetes completion index 1 or GNU parallel's job 2)\n"},
		{"repeated", append(shards[:3:3], shards[0]), "repeats shard 2/4"},
		{"another run", []string{shards[0], shards[1], shards[2], other}, "is a shard of another run"},
	} {
		_, e, c := retrysim(t, append([]string{"merge"}, tc.files...)...)
		if c != 2 || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", tc.name, c, e, tc.want)
		}
	}
}

// TestResolveShard: -shard auto/n and auto read each engine's variable,
// counting from 0 (PARALLEL_SEQ from 1, a Slurm array from its
// SLURM_ARRAY_TASK_MIN), and refuse none, two that disagree, or a count
// Slurm contradicts.
func TestResolveShard(t *testing.T) {
	for _, tc := range []struct {
		spec         string
		env          map[string]string
		index, count int
		err          string
	}{
		{"2/4", nil, 2, 4, ""},
		{"4/4", nil, 0, 0, "is not a slice i/n"},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "3"}, 3, 4, ""},
		{"auto/4", map[string]string{"PARALLEL_SEQ": "1"}, 0, 4, ""},
		{"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "5"}, 1, 4, ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "8"}, 2, 8, ""},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "1", "PARALLEL_SEQ": "2"}, 1, 4, ""},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "1", "PARALLEL_SEQ": "1"}, 0, 0, "JOB_COMPLETION_INDEX says shard 1 but PARALLEL_SEQ says 0"},
		{"auto/4", nil, 0, 0, "none of JOB_COMPLETION_INDEX"},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "1"}, 0, 0, "only Slurm gives the count"},
		{"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "8"}, 0, 0, "SLURM_ARRAY_TASK_COUNT says 8"},
		{"auto/4", map[string]string{"PARALLEL_SEQ": "5"}, 0, 0, "gives shard 4, not from 0 to 3"},
		// --array=0-6:2 (issue 34): ids 0, 2, 4, 6 are shards 0 to 3 of 4,
		// where id 4 was shard 4 of 4, refused, and id 2 shard 2.
		{"auto", slurmStep("4"), 2, 4, ""},
		{"auto", slurmStep("6"), 3, 4, ""},
		{"auto/4", slurmStep("2"), 1, 4, ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_STEP": "3", "SLURM_ARRAY_TASK_COUNT": "3"}, 2, 3, ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, 1, 4, ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, 0, "task id 3 is not one of the Slurm array's ids"},
		// --array=1,2,7: no one step; its ids cannot be numbered from the variables.
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "3"}, 0, 0,
			"auto: the Slurm array's ids are not MIN, MIN+STEP, ... MAX (SLURM_ARRAY_TASK_ID 7, MIN 1, STEP 1, MAX 7, COUNT 3): give --array a range such as 0-7 or 0-14:2, or -shard i/n"},
	} {
		i, n, err := flagval.ResolveShard(tc.spec, func(k string) string { return tc.env[k] })
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ResolveShard(%q, %v) = %d, %d, %v; want an error with %q", tc.spec, tc.env, i, n, err, tc.err)
			}
			continue
		}
		if err != nil || i != tc.index || n != tc.count {
			t.Errorf("ResolveShard(%q, %v) = %d, %d, %v; want %d, %d", tc.spec, tc.env, i, n, err, tc.index, tc.count)
		}
	}
}

// slurmStep is what Slurm sets for task id of --array=0-6:2.
func slurmStep(id string) map[string]string {
	return map[string]string{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "6", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"}
}

// TestFleetMapRegions: on Brooker's collapse server a small trigger at low
// load recovers in every replicate and a long, high spike at high load in
// none (HotOS'21's stable and metastable corners); bad input is refused
// before any work.
func TestFleetMapRegions(t *testing.T) {
	out, errOut, code := retrysim(t, "fleet-map", "-rates", "20,50", "-heights", "60,150", "-lengths", "5s", "-replicates", "5", "-format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines; want a header and 4 cells:\n%s", len(lines), out)
	}
	// Cells run heights outer, rates inner: 60 at 20, 60 at 50, 150 at 20, 150 at 50.
	if !strings.Contains(lines[1], ",60,20,") || !strings.Contains(lines[1], ",5,5,1,") {
		t.Errorf("low load, small spike: %s; want 5 of 5 recovered", lines[1])
	}
	if !strings.Contains(lines[4], ",150,50,") || !strings.Contains(lines[4], ",0,5,0,") {
		t.Errorf("high load, large spike: %s; want 0 of 5 recovered", lines[4])
	}
	for _, tc := range []struct{ args, want string }{
		{"-rates 10,10", `-rates: "10" is listed twice`},
		{"-rates 10,x", `-rates: "x" is not a number from 0 to`},
		{"-lengths 5", `-lengths: "5" is not a duration such as 5s from 0 to`},
		{"-after 5s", "-after: 5 s; want at least 10 s"},
		{"-trigger outage -heights 80", "-heights: an outage has no height"},
		{"-policies fast", `-policies: "fast" is no policy (want no_backoff or backoff_and_jitter)`},
		{"-shard 1/2 -plot x.png", "a shard draws nothing"},
	} {
		_, e, c := retrysim(t, append([]string{"fleet-map"}, strings.Fields(tc.args)...)...)
		if c != 2 || !strings.Contains(e, tc.want) {
			t.Errorf("fleet-map %s: exit %d, %q; want 2 and %q", tc.args, c, e, tc.want)
		}
	}
}

// TestFleetMapCheckNamesFlags: Map.Check's refusals, *FieldErrors naming
// the map's fields by path, are printed naming the flags (the four axes
// together for too many cells) and exit 2; a cell's own refusal is named by
// the cell and its setting's path, which no flag of fleet-map gives.
func TestFleetMapCheckNamesFlags(t *testing.T) {
	hundred := func(from int) string {
		var v []string
		for i := range 100 {
			v = append(v, strconv.Itoa(from+i))
		}
		return strings.Join(v, ",")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-after", "5s"}, "retrysim: -after: 5 s; want at least 10 s, one recovery window\n"},
		{[]string{"-lengths", "0s"}, "retrysim: -lengths: 0 s; want above 0\n"},
		{[]string{"-rates", hundred(1), "-heights", hundred(101), "-lengths", "1s,2s"}, "retrysim: -policies x -lengths x -heights x -rates: 20000 cells; at most 10000\n"},
		{[]string{"-rates", "1000000", "-heights", "1000000", "-lengths", "100s"},
			"retrysim: cell no_backoff spike 100s to 1e+06 rate 1e+06: duration: 240 s at up to 1e+06 requests a second is more than 1e+08 requests a replicate\n"},
	} {
		out, e, c := retrysim(t, append([]string{"fleet-map"}, tc.args...)...)
		if c != 2 || e != tc.want || out != "" {
			t.Errorf("fleet-map %.60q: exit %d, stdout %q, stderr %q; want 2, nothing and %q", tc.args, c, out, e, tc.want)
		}
	}
}

// TestFleetMapGoldens pins every format of a small map, spike and stall:
// the table with its caption, markdown, csv, json, and html. The cells'
// counts are checked against the model in TestFleetMapRegions; these
// goldens hold the layout.
func TestFleetMapGoldens(t *testing.T) {
	for _, trigger := range []string{"spike", "stall"} {
		for _, format := range []string{"table", "markdown", "csv", "json", "html"} {
			args := []string{"fleet-map", "-rates", "20,50", "-lengths", "5s", "-replicates", "4", "-after", "20s", "-from", "5s", "-trigger", trigger, "-format", format}
			if trigger == "spike" {
				args = append(args, "-heights", "150")
			}
			out, errOut, code := retrysim(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
			golden(t, "fleet-map-"+trigger+"."+format, out)
		}
	}
}

// A map's cost refusal names the flag to change (issue 34): -replicates,
// -after for a single replicate too big (it said "duration:", a flag the
// map has not, and "replicates:" without its dash), -heights for the load
// a setting holds in flight.
func TestFleetMapCostNamesItsFlag(t *testing.T) {
	grid := []string{"fleet-map", "-rates", "100,200,300,400,500,600,700,800,900,1000",
		"-heights", "1100,1200,1300,1400,1500,1600,1700,1800,1900,2000", "-after", "50m"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{append(slices.Clone(grid), "-replicates", "1", "-lengths", "10s,20s"), "retrysim: -after: 200 runs x 1 replicate of up to 3.35e+06 requests can take up to 1.23e+10 events"},
		{append(slices.Clone(grid), "-replicates", "2", "-lengths", "10s"), "retrysim: -replicates: 100 runs x 2 replicates of up to 3.35e+06 requests can take up to 1.23e+10 events"},
		{[]string{"fleet-map", "-replicates", "1", "-lengths", "10s", "-rates", "2000", "-heights", "3000", "-after", "59m"}, "retrysim: -heights (server.slope): a latency of 1s + 10ms a call in progress at up to 3000 requests a second"},
	} {
		out, errOut, code := retrysim(t, tt.args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
