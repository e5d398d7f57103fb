package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// workersJSON runs retrysim workers with args and -format json, and reads
// its document.
func workersJSON(t *testing.T, args ...string) (doc struct {
	Title    string           `json:"title"`
	Params   []map[string]any `json:"params"`
	Rows     []map[string]any `json:"rows"`
	Services []map[string]any `json:"services"`
	Series   []map[string]any `json:"series"`
}, out string) {
	t.Helper()
	out, stderr, code := retrysim(t, append([]string{"workers", "-format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("workers %v: exit %d: %s", args, code, stderr)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc, out
}

// -format json prints the title, a row a run with every figure and its
// interval, and the series; a run whose backlog never drained has
// drain_seconds null. One worker (a job's two steps take about 60 ms, so
// under 17 jobs a second) never drains the 20 jobs a second of
// backlog-drain; the same bytes come whatever -workers.
func TestWorkersJSONShape(t *testing.T) {
	args := []string{"-preset", "backlog-drain", "-duration", "5m", "-replicates", "2", "-worker-count", "1"}
	doc, one := workersJSON(t, append(args, "-workers", "1")...)
	if _, three := workersJSON(t, append(args, "-workers", "3")...); three != one {
		t.Error("-workers 1 and 3 print different bytes")
	}
	if !strings.HasPrefix(doc.Title, "retrysim workers: backlog-drain, 5m, 2 replicates, seed 1") || len(doc.Rows) != 2 {
		t.Fatalf("title %q, %d rows", doc.Title, len(doc.Rows))
	}
	for _, row := range doc.Rows {
		for _, k := range []string{"run", "jobs", "completed", "dead", "duplicates", "lost_work", "drain_seconds", "drained_replicates",
			"peak_backlog", "peak_age_seconds", "jobs_lo", "jobs_hi", "peak_backlog_lo", "drained_replicates_hi"} {
			if _, ok := row[k]; !ok {
				t.Errorf("row %v: no %s", row["run"], k)
			}
		}
		if row["drain_seconds"] != nil || row["drained_replicates"] != 0.0 || row["judged_replicates"] != 2.0 {
			t.Errorf("%v: drain_seconds %v, drained %v of %v; want null, 0 of 2", row["run"], row["drain_seconds"], row["drained_replicates"], row["judged_replicates"])
		}
	}
	if n := len(doc.Series); n != 2*300 {
		t.Fatalf("%d points; want 2 runs x 300 s", n)
	}
	for _, k := range []string{"arrivals", "completions", "dead", "backlog", "oldest_age_seconds", "in_flight", "retries_scheduled",
		"db_calls", "db_in_progress", "api_calls", "api_in_progress"} {
		if _, ok := doc.Series[0][k]; !ok {
			t.Errorf("series: no %s", k)
		}
	}
}

// Bad input is refused before any work, in one line naming the flag, exit 2.
func TestWorkersRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"workers"}, "want -preset NAME or -scenario FILE"},
		{[]string{"workers", "-preset", "nope"}, "-preset"},
		{[]string{"workers", "-preset", "sqs-visibility", "-worker-count", "0"}, "-worker-count"},
		{[]string{"workers", "-preset", "sqs-visibility", "-duration", "2h"}, "-duration"},
		{[]string{"workers", "-preset", "sqs-visibility", "-replicates", "1001"}, "-replicates"},
		{[]string{"workers", "-preset", "sqs-visibility", "-format", "xml"}, "-format"},
	} {
		_, stderr, code := retrysim(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2, one line naming %s", tc.args, code, stderr, tc.want)
		}
	}
}

