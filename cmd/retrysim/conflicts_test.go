package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A flag that the run would not read is refused with exit 2, naming it:
// every flag a preset does not take, and every delivery-model flag that the
// model as configured never reads. No setting is dropped silently.
func TestIgnoredFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	noLossy := filepath.Join(dir, "charge.yaml")
	os.WriteFile(noLossy, []byte("steps:\n  - {name: charge, p_fail: 0.1}\nwatched: charge\n"), 0o644)
	preset := "-preset sqlite-check runs its own fixed cases"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-preset", "sqlite-check", "-strategies", "step-nokey"}, "-strategies: " + preset},
		{[]string{"-preset", "sqlite-check", "-shard", "0/2"}, "-shard: " + preset},
		{[]string{"-preset", "sqlite-check", "-replicates", "3"}, "-replicates: " + preset},
		{[]string{"-preset", "sqlite-check", "-expect"}, "-expect: " + preset},
		{[]string{"-preset", "sqlite-check", "-ci"}, "-ci: " + preset},
		{[]string{"-preset", "sqlite-check", "-store", "lease"}, "-store: " + preset},
		{[]string{"-preset", "sqlite-check", "-latency", "20ms"}, "-latency: " + preset},
		{[]string{"-preset", "sqlite-check", "-p-fail", "0.1"}, "-p-fail: " + preset},
		{[]string{"-preset", "sqlite-check", "-lost-reply", "0.1"}, "-lost-reply: " + preset},
		{[]string{"-preset", "sqlite-check", "-scenario", noLossy}, "-scenario: " + preset},
		{[]string{"-preset", "sqlite-check", "-crash", "0.5"}, "-crash: " + preset},
		{[]string{"-repeat", "0.5", "-repeat-delay", "0s:1s"}, "-repeat-delay: a p99 (1s) needs a median above 0"},
		{[]string{"-latency", "0s:1s"}, "-latency: a p99 (1s) needs a median above 0"},
		{[]string{"-model", "delivery", "-repeat-delay", "2s"}, "-repeat-delay: no request is sent twice"},
		{[]string{"-model", "delivery", "-store", "claim", "-lease", "1s"}, "-lease: only the lease store takes a lease; the store is claim"},
		{[]string{"-model", "delivery", "-ttl", "1h", "-strategies", "step-nokey,job-samekey"}, "-ttl: no key is written"},
		{[]string{"-model", "delivery", "-crash-at", "after-key"}, "-crash-at: no worker crashes"},
		{[]string{"-model", "delivery", "-max-crashes", "1"}, "-max-crashes: no worker crashes"},
		{[]string{"-model", "delivery", "-backoff", "none", "-backoff-base", "1s"}, "-backoff-base: the backoff policy none never waits"},
		{[]string{"-model", "delivery", "-backoff", "constant", "-backoff-cap", "1s"}, "-backoff-cap: the constant backoff waits its base, with no cap"},
		{[]string{"-model", "delivery", "-backoff", "river", "-backoff-base", "1s"}, "-backoff-base: the river schedule sets its own waits, in seconds by attempt"},
		{[]string{"-model", "delivery", "-attempts", "1", "-backoff", "exponential"}, "-backoff: with attempts 1 no call is retried"},
		{[]string{"-scenario", noLossy, "-lost-reply", "0.1"}, "-lost-reply: no step of the scenario can lose its reply"},
		{[]string{"sweep", "-metric", "succeeded", "-format", "csv"}, "-metric: csv carries every metric"},
		{[]string{"sweep", "-metric", "succeeded", "-format", "json"}, "-metric: json carries every metric"},
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

// The same flags are honoured where the run reads them.
func TestReadFlagsAccepted(t *testing.T) {
	tests := [][]string{
		{"-preset", "sqlite-check", "-engine", "plain", "-attempts", "2", "-seed", "3", "-workers", "1", "-format", "csv"},
		{"-model", "delivery", "-repeat", "0.5", "-repeat-delay", "1s:2s"},
		{"-model", "delivery", "-store", "lease", "-lease", "1s"},
		{"-model", "delivery", "-ttl", "1h", "-strategies", "job-samekey-skip"},
		{"-model", "delivery", "-ttl", "1h", "-store", "claim", "-strategies", "step-nokey"},
		{"-model", "delivery", "-crash", "0.1", "-crash-at", "after-key", "-max-crashes", "1"},
		{"-model", "delivery", "-backoff", "constant", "-backoff-base", "1s"},
		{"-model", "delivery", "-backoff", "exponential", "-backoff-base", "1s", "-backoff-cap", "5s"},
		{"sweep", "-metric", "succeeded"},
		{"sweep", "-metric", "succeeded", "-format", "markdown"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if _, errOut, code := retrysim(t, append(args, "-jobs", "100")...); code != 0 {
				t.Errorf("exit %d: %s", code, errOut)
			}
		})
	}
}

// SIGTERM stops a run as an interrupt does: one line, exit 1, no output file
// and no temporary file left. The test holds SIGTERM itself first, so the
// signal never reaches the default action (which would end the test binary),
// and sends it until run, whose own handler cancels the run, returns.
func TestSIGTERMWritesNothing(t *testing.T) {
	held := make(chan os.Signal, 1)
	signal.Notify(held, syscall.SIGTERM)
	defer signal.Stop(held)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result)
	go func() {
		// 10^12 jobs through the plain engine take hours: only the signal ends it.
		out, errOut, code := retrysim(t, "-jobs", "1e12", "-engine", "plain", "-workers", "1", "-o", path)
		done <- result{out, errOut, code}
	}()
	var r result
	for ended := false; !ended; {
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		select {
		case r = <-done:
			ended = true
		case <-held:
		}
	}
	// One signal is still on its way: let it arrive before signal.Stop
	// gives SIGTERM back its default action.
	<-held
	if r.code != 1 || r.out != "" || r.errOut != "retrysim: interrupted; nothing was written\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, and the interrupt line", r.code, r.out, r.errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d files in the output directory; want none", len(entries))
	}
}
