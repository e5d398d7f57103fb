package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scenario none of whose steps honours keys gives a key strategy the
// numbers of no key; the run says so on stderr, naming the strategies that
// send keys, and prints what it printed before, with exit status 0. The
// claim is checked: each named row equals its nokey twin's.
func TestKeysInVainWarning(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nokey.yaml")
	if err := os.WriteFile(path, []byte("watched: b\nsteps:\n  - {name: a, p_fail: 0.05}\n  - {name: b, p_fail: 0.05, lost_reply: 0.05}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	keyed := filepath.Join(dir, "keyed.yaml")
	if err := os.WriteFile(keyed, []byte("watched: b\nsteps:\n  - {name: a, p_fail: 0.05}\n  - {name: b, p_fail: 0.05, lost_reply: 0.05, keyed: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := func(args ...string) map[string][4]int64 {
		t.Helper()
		out, _, code := retrysim(t, append([]string{"-jobs", "20000", "-format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("retrysim %v: exit %d", args, code)
		}
		var raw struct {
			Rows []map[string]any `json:"rows"`
		}
		if err := json.Unmarshal([]byte(out), &raw); err != nil {
			t.Fatal(err)
		}
		m := map[string][4]int64{}
		for _, r := range raw.Rows {
			n := func(k string) int64 { f, _ := r[k].(float64); return int64(f) }
			m[r["strategy"].(string)] = [4]int64{n("failed"), n("calls"), n("repeated_steps"), n("duplicate_users")}
		}
		return m
	}
	const ids = "step-nokey,step-newkey,step-samekey,job-nokey,job-samekey,job-nokey-skip,job-samekey-skip"
	warning := "retrysim: warning: no step of " + path + " honours keys (keyed: true), so the keys of step-newkey, step-samekey, job-samekey and job-samekey-skip change nothing: each runs as with no key\n"
	for _, cmd := range [][]string{
		{"-scenario", path, "-strategies", ids, "-jobs", "20000"},
		{"-scenario", path, "-strategies", ids, "-jobs", "20000", "-model", "delivery", "-latency", "1ms"}, // the delivery model
		{"sweep", "-scenario", path, "-strategies", ids, "-p-fail", "0.01,0.02", "-jobs", "20000"},
	} {
		out, errOut, code := retrysim(t, cmd...)
		if code != 0 || errOut != warning || strings.Contains(out, "warning") {
			t.Errorf("retrysim %s: exit %d, stderr %q; want exit 0 and stderr %q, stdout without it", strings.Join(cmd, " "), code, errOut, warning)
		}
	}
	got := rows("-scenario", path, "-strategies", ids)
	for twin, nokey := range map[string]string{"step-newkey": "step-nokey", "step-samekey": "step-nokey", "job-samekey": "job-nokey", "job-samekey-skip": "job-nokey-skip"} {
		if got[twin] != got[nokey] {
			t.Errorf("%s = %v; want %v, as %s, since no step honours keys", twin, got[twin], got[nokey], nokey)
		}
	}
	// With a keyed step the key matters: no warning, and a row that differs.
	if _, errOut, code := retrysim(t, "-scenario", keyed, "-strategies", ids, "-jobs", "20000"); code != 0 || errOut != "" {
		t.Errorf("retrysim -scenario keyed.yaml: exit %d, stderr %q; want no warning", code, errOut)
	}
	if k := rows("-scenario", keyed, "-strategies", ids); k["step-samekey"] == k["step-nokey"] {
		t.Errorf("keyed.yaml: step-samekey = step-nokey = %v; want the key to change the repeats", k["step-nokey"])
	}
	// Strategies that send no key are not warned about.
	if _, errOut, code := retrysim(t, "-scenario", path, "-strategies", "step-nokey,job-nokey-skip", "-jobs", "20000"); code != 0 || errOut != "" {
		t.Errorf("retrysim -scenario nokey.yaml -strategies step-nokey,job-nokey-skip: exit %d, stderr %q; want no warning", code, errOut)
	}
}