// A scenario file's graph section runs as a fleet, its first entry the
// queue (poison and redeliver_at_timeout read); -worker-count replaces the
// workers' server's; a file whose workers are not a queue server (at the
// line of timeout_at_receive, which needs one, when it gives it), or whose
// poison is no probability, is refused at exit 2, the latter at its line.
func TestWorkersScenario(t *testing.T) {
	const file = "../../examples/workers-signup.yaml"
	doc, _ := workersJSON(t, "-scenario", file, "-replicates", "2")
	if len(doc.Rows) != 1 || doc.Rows[0]["run"] != "signup" || doc.Rows[0]["dead"].(float64) == 0 {
		t.Fatalf("rows %v; want signup's row, poison jobs dead", doc.Rows)
	}
	few, _ := workersJSON(t, "-scenario", file, "-replicates", "2", "-worker-count", "1")
	if few.Rows[0]["peak_backlog"].(float64) <= doc.Rows[0]["peak_backlog"].(float64) {
		t.Errorf("one worker's peak backlog %v; want more than ten's %v", few.Rows[0]["peak_backlog"], doc.Rows[0]["peak_backlog"])
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		edits []string // pairs: from, to
		want  string
	}{
		{[]string{"kind: queue, capacity: 10, queue: 10000, service: 1ms", "kind: independent, base: 1ms", "      timeout_at_receive: true\n", ""}, "want a queue server"},
		{[]string{"kind: queue, capacity: 10, queue: 10000, service: 1ms", "kind: independent, base: 1ms"},
			`workers-signup.yaml:14: graph.entries[0].timeout_at_receive: service "workers" is not a queue server`},
		{[]string{"poison: 0.05", "poison: 2"}, "workers-signup.yaml:12: graph.entries[0].poison"},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "workers-signup.yaml")
		if err := os.WriteFile(path, []byte(strings.NewReplacer(tc.edits...).Replace(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := retrysim(t, "workers", "-scenario", path)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tc.edits, code, stderr, tc.want)
		}
	}
}

// -plot writes a picture of the series in the format its extension names,
// and refuses another extension before any work.
func TestWorkersPlot(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "w.png")
	if _, stderr, code := retrysim(t, "workers", "-preset", "sqs-visibility", "-duration", "1m", "-replicates", "1", "-plot", png); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("%s: %v, not a PNG", png, err)
	}
	if _, stderr, code := retrysim(t, "workers", "-preset", "sqs-visibility", "-plot", filepath.Join(dir, "w.gif")); code != 2 || !strings.HasPrefix(stderr, "retrysim: -plot") {
		t.Errorf("-plot w.gif: exit %d, %q; want exit 2 naming -plot", code, stderr)
	}
}

// -format html of one preset is pinned (new with the page: each change to it
// is a change of the command's output), the series drawn before the table.
func TestWorkersHTMLGolden(t *testing.T) {
	out, stderr, code := retrysim(t, "workers", "-preset", "sqs-visibility", "-replicates", "2", "-duration", "30s", "-format", "html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fig, table := strings.Index(out, "<figure>"), strings.Index(out, "<table>"); fig < 0 || fig > table {
		t.Errorf("the first picture at %d, the table at %d; want a picture before the table", fig, table)
	}
	golden(t, "workers-sqs.html", out)
}

// A graph file's store and crash keys reach the workers, and the counts
// follow the delivery model's stores job for job: every job's first
// receive dies once, after the charge's key, and its second receive, 30 s
// later, finishes it. Under claim the second finds the key and skips the
// charge (lost work, every job); under lease it takes the dead holder's
// lapsed lease over and charges (nothing lost); dying after the charge,
// under after, the charge is made again (a duplicate a job, at the
// charge's step).
func TestWorkersCrashFile(t *testing.T) {
	const file = "../../examples/workers-crash.yaml"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		from, to    string
		lost, dupes bool
	}{
		{"", "", true, false},
		{"      store: claim", "      store: lease\n      lease: 10s", false, false},
		{"      store: claim\n      crash: 1\n      crash_at: after-key", "      store: after\n      crash: 1\n      crash_at: after-work", false, true},
	} {
		path := filepath.Join(dir, "crash.yaml")
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), tc.from, tc.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		doc, _ := workersJSON(t, "-scenario", path, "-replicates", "2")
		r := doc.Rows[0]
		jobs := r["jobs"].(float64)
		want := map[string]float64{"completed": jobs, "dead": 0, "deliveries": 2 * jobs, "crashes": jobs, "lost_work": 0, "duplicates": 0, "late": 0, "rolled_back": 0}
		if tc.lost {
			want["lost_work"] = jobs
		}
		if tc.dupes {
			want["duplicates"] = jobs
		}
		for k, v := range want {
			if r[k].(float64) != v {
				t.Errorf("%q: %s %v for %v jobs; want %v", tc.to, k, r[k], jobs, v)
			}
		}
		steps := r["steps"].([]any)
		charge, receipt := steps[0].(map[string]any), steps[1].(map[string]any)
		if charge["to"] != "payments" || charge["duplicates"] != want["duplicates"] || receipt["to"] != "mail" || receipt["duplicates"] != 0.0 {
			t.Errorf("%q: steps %v; want payments' duplicates %v, mail's 0", tc.to, steps, want["duplicates"])
		}
	}
}

