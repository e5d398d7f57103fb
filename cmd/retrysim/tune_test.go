package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// tuneJSON is what the tests read of tune's json.
type tuneJSON struct {
	Best *struct {
		Settings map[string]any `json:"settings"`
	} `json:"best"`
	Candidates []struct {
		Settings  map[string]any          `json:"settings"`
		Status    string                  `json:"status"`
		Work      int64                   `json:"work"`
		Objective struct{ Value float64 } `json:"objective"`
	} `json:"candidates"`
	Work struct {
		Spent, Budget int64
	} `json:"work"`
}

func runTuneJSON(t *testing.T, wantCode int, args ...string) tuneJSON {
	t.Helper()
	stdout, stderr, code := retrysim(t, append(append([]string{"tune"}, args...), "-format", "json")...)
	if code != wantCode {
		t.Fatalf("retrysim tune %s: exit %d, stderr %q; want %d", strings.Join(args, " "), code, stderr, wantCode)
	}
	var got tuneJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	return got
}

// attemptsFail is the closed form of a ten-step job retrying each step with
// up to a attempts, each failing with probability p: 1-(1-p^a)^10.
func attemptsFail(p float64, a int) float64 { return 1 - math.Pow(1-math.Pow(p, float64(a)), 10) }

// TestTuneClosedForm: the fewest attempts whose failure rate is at most
// 1e-4 is 4 (1.25e-3 at 3, 6.25e-5 at 4), found from the closed form here;
// at 1e-9 no candidate is shown to meet it within 1e7 jobs: 1 to 5
// attempts (3.1e-6 and up) fail it, 6 and 7 (1.6e-7, 7.8e-9) would take
// past 2e7 jobs to, and 8 meets it (3.9e-10), so none whose closed form
// meets it may be said to fail it.
func TestTuneClosedForm(t *testing.T) {
	args := []string{"-p-fail", "0.05", "-lost-reply", "0", "-strategies", "step-samekey", "-search", "attempts=1:8:8", "-minimize", "attempts"}
	want := 0
	for a := 8; a >= 1; a-- {
		if attemptsFail(0.05, a) <= 1e-4 {
			want = a
		}
	}
	stdout, stderr, code := retrysim(t, append(append([]string{"tune"}, args...), "-require", "failed_rate<=1e-4")...)
	if first, _, _ := strings.Cut(stdout, "\n"); code != 0 || stderr != "" || first != fmt.Sprintf("Best: attempts=%d (minimize attempts), meeting every requirement:", want) {
		t.Errorf("exit %d, stderr %q, first line %q; want 0 and attempts=%d", code, stderr, first, want)
	}
	got := runTuneJSON(t, 0, append(args, "-require", "failed_rate<=1e-4")...)
	if got.Best == nil || fmt.Sprint(got.Best.Settings) != fmt.Sprintf("map[attempts:%d]", want) {
		t.Errorf("best = %+v; want settings attempts %d", got.Best, want)
	}
	for _, c := range got.Candidates {
		a := int(c.Settings["attempts"].(float64))
		wantStatus := map[bool]string{true: "fails", false: "beaten"}[attemptsFail(0.05, a) > 1e-4]
		if a == want {
			wantStatus = "best"
		}
		if c.Status != wantStatus {
			t.Errorf("attempts=%d: %s; want %s (closed form %.3g)", a, c.Status, wantStatus, attemptsFail(0.05, a))
		}
	}

	args = append(args, "-require", "failed_rate<=1e-9", "-budget", "1e7")
	_, stderr, code = retrysim(t, append([]string{"tune"}, args...)...)
	if code != 3 || stderr != "retrysim: tune: no candidate meets every requirement: failed_rate<=1e-9 ruled out 8 of the 8 candidates (fails at 5, undecided at 3 within the budget)\n" {
		t.Errorf("at 1e-9: exit %d, stderr %q; want 3 and every candidate ruled out", code, stderr)
	}
	got = runTuneJSON(t, 3, args...)
	if got.Best != nil || got.Work.Spent > 1e7 {
		t.Errorf("at 1e-9: best %+v, spent %d; want none, at most 1e7", got.Best, got.Work.Spent)
	}
	for _, c := range got.Candidates {
		if a := int(c.Settings["attempts"].(float64)); c.Status == "fails" && attemptsFail(0.05, a) <= 1e-9 {
			t.Errorf("attempts=%d fails 1e-9; its closed form %.3g meets it", a, attemptsFail(0.05, a))
		}
	}
}

