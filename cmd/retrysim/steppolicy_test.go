package main

import (
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A step's own attempts, key mode and backoff are what that step used under
// every strategy, so the report says so: the title names each step that sets
// its own after the run's attempts, and json's step_params and csv's step
// columns carry the three fields, left out (empty) where the step keeps the
// run's. The expected texts are read off the two YAML files by hand, not
// from the program: examples/checkout.yaml gives the inventory and the CRM
// 5 attempts, the receipt 2, and the charge keys: same; the test file gives
// the charge 5 attempts, keys: same and a constant 50ms backoff (cap left to
// the default 2s), the receipt 1 attempt and keys: none.
func TestReportNamesEachStepsOwnPolicy(t *testing.T) {
	type policy struct {
		Attempts int    `json:"attempts"`
		KeyMode  string `json:"key_mode"`
		Backoff  string `json:"backoff"`
	}
	for _, tt := range []struct {
		name, file string
		title      string
		steps      []policy
	}{
		{"checkout", "../../examples/checkout.yaml",
			"1,000 checkouts, 5 steps from ../../examples/checkout.yaml, up to 3 attempts (reserve the inventory: 5 attempts; " +
				"charge the card: same key; send the receipt: 2 attempts; update the CRM: 5 attempts); pcg, seed 1, skip engine",
			[]policy{{Attempts: 5}, {KeyMode: "same"}, {}, {Attempts: 2}, {Attempts: 5}}},
		{"delivery model", "testdata/step-policy-queue.yaml",
			"1,000 checkouts, 4 steps from testdata/step-policy-queue.yaml, up to 3 attempts (charge the card: 5 attempts, same key, " +
				"backoff constant base 50ms; send the receipt: 1 attempt, no key); pcg, seed 1",
			[]policy{{}, {5, "same", "constant base 50ms"}, {1, "none", ""}, {}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"-scenario", tt.file, "-jobs", "1000", "-strategies", "step-nokey"}
			for _, format := range []string{"table", "markdown"} {
				out, errOut, code := retrysim(t, append(args, "-format", format, "-width", "0")...) // the title on one line
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				title, _, _ := strings.Cut(out, "\n")
				if format == "markdown" {
					title = strings.Trim(title, "*")
				}
				if title != tt.title {
					t.Errorf("-format %s title = %q; want %q", format, title, tt.title)
				}
			}

			out, errOut, code := retrysim(t, append(args, "-format", "json")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rep struct {
				Steps []map[string]any `json:"step_params"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			var got []policy
			for i, st := range rep.Steps {
				var p policy
				b, _ := json.Marshal(st)
				json.Unmarshal(b, &p)
				got = append(got, p)
				// Left out, not zero, where the step keeps the run's.
				for key, set := range map[string]bool{"attempts": p.Attempts != 0, "key_mode": p.KeyMode != "", "backoff": p.Backoff != ""} {
					if _, ok := st[key]; ok != set {
						t.Errorf("step_params[%d] has %s: %v; want %v", i, key, ok, set)
					}
				}
			}
			if !reflect.DeepEqual(got, tt.steps) {
				t.Errorf("step_params policies = %+v; want %+v", got, tt.steps)
			}

			out, errOut, code = retrysim(t, append(args, "-format", "csv")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			col := map[string]string{}
			for j, k := range lines[0] {
				col[k] = lines[1][j]
			}
			for i, p := range tt.steps {
				n := "step_" + string(rune('1'+i)) + "_"
				attempts := ""
				if p.Attempts != 0 {
					attempts = string(rune('0' + p.Attempts))
				}
				want := map[string]string{n + "attempts": attempts, n + "key_mode": p.KeyMode, n + "backoff": p.Backoff}
				for k, v := range want {
					if got, ok := col[k]; !ok || got != v {
						t.Errorf("csv %s = %q (present %v); want %q", k, got, ok, v)
					}
				}
			}
		})
	}
}
