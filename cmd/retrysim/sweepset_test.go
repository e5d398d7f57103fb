package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sweep -scenario with -set varies one step's p_fail by name: with one
// attempt (the run's; the file gives the inventory and the CRM 5 and the
// receipt 2 of their own, A_i) a job fails when some step errs on each of its
// attempts, each call of step i with e_i = p_i + (1 - p_i) l_i, so the share
// that fails is 1 - prod (1 - e_i^A_i), the charge's p_fail swept. Each point's count is held within 5 binomial standard deviations
// (exactly 0 or all where the closed form is): a false failure below 5.7e-7
// a comparison, 1.7e-6 over the three. The rows and the plot are labelled
// with the parameter's name; p_fail and lost_reply, not set over the file,
// are not columns.
func TestSweepScenarioSetStepParameter(t *testing.T) {
	const jobs = 40_000
	name := "steps[charge the card].p_fail"
	dir := t.TempDir()
	plot := filepath.Join(dir, "p.svg")
	out, errOut, code := retrysim(t, "sweep", "-scenario", "../../examples/checkout.yaml", "-set", name+"=0,0.5,1",
		"-attempts", "1", "-jobs", "40000", "-strategies", "step-nokey", "-format", "json", "-plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Scenario string           `json:"scenario"`
		File     string           `json:"scenario_file"`
		Swept    []string         `json:"swept"`
		Rows     []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Scenario != "checkout" || len(doc.Swept) != 1 || doc.Swept[0] != name || len(doc.Rows) != 3 {
		t.Fatalf("scenario %q, swept %v, %d rows; want checkout, [%s], 3", doc.Scenario, doc.Swept, len(doc.Rows), name)
	}
	p := []float64{0.01, 0, 0.01, 0.01, 0.05}
	l := []float64{0, 0.01, 0, 0.01, 0}
	attempts := []float64{5, 1, 1, 2, 5}
	for k, x := range []float64{0, 0.5, 1} {
		row := doc.Rows[k]
		if row[name] != x {
			t.Errorf("row %d: %s = %v; want %v", k, name, row[name], x)
		}
		if _, ok := row["p_fail"]; ok {
			t.Errorf("row %d has a p_fail column, which no flag set over the file", k)
		}
		p[1] = x
		ok := 1.0
		for i := range p {
			ok *= 1 - math.Pow(p[i]+(1-p[i])*l[i], attempts[i])
		}
		want := (1 - ok) * jobs
		sd := math.Sqrt(jobs * ok * (1 - ok))
		if got := row["failed"].(float64); math.Abs(got-want) > 5*sd || (sd == 0 && got != want) {
			t.Errorf("%s = %v: failed %v; want %.1f ± 5 × %.1f", name, x, got, want, sd)
		}
	}
	svg, err := os.ReadFile(plot)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "steps[charge the card].p_fail") {
		t.Errorf("the plot does not label its axis with %s", name)
	}
}

// A queue setting varies by name too, durations as written and in seconds (1 h = 3600 s),
// through the delivery model; and a sweep of the built-in sign-up with no
// -set prints what it printed before (the sweep goldens and docs tests).
func TestSweepScenarioSetQueue(t *testing.T) {
	out, errOut, code := retrysim(t, "sweep", "-scenario", "../../examples/signup-queue.yaml", "-set", "queue.ttl=1h,24h,72h",
		"-jobs", "2000", "-strategies", "step-samekey", "-format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "attempts,queue.ttl,queue.ttl_seconds,strategy,") {
		t.Fatalf("csv header %q, %d lines; want attempts,queue.ttl,queue.ttl_seconds first and 3 rows", lines[0], len(lines))
	}
	for i, want := range []string{"3,1h,3600,", "3,24h,86400,", "3,72h,259200,"} {
		if !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("row %d = %q; want it to start %q", i, lines[i+1], want)
		}
	}
}

// -set and -scenario refuse what they cannot vary with one line and exit 2.
func TestSweepSetRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-set", "queue.ttl=1h"}, "-set: queue.ttl: only the delivery model reads it, and the run is of the job model (no queue); add -model delivery"},
		{[]string{"-set", "steps[charge].p_fail=0.1"}, `-set: steps[charge].p_fail: no step is called "charge"`},
		{[]string{"-scenario", "../../examples/checkout.yaml", "-set", "steps[charge the card].p_fail=2"}, "-set: steps[charge the card].p_fail: 2 is not a probability in [0, 1]"},
		{[]string{"-scenario", "../../examples/checkout.yaml", "-set", "steps[charge the card].p_fail=0:1:101", "-set", "steps[send the receipt].p_fail=0:1:101"},
			"-set steps[charge the card].p_fail x -set steps[send the receipt].p_fail: 101 x 101 = 10201 points is more than the 10000 a sweep allows"},
		{[]string{"-scenario", "../../examples/checkout.yaml", "-set", "steps[update the CRM].p_fail=0.1", "-set", "steps[update the CRM].p_fail=0.2"}, "-set: steps[update the CRM].p_fail is given twice"},
		{[]string{"-scenario", "../../examples/nope.yaml"}, "-scenario ../../examples/nope.yaml: no such file or directory"},
		// A point whose queue Check refuses names its -set (it was exit 1,
		// "lease: ...", naming no flag).
		{[]string{"-scenario", "../../examples/signup-queue.yaml", "-set", "queue.lease=0s,1s"}, "-set queue.lease: a lease must be longer than 0s"},
		{[]string{"-scenario", "../../examples/fleet-polly.yaml"}, "-scenario ../../examples/fleet-polly.yaml:1: steps: missing; the file describes only a fleet"},
	} {
		_, errOut, code := retrysim(t, append([]string{"sweep", "-jobs", "10"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want 2 and one line containing %q", tt.args, code, errOut, tt.want)
		}
	}
}

// sweep -set varies a step's own attempts: the charge's calls err with
// e = 0.02 + 0.98 x 0.01, and with a attempts of its own the charge fails
// with e^a, so the share of jobs that fails is 1 - prod (1 - e_i^a_i), the
// other steps keeping the file's attempts (5, 1 from -attempts 1, 2, 5).
// Each count is held within 5 binomial standard deviations: a false failure
// below 5.7e-7 a comparison, 1.7e-6 over the three.
func TestSweepScenarioSetStepAttempts(t *testing.T) {
	const jobs = 40_000
	name := "steps[charge the card].attempts"
	out, errOut, code := retrysim(t, "sweep", "-scenario", "../../examples/checkout.yaml", "-set", name+"=1,2,3",
		"-attempts", "1", "-jobs", "40000", "-strategies", "step-nokey", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct{ Rows []map[string]any }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 3 {
		t.Fatalf("%d rows; want 3", len(doc.Rows))
	}
	p := []float64{0.01, 0.02, 0.01, 0.01, 0.05}
	l := []float64{0, 0.01, 0, 0.01, 0}
	a := []float64{5, 0, 1, 2, 5}
	for k, x := range []float64{1, 2, 3} {
		row := doc.Rows[k]
		if row[name] != x {
			t.Errorf("row %d: %s = %v; want %v", k, name, row[name], x)
		}
		a[1] = x
		ok := 1.0
		for i := range p {
			ok *= 1 - math.Pow(p[i]+(1-p[i])*l[i], a[i])
		}
		want, sd := (1-ok)*jobs, math.Sqrt(jobs*ok*(1-ok))
		if got := row["failed"].(float64); math.Abs(got-want) > 5*sd {
			t.Errorf("%s = %v: failed %v; want %.1f ± 5 × %.1f", name, x, got, want, sd)
		}
	}
}
