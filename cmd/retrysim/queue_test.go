package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shipped sign-up file gives the default run's numbers.
func TestSignupScenarioFileEqualsDefault(t *testing.T) {
	strip := func(out string) string {
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		delete(rep, "scenario_file")
		b, _ := json.Marshal(rep)
		return string(b)
	}
	def, _, _ := retrysim(t, "-jobs", "200000", "-format", "json")
	file, errOut, code := retrysim(t, "-jobs", "200000", "-format", "json", "-scenario", "../../examples/signup.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strip(def) != strip(file) {
		t.Errorf("-scenario examples/signup.yaml differs from the built-in sign-up:\n%s\nwant\n%s", file, def)
	}
}

func TestQueueGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"queue.table", []string{"-scenario", "../../examples/signup-queue.yaml", "-jobs", "20000"}},
		{"queue.json", []string{"-scenario", "../../examples/signup-queue.yaml", "-jobs", "20000", "-format", "json", "-strategies", "step-samekey"}},
		{"preset.table", []string{"-preset", "sqlite-check", "-jobs", "1000"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := retrysim(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

// The preset's json rows: the check's outcomes per job, from its text.
func TestPresetSQLiteCheck(t *testing.T) {
	out, errOut, code := retrysim(t, "-preset", "sqlite-check", "-jobs", "5000", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Rows []struct {
			Case          string  `json:"case"`
			ChargesPerJob float64 `json:"charges_per_job"`
			LostWork      int64   `json:"lost_work"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		charges float64
		lost    int64
	}{{1, 0}, {2, 0}, {1, 0}, {2, 0}, {0, 5000}, {2, 0}, {1, 0}, {1, 0}}
	if len(rep.Rows) != len(want) {
		t.Fatalf("%d rows; want %d", len(rep.Rows), len(want))
	}
	for i, w := range want {
		if r := rep.Rows[i]; r.ChargesPerJob != w.charges || r.LostWork != w.lost {
			t.Errorf("%s: %v charges a job, %d jobs lost; want %v, %d", r.Case, r.ChargesPerJob, r.LostWork, w.charges, w.lost)
		}
	}
}

func TestQueueBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(src), 0o644)
		return p
	}
	steps := "steps:\n  - {name: charge, p_fail: 0.1}\n"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", write("a.yaml", steps+"queue:\n  stor: claim\n")}, "a.yaml:4: queue.stor: unknown key"},
		{[]string{"-scenario", write("b.yaml", "steps:\n  - {name: charge, p_fail: high}\n")}, `b.yaml:2: steps[0].p_fail: "high" is not a number`},
		{[]string{"-scenario", write("c.yaml", "steps:\n  - {name: charge, p_fail: 1.5}\n")}, "c.yaml:2: steps[0].p_fail: 1.5 is not a probability in [0, 1]"},
		{[]string{"-scenario", write("d.yaml", steps+"queue:\n  ttl: -1s\n")}, "d.yaml:4: queue.ttl: -1s is negative"},
		{[]string{"-scenario", write("e.yaml", "steps: []\n")}, "e.yaml:1: steps: a scenario needs at least one step"},
		{[]string{"-scenario", write("f.yaml", steps+"watched: refund\n")}, `f.yaml:3: watched: no step is called "refund"`},
		{[]string{"-scenario", filepath.Join(dir, "missing.yaml")}, "-scenario open"},
		{[]string{"-store", "unique"}, `-store: unknown store "unique" (want one of none, after, loose, claim, lease)`},
		{[]string{"-ttl", "-1s"}, "-ttl: want a duration that is not negative"},
		{[]string{"-latency", "50ms:10ms"}, "-latency: want a duration (20ms) or a lognormal median:p99"},
		{[]string{"-crash", "2"}, "-crash: 2 is not a probability in [0, 1]"},
		{[]string{"-crash-at", "lunch"}, `-crash-at: unknown crash point "lunch"`},
		{[]string{"-backoff", "linear"}, `-backoff: unknown backoff "linear"`},
		{[]string{"-visibility", "0s"}, "-visibility: the visibility timeout must be longer than 0s"},
		{[]string{"-preset", "mysql"}, `-preset: unknown preset "mysql" (want sqlite-check)`},
		{[]string{"-store", "claim", "-expect"}, "-expect: the closed forms cover the Part 5 model"},
		{[]string{"-store", "claim", "-engine", "skip"}, "-engine: skip cannot run the delivery model"},
		{[]string{"-store", "claim", "-shard", "0/2"}, "-shard: merge rebuilds the built-in sign-up only"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := retrysim(t, append(tt.args, "-jobs", "100")...)
			if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line containing %q", code, out, errOut, tt.want)
			}
		})
	}
}
