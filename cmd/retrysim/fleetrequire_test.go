package main

import (
	"strings"
	"testing"
)

// TestFleetRequireExits holds the fleet family's -require to what a run's
// rows must say. sqs-visibility's heartbeat run extends the visibility
// timeout while a worker works, so no job is delivered twice: its
// duplicates are 0 on every replicate (an exact interval, which holds),
// while the run with no key redelivers jobs still running (an interval
// above 0, which fails). brooker-collapse's spike with backoff recovers in
// each of its 10 replicates, whose Wilson lower bound is n/(n+z^2) =
// 10/13.8415 = 0.72247: 'recovered_share_lo>=0.7224' holds and
// '>=0.7225' is undecided (a bound is judged on its figure's interval,
// [0.72247, 1]: more replicates could raise it), while the no-backoff
// spike fails 0.9 (its upper bound is under it). The output is written
// either way.
func TestFleetRequireExits(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		code      int
		stderr    string
		stdoutHas string
	}{
		{[]string{"workers", "-preset", "sqs-visibility", "-require", "heartbeat:duplicates<=0"}, 0, "", "heartbeat"},
		{[]string{"workers", "-preset", "sqs-visibility", "-require", "duplicates<=0"}, 3,
			"retrysim: requirement duplicates<=0 fails: duplicates of no_key is 123.7 [116.3, 131.1]\n", "no_key"},
		{[]string{"fleet", "-preset", "brooker-collapse", "-require", "spike_backoff_and_jitter:recovered_share_lo>=0.7224"}, 0, "", "spike_backoff_and_jitter"},
		{[]string{"fleet", "-preset", "brooker-collapse", "-require", "spike_backoff_and_jitter:recovered_share_lo>=0.7225"}, 3,
			"retrysim: requirement spike_backoff_and_jitter:recovered_share_lo>=0.7225 undecided: recovered_share_lo of spike_backoff_and_jitter is 0.7225 [0.7225, 1]\n", "spike_backoff_and_jitter"},
		{[]string{"fleet", "-preset", "brooker-collapse", "-require", "spike_no_backoff:recovered_share_lo>=0.9"}, 3,
			"retrysim: requirement spike_no_backoff:recovered_share_lo>=0.9 fails: recovered_share_lo of spike_no_backoff is ", "spike_no_backoff"},
		{[]string{"graph", "-preset", "retry-one-layer", "-replicates", "2", "-duration", "5s", "-require", "succeeded>=0", "-require", "succeeded<=1"}, 0, "", "Service"},
	} {
		stdout, stderr, code := retrysim(t, append(tt.args, "-workers", "1")...)
		if code != tt.code || !strings.HasPrefix(stderr, tt.stderr) || tt.stderr == "" && stderr != "" || !strings.Contains(stdout, tt.stdoutHas) {
			t.Errorf("retrysim %s: exit %d, stderr %q; want %d, stderr %q and the output", strings.Join(tt.args, " "), code, stderr, tt.code, tt.stderr)
		}
	}
}

// TestFleetRequireRefused: a metric a kind does not print, a run it does
// not make, a shard and a totals preset are refused before any work, with
// the valid choices.
func TestFleetRequireRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"workers", "-preset", "sqs-visibility", "-require", "drain<=60"}, `no metric "drain" (want one of replicates, jobs, jobs_lo, jobs_hi, completed`},
		{[]string{"workers", "-preset", "sqs-visibility", "-require", "keyless:duplicates<=0"}, `no row "keyless" (want one of no_key, lease, heartbeat)`},
		{[]string{"fleet", "-preset", "brooker-collapse", "-require", "recovered<=1"}, `no metric "recovered" (want one of replicates, requests,`},
		{[]string{"graph", "-preset", "retry-one-layer", "-require", "drain_seconds<=1"}, `no metric "drain_seconds" (want one of depth, replicates, requests`},
		{[]string{"fleet-map", "-require", "drain_seconds<=1"}, `no metric "drain_seconds" (want one of length_seconds, height, rate`},
		{[]string{"fleet-map", "-policies", "no_backoff,backoff_and_jitter", "-require", "retry:recovered_share_lo>=0.9"}, `no row "retry" (want one of no_backoff, backoff_and_jitter)`},
		{[]string{"workers", "-preset", "sqs-visibility", "-shard", "0/2", "-require", "duplicates<=0"}, "-require: -shard writes raw json for merge and judges nothing"},
		{[]string{"fleet", "-preset", "brooker-retries", "-require", "duplicates<=0"}, "-require: -preset brooker-retries prints totals"},
	} {
		_, stderr, code := retrysim(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("retrysim %s: exit %d, %q; want 2 and one line with %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
	}
}
