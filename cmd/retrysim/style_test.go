package main

import (
	"strings"
	"testing"
)

// TestPeopleStyle is issue 23 item 6, one style for what people read:
// durations as people write them (-help said "default 24h0m0s"), counted
// nouns in the right number ("1 replicates"), and "±" nowhere (it was a
// standard deviation with -replicates and half a 95% interval in fleet):
// every interval is [lo, hi], and the output says what it is.
func TestPeopleStyle(t *testing.T) {
	for cmd := range commands {
		out, _, _ := retrysim(t, cmd, "-help")
		if strings.Contains(out, "0m0s") {
			t.Errorf("retrysim %s -help writes a duration with zero units (0m0s)", cmd)
		}
	}
	help, _, _ := retrysim(t, "-help")
	help = unwrapHelp(help)
	if !strings.Contains(help, "(default 24h)") {
		t.Error("retrysim -help does not give -ttl's default as 24h")
	}

	out, errOut, code := retrysim(t, "-jobs", "1", "-strategies", "step-nokey")
	if code != 0 || !strings.HasPrefix(out, "1 sign-up, 10 steps, ") {
		t.Errorf("-jobs 1: exit %d (%s), title %q; want it to start \"1 sign-up, 10 steps, \"", code, errOut, strings.SplitN(out, "\n", 2)[0])
	}
	out, _, _ = retrysim(t, "-preset", "sqlite-check", "-jobs", "1", "-attempts", "1")
	if !strings.Contains(out, "forced: 1 job a case, one step (a charge), up to 1 attempt;") {
		t.Errorf("-preset sqlite-check -jobs 1 -attempts 1: title %q; want 1 job, 1 attempt", strings.SplitN(out, "\n", 2)[0])
	}

	for _, tc := range []struct {
		args []string
		says string // what the output says its intervals are
	}{
		{[]string{"-jobs", "2000", "-replicates", "2", "-ci", "-expect", "-strategies", "step-nokey"}, "[lo, hi]: 95% intervals"},
		{[]string{"-jobs", "2000", "-replicates", "2", "-strategies", "step-nokey"}, "mean of 2 replicates [95% t interval]"},
		{[]string{"-jobs", "2000", "-replicates", "2", "-ci", "-strategies", "step-nokey", "-format", "markdown"}, "[lo, hi]: 95% intervals"},
		{[]string{"-jobs", "2000", "-replicates", "2", "-ci", "-expect", "-strategies", "step-nokey", "-format", "html"}, "95% interval [low, high] (-ci)"},
		{[]string{"fleet", "-replicates", "2", "-duration", "20s", "-shape", "spike", "-from", "5s", "-to", "8s"}, "([lo, hi]: 95% intervals over them)"},
		{[]string{"fleet", "-replicates", "2", "-duration", "20s", "-format", "html"}, "95% Student t interval [low, high]"},
		{[]string{"fleet", "-preset", "brooker-retries", "-replicates", "2", "-duration", "2s", "-format", "html"}, "95% Student t interval [low, high]"},
	} {
		// -width 0: a title wrapped at 100 columns may break the phrase.
		out, errOut, code := retrysim(t, append(tc.args, "-width", "0")...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", tc.args, code, errOut)
			continue
		}
		if strings.Contains(out, "±") || !strings.Contains(out, tc.says) {
			t.Errorf("%q: the output has ± (%v) or does not say %q", tc.args, strings.Contains(out, "±"), tc.says)
		}
	}
}
