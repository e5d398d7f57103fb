package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequireExits holds -require to the closed form of a ten-step job that
// retries each step: it fails with probability 1-(1-0.05^a)^10, 1.25e-3 at
// 3 attempts and 6.25e-5 at 4, so 'failed_rate<=1e-4' fails at 3 and holds
// at 4 (at 4, a million jobs' upper bound passes 1e-4 only with 82 or more
// failures against the 62.5 expected: z = 2.5). The output is written
// either way.
func TestRequireExits(t *testing.T) {
	base := []string{"-p-fail", "0.05", "-lost-reply", "0", "-strategies", "step-samekey", "-require", "failed_rate<=1e-4", "-format", "csv"}
	out := filepath.Join(t.TempDir(), "out.csv")
	_, stderr, code := retrysim(t, append(base, "-o", out)...)
	if code != 3 || !strings.HasPrefix(stderr, "retrysim: requirement failed_rate<=0.0001 fails: failed_rate of step-samekey is 0.00") {
		t.Errorf("at 3 attempts: exit %d, stderr %q; want 3 and the requirement failing", code, stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "step-samekey") {
		t.Errorf("at 3 attempts the output was not written: %v", err)
	}
	stdout, stderr, code := retrysim(t, append(base, "-attempts", "4")...)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "step-samekey") {
		t.Errorf("at 4 attempts: exit %d, stderr %q; want 0, nothing on stderr and the output", code, stderr)
	}
}

func TestRequireRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-require", "failed_rate=>1"}, "OP one of <=, <, >=, >, =="},
		{[]string{"-require", "failed<=1"}, `no metric "failed" (want one of succeeded, failed_rate, calls_per_job`},
		{[]string{"-require", "deliveries_per_job<=1"}, `no metric "deliveries_per_job"`},
		{[]string{"-require", "step-x:failed_rate<=1"}, `no row "step-x" (want one of step-nokey, step-newkey`},
		{[]string{"sweep", "-attempts", "3,4", "-require", "failed<=1"}, `no metric "failed"`},
		{[]string{"sweep", "-shard", "0/2", "-require", "failed_rate<=1"}, "-require: a shard judges nothing"},
	} {
		_, stderr, code := retrysim(t, append(tt.args, "-jobs", "1000")...)
		if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("retrysim %s: exit %d, %q; want 2 and one line with %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
	}
}

// TestRequireSweep: a sweep judges every row, and names the point of the one
// that decides (3 attempts: 1.25e-3 against 1e-4).
func TestRequireSweep(t *testing.T) {
	_, stderr, code := retrysim(t, "sweep", "-p-fail", "0.05", "-lost-reply", "0", "-strategies", "step-samekey", "-attempts", "3,4", "-jobs", "1e5",
		"-require", "failed_rate<=1e-4", "-format", "csv")
	if code != 3 || !strings.Contains(stderr, "fails: failed_rate of step-samekey at attempts=3 is") {
		t.Errorf("exit %d, stderr %q; want 3 naming attempts=3", code, stderr)
	}
}
