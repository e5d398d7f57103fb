package render

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/stats"
)

// sweepRun names what drew the numbers, for titles: the generator, the seed and
// the engine (skip and plain agree in distribution, not draw for draw).
func sweepRun(s stats.Sweep) string {
	return fmt.Sprintf("%s, seed %d, %s engine", s.RNG, s.Seed, s.Engine)
}

// sweepFields are a row's grid point, then the row's own fields (jobs among
// them, so not the jobs axis).
func sweepFields(s stats.Sweep, r stats.SweepRow) []field {
	var f []field
	for a, ax := range s.AxisList() {
		switch {
		case ax.Name == "jobs":
		case ax.Whole:
			f = append(f, field{ax.Name, int64(r.At(a))})
		default:
			f = append(f, field{ax.Name, r.At(a)})
		}
	}
	return append(f, rowFields(r.Row(), stats.Report{})...)
}

// writeSweepCSV writes a line a row as it goes, so that a large grid's
// output is not held twice, as fields and as text.
func writeSweepCSV(w io.Writer, s stats.Sweep) error {
	cw := csv.NewWriter(w)
	for i, row := range s.Rows {
		fields := sweepFields(s, row)
		if i == 0 {
			keys := make([]string, len(fields))
			for j, f := range fields {
				keys[j] = f.key
			}
			if err := cw.Write(keys); err != nil {
				return err
			}
		}
		vals := make([]string, len(fields))
		for j, f := range fields {
			vals[j] = text(f.value)
		}
		if err := cw.Write(vals); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeSweepJSON writes what json.Encoder with a two-space indent writes for
// the sweep and its rows, one row at a time: a large grid's rows are never
// all held as objects.
func writeSweepJSON(w io.Writer, s stats.Sweep) error {
	swept := make([]string, len(s.Swept))
	for i, a := range s.Swept {
		swept[i] = s.AxisList()[a].Name
	}
	head, err := json.MarshalIndent(struct {
		stats.Sweep
		Swept  []string `json:"swept"`
		Metric string   `json:"metric"`
	}{Sweep: s, Swept: swept, Metric: s.Metric.Name}, "", "  ")
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
	for i, row := range s.Rows {
		o, err := object(sweepFields(s, row))
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

// sig formats x with 4 significant digits, in plain decimals (0.000002532,
// not 2.532e-06), so a column of rates reads at a glance.
func sig(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	decimals := max(0, 3-int(math.Floor(math.Log10(math.Abs(x)))))
	return strconv.FormatFloat(x, 'f', decimals, 64)
}

// metricText formats an estimate of m for a pivot cell: shares as
// percentages, means as they are, each with its interval.
func metricText(m stats.Metric, e stats.Estimate) string {
	if isPercent(m) {
		return fmt.Sprintf("%s%% [%s, %s]", sig(100*e.Value), sig(100*e.Lo), sig(100*e.Hi))
	}
	return fmt.Sprintf("%s [%s, %s]", sig(e.Value), sig(e.Lo), sig(e.Hi))
}

// isPercent reports whether m is a share, shown in percent by tables and plots.
func isPercent(m stats.Metric) bool {
	return strings.HasSuffix(m.Name, "_rate") || m.Name == "succeeded"
}

// metricUnit is what m's values are multiplied by and followed with for people.
func metricUnit(m stats.Metric) (float64, string) {
	if isPercent(m) {
		return 100, "%"
	}
	return 1, ""
}

// axisText formats a grid value: probabilities and counts, shortest form.
func axisText(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writePivot shows s.Metric with one line a grid point and one column a strategy.
func writePivot(w io.Writer, s stats.Sweep, st tableStyle) error {
	header := []string{}
	for _, a := range s.Swept {
		header = append(header, s.AxisList()[a].Name)
	}
	header = append(header, s.Strategies...)
	title := fmt.Sprintf("%s, 95%% intervals; %s", s.Metric.Label, sweepRun(s))
	title = tableTitle(title, st)
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}
	t := newTable(w, st, numberColumns(len(header), 0), len(s.Swept))
	t.Header(header)
	per := len(s.Strategies)
	for i := 0; i < len(s.Rows); i += per {
		var cells []string
		for _, a := range s.Swept {
			cells = append(cells, axisText(s.Rows[i].At(a)))
		}
		for _, row := range s.Rows[i : i+per] {
			cells = append(cells, metricText(s.Metric, s.Metric.Estimate(row.Row())))
		}
		t.Append(cells)
	}
	return t.Render()
}
