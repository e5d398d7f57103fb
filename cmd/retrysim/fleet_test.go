package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fleetJSON is the part of `fleet -format json` the tests read.
type fleetJSON struct {
	Rows []struct {
		Run             string   `json:"run"`
		Requests        float64  `json:"requests"`
		Succeeded       float64  `json:"succeeded"`
		Goodput         float64  `json:"goodput"`
		Amplification   float64  `json:"amplification"`
		Timeouts        float64  `json:"timeouts"`
		Duplicates      float64  `json:"duplicates"`
		RecoverySeconds *float64 `json:"recovery_seconds"`
		Recovered       int      `json:"recovered_replicates"`
	} `json:"rows"`
	Series []struct {
		Run        string  `json:"run"`
		T          int     `json:"t"`
		Starts     float64 `json:"starts"`
		Successes  float64 `json:"successes"`
		Retries    float64 `json:"retries"`
		Timeouts   float64 `json:"timeouts"`
		InProgress float64 `json:"in_progress"`
	} `json:"series"`
}

// The collapse preset shows what Brooker's simulation shows. After the spike
// (t = 20 to 25 s), in the last 20 s of the run: without backoff, successes
// stay well under the 40 requests a second offered while retries and
// timeouts stay high; with backoff and jitter, goodput is back within 10% of
// the offered load within 15 s. The run is seeded, so the test cannot fail
// by chance; the margins are wide (0.25 against a measured share near 0.1,
// and 15 s against about 0), so a change of seed would not flip it either.
func TestFleetCollapsePreset(t *testing.T) {
	out, errOut, code := retrysim(t, "fleet", "-preset", "brooker-collapse", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got fleetJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := []string{"ramp_no_backoff", "ramp_backoff_and_jitter", "spike_no_backoff", "spike_backoff_and_jitter"}
	if len(got.Rows) != len(want) {
		t.Fatalf("%d rows; want %d", len(got.Rows), len(want))
	}
	for i, w := range want {
		if got.Rows[i].Run != w {
			t.Errorf("row %d: run %q; want %q", i, got.Rows[i].Run, w)
		}
	}
	if n := len(got.Series); n != 4*80 {
		t.Fatalf("%d series points; want 4 runs x 80 s", n)
	}
	tail := func(run string) (starts, successes, retries, timeouts float64) {
		for _, p := range got.Series {
			if p.Run == run && p.T >= 60 {
				starts += p.Starts / 20
				successes += p.Successes / 20
				retries += p.Retries / 20
				timeouts += p.Timeouts / 20
			}
		}
		return
	}
	st, su, re, to := tail("spike_no_backoff")
	if su > 0.25*st || re < st || to < st {
		t.Errorf("spike_no_backoff, t >= 60 s: %.1f successes, %.1f retries, %.1f timeouts a second for %.1f new requests; want collapsed: successes under a quarter, retries and timeouts above",
			su, re, to, st)
	}
	if r := got.Rows[2].RecoverySeconds; r != nil {
		t.Errorf("spike_no_backoff: recovery_seconds = %g; want null (never)", *r)
	}
	st, su, _, _ = tail("spike_backoff_and_jitter")
	if su < 0.9*st {
		t.Errorf("spike_backoff_and_jitter, t >= 60 s: %.1f successes a second for %.1f new requests; want at least 90%%", su, st)
	}
	if r := got.Rows[3]; r.RecoverySeconds == nil || *r.RecoverySeconds > 15 || r.Recovered != 10 {
		t.Errorf("spike_backoff_and_jitter: recovery_seconds %v in %d of 10 replicates; want at most 15 s in all", r.RecoverySeconds, r.Recovered)
	}
}

// Same flags, same bytes, whatever -workers; the -series file holds the json's series.
func TestFleetDeterministic(t *testing.T) {
	dir := t.TempDir()
	args := []string{"fleet", "-preset", "brooker-collapse", "-duration", "40s", "-replicates", "3", "-format", "json"}
	one, _, _ := retrysim(t, append(args, "-workers", "1", "-series", filepath.Join(dir, "s.json"))...)
	four, _, _ := retrysim(t, append(args, "-workers", "4")...)
	if one != four {
		t.Errorf("-workers 1 and -workers 4 print different bytes")
	}
	var whole fleetJSON
	if err := json.Unmarshal([]byte(one), &whole); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	var series []json.RawMessage
	if err := json.Unmarshal(data, &series); err != nil || len(series) != len(whole.Series) || len(series) != 4*40 {
		t.Errorf("-series file: %d points (%v); want the json's %d", len(series), err, len(whole.Series))
	}
}

func TestFleetBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"-rate", "-1"}, "-rate"},
		{[]string{"-duration", "2h"}, "-duration"},
		{[]string{"-duration", "0s"}, "-duration"},
		{[]string{"-replicates", "0"}, "-replicates"},
		{[]string{"-clients", "0"}, "-clients"},
		{[]string{"-shape", "square"}, "-shape"},
		{[]string{"-server", "magic"}, "-server"},
		{[]string{"-outage", "5s"}, "-outage"},
		{[]string{"-outage", "5s:2s"}, "-outage"},
		{[]string{"-shape", "spike", "-from", "20s", "-to", "10s"}, "-to"},
		{[]string{"-p-fail", "2"}, "-p-fail"},
		{[]string{"-preset", "brooker-collapse", "-timeout", "1s"}, "-timeout"},
		{[]string{"-preset", "nope"}, "-preset"},
		{[]string{"-series", "s.txt"}, "-series"},
		{[]string{"-plot", "p.gif"}, "-plot"},
		{[]string{"-rate", "1000000", "-duration", "1h"}, "-duration"},
		{[]string{"-keys", "fresh"}, "-keys"},
		{[]string{"-replicates", "1000", "-duration", "361s"}, "-replicates"},
		{[]string{"-capacity", "4"}, "-capacity"},
		{[]string{"-server", "queue", "-service-dist", "exp", "-service-sigma", "1"}, "-service-sigma"},
		{[]string{"-peak", "90"}, "-peak"},
		{[]string{"-outage-mode", "stall"}, "-outage-mode"},
		{[]string{"-backoff-base", "1s"}, "-backoff-base"},
		{[]string{"-server", "queue", "-base", "1s"}, "-base"},
		{[]string{"-policy", "budget"}, "-policy"},
		{[]string{"-policy", "aws", "-attempts", "1"}, "-policy"},
		{[]string{"-policy", "grpc", "-quota", "4"}, "-quota"},
		{[]string{"-policy", "grpc", "-grpc-token-ratio", "0"}, "-grpc-token-ratio"},
		{[]string{"-policy", "token-bucket", "-bucket-size", "1e7"}, "-bucket-size"},
		{[]string{"-policy", "aws", "-quota-cost", "0.5"}, "-quota-cost"},
		{[]string{"-policy", "breaker", "-breaker-threshold", "NaN"}, "-breaker-threshold"},
		{[]string{"-policy-scope", "fleet"}, "-policy-scope"},
		{[]string{"-policy", "breaker", "-policy-scope", "team"}, "-policy-scope"},
		{[]string{"-preset", "brooker-collapse", "-policy", "aws"}, "-policy"},
	} {
		_, errOut, code := retrysim(t, append([]string{"fleet"}, tc.args...)...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "retrysim: "+tc.flag+":") {
			t.Errorf("fleet %v: exit %d, stderr %q; want 2 and one line naming %s", tc.args, code, errOut, tc.flag)
		}
	}
}

