package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// sweepRun names what drew the numbers: the generator, the seed and the engine.
func sweepRun(s stats.Sweep) string {
	return fmt.Sprintf("%s, seed %d, %s", s.RNG, s.Seed, engineTerm(s.Engine))
}

// sweepFields are a row's grid point, then the row's own fields.
func sweepFields(s stats.Sweep, r *stats.SweepRow, row *stats.Row) []field {
	var f []field
	for a, ax := range s.AxisList() {
		switch {
		case ax.Name == "jobs":
		case ax.Whole:
			f = append(f, field{ax.Name, int64(r.At(a))})
		case ax.Duration:
			f = append(f, field{ax.Name, human.Seconds(r.At(a))}, field{ax.Name + "_seconds", r.At(a)})
		default:
			f = append(f, field{ax.Name, r.At(a)})
		}
	}
	rep := stats.Report{Params: stats.Params{Watched: s.Watched}}
	if s.StepNames != nil {
		rep.Delivery = &stats.DeliveryParams{StepNames: s.StepNames}
	}
	r.Fill(row)
	return append(f, rowFields(row, rep)...)
}

// writeSweepCSV writes a line a row as it goes (writeFieldRows).
func writeSweepCSV(w io.Writer, s stats.Sweep) error {
	row := new(stats.Row)
	return writeFieldRows(w, len(s.Rows), func(i int) []field { return sweepFields(s, &s.Rows[i], row) })
}

// sweptNames are the names of s's swept axes, in order.
func sweptNames(s stats.Sweep) []string {
	return mapped(s.Swept, func(a int) string { return s.AxisList()[a].Name })
}

// writeSweepJSON writes the sweep as indented json, one row at a time.
func writeSweepJSON(w io.Writer, s stats.Sweep) error {
	head, err := json.MarshalIndent(struct {
		stats.Sweep
		Swept  []string `json:"swept"`
		Metric string   `json:"metric"`
	}{Sweep: s, Swept: sweptNames(s), Metric: s.Metric.Name}, "", "  ")
	if err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	b.Write(head[:len(head)-2]) // without "\n}"
	b.WriteString(",\n  \"rows\": ")
	if len(s.Rows) == 0 {
		b.WriteString("null")
	}
	var ind bytes.Buffer
	scratch := new(stats.Row)
	for i := range s.Rows {
		o, err := object(sweepFields(s, &s.Rows[i], scratch))
		if err != nil {
			return err
		}
		if i == 0 {
			b.WriteString("[\n    ")
		} else {
			b.WriteString(",\n    ")
		}
		ind.Reset()
		if err := json.Indent(&ind, o, "    ", "  "); err != nil {
			return err
		}
		b.Write(ind.Bytes())
	}
	if len(s.Rows) > 0 {
		b.WriteString("\n  ]")
	}
	b.WriteString("\n}\n")
	return b.Flush()
}

// sig formats x as sweepValue does, less the zeros that end its decimals, then a bare point; "-" for NaN.
func sig(x float64) string {
	s := sweepValue.number(x)
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// metricText formats an estimate of m for a pivot cell, with its interval when ci.
func metricText(m stats.Metric, e schema.Estimate, ci bool) string {
	if isSeconds(m) {
		return seconds(e.Value)
	}
	mul, unit := metricUnit(m)
	text := sig(mul*e.Value) + unit
	if ci && !math.IsNaN(e.Lo) {
		text += fmt.Sprintf(" [%s, %s]", sig(mul*e.Lo), sig(mul*e.Hi))
	}
	return text
}

// hasInterval reports whether m's estimates have an interval (Lo is not NaN).
func hasInterval(m stats.Metric) bool {
	return !math.IsNaN(m.Estimate(&stats.Counters{Jobs: 1}, false).Lo)
}

// isSeconds reports whether m is a time, a completion quantile in seconds.
func isSeconds(m stats.Metric) bool { return strings.Contains(m.Name, "completion_p") }

// metricUnit is what m's values are multiplied by and followed with for people.
func metricUnit(m stats.Metric) (float64, string) {
	switch {
	case strings.HasSuffix(m.Name, "_rate") || m.Name == "succeeded" || m.Name == "lost_work": // a share
		return 100, "%"
	case isSeconds(m):
		return 1, " s"
	}
	return 1, ""
}

// pivotAxisText formats a grid value of axis a for a pivot.
func pivotAxisText(a stats.Axis, v float64) string {
	if a.Duration {
		return human.Seconds(v)
	}
	return g(v)
}

// writePivot shows s.Metric with one line a grid point and one column a strategy.
func writePivot(w io.Writer, s stats.Sweep, st tableStyle) error {
	header := append(sweptNames(s), s.Strategies...)
	title := fmt.Sprintf("%s; %s", s.Metric.Label, sweepRun(s))
	if s.CI && hasInterval(s.Metric) {
		title = fmt.Sprintf("%s, 95%% intervals; %s", s.Metric.Label, sweepRun(s))
	}
	t := newTable(w, st, numberColumns(len(header), 0), len(s.Swept))
	t.Header(header)
	per, row := len(s.Strategies), new(stats.Row)
	for i := 0; i < len(s.Rows); i += per {
		var cells []string
		for _, a := range s.Swept {
			cells = append(cells, pivotAxisText(s.AxisList()[a], s.Rows[i].At(a)))
		}
		for j := range s.Rows[i : i+per] {
			s.Rows[i+j].Fill(row)
			cells = append(cells, metricText(s.Metric, s.Metric.Estimate(&row.Counters, row.NoRepeats), s.CI))
		}
		t.Append(cells)
	}
	return writeTitled(w, st, title, t, "")
}