// json's params are each run's graph as a scenario file's graph section
// (its store, crash and timeout keys included): written back into a file,
// the fleet runs with the same rows and services' rows. Its services hold
// each dependency's calls and amplification: under crash's claim store the
// charge is never called, the receipt once a job.
func TestWorkersParamsRunAgain(t *testing.T) {
	flags := []string{"-replicates", "2", "-seed", "3"}
	got, _ := workersJSON(t, append([]string{"-preset", "sqs-visibility", "-duration", "1m"}, flags...)...)
	crash, _ := workersJSON(t, append([]string{"-scenario", "../../examples/workers-crash.yaml"}, flags...)...)
	for _, doc := range []struct {
		params         map[string]any
		rows, services []map[string]any
		run            string
	}{
		{got.Params[1], got.Rows[1:2], nil, "lease"},
		{crash.Params[0], crash.Rows, crash.Services, "crash"},
	} {
		file := filepath.Join(t.TempDir(), "again.yaml")
		data, err := json.Marshal(map[string]any{"graph": doc.params}) // json is yaml: the file a user pastes the params into
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		again, _ := workersJSON(t, append([]string{"-scenario", file}, flags...)...)
		if !reflect.DeepEqual(again.Rows, doc.rows) {
			t.Errorf("the params of %s, run again:\n%v\nwant\n%v", doc.run, again.Rows, doc.rows)
		}
		if doc.services != nil && !reflect.DeepEqual(again.Services, doc.services) {
			t.Errorf("the params of %s, run again: services\n%v\nwant\n%v", doc.run, again.Services, doc.services)
		}
	}
	calls := map[string]float64{}
	for _, s := range crash.Services {
		calls[s["service"].(string)] = s["amplification"].(float64)
	}
	if calls["payments"] != 0 || calls["mail"] != 1 || calls["workers"] != 2 {
		t.Errorf("amplification by service %v; want payments 0, mail 1, workers 2 (two deliveries a job)", calls)
	}
}

// A fleet whose workers crash at random and race on a lease store prints
// the same bytes whatever -workers: sqs-visibility's lease run, and the
// crash file with a crash drawn on every passage.
func TestWorkersStoreSameBytes(t *testing.T) {
	b, err := os.ReadFile("../../examples/workers-crash.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "crash.yaml")
	src := strings.NewReplacer("      store: claim", "      store: lease", "      crash: 1", "      crash: 0.3", "      max_crashes: 1", "      max_crashes: 0").Replace(string(b))
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-scenario", path, "-replicates", "3"}, {"-preset", "sqs-visibility", "-duration", "3m", "-replicates", "3"}} {
		doc, one := workersJSON(t, append(args, "-workers", "1")...)
		if _, three := workersJSON(t, append(args, "-workers", "3")...); three != one {
			t.Errorf("%v: -workers 1 and 3 print different bytes", args)
		}
		if doc.Rows[len(doc.Rows)-1]["crashes"].(float64) == 0 && args[0] == "-scenario" {
			t.Errorf("%v: no crash drawn", args)
		}
	}
}

