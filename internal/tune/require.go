package tune

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/schema"
)

// ops are the comparisons a requirement takes, in the order errors list them.
var ops = []string{"<=", "<", ">=", ">", "=="}

// Requirement is a bound on a metric, METRIC OP VALUE, judged on its 95%
// interval; with a Row, on that row only.
type Requirement struct {
	// Row is the row it applies to, "" for every row.
	Row string
	// Metric is the column's key: failed_rate, calls_per_job.
	Metric string
	// Op is one of <=, <, >=, >, ==.
	Op    string
	Value float64
}

// String is the requirement as a user writes it: step-samekey:failed_rate<=0.0001.
func (r Requirement) String() string {
	s := r.Metric + r.Op + strings.Replace(strconv.FormatFloat(r.Value, 'g', -1, 64), "e-0", "e-", 1)
	if r.Row != "" {
		s = r.Row + ":" + s
	}
	return s
}

// ParseRequirement reads 'METRIC OP VALUE' or 'ROW:METRIC OP VALUE'.
func ParseRequirement(text string) (Requirement, error) {
	bad := func(why string) error {
		return fmt.Errorf("%q %s; want 'METRIC OP VALUE' or 'ROW:METRIC OP VALUE', OP one of %s, as in 'failed_rate<=1e-4'", text, why, strings.Join(ops, ", "))
	}
	at := strings.IndexAny(text, "<>=")
	if at < 0 {
		return Requirement{}, bad("has no comparison")
	}
	lhs, rest := strings.TrimSpace(text[:at]), text[at:]
	var r Requirement
	for _, op := range ops { // the two-character ones first
		if strings.HasPrefix(rest, op) {
			r.Op = op
			break
		}
	}
	if r.Op == "" {
		return Requirement{}, bad("has no comparison it knows")
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(rest[len(r.Op):]), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Requirement{}, bad("has no finite number after " + r.Op)
	}
	r.Value = v
	// A row is named before the first colon outside a step's brackets.
	if i := strings.Index(lhs, ":"); i >= 0 && !strings.Contains(lhs[:i], "[") {
		r.Row, lhs = strings.TrimSpace(lhs[:i]), strings.TrimSpace(lhs[i+1:])
		if r.Row == "" {
			return Requirement{}, bad("names no row before its colon")
		}
	}
	if lhs == "" {
		return Requirement{}, bad("names no metric")
	}
	r.Metric = lhs
	return r, nil
}

// Check refuses a metric not among metrics or a row not among rows.
func (r Requirement) Check(metrics, rows []string) error {
	if !slices.Contains(metrics, r.Metric) {
		return fmt.Errorf("%s: no metric %q (want one of %s)", r, r.Metric, strings.Join(metrics, ", "))
	}
	if r.Row != "" && !slices.Contains(rows, r.Row) {
		return fmt.Errorf("%s: no row %q (want one of %s)", r, r.Row, strings.Join(rows, ", "))
	}
	return nil
}

// Verdict is what a requirement's interval says of it.
type Verdict int

const (
	// Undecided: part of the interval meets it, part does not.
	Undecided Verdict = iota
	// Holds: the whole interval meets it.
	Holds
	// Fails: none of the interval meets it.
	Fails
)

func (v Verdict) String() string { return [...]string{"undecided", "holds", "fails"}[v] }

func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Judge is the requirement's verdict on e's interval, or on its value alone
// when it has none.
func (r Requirement) Judge(e schema.Estimate) Verdict {
	lo, hi := bounds(e)
	meets := func(x float64) bool {
		switch r.Op {
		case "<=":
			return x <= r.Value
		case "<":
			return x < r.Value
		case ">=":
			return x >= r.Value
		case ">":
			return x > r.Value
		}
		return x == r.Value
	}
	switch {
	case r.Op == "==" && lo == r.Value && hi == r.Value, r.Op != "==" && meets(lo) && meets(hi):
		return Holds
	case r.Op == "==" && (r.Value < lo || r.Value > hi), r.Op != "==" && !meets(lo) && !meets(hi):
		return Fails
	}
	return Undecided
}

// Row is a run's output row as a requirement reads it: its id and metrics.
type Row struct {
	ID string
	// Where names the row's point in a sweep (attempts=3), "" in a table.
	Where    string
	Estimate func(metric string) schema.Estimate
}

// Judged is a requirement's verdict over a run's rows, and the deciding row
// (the first that fails, else the first undecided, else the first).
type Judged struct {
	Requirement
	Verdict Verdict
	// Row is the deciding row's id and Where its point.
	RowID, Where string
	Estimate     schema.Estimate
}

// JudgeRows is r's verdict over rows: fails if a row fails, holds if all hold.
func (r Requirement) JudgeRows(rows []Row) Judged {
	out := Judged{Requirement: r, Verdict: Holds}
	rank := [...]int{Holds: 0, Undecided: 1, Fails: 2}
	first := true
	for _, row := range rows {
		if r.Row != "" && row.ID != r.Row {
			continue
		}
		e := row.Estimate(r.Metric)
		if v := r.Judge(e); first || rank[v] > rank[out.Verdict] {
			out.Verdict, out.RowID, out.Where, out.Estimate, first = v, row.ID, row.Where, e, false
		}
	}
	return out
}

// Interval writes e as its value and interval: 0.00125 [0.00123, 0.00127].
func Interval(e schema.Estimate) string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	if math.IsNaN(e.Lo) || math.IsNaN(e.Hi) {
		return g(e.Value) + " (no interval)"
	}
	return fmt.Sprintf("%s [%s, %s]", g(e.Value), g(e.Lo), g(e.Hi))
}

// Line is the verdict as one line: requirement failed_rate<=0.0001 fails:
// failed_rate of step-samekey is 0.00125 [0.00118, 0.00132].
func (j Judged) Line() string {
	row := j.RowID
	if j.Where != "" {
		row += " at " + j.Where
	}
	return fmt.Sprintf("requirement %s %s: %s of %s is %s", j.Requirement, j.Verdict, j.Metric, row, Interval(j.Estimate))
}

// UnmetError is a run's requirements that failed or were undecided, a line each.
type UnmetError struct{ Unmet []Judged }

func (e *UnmetError) Error() string {
	lines := make([]string, len(e.Unmet))
	for i, j := range e.Unmet {
		lines[i] = j.Line()
	}
	return strings.Join(lines, "\n")
}

// ExitStatus is 3, the status of a run whose requirements are not all met.
func (e *UnmetError) ExitStatus() int { return 3 }

// Enforce is an *UnmetError of the requirements that do not hold over rows, or nil.
func Enforce(reqs []Requirement, rows []Row) error {
	var unmet []Judged
	for _, r := range reqs {
		if j := r.JudgeRows(rows); j.Verdict != Holds {
			unmet = append(unmet, j)
		}
	}
	if unmet == nil {
		return nil
	}
	return &UnmetError{Unmet: unmet}
}
