// Package render presents what package stats computes: tables (box.go),
// markdown, csv, json, html pages and plots (gonum/plot). It computes no
// statistics of its own, and it is the only package that imports gonum/plot.
package render

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// reportColumns are the table command's columns, with intervals when r.ShowCI asks.
func reportColumns(r stats.Report) columns[*stats.Row] {
	n := func(row *stats.Row) float64 { return float64(row.Jobs) }
	ms := stats.Metrics()
	metric := func(i int) func(*stats.Row) schema.Estimate {
		return func(row *stats.Row) schema.Estimate { return ms[i].Estimate(&row.Counters, row.NoRepeats) }
	}
	// count is a column of a count and its interval, the rate's times n.
	count := func(header, key string, x func(*stats.Row) int64, rate func(*stats.Row) schema.Estimate) column[*stats.Row] {
		return column[*stats.Row]{header: header, key: key, value: func(row *stats.Row) float64 { return float64(x(row)) },
			text: func(row *stats.Row) string {
				if !r.ShowCI || rate == nil {
					return human.Group(x(row))
				}
				e := rate(row)
				return human.Group(x(row)) + bounds(wholeCount, e.Lo*n(row), e.Hi*n(row))
			}}
	}
	// ratio is a column of a metric, written as the article does, and its interval in style.
	ratio := func(header, key string, i int, style numberStyle, article func(*stats.Counters) string) column[*stats.Row] {
		return column[*stats.Row]{header: header, key: key, value: func(row *stats.Row) float64 { return metric(i)(row).Value },
			text: func(row *stats.Row) string {
				if !r.ShowCI {
					return article(&row.Counters)
				}
				e := metric(i)(row)
				return article(&row.Counters) + bounds(style, e.Lo, e.Hi)
			}}
	}
	cs := columns[*stats.Row]{
		labelColumn("Strategy", "", func(row *stats.Row) string { return row.Label }),
		ratio("Succeeded", "succeeded", 0, jobShare, func(c *stats.Counters) string { return percentOf(c.Jobs-c.Failed, c.Jobs) }),
		count("Failed jobs", "failed", func(row *stats.Row) int64 { return row.Failed }, metric(1)),
		ratio("Calls per job", "calls_per_job", 2, callsPerJob, func(c *stats.Counters) string { return roundJS(c.CallsPerJob(), 2) }),
		count("Steps done again", "repeated_steps", func(row *stats.Row) int64 { return row.RepeatedSteps }, metric(3)),
	}
	for k, w := range reportjson.Watched(r) {
		key := "duplicate_users"
		if k > 0 {
			key += "_step_" + strconv.Itoa(w.Step+1)
		}
		cs = append(cs, count(w.Label, key, func(row *stats.Row) int64 { return row.Twice(k, w) },
			func(row *stats.Row) schema.Estimate { return row.WatchedRate(k, w) }))
	}
	if r.Delivery == nil {
		return cs
	}
	return append(cs,
		column[*stats.Row]{header: "Deliveries per job", key: "deliveries_per_job",
			value: func(row *stats.Row) float64 { return float64(row.Deliveries) / float64(row.Jobs) },
			text:  func(row *stats.Row) string { return perJob.text(float64(row.Deliveries) / float64(row.Jobs)) }},
		count("Lost work", "lost_work", func(row *stats.Row) int64 { return row.LostWork }, nil),
		column[*stats.Row]{header: "Time p50 / p95 / p99, succeeded jobs", text: func(row *stats.Row) string { return quantiles(&row.Completion) }},
		column[*stats.Row]{header: "Time p50 / p95 / p99, failed jobs", text: func(row *stats.Row) string { return quantiles(&row.FailedCompletion) }})
}

// seconds formats a duration in seconds for people, "> 8,388,608 s" past the range.
func seconds(x float64) string {
	if math.IsInf(x, 1) {
		return "> " + timeSeconds.text(hist.Top())
	}
	return timeSeconds.text(x) // "-" for NaN: nothing counted
}

// quantiles formats a histogram's p50, p95 and p99 for people.
func quantiles(h *hist.Histogram) string {
	return seconds(h.QuantileSeconds(0.5)) + " / " + seconds(h.QuantileSeconds(0.95)) + " / " + seconds(h.QuantileSeconds(0.99))
}

