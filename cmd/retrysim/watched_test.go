package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// twiceEachStep is the probability that step i of a job retried step by step
// (attempts[j] calls at most at step j, its own) does its work twice or
// more, worked out apart from the engine and from strategy.Expect: the job
// reaches step i when every earlier step got a reply within its attempts (1
// - e_j^A_j, e_j = p_j + (1 - p_j) l_j the chance that a call errs), and then
// the step works twice unless it never works (every call fails, p^A) or
// works exactly once (k failed calls, then one that works and replies, or
// one that works and loses its reply followed by failures to the end).
func twiceEachStep(p, l []float64, i int, attempts []int) float64 {
	reach := 1.0
	for j := range i {
		reach *= 1 - math.Pow(p[j]+(1-p[j])*l[j], float64(attempts[j]))
	}
	a := float64(attempts[i])
	once := 0.0
	for k := range attempts[i] {
		once += math.Pow(p[i], float64(k)) * ((1-p[i])*(1-l[i]) + (1-p[i])*l[i]*math.Pow(p[i], a-float64(k)-1))
	}
	return reach * (1 - math.Pow(p[i], a) - once)
}

// failEachStep is the probability that a job retried step by step fails: some
// step errs on every one of its attempts, 1 - prod_j (1 - e_j^A_j).
func failEachStep(p, l []float64, attempts []int) float64 {
	ok := 1.0
	for j := range p {
		ok *= 1 - math.Pow(p[j]+(1-p[j])*l[j], float64(attempts[j]))
	}
	return 1 - ok
}

// examples/checkout.yaml watches two steps, the keyed charge and the receipt,
// and every output counts each in its own column and fields. Its steps carry
// their own attempts (5, the run's 3, 3, 2, 5) and the charge its own key
// mode (same): the receipts are duplicated and jobs fail at the closed
// forms' rates for those attempts, and the charge is never duplicated, even
// under step-nokey, whose key mode the step's overrides. Each count is held
// within 5 standard deviations of its binomial: a false failure below 5.7e-7
// a comparison, 2.3e-6 over the four that can vary.
func TestCheckoutWatchesTwoSteps(t *testing.T) {
	const jobs = 400_000
	p := []float64{0.01, 0.02, 0.01, 0.01, 0.05}
	l := []float64{0, 0.01, 0, 0.01, 0}
	attempts := []int{5, 3, 3, 2, 5}
	out, errOut, code := retrysim(t, "-scenario", "../../examples/checkout.yaml", "-jobs", "400000", "-strategies", "step-nokey,step-samekey", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Watched []struct{ Name, Label string } `json:"watched"`
		Rows    []map[string]any               `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Watched) != 2 || rep.Watched[0].Name != "charge the card" || rep.Watched[1].Label != "Checkouts with 2+ receipts" {
		t.Fatalf("watched = %+v; want the charge, then the receipts", rep.Watched)
	}
	near := func(r int, field string, got any, want float64) {
		t.Helper()
		g, ok := got.(float64)
		sd := math.Sqrt(jobs * want * (1 - want))
		if !ok || math.Abs(g-jobs*want) > 5*sd || (want == 0 && g != 0) {
			t.Errorf("row %d (%s): %s = %v; want %.1f ± 5 × %.1f", r, rep.Rows[r]["strategy"], field, got, jobs*want, sd)
		}
	}
	for r := range 2 {
		row := rep.Rows[r]
		near(r, "failed", row["failed"], failEachStep(p, l, attempts))
		near(r, "duplicate_users_step_2", row["duplicate_users_step_2"], 0)
		near(r, "duplicate_users_step_4", row["duplicate_users_step_4"], twiceEachStep(p, l, 3, attempts))
		for _, f := range []string{"duplicate_rate_step_2_hi", "duplicate_rate_step_4_hi"} {
			if _, ok := row[f]; !ok {
				t.Errorf("row %d has no %s: its rate has no interval", r, f)
			}
		}
		if row["duplicate_users"] != row["duplicate_users_step_2"] {
			t.Errorf("row %d: duplicate_users %v is not the first watched step's %v", r, row["duplicate_users"], row["duplicate_users_step_2"])
		}
	}
	table, _, _ := retrysim(t, "-scenario", "../../examples/checkout.yaml", "-jobs", "1000", "-strategies", "step-samekey", "-width", "0")
	header := strings.Split(table, "\n")[2]
	if !strings.Contains(header, "Checkouts charged twice │ Checkouts with 2+ receipts") {
		t.Errorf("table header %q; want both watched steps' columns side by side", header)
	}
}

// A sweep of examples/checkout.yaml keeps every step's own policy: at the
// file's own value of the swept parameter each row's counters are the table
// command's for the file, column by column.
func TestCheckoutSweepPointIsTheTable(t *testing.T) {
	common := []string{"-scenario", "../../examples/checkout.yaml", "-jobs", "100000", "-strategies", "step-nokey,job-nokey,job-samekey-skip", "-format", "csv"}
	sweep, errOut, code := retrysim(t, append([]string{"sweep", "-set", "steps[update the CRM].p_fail=0.05"}, common...)...)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	table, errOut, code := retrysim(t, common...)
	if code != 0 {
		t.Fatalf("table: exit %d: %s", code, errOut)
	}
	sw, tb := csvRows(t, sweep), csvRows(t, table)
	if len(sw) != 3 || len(tb) != 3 {
		t.Fatalf("%d sweep rows and %d table rows; want 3 each", len(sw), len(tb))
	}
	for i := range sw {
		for _, f := range []string{"strategy", "jobs", "failed", "calls", "repeated_steps", "duplicate_users", "calls_sq", "repeated_steps_sq"} {
			a, okA := sw[i][f]
			b, okB := tb[i][f]
			if !okA || !okB || a != b {
				t.Errorf("row %d: sweep %s = %q; the table's is %q", i, f, a, b)
			}
		}
	}
}

// csvRows reads a csv output's rows as maps from its header's names.
func csvRows(t *testing.T, out string) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 1 {
		t.Fatalf("csv: %v\n%s", err, out)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for j, name := range recs[0] {
			row[name] = rec[j]
		}
		rows = append(rows, row)
	}
	return rows
}
