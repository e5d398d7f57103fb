package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The example: retrysim sweep workers over the workers' capacity
// prints, a row a point, what retrysim workers prints for a scenario file
// edited to that capacity (an independent run of the same point), after
// the point's setting; and the capacity changes the peak backlog.
func TestSweepWorkersCapacity(t *testing.T) {
	src, err := os.ReadFile("../../examples/workers-signup.yaml")
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{"-replicates", "3", "-format", "csv"}
	out, errOut, code := retrysim(t, append([]string{"sweep", "workers", "-scenario", "../../examples/workers-signup.yaml", "-set", "graph.services[workers].server.capacity=5,10,20"}, flags...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := readCSV(t, out)
	if len(rows) != 4 || rows[0][0] != "graph.services[workers].server.capacity" {
		t.Fatalf("want a header and 3 rows under the setting, got\n%s", out)
	}
	backlog := slices.Index(rows[0], "peak_backlog")
	var peaks []string
	for i, capacity := range []string{"5", "10", "20"} {
		file := filepath.Join(t.TempDir(), "workers.yaml")
		edited := strings.Replace(string(src), "capacity: 10,", "capacity: "+capacity+",", 1)
		if edited == string(src) && capacity != "10" {
			t.Fatal("the example holds no capacity: 10 to edit")
		}
		if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		one, errOut, code := retrysim(t, append([]string{"workers", "-scenario", file}, flags...)...)
		if code != 0 {
			t.Fatalf("workers at capacity %s: exit %d: %s", capacity, code, errOut)
		}
		want := readCSV(t, one)
		row := rows[i+1]
		n := len(row) - 1 // all but the scenario file, which differs
		if row[0] != capacity || !slices.Equal(row[1:n], want[1][:n-1]) || !slices.Equal(rows[0][1:n], want[0][:n-1]) {
			t.Errorf("capacity %s: the sweep's row\n%v\nwant retrysim workers'\n%v", capacity, row, want[1])
		}
		peaks = append(peaks, row[backlog])
	}
	if peaks[0] == peaks[2] {
		t.Errorf("peak backlog %v at capacities 5 and 20: the setting changed nothing", peaks)
	}
}

// A sweep of a kind refuses before any work, exit 2, a setting no run has,
// naming the path and what it could be, a value out of its bounds, a
// setting the run does not read, one its flag sets too, workers that are
// no longer a queue, no -set, and a format it does not print.
func TestSweepKindRefuses(t *testing.T) {
	workers := []string{"sweep", "workers", "-scenario", "../../examples/workers-signup.yaml"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(workers, "-set", "graph.services[wrk].server.capacity=5,10"),
			`retrysim: -set graph.services[wrk].server.capacity: no service is called "wrk" (the graph's: workers, db, mail)`},
		{append(workers, "-set", "graph.services[workers].server.capacity=0,10"),
			"retrysim: -set graph.services[workers].server.capacity: 0 is not a whole number from 1 to 1e+06"},
		{append(workers, "-set", "graph.entries[0].client.nope=1"),
			"retrysim: -set graph.entries[0].client.nope: no setting of a graph has this path (graph.KEY, graph.entries[i].KEY, .load.KEY or .client.KEY, graph.services[NAME].server.KEY, .outage.KEY or .parallel, graph.services[NAME].calls[j].client.KEY; retrysim help scenario lists the keys)"},
		{workers, "retrysim: -set: want PATH=VALUES, the setting a sweep of workers varies"},
		{append(workers, "-set", "graph.entries[0].poison=0.1", "-format", "html"), `retrysim: -format: unknown format "html" (want one of table, markdown, csv, json)`},
		{[]string{"sweep", "fleet", "-set", "capacity=5,10"},
			"retrysim: -set: at capacity=5: capacity: the run does not read it: only server.kind queue has workers; the server is latency"},
		{[]string{"sweep", "fleet", "-timeout", "2s", "-set", "client.timeout=1s,3s"}, "retrysim: -timeout: -set client.timeout varies it; give one of the two"},
		{append(workers, "-set", "graph.entries[0].poison=0,0.1", "-require", "duplicates<=0"), "retrysim: -require: a sweep judges no requirement; give -require to one run, or search with retrysim tune workers"},
		{[]string{"sweep", "workers", "-preset", "sidekiq-outage", "-set", "graph.services[workers].server.kind=latency"},
			"retrysim: -set: the workers (workers) are a latency server at a point; a worker fleet's take the jobs from a queue"},
		{[]string{"sweep", "fleet", "-set", "server.nope=1"},
			"retrysim: -set server.nope: no setting of a fleet run has this path or key (load.rate, server.workers or capacity, client.timeout, client.policy.kind; retrysim help scenario lists the fleet section's keys)"},
	} {
		out, errOut, code := retrysim(t, tc.args...)
		if code != 2 || out != "" || errOut != tc.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and\n%s", tc.args, code, out, errOut, tc.want)
		}
	}
}

// retrysim sweep -help names the sweep of a kind, and retrysim sweep
// workers -help its -set.
func TestSweepKindHelp(t *testing.T) {
	out, _, code := retrysim(t, "sweep", "-help")
	if code != 0 || !strings.Contains(out, "Usage: retrysim sweep [flags]\n       retrysim sweep fleet|graph|workers [flags] -set PATH=VALUES\n") {
		t.Errorf("sweep -help: exit %d, no sweep of a kind in\n%s", code, out)
	}
	out, _, code = retrysim(t, "sweep", "workers", "-help")
	if code != 0 || !strings.HasPrefix(out, "retrysim sweep workers runs what retrysim workers runs") || !strings.Contains(out, "  -set path=values") {
		t.Errorf("sweep workers -help: exit %d, no -set in\n%s", code, out)
	}
}
