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
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/stats"
)

// watchedOf are r's watched steps, each a duplicate column (reportjson.Watched).
func watchedOf(r stats.Report) []stats.Watch { return reportjson.Watched(r) }

// header is the column titles of the table formats.
func header(r stats.Report) []string {
	h := []string{"Strategy", "Succeeded", "Failed jobs", "Calls per job", "Steps done again"}
	for _, w := range watchedOf(r) {
		h = append(h, w.Label)
	}
	if r.Delivery != nil {
		h = append(h, "Deliveries per job", "Lost work", "Time p50 / p95 / p99, succeeded jobs", "Time p50 / p95 / p99, failed jobs")
	}
	return h
}

// seconds formats a duration in seconds for people: 0.1000 s, 2.350 s, and
// "> 8,388,608 s" past the histogram's range.
func seconds(x float64) string {
	if math.IsInf(x, 1) {
		return "> " + timeSeconds.text(schema.Top())
	}
	return timeSeconds.text(x) // "-" for NaN: nothing counted
}

// deliveryCells are the delivery model's columns of a row.
func deliveryCells(row stats.Row) []string {
	c := row.Counters
	return []string{
		perJob.text(float64(c.Deliveries) / float64(c.Jobs)),
		group(c.LostWork),
		quantiles(&c.Completion),
		quantiles(&c.FailedCompletion),
	}
}

// quantiles formats a histogram's p50, p95 and p99 for people.
func quantiles(h *schema.Histogram) string {
	return seconds(h.QuantileSeconds(0.5)) + " / " + seconds(h.QuantileSeconds(0.95)) + " / " + seconds(h.QuantileSeconds(0.99))
}

// cells are one row formatted for people, as the article prints them, with
// intervals when ci is set; watched are the run's watched steps.
func cells(row stats.Row, ci bool, watched []stats.Watch) []string {
	c := row.Counters
	n := float64(c.Jobs)
	cells := []string{
		row.Label,
		percentOf(c.Jobs-c.Failed, c.Jobs),
		group(c.Failed),
		roundJS(c.CallsPerJob(), 2),
		group(c.RepeatedSteps),
	}
	for k, w := range watched {
		cells = append(cells, group(c.Twice(k, w)))
	}
	if !ci {
		return cells
	}
	e := make([]schema.Estimate, len(stats.Metrics()))
	for i, m := range stats.Metrics() {
		e[i] = m.Estimate(row)
	}
	cells[1] += bounds(jobShare, e[0].Lo, e[0].Hi)
	cells[2] += bounds(wholeCount, e[1].Lo*n, e[1].Hi*n)
	cells[3] += bounds(callsPerJob, e[2].Lo, e[2].Hi)
	cells[4] += bounds(wholeCount, e[3].Lo*n, e[3].Hi*n)
	for k, w := range watched {
		d := c.WatchedRate(k, w)
		cells[5+k] += bounds(wholeCount, d.Lo*n, d.Hi*n)
	}
	return cells
}

// bounds is an interval's " [lo, hi]" in the column's style, always shown
// (a -ci interval of no width says so).
func bounds(s numberStyle, lo, hi float64) string {
	l, h := s.bounds(lo, hi)
	return " [" + l + ", " + h + "]"
}

// metricStyle is the table's style of the i-th of stats.Metrics' closed
// forms and spreads: succeeded in percent, calls per job per job, the rest
// counts over the row's jobs (perJobs: the rate times the jobs).
func metricStyle(i int) (s numberStyle, perJobs bool) {
	switch i {
	case 0:
		return jobShare, false
	case 2:
		return callsPerJob, false
	}
	return expectedCount, true
}

// expectedCells are the closed forms under a row, each with its z-score;
// the watched steps after the first follow the metrics.
func expectedCells(row stats.Row, watched []stats.Watch) []string {
	c := row.Counters
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
		m, e := watchedMetric(row, k+1, w)
		cells = append(cells, expectedCount.text(m.Expected(e)*n)+" ("+zText(m, c, e)+")")
	}
	return cells
}

// watchedMetric is the duplicate_rate metric of the k-th watched step w
// (reportjson.WatchedMetric).
func watchedMetric(row stats.Row, k int, w stats.Watch) (stats.Metric, stats.Expected) {
	return reportjson.WatchedMetric(row, k, w)
}

func zText(m stats.Metric, c stats.Counters, e stats.Expected) string {
	zs, ok := m.Z(c, e)
	if !ok {
		return "z n/a"
	}
	return "z " + zScore.text(zs)
}

