package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTuneShardsMerge: a search of the fleet family in shards, merged,
// prints the bytes the single search prints: brooker-collapse's token
// bucket against unlimited retries (the bucket needs three batches, 35
// replicates, to hold, so the merge replays a race of several batches) in
// three shards, json; aws-five-deep's tries at the entry (TestTuneGraph)
// in two, the table and its exit status 0; a search whose requirement
// rules out every candidate exits 3 after merge as after the search. A
// shard of another search is refused, and so is a budget whose depth the
// runs cannot keep, and a table search's -shard.
func TestTuneShardsMerge(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		shards int
		format []string
		code   int
	}{
		{"fleet", []string{"fleet", "-preset", "brooker-collapse", "-search", "client.policy.kind=unlimited,token-bucket", "-search", "client.attempts=3",
			"-require", "spike_no_backoff:recovered_share_lo>=0.9", "-maximize", "client.attempts", "-budget", "80"}, 3, []string{"-format", "json"}, 0},
		{"graph", []string{"graph", "-preset", "aws-five-deep", "-duration", "10s", "-search", "graph.entries[0].client.attempts=1:6:6",
			"-maximize", "graph.entries[0].client.attempts", "-require", "3_tries_each:amplification<=400", "-budget", "40"}, 2, nil, 0},
		{"none", []string{"graph", "-preset", "aws-five-deep", "-duration", "10s", "-search", "graph.entries[0].client.attempts=4:6:3",
			"-maximize", "graph.entries[0].client.attempts", "-require", "3_tries_each:amplification<=400", "-budget", "40"}, 2, nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, wholeErr, code := retrysim(t, append(append([]string{"tune"}, tc.args...), tc.format...)...)
			if code != tc.code {
				t.Fatalf("whole search: exit %d: %s", code, wholeErr)
			}
			var files []string
			for i := tc.shards - 1; i >= 0; i-- { // any order
				f := filepath.Join(dir, tc.name+"-shard-"+strconv.Itoa(i)+".json")
				if _, e, c := retrysim(t, append(append([]string{"tune"}, tc.args...), "-shard", strconv.Itoa(i)+"/"+strconv.Itoa(tc.shards), "-o", f)...); c != 0 {
					t.Fatalf("shard %d: exit %d: %s", i, c, e)
				}
				files = append(files, f)
			}
			merged, mergedErr, code := retrysim(t, append(append([]string{"merge"}, files...), tc.format...)...)
			if code != tc.code || merged != whole || mergedErr != wholeErr {
				t.Fatalf("merge: exit %d, stderr %q; printed\n%s\nwant exit %d, stderr %q,\n%s", code, mergedErr, merged, tc.code, wholeErr, whole)
			}
			other := filepath.Join(dir, tc.name+"-other.json")
			if _, e, c := retrysim(t, append(append([]string{"tune"}, tc.args...), "-seed", "2", "-shard", "0/"+strconv.Itoa(tc.shards), "-o", other)...); c != 0 {
				t.Fatalf("other search: exit %d: %s", c, e)
			}
			if _, e, c := retrysim(t, append([]string{"merge"}, append(files[:len(files)-1:len(files)-1], other)...)...); c != 2 || !strings.Contains(e, "is a shard of another run") {
				t.Errorf("merge with another search's shard: exit %d, %q; want 2", c, e)
			}
		})
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "workers", "-preset", "backlog-drain", "-duration", "12m", "-search", "graph.services[workers].server.capacity=2:21:20", "-minimize", "capped:drain_seconds", "-require", "capped:dead<=0", "-shard", "0/2", "-o", filepath.Join(dir, "x.json")},
			"retrysim: -budget: a sharded search runs each of its 21 candidates to the depth the race could give it (the budget less the others' first batches: 400 replicates), 8400 replicates of 720 s in all, past the 360000 s of series a run may keep; give -budget 123 or less\n"},
		{[]string{"tune", "-search", "attempts=1:3:3", "-minimize", "attempts", "-shard", "0/2"}, "retrysim: -shard: a search of the table does not shard"},
	} {
		_, stderr, code := retrysim(t, c.args...)
		if code != 2 || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Errorf("a refused shard wrote its file")
	}
}
