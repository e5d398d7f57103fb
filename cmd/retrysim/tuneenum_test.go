package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestTuneEnumFleet: -search over an enum's names. brooker-collapse's
// spike never recovers with unlimited retries (the run as given) and
// recovers with Brooker's token bucket, the article's fix: the bucket is
// the answer and unlimited fails; a name the setting does not have is
// refused before any work, exit 2, with the names it has.
func TestTuneEnumFleet(t *testing.T) {
	got := runTuneJSON(t, 0, "fleet", "-preset", "brooker-collapse", "-search", "client.policy.kind=unlimited,token-bucket", "-search", "client.attempts=3",
		"-require", "spike_no_backoff:recovered_share_lo>=0.9", "-maximize", "client.attempts")
	if b := got.Best; b == nil || b.Settings["client.policy.kind"] != "token-bucket" {
		t.Errorf("best %v; want the token bucket", got.Best)
	}
	var kinds []string
	for _, c := range got.Candidates {
		kinds = append(kinds, fmt.Sprint(c.Settings["client.policy.kind"]))
		if c.Settings["client.policy.kind"] == "unlimited" && c.Status != "fails" {
			t.Errorf("unlimited retries: %s; want fails", c.Status)
		}
	}
	if strings.Join(kinds, ",") != "unlimited,token-bucket" {
		t.Errorf("candidates %v; want unlimited, token-bucket (unlimited being the preset's, on the grid)", kinds)
	}
	for _, arg := range []string{"client.policy.kind=unlimited,none", "client.backoff.kind=full-jitter,exponentail"} {
		_, stderr, code := retrysim(t, "tune", "fleet", "-preset", "brooker-collapse", "-search", arg, "-maximize", "client.attempts")
		path, _, _ := strings.Cut(arg, "=")
		want := map[string]string{"client.policy.kind": `unknown policy "none" (want one of unlimited, token-bucket, `,
			"client.backoff.kind": `unknown backoff "exponentail" (want one of none, constant, exponential, full-jitter, `}[path]
		if code != 2 || !strings.HasPrefix(stderr, "retrysim: -search: "+path+": "+want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("-search %s: exit %d, %q; want 2 and one line naming the valid choices", arg, code, stderr)
		}
	}
}

// TestTuneEnumTable: the table searches an enum the settings declare, the
// delivery model's key store. Workers die before writing a step's key 10%
// of the time, and the job is delivered again: with no store every step
// runs again, with one the finished steps are skipped, so a store makes
// fewer calls a job; the current store is the flags' (-store). A store
// that does not exist, a number for a store, and a store in the job model
// (no queue) are refused before any work, exit 2.
func TestTuneEnumTable(t *testing.T) {
	args := []string{"-model", "delivery", "-p-fail", "0.05", "-crash", "0.1", "-strategies", "step-samekey", "-search", "queue.store=none,claim",
		"-minimize", "calls_per_job", "-require", "duplicate_rate<=1e-3", "-budget", "1e6"}
	for _, given := range []string{"none", "claim"} {
		got := runTuneJSON(t, 0, append(args, "-store", given)...)
		if b := got.Best; b == nil || b.Settings["queue.store"] != "claim" {
			t.Errorf("-store %s: best %v; want claim", given, got.Best)
		}
		if len(got.Candidates) != 2 {
			t.Fatalf("-store %s: %d candidates; want 2, the current store on the grid", given, len(got.Candidates))
		}
		none, claim := got.Candidates[0], got.Candidates[1]
		if none.Settings["queue.store"] != "none" || none.Status != "beaten" || !(none.Objective.Value > claim.Objective.Value) {
			t.Errorf("-store %s: no store %+v beside claim %+v; want it beaten, with more calls a job", given, none, claim)
		}
	}
	stdout, _, _ := retrysim(t, append(append([]string{"tune"}, args...), "-store", "claim")...)
	if !strings.Contains(stdout, "The current settings, queue.store=claim: best") {
		t.Errorf("-store claim: the current settings are not claim's:\n%s", stdout)
	}
	for _, c := range []struct {
		search, model, want string
	}{
		{"queue.store=none,claimed", "delivery", `retrysim: -search: queue.store: unknown store "claimed" (want one of none, after, loose, claim, lease)`},
		{"queue.store=1,2", "delivery", `retrysim: -search: queue.store: unknown store "1" (want one of none, after, loose, claim, lease)`},
		{"queue.store=none,claim", "job", "retrysim: -search: queue.store: only the delivery model reads it, and the run is of the job model (no queue); add -model delivery"},
	} {
		_, stderr, code := retrysim(t, "tune", "-model", c.model, "-strategies", "step-samekey", "-search", c.search, "-minimize", "calls_per_job")
		if code != 2 || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("-model %s -search %s: exit %d, %q; want 2 and %q", c.model, c.search, code, stderr, c.want)
		}
	}
}

// TestTuneGraph: retrysim tune graph searches a graph's settings.
// aws-five-deep's 3_tries_each retries 3 times at each of its five layers,
// the last failing every call: with t tries at the entry a request makes
// t(1 + 3 + 9 + 27 + 81) = 121t calls in all, end to end (its first row),
// so the most tries whose amplification is at most 400 are 3 (363; 484 at 4).
func TestTuneGraph(t *testing.T) {
	want := 0
	for tries := 1; tries <= 6; tries++ {
		if 121*tries <= 400 {
			want = tries
		}
	}
	got := runTuneJSON(t, 0, "graph", "-preset", "aws-five-deep", "-duration", "10s", "-search", "graph.entries[0].client.attempts=1:6:6",
		"-maximize", "graph.entries[0].client.attempts", "-require", "3_tries_each:amplification<=400")
	if b := got.Best; b == nil || b.Settings["graph.entries[0].client.attempts"] != float64(want) {
		t.Errorf("best %v; want %d tries at the entry", got.Best, want)
	}
	for _, c := range got.Candidates {
		tries, ok := c.Settings["graph.entries[0].client.attempts"].(float64)
		if wantStatus := map[bool]string{true: "fails", false: "beaten"}[121*tries > 400]; ok && int(tries) != want && c.Status != wantStatus {
			t.Errorf("%v tries: %s; want %s (121t = %v)", tries, c.Status, wantStatus, 121*tries)
		}
	}
}
