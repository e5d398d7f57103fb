package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The runs issue 21 found to take tens of gigabytes or a CPU-year, though
// every limit said yes, are refused before any work: exit 2, one line that
// names the setting to change, and no output written.
func TestFleetCostRefused(t *testing.T) {
	indep := []string{"-server", "independent", "-base", "10ms", "-net", "0s"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// 24 h timeouts at 100,000 a second for 100 s reached 2.2 GB.
		{append(indep, "-timeout", "24h", "-rate", "100000", "-duration", "100s", "-replicates", "1", "-workers", "1"),
			"-timeout: 24h x 3 attempts at up to 100000 requests a second keeps up to 1e+07 requests in flight"},
		// The default server at 27,000 a second for an hour passed 4 GB in a minute.
		{[]string{"-rate", "27000", "-duration", "1h", "-replicates", "1"}, "-slope: "},
		// A fleet-wide sre-throttle with a day's window keeps every attempt.
		{append(indep, "-policy", "sre-throttle", "-policy-scope", "fleet", "-sre-window", "24h", "-rate", "100000",
			"-duration", "1000s", "-replicates", "1", "-workers", "1"), "-sre-window: "},
		// 100 attempts x 16 copies failing: 1,600 calls a request.
		{append(indep, "-attempts", "100", "-hedges", "15", "-hedge-delay", "10ms", "-p-fail", "1", "-rate", "1000", "-duration", "1000s"),
			"-attempts: up to 100 attempts x 16 copies (1 + -hedges) a request"},
		// A preset's series and events over 100 replicates of an hour.
		{[]string{"-preset", "retry-policies", "-duration", "1h", "-replicates", "100"}, "-replicates: 170 runs x 100 replicates"},
	} {
		out := filepath.Join(t.TempDir(), "out.txt")
		_, errOut, code := retrysim(t, append(append([]string{"fleet"}, tc.args...), "-o", out)...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "retrysim: "+tc.want) {
			t.Errorf("fleet %v: exit %d, stderr %q; want 2 and one line starting %q", tc.args, code, errOut, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("fleet %v: -o written (%v)", tc.args, err)
		}
	}
}