// TestTuneTwoSettings: over the run's attempts and the first step's own,
// the fewest calls a job with a failure rate of at most 0.06, each call
// failing 20% of the time. A closed form here gives every candidate's
// failure rate and calls (a step reached with probability R makes
// R(1-p^a)/(1-p) calls) and so the optimum; the test checks first that no
// candidate's rate is within 0.005 of the bound and that the runner-up
// costs 0.05 calls more, so that the race can decide them.
func TestTuneTwoSettings(t *testing.T) {
	const p, bound = 0.2, 0.06
	type cand struct {
		a, a1        int
		calls, fails float64
	}
	var best, second *cand
	for a := 2; a <= 5; a++ {
		for a1 := 1; a1 <= 4; a1++ {
			c := &cand{a: a, a1: a1}
			reach := 1.0
			for i := range 10 {
				n := a
				if i == 0 {
					n = a1
				}
				ok := 1 - math.Pow(p, float64(n))
				c.calls += reach * ok / (1 - p)
				reach *= ok
			}
			c.fails = 1 - reach
			if math.Abs(c.fails-bound) < 0.005 {
				t.Fatalf("a=%d a1=%d fails %.4f, too near the bound", a, a1, c.fails)
			}
			switch {
			case c.fails > bound:
			case best == nil || c.calls < best.calls:
				best, second = c, best
			case second == nil || c.calls < second.calls:
				second = c
			}
		}
	}
	if second.calls-best.calls < 0.05 {
		t.Fatalf("the runner-up is %.4f calls dearer; too near", second.calls-best.calls)
	}
	args := []string{"-p-fail", "0.2", "-lost-reply", "0", "-strategies", "step-samekey", "-search", "attempts=2:5:4",
		"-search", "steps[save the user].attempts=1:4:4", "-minimize", "calls_per_job", "-require", "failed_rate<=0.06"}
	got := runTuneJSON(t, 0, args...)
	want := fmt.Sprintf("map[attempts:%d steps[save the user].attempts:%d]", best.a, best.a1)
	if got.Best == nil || fmt.Sprint(got.Best.Settings) != want {
		t.Errorf("best = %+v; want %s", got.Best, want)
	}
	// The same bytes whatever the workers.
	one, _, _ := retrysim(t, append(append([]string{"tune"}, args...), "-workers", "1", "-format", "csv")...)
	three, _, _ := retrysim(t, append(append([]string{"tune"}, args...), "-workers", "3", "-format", "csv")...)
	if one != three || strings.Count(one, "\n") != 4*4+1+1 {
		t.Errorf("csv on 1 worker:\n%s\non 3:\n%s\nwant the same, a row a candidate (the current one too) and a header", one, three)
	}
}

// TestTuneRefused: what a search cannot run is refused before any work,
// with exit 2 and the valid choices.
func TestTuneRefused(t *testing.T) {
	base := []string{"tune", "-require", "failed_rate<=1e-3"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-minimize", "attempts", "-search", "nope=1,2"}, `-search: unknown setting "nope" (want p_fail, lost_reply, attempts, steps[STEP].FIELD or queue.FIELD)`},
		{[]string{"-minimize", "attempts", "-search", "steps[save the user].nope=1,2"}, `a step has no numeric field "nope" (want attempts, latency, lost_reply, p_fail)`},
		{[]string{"-minimize", "attempts", "-search", "steps[nope].p_fail=0.1"}, `no step is called "nope" (the steps are "save the user"`},
		{[]string{"-minimize", "attempts", "-search", "attempts=0:3:4"}, "attempts: 0 is not a whole number from 1 to 1000"},
		{[]string{"-minimize", "attempts", "-search", "queue.ttl=1h"}, "queue.ttl"},
		{[]string{"-minimize", "attempts", "-search", "attempts=1,2", "-attempts", "3"}, "-search: attempts: the settings give it a value too"},
		{[]string{"-minimize", "attempts", "-search", "attempts=1,2", "-require", "failed<=1"}, `no metric "failed" (want one of succeeded, failed_rate, calls_per_job, repeated_per_job, duplicate_rate`},
		{[]string{"-minimize", "attempts", "-search", "attempts=1,2", "-require", "failed_rate=<1"}, "OP one of <=, <, >=, >, =="},
		{[]string{"-minimize", "attempts", "-search", "attempts=1,2", "-maximize", "calls"}, `-minimize, -maximize: give one of the two`},
		{[]string{"-search", "p_fail=0.1,0.2", "-maximize", "calls"}, `"calls" is neither a searched setting (p_fail) nor a metric (succeeded, failed_rate`},
		{[]string{"-search", "attempts=1,2", "-strategies", "step-nokey,step-samekey", "-minimize", "calls_per_job"}, "name one as ROW:calls_per_job (rows step-nokey, step-samekey)"},
		{[]string{"-minimize", "attempts", "-search", "attempts=1,2", "-budget", "1000"}, "-budget: 1,000 is less than a first batch of 10,000 jobs for each of the 3 candidates (30,000)"},
		{[]string{"-model", "delivery", "-minimize", "attempts", "-search", "attempts=1,2", "-budget", "1e12"}, "-budget: a batch may run up to 1,000,000,000,000 jobs: "},
		{[]string{"-minimize", "attempts", "-search", "attempts=1,2", "-jobs", "1000"}, "-jobs: retrysim tune decides the work"},
		{[]string{"-minimize", "attempts"}, "-search: none given"},
	} {
		_, stderr, code := retrysim(t, slices.Concat(base, tt.args)...)
		if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("retrysim %s: exit %d, %q; want 2 and one line with %q", strings.Join(append(base, tt.args...), " "), code, stderr, tt.want)
		}
	}
}

// TestTuneCurrentOffGrid: the current settings (the default TTL, 24h) are
// run and shown, but the answer is a point of the grid, written as a
// scenario file writes a duration.
func TestTuneCurrentOffGrid(t *testing.T) {
	got := runTuneJSON(t, 0, "-model", "delivery", "-search", "queue.ttl=1h,2h", "-maximize", "queue.ttl", "-require", "duplicate_rate<=1")
	if got.Best == nil || fmt.Sprint(got.Best.Settings) != "map[queue.ttl:2h]" || len(got.Candidates) != 3 || got.Candidates[2].Settings["queue.ttl"] != "24h" {
		t.Errorf("best %+v, candidates %+v; want 2h, and 24h run as the current settings", got.Best, got.Candidates)
	}
}