func TestFleetOutputs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"table", "markdown", "csv"} {
		out, errOut, code := retrysim(t, "fleet", "-duration", "5s", "-replicates", "2", "-format", f)
		if code != 0 || !strings.Contains(out, "run") {
			t.Errorf("-format %s: exit %d, %s%s", f, code, out, errOut)
		}
	}
	for _, name := range []string{"p.png", "p.svg", "s.csv"} {
		flag := "-plot"
		if strings.HasSuffix(name, ".csv") {
			flag = "-series"
		}
		path := filepath.Join(dir, name)
		if _, errOut, code := retrysim(t, "fleet", "-duration", "5s", "-replicates", "2", flag, path); code != 0 {
			t.Errorf("%s %s: exit %d: %s", flag, name, code, errOut)
		}
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// FuzzWindowFlag checks that -outage's parser never panics and keeps only
// windows with 0 <= from < to.
func FuzzWindowFlag(f *testing.F) {
	for _, s := range []string{"20s:25s", "0s:1ms", "5s", "5s:2s", ":", "-1s:2s", "1h:2h30m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var w window
		if err := w.Set(s); err == nil && (w.from < 0 || w.to <= w.from) {
			t.Errorf("Set(%q) kept %v:%v", s, w.from, w.to)
		}
	})
}

// FuzzNumberFlag checks that the number flag keeps only values in its range.
func FuzzNumberFlag(f *testing.F) {
	for _, s := range []string{"40", "-1", "1e6", "NaN", "Inf", "0x10", " 3 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := number{lo: 0, hi: 1e6}
		if err := n.Set(s); err == nil && !(n.v >= 0 && n.v <= 1e6) {
			t.Errorf("Set(%q) kept %g", s, n.v)
		}
	})
}
