package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A run of a scenario file, with the delivery model or without, a flag set
// over the file, sharded and merged, prints what the single run prints, byte
// for byte, in every format: the shard files carry the scenario and the
// queue, and merge rebuilds the run from them; with -expect too, where the
// model has closed forms, which need every step's own policy (the checkout's
// attempts and keys). 150,000 jobs are three blocks, so each of the three
// shards holds one.
func TestShardedScenarioFilesMergeToTheSingleRun(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		args   []string
		expect bool
	}{
		{"queue", []string{"-scenario", "../../examples/signup-queue.yaml", "-jobs", "150000", "-strategies", "step-samekey,job-samekey-skip"}, false},
		{"checkout", []string{"-scenario", "../../examples/checkout.yaml", "-jobs", "150000", "-p-fail", "0.05"}, true},
		{"step backoff, delivery", []string{"-scenario", "testdata/step-policy-queue.yaml", "-jobs", "60000", "-strategies", "step-nokey,job-samekey"}, false},
		{"latency flag", []string{"-model", "delivery", "-jobs", "150000", "-latency", "20ms:200ms", "-store", "claim", "-strategies", "step-nokey"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var files []string
			for i := range 3 {
				out := filepath.Join(dir, fmt.Sprintf("%s-%d.json", strings.ReplaceAll(tt.name, " ", "-"), i))
				args := append(append([]string(nil), tt.args...), "-shard", fmt.Sprintf("%d/3", i), "-o", out)
				if _, errOut, code := retrysim(t, args...); code != 0 {
					t.Fatalf("-shard %d/3: exit %d: %s", i, code, errOut)
				}
				files = append(files, out)
			}
			outputs := [][]string{{"-format", "table"}, {"-format", "csv"}, {"-format", "json"}}
			if tt.expect {
				outputs = append(outputs, []string{"-format", "csv", "-expect"}, []string{"-ci", "-expect"})
			}
			for _, flags := range outputs {
				format := strings.Join(flags, " ")
				single, errOut, code := retrysim(t, append(append([]string(nil), tt.args...), flags...)...)
				if code != 0 {
					t.Fatalf("single run: exit %d: %s", code, errOut)
				}
				merged, errOut, code := retrysim(t, append(append([]string{"merge"}, files...), flags...)...)
				if code != 0 {
					t.Fatalf("merge: exit %d: %s", code, errOut)
				}
				if merged != single {
					t.Errorf("%s: merged shards print\n%s\nwant the single run's\n%s", format, merged, single)
				}
			}
		})
	}
}

// Merge refuses shards whose models differ, and a shard whose parameters are
// not its model's, naming the file.
func TestMergeRefusesShardsOfAnotherModel(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("s-%d.json", i))
		if _, errOut, code := retrysim(t, "-scenario", "../../examples/checkout.yaml", "-jobs", "100000", "-strategies", "step-nokey", "-shard", fmt.Sprintf("%d/2", i), "-o", out); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		files = append(files, out)
	}
	for _, tt := range []struct {
		name  string
		files []string
		want  string
	}{
		{"another label", []string{files[0], editShard(t, files[1], map[string]any{"model.watched.1.label": "Receipts"})},
			"are shards of different runs: their models (scenario steps, watched steps or queue) differ"},
		{"params not the model's", []string{editShard(t, files[0], map[string]any{"model.steps.0.p_fail": 0.5}), editShard(t, files[1], map[string]any{"model.steps.0.p_fail": 0.5})},
			"the parameters are not the model's: step_params[0].p_fail is 0.5 in one and 0.01 in the other"},
		{"a queue without delivery", []string{editShard(t, files[0], map[string]any{"model.queue": map[string]any{"store": "claim", "max_deliveries": 10}}), files[1]},
			"delivery, model.queue: a run of the delivery model carries both"},
		{"no model for a file", []string{editShard(t, files[0], map[string]any{"model": nil}), files[1]},
			"model: missing; a run of a scenario file carries its model"},
		{"not watched", []string{editShard(t, files[0], map[string]any{"model.watched": []any{}}), files[1]},
			"model.watched: no step is watched"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := retrysim(t, append([]string{"merge"}, tt.files...)...)
			if code != 2 || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, %q; want 2 and one line containing %q", code, errOut, tt.want)
			}
		})
	}
}

// A shard carries each step's own policy (attempts, keys, backoff), and
// merge refuses one whose policy was edited, naming the file and the field,
// with the scenario reader's own messages.
func TestMergeRefusesAnEditedStepPolicy(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("p-%d.json", i))
		if _, errOut, code := retrysim(t, "-scenario", "testdata/step-policy-queue.yaml", "-jobs", "20000", "-strategies", "step-nokey", "-shard", fmt.Sprintf("%d/2", i), "-o", out); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		files = append(files, out)
	}
	both := func(edit map[string]any) []string {
		return []string{editShard(t, files[0], edit), editShard(t, files[1], edit)}
	}
	for _, tt := range []struct {
		name  string
		files []string
		want  string
	}{
		{"attempts out of range", both(map[string]any{"model.steps.1.attempts": 1001}),
			": model.steps[1].attempts: 1001 is not a whole number from 1 to 1000"},
		{"attempts negative", both(map[string]any{"model.steps.2.attempts": -1}),
			": model.steps[2].attempts: -1 is not a whole number from 1 to 1000"},
		{"unknown key mode", both(map[string]any{"model.steps.1.keys": "sometimes"}),
			`: model.steps[1].keys: unknown key mode "sometimes" (want one of none, fresh, same)`},
		{"unknown backoff", both(map[string]any{"model.steps.1.backoff.policy": "later"}),
			`: model.steps[1].backoff.policy: unknown backoff "later"`},
		{"negative backoff", both(map[string]any{"model.steps.1.backoff.base_ns": -1}),
			": model.steps[1].backoff.base: -1ns is negative"},
		{"one shard's attempts", []string{files[0], editShard(t, files[1], map[string]any{"model.steps.1.attempts": 4})},
			"are shards of different runs: their models (scenario steps, watched steps or queue) differ"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := retrysim(t, append([]string{"merge"}, tt.files...)...)
			if code != 2 || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, filepath.Base(tt.files[0])) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, %q; want 2 and one line naming the file and containing %q", code, errOut, tt.want)
			}
		})
	}
}
