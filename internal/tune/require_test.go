package tune

import (
	"math"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/schema"
)

func TestParseRequirement(t *testing.T) {
	tests := []struct {
		in   string
		want Requirement
	}{
		{"failed_rate<=1e-4", Requirement{Metric: "failed_rate", Op: "<=", Value: 1e-4}},
		{" calls_per_job < 12 ", Requirement{Metric: "calls_per_job", Op: "<", Value: 12}},
		{"succeeded>=0.999", Requirement{Metric: "succeeded", Op: ">=", Value: 0.999}},
		{"step-nokey:duplicate_rate == 0", Requirement{Row: "step-nokey", Metric: "duplicate_rate", Op: "==", Value: 0}},
		{"steps[a:b].duplicate_rate>0", Requirement{Metric: "steps[a:b].duplicate_rate", Op: ">", Value: 0}},
	}
	for _, tt := range tests {
		got, err := ParseRequirement(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseRequirement(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"failed_rate", "failed_rate<=", "failed_rate=1", "<=1", "failed_rate<=NaN", "failed_rate<=1e999", ":failed_rate<=1", "failed_rate=>1"} {
		if _, err := ParseRequirement(bad); err == nil || !strings.Contains(err.Error(), "OP one of <=, <, >=, >, ==") {
			t.Errorf("ParseRequirement(%q) = %v; want an error listing the operators", bad, err)
		}
	}
}

// TestJudge holds the three verdicts to their definitions: holds when the
// whole interval meets the bound, fails when none of it does.
func TestJudge(t *testing.T) {
	iv := func(lo, v, hi float64) schema.Estimate { return schema.Estimate{Value: v, Lo: lo, Hi: hi} }
	tests := []struct {
		req  string
		e    schema.Estimate
		want Verdict
	}{
		{"m<=1", iv(0.5, 0.7, 0.9), Holds},
		{"m<=1", iv(0.5, 0.9, 1), Holds},
		{"m<1", iv(0.5, 0.9, 1), Undecided},
		{"m<=1", iv(0.9, 1, 1.1), Undecided},
		{"m<=1", iv(1.01, 1.1, 1.2), Fails},
		{"m<1", iv(1, 1.1, 1.2), Fails},
		{"m>=1", iv(1, 1.1, 1.2), Holds},
		{"m>1", iv(1, 1.1, 1.2), Undecided},
		{"m>1", iv(0.5, 0.7, 1), Fails},
		{"m>=1", iv(0.5, 0.7, 1), Undecided},
		{"m==0", iv(0, 0, 0), Holds},
		{"m==0", iv(0, 0, 3e-6), Undecided},
		{"m==0", iv(1e-6, 2e-6, 3e-6), Fails},
		{"m<=1", schema.Estimate{Value: 2, Lo: math.NaN(), Hi: math.NaN()}, Fails}, // no interval: its value
	}
	for _, tt := range tests {
		r, err := ParseRequirement(tt.req)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Judge(tt.e); got != tt.want {
			t.Errorf("%s on %s = %v; want %v", tt.req, Interval(tt.e), got, tt.want)
		}
	}
}

func TestJudgeRows(t *testing.T) {
	row := func(id string, lo, hi float64) Row {
		return Row{ID: id, Estimate: func(string) schema.Estimate { return schema.Estimate{Value: (lo + hi) / 2, Lo: lo, Hi: hi} }}
	}
	rows := []Row{row("a", 0, 0.5), row("b", 0.9, 1.1), row("c", 2, 3)}
	for _, tt := range []struct {
		req  string
		want Verdict
		row  string
	}{
		{"m<=1", Fails, "c"},
		{"a:m<=1", Holds, "a"},
		{"b:m<=1", Undecided, "b"},
		{"m<=4", Holds, "a"},
		{"m>=0", Holds, "a"},
	} {
		r, _ := ParseRequirement(tt.req)
		if j := r.JudgeRows(rows); j.Verdict != tt.want || j.RowID != tt.row {
			t.Errorf("%s = %v on %s; want %v on %s", tt.req, j.Verdict, j.RowID, tt.want, tt.row)
		}
	}
}