// bounds is an interval's " [lo, hi]" in the column's style, always shown.
func bounds(s numberStyle, lo, hi float64) string {
	l, h := s.bounds(lo, hi)
	return " [" + l + ", " + h + "]"
}

// metricStyle is the style of the i-th metric's closed form and spread (perJobs: times jobs).
func metricStyle(i int) (s numberStyle, perJobs bool) {
	switch i {
	case 0:
		return jobShare, false
	case 2:
		return callsPerJob, false
	}
	return expectedCount, true
}

// expectedCells are the closed forms under a row, each with its z-score.
func expectedCells(row *stats.Row, watched []stats.Watch) []string {
	c := &row.Counters
	n := float64(c.Jobs)
	cells := []string{"  " + expectedRowLabel}
	for i, m := range stats.Metrics() {
		x := m.Expected(*row.Expected)
		s, scaled := metricStyle(i)
		if scaled {
			x *= n
		}
		cells = append(cells, s.text(x)+" ("+zText(m, c, *row.Expected)+")")
	}
	for k, w := range watched[min(1, len(watched)):] {
		m, e := reportjson.WatchedMetric(row, k+1, w)
		cells = append(cells, expectedCount.text(m.Expected(e)*n)+" ("+zText(m, c, e)+")")
	}
	return cells
}

func zText(m stats.Metric, c *stats.Counters, e stats.Expected) string {
	zs, ok := m.Z(c, e)
	if !ok {
		return "z n/a"
	}
	return "z " + zScore.text(zs)
}

// subRows are the lines under row: its replicates' spread and its closed forms, when it has them.
func subRows(row *stats.Row, r stats.Report) [][]string {
	var rows [][]string
	if len(row.Replicates) > 1 {
		rows = append(rows, spreadCells(row))
	}
	if row.Expected != nil {
		rows = append(rows, expectedCells(row, reportjson.Watched(r)))
	}
	return rows
}

// spreadCells are the replicates' mean of each metric with its 95% interval.
func spreadCells(row *stats.Row) []string {
	n := float64(row.Jobs) / float64(len(row.Replicates))
	label := strings.Replace(spreadRowLabel, "n replicates", human.Count(int64(len(row.Replicates)), "replicate"), 1)
	cells := []string{"  " + label + " [95% t interval]"}
	for i, m := range stats.Metrics() {
		s := reportjson.SpreadOf(m, row.Replicates)
		style, scaled := metricStyle(i)
		if scaled {
			s.Value, s.Lo, s.Hi = s.Value*n, s.Lo*n, s.Hi*n
		}
		cells = append(cells, style.text(s.Value)+bounds(style, s.Lo, s.Hi))
	}
	return cells
}

func writeTable(w io.Writer, r stats.Report, st tableStyle) error {
	title := reportTitle(r.Params)
	if r.ShowCI {
		title += "; [lo, hi]: 95% intervals"
	}
	cs := reportColumns(r)
	header := cs.header()
	t := newTable(w, st, numberColumns(max(10, len(header)), 1), 1)
	t.Header(header)
	for i := range r.Rows {
		row := &r.Rows[i] // by index: a Row's counters are 89 KB
		for _, cells := range append([][]string{cs.cells(row)}, subRows(row, r)...) {
			for len(cells) < len(header) {
				cells = append(cells, "")
			}
			t.Append(cells)
		}
	}
	if err := writeTitled(w, st, title, t, ""); err != nil || r.Delivery == nil {
		return err
	}
	return writeByStep(w, r, st)
}

// byStepHeading heads the delivery model's second table.
const byStepHeading = "Side effects repeated, by step"

// The labels of the rows under a strategy's: closed forms, and replicates' means.
const (
	expectedRowLabel = "expected (z)"
	spreadRowLabel   = "mean of n replicates"
)