// Issue 33 item 4: a database outage under Sidekiq's retry shows in the
// table although no job waits for a worker. In 30 minutes of
// sidekiq-outage the database fails every call from 5 to 20 minutes in:
// with the default 25 retries every job arriving then fails and waits out
// a retry until the outage ends (Sidekiq's waits add up to past 20 minutes
// by the seventh), so the most waiting at once is the outage's Poisson
// arrivals, 10 x 900 (within 5 standard deviations of one replicate's
// count, 7 of the mean of 2), and some are still waiting when the run ends: never
// drained. With retry: 3 the jobs that meet the outage are dead or back
// within their longest wait, retry 2's 2^4 + 15 + [0, 30) s: drained in
// [31, 62] s (31 s: jobs enter that wait every tenth of a second as the
// outage ends, and the longest left waits past 31 s; the second's
// resolution adds up to 1 s).
func TestWorkersSidekiqOutageShows(t *testing.T) {
	args := []string{"-preset", "sidekiq-outage", "-duration", "30m", "-replicates", "2"}
	doc, _ := workersJSON(t, args...)
	rows := map[any]map[string]any{}
	for _, r := range doc.Rows {
		rows[r["run"]] = r
	}
	r3, r25 := rows["retry_3"], rows["retry_25"]
	if r3 == nil || r25 == nil {
		t.Fatalf("runs %v; want retry_3 and retry_25", rows)
	}
	peak, _ := r25["peak_retrying"].(float64)
	if want := 10 * 900.0; peak < want-5*95 || peak > want+5*95 {
		t.Errorf("retry_25: peak retrying %v; want %v +- %v", peak, want, 5*95)
	}
	if r25["drain_seconds"] != nil || r25["drained_replicates"] != 0.0 || r25["judged_replicates"] != 2.0 {
		t.Errorf("retry_25: drain %v, drained %v of %v; want never, 0 of 2", r25["drain_seconds"], r25["drained_replicates"], r25["judged_replicates"])
	}
	if d, _ := r3["drain_seconds"].(float64); d < 31 || d > 62 || r3["drained_replicates"] != 1.0 {
		t.Errorf("retry_3: drain %v s, drained %v; want 31 to 62 s, all", r3["drain_seconds"], r3["drained_replicates"])
	}
	table, stderr, code := retrysim(t, append([]string{"workers"}, args...)...)
	if code != 0 || !strings.Contains(table, "Peak retrying") {
		t.Errorf("workers %v: exit %d, %s; want a Peak retrying column in:\n%s", args, code, stderr, table)
	}
}

// A worker fleet's row counts what it ran (issue 34): a file whose second
// entry sent to the first entry's workers printed the deliveries of both
// (2,858) beside the jobs of the first alone (1,224). A workers run refuses
// it at the entry's line; retrysim graph runs it, its two end-to-end rows
// named apart.
func TestWorkersSecondEntryToTheQueue(t *testing.T) {
	b, err := os.ReadFile("../../examples/workers-signup.yaml")
	if err != nil {
		t.Fatal(err)
	}
	second := "    - to: workers\n      load: {shape: constant, rate: 10}\n      client: {timeout: 30s, attempts: 5}\n"
	src := strings.Replace(string(b), "      timeout_at_receive: true\n", "      timeout_at_receive: true\n"+second, 1)
	path := filepath.Join(t.TempDir(), "two.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(src[:strings.Index(src, second)], "\n") + 1
	_, errOut, code := retrysim(t, "workers", "-scenario", path, "-replicates", "1")
	want := fmt.Sprintf("retrysim: -scenario %s:%d: graph.entries[1].to: workers is the first entry's queue, whose jobs a workers run counts; send this entry to a queue of its own, or run retrysim graph\n", path, line)
	if code != 2 || errOut != want {
		t.Errorf("workers: exit %d, %q; want 2 and %q", code, errOut, want)
	}
	out, errOut, code := retrysim(t, "graph", "-scenario", path, "-replicates", "1", "-format", "csv")
	if code != 0 {
		t.Fatalf("graph: exit %d: %s", code, errOut)
	}
	for _, name := range []string{"end to end: workers (entries[0])", "end to end: workers (entries[1])"} {
		if strings.Count(out, ","+name+",") != 1 {
			t.Errorf("graph csv holds %q %d times; want once:\n%s", name, strings.Count(out, ","+name+","), out)
		}
	}
}