// spreadCells are, under a row, the replicates' mean of each metric with
// the mean's 95% Student t interval, counts per replicate.
func spreadCells(row stats.Row) []string {
	n := float64(row.Jobs) / float64(len(row.Replicates))
	label := strings.Replace(spreadRowLabel, "n replicates", human.Count(int64(len(row.Replicates)), "replicate"), 1)
	cells := []string{"  " + label + " [95% t interval]"}
	for i, m := range stats.Metrics() {
		s := m.SpreadOf(row.Replicates)
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
	title = tableTitle(title, st)
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}
	t := newTable(w, st, numberColumns(max(10, len(header(r))), 1), 1)
	t.Header(header(r))
	for _, row := range r.Rows {
		main := cells(row, r.ShowCI, watchedOf(r))
		if r.Delivery != nil {
			main = append(main, deliveryCells(row)...)
		}
		rows := [][]string{main}
		if len(row.Replicates) > 1 {
			rows = append(rows, spreadCells(row))
		}
		if row.Expected != nil {
			rows = append(rows, expectedCells(row, watchedOf(r)))
		}
		for _, cells := range rows {
			for len(cells) < len(header(r)) {
				cells = append(cells, "")
			}
			t.Append(cells)
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if r.Delivery != nil {
		return writeByStep(w, r, st)
	}
	return nil
}

// byStepHeading heads the delivery model's second table.
const byStepHeading = "Side effects repeated, by step"

// The labels of the rows under a strategy's: its closed forms, and its
// replicates' means (n written as their count).
const (
	expectedRowLabel = "expected (z)"
	spreadRowLabel   = "mean of n replicates"
)

// writeByStep is the delivery model's second table: the side effects each
// step repeated, one column a strategy.
func writeByStep(w io.Writer, r stats.Report, st tableStyle) error {
	header := []string{byStepHeading}
	align := []alignment{alignLeft}
	for _, row := range r.Rows {
		header = append(header, row.ID)
		align = append(align, alignRight)
	}
	fmt.Fprintln(w)
	t := newTable(w, st, align, 1)
	t.Header(header)
	for i, name := range r.Delivery.StepNames {
		cells := []string{name}
		for _, row := range r.Rows {
			cells = append(cells, group(row.RepeatedByStep[i]))
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
func rowFields(row stats.Row, r stats.Report) []field {
	var f []field
	for _, x := range reportjson.Row(row, r) {
		f = append(f, field{x.Key, x.Value})
	}
	return f
}

// nanNull keeps NaN out of json and csv (reportjson.NaNNull).
func nanNull(x float64) any { return reportjson.NaNNull(x) }

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
	for i, row := range r.Rows {
		rows[i] = append(rowFields(row, r), stepFields(r)...)
	}
	return writeFields(w, rows)
}

// stepFields are each step's parameters as csv columns, for a run whose
// steps come from a file: csv rows carry no other parameters, and these are
// the ones no flag shows. They are the settings of
// provider.EchoedStepSettings, as the json echoes them (stats.StepParams):
// a step's own attempts, key mode and backoff are empty where it keeps the
// run's.
func stepFields(r stats.Report) []field {
	if r.StepList == nil {
		return nil
	}
	var f []field
	for i, st := range *r.StepList {
		n := "step_" + strconv.Itoa(i+1) + "_"
		for _, s := range provider.EchoedStepSettings() {
			f = append(f, field{n + s.Echo, st.Lookup(s.Echo)})
		}
	}
	return f
}

// csvCell is v as a csv cell. Text that a spreadsheet would take for a
// formula, starting with =, +, - or @ (or a tab or carriage return, as
// OWASP's CSV injection guidance lists), gets a ' in front, which a
// spreadsheet shows as text; text that is a number as a whole (-1.5) is
// left as it is, and a number value is never changed: a negative number is
// a number, and stays one for the spreadsheet.
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
	var lines [][]string
	for i, fields := range rows {
		if i == 0 {
			keys := make([]string, len(fields))
			for j, f := range fields {
				keys[j] = csvCell(f.key)
			}
			lines = append(lines, keys)
		}
		vals := make([]string, len(fields))
		for j, f := range fields {
			vals[j] = csvCell(f.value)
		}
		lines = append(lines, vals)
	}
	return writeRecords(w, lines)
}

// writeRecords writes csv lines.
func writeRecords(w io.Writer, lines [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(lines); err != nil {
		return err
	}
	return cw.Error()
}

// object writes fields as one JSON object, keys in order (reportjson.Object).
func object(fields []field) (json.RawMessage, error) {
	f := make([]reportjson.Field, len(fields))
	for i, x := range fields {
		f[i] = reportjson.Field{Key: x.key, Value: x.value}
	}
	return reportjson.Object(f)
}

// estimateFields are estimate e's value and interval as name, name_lo and
// name_hi (null when undefined), for csv and json.
func estimateFields(name string, e schema.Estimate) []field {
	return []field{{name, nanNull(e.Value)}, {name + "_lo", nanNull(e.Lo)}, {name + "_hi", nanNull(e.Hi)}}
}

// objects is each of xs as a json object of its fields (an empty list,
// not null, for none).
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

// writeJSON writes a report as json (reportjson.WriteReport).
func writeJSON(w io.Writer, r stats.Report) error { return reportjson.WriteReport(w, r) }

// writeIndented writes v as indented json, whole or not at all.
func writeIndented(w io.Writer, v any) error { return reportjson.WriteIndented(w, v) }

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
	return writeIndented(w, out)
}
