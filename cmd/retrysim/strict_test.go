package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One strictness for files and flags (issue 21, items 7 and 8): a scenario
// file that gives a key twice, in two spellings or through a YAML merge key,
// or a backoff setting its policy never reads, is refused with its line and
// field and exit 2, as the flags for the same settings are.
func TestScenarioFileAsStrictAsFlags(t *testing.T) {
	dir := t.TempDir()
	file := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const job = "steps:\n  - {name: a, p_fail: 0.1}\nwatched: a\n"
	tests := []struct {
		name string
		args []string
		want string // the whole of stderr
	}{
		{"fleet key in two spellings", []string{"fleet", "-duration", "1s", "-scenario",
			file("twice.yaml", "fleet:\n  policy: finagle-budget\n  budget_ratio: 0.1\n  budget-ratio: 0.5\n")},
			"retrysim: -scenario DIR/twice.yaml:4: fleet.budget-ratio: the key is given twice (first at line 3, as budget_ratio)\n"},
		{"merge key", []string{"-jobs", "10", "-scenario",
			file("merge.yaml", "steps:\n  - &a {name: a, p_fail: 0.1}\n  - <<: *a\n    name: b\n    p_fail: 0.2\nwatched: b\n")},
			"retrysim: -scenario DIR/merge.yaml:3: steps[1].<<: a YAML merge key is refused, since it gives keys a second time; write each key out once\n"},
		{"step sidekiq base", []string{"-jobs", "10", "-scenario",
			file("sidekiq.yaml", "steps:\n  - {name: a, p_fail: 0.1, backoff: {policy: sidekiq, base: 1s}}\nwatched: a\n")},
			"retrysim: -scenario DIR/sidekiq.yaml:2: steps[0].backoff.base: the sidekiq schedule sets its own waits, in seconds by attempt\n"},
		{"flag sidekiq base", []string{"-jobs", "10", "-backoff", "sidekiq", "-backoff-base", "1s", "-latency", "1ms"},
			"retrysim: -backoff-base: the sidekiq schedule sets its own waits, in seconds by attempt\n"},
		{"step none base", []string{"-jobs", "10", "-scenario",
			file("none.yaml", "steps:\n  - {name: a, p_fail: 0.1, backoff: {policy: none, base: 5s}}\nwatched: a\n")},
			"retrysim: -scenario DIR/none.yaml:2: steps[0].backoff.base: the backoff policy none never waits\n"},
		{"queue none base", []string{"-jobs", "10", "-scenario", file("queue.yaml", job+"queue: {backoff: {policy: none, base: 5s}}\n")},
			"retrysim: -scenario DIR/queue.yaml:4: queue.backoff.base: the backoff policy none never waits\n"},
		{"flag none base", []string{"-jobs", "10", "-backoff", "none", "-backoff-base", "5s", "-latency", "1ms"},
			"retrysim: -backoff-base: the backoff policy none never waits\n"},
		{"step attempts 1", []string{"-jobs", "10", "-scenario",
			file("once.yaml", "steps:\n  - {name: a, p_fail: 0.1, attempts: 1, backoff: {policy: full-jitter, base: 1s}}\nwatched: a\n")},
			"retrysim: -scenario DIR/once.yaml:2: steps[0].backoff: with attempts 1 the step's calls are not retried, so its backoff is never waited\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := retrysim(t, tt.args...)
			if want := strings.ReplaceAll(tt.want, "DIR", dir); code != 2 || out != "" || errOut != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr %q", code, out, errOut, want)
			}
		})
	}
}

// A report echoes a backoff without what its policy never reads (issue 21,
// item 8: step_params said "sidekiq base 100ms cap 2s" for a schedule that
// reads neither): the texts are the policy names alone.
func TestBackoffEchoLeavesOutWhatIsNotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	src := "steps:\n  - {name: a, p_fail: 0.1, backoff: {policy: sidekiq}}\n  - {name: b, p_fail: 0.1, backoff: {policy: none}}\n" +
		"watched: a\nqueue: {backoff: {policy: river}}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := retrysim(t, "-jobs", "10", "-strategies", "step-nokey", "-scenario", path, "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Queue struct {
			Backoff string `json:"backoff"`
		} `json:"delivery"`
		Steps []struct {
			Backoff string `json:"backoff"`
		} `json:"step_params"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 2 || rep.Steps[0].Backoff != "sidekiq" || rep.Steps[1].Backoff != "none" || rep.Queue.Backoff != "river" {
		t.Errorf("step_params %+v, delivery backoff %q; want sidekiq, none and river alone", rep.Steps, rep.Queue.Backoff)
	}
}
