package main

import (
	"encoding/json"
	"math"
	"testing"
)

// With 100 jobs at these rates no job repeats anything, so the sample has no
// spread; the z-score still exists, from the expectation's own variance, and
// says the run saw fewer repeats than expected. The extreme point
// prints probabilities that are probabilities.
func TestExpectJSON(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		check func(t *testing.T, row map[string]any)
	}{
		{[]string{"-jobs", "100", "-p-fail", "0.001", "-lost-reply", "0.01", "-strategies", "step-nokey"}, func(t *testing.T, row map[string]any) {
			z, ok := row["z_repeated_per_job"].(float64)
			if row["repeated_steps"] != 0.0 || !ok || z >= 0 {
				t.Errorf("repeated_steps %v, z_repeated_per_job %v; want 0 and a negative number", row["repeated_steps"], row["z_repeated_per_job"])
			}
		}},
		{[]string{"-jobs", "1000", "-p-fail", "0.999", "-lost-reply", "0.999", "-attempts", "10", "-strategies", "step-nokey,job-nokey"}, func(t *testing.T, row map[string]any) {
			for _, k := range []string{"expected_succeeded", "expected_failed_rate", "expected_duplicate_rate", "expected_repeated_per_job"} {
				if x, ok := row[k].(float64); !ok || x < 0 || math.IsNaN(x) || (k != "expected_repeated_per_job" && x > 1) {
					t.Errorf("%s %s = %v; want a number in [0, 1]", row["strategy"], k, row[k])
				}
			}
		}},
	} {
		out, errOut, code := retrysim(t, append(tt.args, "-format", "json", "-expect")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep struct{ Rows []map[string]any }
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, row := range rep.Rows {
			tt.check(t, row)
		}
	}
}
