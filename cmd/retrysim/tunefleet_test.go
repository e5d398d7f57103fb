package main

import (
	"math"
	"strings"
	"testing"
)

// TestTuneWorkersFluid: in examples/workers-drain.yaml (B = 600 jobs
// waiting, lambda = 10 jobs a second, mu = 10 a second a worker), the
// fewest workers whose drain is at most 13 s is the fluid formula's,
// B/(mu W - lambda) = 60/(W-1) s, within a tolerance of 1 s (the drain is
// counted in whole seconds, and the backlog is Poisson: 600 +- 25 jobs):
// the least W
// with 60/(W-1) <= 13 - 1 is 6 (12 s), and W = 5's 15 s is past 13 + 1,
// so the answer is decided outside the tolerance. The workers' path is
// the one Workers.Set declares for them.
func TestTuneWorkersFluid(t *testing.T) {
	const lambda, mu, b, bound, tol = 10.0, 10.0, 600.0, 13.0, 1.0
	want := 0
	for w := 12; w >= 2; w-- {
		if b/(mu*float64(w)-lambda) <= bound-tol {
			want = w
		}
	}
	if want < 3 || b/(mu*float64(want-1)-lambda) <= bound+tol {
		t.Fatalf("the case is not decided outside the tolerance: W = %d", want)
	}
	file := "../../examples/workers-drain.yaml" // lambda 10/s, mu 10/s a worker, stalled 60 s: B = 600
	path := "graph.services[workers].server.capacity"
	got := runTuneJSON(t, 0, "workers", "-scenario", file, "-workers", "1", "-search", path+"=2:12:11", "-minimize", path, "-require", "drain_seconds<=13")
	if got.Best == nil || got.Best.Settings[path] != float64(want) {
		t.Errorf("best %v; want %s=%d, the fluid formula's", got.Best, path, want)
	}
}

// TestTuneSQSVisibility: sqs-visibility's payments stall every call for 100
// s, so without a heartbeat a visibility timeout under 100 s lets a job
// still waiting on its charge be received again (duplicates), and one past
// 100 s + the charge's 200 ms does not; with the heartbeat the worker
// extends it as it works, whatever its length. The shortest timeout with
// no duplicate is then any with the heartbeat, and 110 s, the first past
// the stall, without; and every candidate with no duplicate delivers each
// job once, the least deliveries there are, where the preset's own no_key
// run (30 s, no heartbeat) fails.
func TestTuneSQSVisibility(t *testing.T) {
	beat, vis := "graph.entries[0].heartbeat", "graph.entries[0].client.timeout"
	base := []string{"workers", "-preset", "sqs-visibility", "-workers", "1", "-search", vis + "=30s,60s,90s,110s,120s", "-require", "no_key:duplicates<=0"}
	got := runTuneJSON(t, 0, append(base, "-search", beat+"=false,true", "-minimize", "no_key:deliveries")...)
	var deliveries []float64
	for _, c := range got.Candidates {
		secs := map[string]float64{"30s": 30, "1m": 60, "1m30s": 90, "1m50s": 110, "2m": 120, "as given": math.NaN()}[c.Settings[vis].(string)]
		noDuplicates := c.Settings[beat] == "true" || secs > 100.2
		switch {
		case c.Settings[beat] == "as given":
			if c.Status != "fails" {
				t.Errorf("the preset's own settings: %s; want fails", c.Status)
			}
		case noDuplicates == (c.Status == "fails"):
			t.Errorf("heartbeat %v, visibility %v: %s; want it to fail exactly when the visibility is under the stall without a heartbeat", c.Settings[beat], c.Settings[vis], c.Status)
		case noDuplicates:
			deliveries = append(deliveries, c.Objective.Value)
		}
	}
	for _, d := range deliveries {
		if d != deliveries[0] {
			t.Errorf("deliveries %v; want the same at every candidate with no duplicates (each job once, on the same seeds)", deliveries)
			break
		}
	}
	got = runTuneJSON(t, 0, append(base, "-minimize", vis, "-search", beat+"=false")...)
	if got.Best == nil || got.Best.Settings[vis] != "1m50s" {
		t.Errorf("without a heartbeat, best %v; want %s=1m50s", got.Best, vis)
	}
}

// TestTuneFleetBrooker: on brooker-collapse's spike, a search over the
// backoff (its kind and base) and the attempts finds settings whose
// recovered share's lower bound is at least 0.9 (Wilson: 35 replicates of
// 35 recovered at least, 35/(35+1.96^2) = 0.9011), with full jitter from
// 20 s; and it reports the run as given, no backoff, as failing it.
func TestTuneFleetBrooker(t *testing.T) {
	got := runTuneJSON(t, 0, "fleet", "-preset", "brooker-collapse", "-search", "client.backoff.kind=none,full-jitter", "-search", "client.backoff.base=0s,20s",
		"-search", "client.attempts=2,3", "-require", "spike_no_backoff:recovered_share_lo>=0.9", "-maximize", "client.attempts")
	if b := got.Best; b == nil || b.Settings["client.backoff.kind"] != "full-jitter" || b.Settings["client.backoff.base"] != "20s" || b.Settings["client.attempts"] != 3.0 {
		t.Errorf("best %v; want full-jitter from 20s at 3 attempts", got.Best)
	}
	for _, c := range got.Candidates {
		if c.Settings["client.backoff.kind"] == "as given" && c.Status != "fails" {
			t.Errorf("the no-backoff run as given: %s; want fails", c.Status)
		}
		if c.Status != "fails" && c.Work < 35 {
			t.Errorf("%v meets the requirement on %d replicates; a lower bound of 0.9 takes 35", c.Settings, c.Work)
		}
	}
	_, stderr, code := retrysim(t, "tune", "fleet", "-preset", "brooker-collapse", "-search", "client.backof=1", "-maximize", "client.attempts")
	if code != 2 || !strings.Contains(stderr, "no setting of a fleet run has this path (want one of load.kind, load.rate") {
		t.Errorf("an unknown path: exit %d, %q; want 2 and the valid paths", code, stderr)
	}
	for _, values := range []string{"", ",", " , "} {
		_, stderr, code := retrysim(t, "tune", "fleet", "-preset", "brooker-collapse", "-search", "client.attempts="+values, "-maximize", "client.attempts")
		if want := "retrysim: -search: client.attempts: "; code != 2 || !strings.HasPrefix(stderr, want) || strings.Contains(stderr, "panic") {
			t.Errorf("-search client.attempts=%q: exit %d, %q; want 2 and %q", values, code, stderr, want)
		}
	}
}