// writeByStep is the delivery model's table of side effects repeated a step.
func writeByStep(w io.Writer, r stats.Report, st tableStyle) error {
	header := []string{byStepHeading}
	align := []alignment{alignLeft}
	for i := range r.Rows {
		header = append(header, r.Rows[i].ID)
		align = append(align, alignRight)
	}
	fmt.Fprintln(w)
	t := newTable(w, st, align, 1)
	t.Header(header)
	for i, name := range r.Delivery.StepNames {
		cells := []string{name}
		for j := range r.Rows {
			cells = append(cells, human.Group(r.Rows[j].RepeatedByStep[i]))
		}
		t.Append(cells)
	}
	return t.Render()
}

// field is one named value of a flat row, in output order.
type field struct {
	key   string
	value any
}

// rowFields flattens a row for csv and json (reportjson.Row).
func rowFields(row *stats.Row, r stats.Report) []field {
	var f []field
	for _, x := range reportjson.Row(row, r) {
		f = append(f, field{x.Key, x.Value})
	}
	return f
}

// text formats a field value for csv: raw numbers, shortest form.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case stats.Wide:
		return x.String()
	case durationValue:
		return x.goText()
	case windowValue:
		return x.goText()
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func writeCSV(w io.Writer, r stats.Report) error {
	rows := make([][]field, len(r.Rows))
	for i := range r.Rows {
		rows[i] = append(rowFields(&r.Rows[i], r), stepFields(r)...)
	}
	return writeFields(w, rows)
}

// stepFields are each step's parameters as csv columns, for steps from a file.
func stepFields(r stats.Report) []field {
	if r.StepList == nil {
		return nil
	}
	var f []field
	for i, st := range *r.StepList {
		n := "step_" + strconv.Itoa(i+1) + "_"
		for _, s := range decl.EchoedStepSettings() {
			f = append(f, field{n + s.Echo, st.Lookup(s.Echo)})
		}
	}
	return f
}

// csvCell is v as a csv cell, text a spreadsheet would take for a formula
// (=, +, -, @, tab, CR first; OWASP) with a ' in front, numbers unchanged.
func csvCell(v any) string {
	t := text(v)
	if _, ok := v.(string); !ok || t == "" || !strings.ContainsRune("=+-@\t\r", rune(t[0])) {
		return t
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return t
	}
	return "'" + t
}

// writeFields writes rows of fields as csv, the first row's keys as the header.
func writeFields(w io.Writer, rows [][]field) error {
	return writeFieldRows(w, len(rows), func(i int) []field { return rows[i] })
}

// writeFieldRows writes n rows of fields (row(i)) as csv, a line at a time.
func writeFieldRows(w io.Writer, n int, row func(int) []field) error {
	cw := csv.NewWriter(w)
	for i := range n {
		fields := row(i)
		keys, vals := make([]string, len(fields)), make([]string, len(fields))
		for j, f := range fields {
			keys[j], vals[j] = csvCell(f.key), csvCell(f.value)
		}
		if i == 0 {
			if err := cw.Write(keys); err != nil {
				return err
			}
		}
		if err := cw.Write(vals); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// object writes fields as one JSON object, keys in order (reportjson.Object).
func object(fields []field) (json.RawMessage, error) {
	return reportjson.Object(mapped(fields, func(x field) reportjson.Field {
		return reportjson.Field{Key: x.key, Value: x.value}
	}))
}

// estimateFields are e as name, name_lo and name_hi (null when undefined).
func estimateFields(name string, e schema.Estimate) []field {
	return []field{{name, reportjson.NaNNull(e.Value)}, {name + "_lo", reportjson.NaNNull(e.Lo)}, {name + "_hi", reportjson.NaNNull(e.Hi)}}
}

// objects is each of xs as a json object of its fields ([] for none).
func objects[T any](xs []T, fields func(T) []field) ([]json.RawMessage, error) {
	out := []json.RawMessage{}
	for _, x := range xs {
		o, err := object(fields(x))
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// titledRows writes a title and json rows, as the presets and race print them.
func titledRows(w io.Writer, title string, rows [][]field) error {
	out := struct {
		Title string            `json:"title"`
		Rows  []json.RawMessage `json:"rows"`
	}{Title: title}
	for _, f := range rows {
		o, err := object(f)
		if err != nil {
			return err
		}
		out.Rows = append(out.Rows, o)
	}
	return reportjson.WriteIndented(w, out)
}

// mapped is f of each of xs, in order.
func mapped[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// appendNew appends v to s unless s holds it already.
func appendNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
