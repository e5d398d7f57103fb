package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// twiceEachStep is the probability that step i of a job retried step by step
// (attempts calls a step) does its work twice or more, worked out apart from
// the engine and from strategy.Expect: the job reaches step i when every
// earlier step got a reply within its attempts (1 - e_j^A, e_j = p_j + (1 -
// p_j) l_j the chance that a call errs), and then the step works twice unless
// it never works (every call fails, p^A) or works exactly once (k failed calls,
// then one that works and replies, or one that works and loses its reply
// followed by failures to the end).
func twiceEachStep(p, l []float64, i, attempts int) float64 {
	reach := 1.0
	for j := range i {
		reach *= 1 - math.Pow(p[j]+(1-p[j])*l[j], float64(attempts))
	}
	a := float64(attempts)
	once := 0.0
	for k := range attempts {
		once += math.Pow(p[i], float64(k)) * ((1-p[i])*(1-l[i]) + (1-p[i])*l[i]*math.Pow(p[i], a-float64(k)-1))
	}
	return reach * (1 - math.Pow(p[i], a) - once)
}

// examples/checkout.yaml watches two steps, the keyed charge and the receipt,
// and every output counts each in its own column and fields: without keys
// both are duplicated at the closed form's rate, with the same key the charge
// never is while the receipt still is. Each count is held within 5 standard
// deviations of its binomial: a false failure below 5.7e-7 a comparison,
// 2.3e-6 over the four.
func TestCheckoutWatchesTwoSteps(t *testing.T) {
	const jobs = 400_000
	p := []float64{0.01, 0.02, 0.01, 0.01, 0.05}
	l := []float64{0, 0.01, 0, 0.01, 0}
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
	for r, keyed := range []bool{false, true} {
		row := rep.Rows[r]
		for _, w := range []struct {
			step  int
			field string
		}{{1, "duplicate_users_step_2"}, {3, "duplicate_users_step_4"}} {
			got, ok := row[w.field].(float64)
			if !ok {
				t.Fatalf("row %d has no %s: %v", r, w.field, row)
			}
			if _, ok := row["duplicate_rate_step_"+w.field[len(w.field)-1:]+"_hi"]; !ok {
				t.Errorf("row %d: %s has no rate with its interval", r, w.field)
			}
			want := twiceEachStep(p, l, w.step, 3)
			if keyed && w.step == 1 {
				want = 0
			}
			sd := math.Sqrt(jobs * want * (1 - want))
			if math.Abs(got-jobs*want) > 5*sd || (want == 0 && got != 0) {
				t.Errorf("row %d (%s): %s = %v; want %.1f ± 5 × %.1f", r, row["strategy"], w.field, got, jobs*want, sd)
			}
		}
		if row["duplicate_users"] != row["duplicate_users_step_2"] {
			t.Errorf("row %d: duplicate_users %v is not the first watched step's %v", r, row["duplicate_users"], row["duplicate_users_step_2"])
		}
	}
	table, _, _ := retrysim(t, "-scenario", "../../examples/checkout.yaml", "-jobs", "1000", "-strategies", "step-samekey")
	header := strings.Split(table, "\n")[2]
	if !strings.Contains(header, "Checkouts charged twice │ Checkouts with 2+ receipts") {
		t.Errorf("table header %q; want both watched steps' columns side by side", header)
	}
}
