// Package render presents what package stats computes: tables (tablewriter),
// markdown, csv, json, html pages and plots (gonum/plot). It computes no
// statistics of its own, and it is the only package that imports tablewriter
// or gonum/plot.
package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/retrysim/retrysim/stats"
)

// watchedOf are r's watched steps, each a duplicate column; a report that
// names none still has the duplicate_users column every output carries.
func watchedOf(r stats.Report) []stats.Watch {
	if len(r.Watched) == 0 {
		return []stats.Watch{{}}
	}
	return r.Watched
}

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

// seconds formats a duration in seconds for people: 0.1 s, 2.35 s, and
// "> 5011872 s" past the histogram's range.
func seconds(x float64) string {
	switch {
	case x != x: // NaN: nothing counted
		return "-"
	case math.IsInf(x, 1):
		return "> " + sig(stats.Top()) + " s"
	}
	return sig(x) + " s"
}

// quantileField is a completion quantile for csv and json: the number of
// seconds, null when nothing was counted, and past the histogram's range
// the least it can be, stats.Top (5011872.336272715), which no quantile
// within the range equals (each is its bucket's middle); the columns
// completion_past_range and failed_completion_past_range count the jobs
// there.
func quantileField(x float64) any {
	if math.IsInf(x, 1) {
		return stats.Top()
	}
	return nanNull(x)
}

// deliveryCells are the delivery model's columns of a row.
func deliveryCells(row stats.Row) []string {
	c := row.Counters
	return []string{
		toFixed(float64(c.Deliveries)/float64(c.Jobs), 3),
		group(c.LostWork),
		quantiles(&c.Completion),
		quantiles(&c.FailedCompletion),
	}
}

// quantiles formats a histogram's p50, p95 and p99 for people.
func quantiles(h *stats.Histogram) string {
	return seconds(h.Quantile(0.5)) + " / " + seconds(h.Quantile(0.95)) + " / " + seconds(h.Quantile(0.99))
}

// count formats an expected or interval count of jobs or side effects, "-"
// for none (NaN: a row of no jobs).
func count(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return group(int64(math.Round(x)))
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
	e := make([]stats.Estimate, len(stats.Metrics()))
	for i, m := range stats.Metrics() {
		e[i] = m.Estimate(row)
	}
	cells[1] += fmt.Sprintf(" [%s, %s]", toFixed(100*e[0].Lo, 3), toFixed(100*e[0].Hi, 3))
	cells[2] += fmt.Sprintf(" [%s, %s]", count(e[1].Lo*n), count(e[1].Hi*n))
	cells[3] += fmt.Sprintf(" [%s, %s]", toFixed(e[2].Lo, 3), toFixed(e[2].Hi, 3))
	cells[4] += fmt.Sprintf(" [%s, %s]", count(e[3].Lo*n), count(e[3].Hi*n))
	for k, w := range watched {
		d := c.WatchedRate(k, w)
		cells[5+k] += fmt.Sprintf(" [%s, %s]", count(d.Lo*n), count(d.Hi*n))
	}
	return cells
}

// expectedCells are the closed forms under a row, each with its z-score;
// the watched steps after the first follow the metrics.
func expectedCells(row stats.Row, watched []stats.Watch) []string {
	c := row.Counters
	n := float64(c.Jobs)
	cells := []string{"  expected (z)"}
	for i, m := range stats.Metrics() {
		x := m.Expected(*row.Expected)
		var s string
		switch i {
		case 0:
			s = toFixed(100*x, 3) + "%"
		case 2:
			s = toFixed(x, 2)
		default:
			s = strconv.FormatFloat(x*n, 'f', 1, 64)
		}
		cells = append(cells, s+" ("+zText(m, c, *row.Expected)+")")
	}
	for k, w := range watched[min(1, len(watched)):] {
		m, e := watchedMetric(row, k+1, w)
		x := m.Expected(e)
		cells = append(cells, strconv.FormatFloat(x*n, 'f', 1, 64)+" ("+zText(m, c, e)+")")
	}
	return cells
}

// watchedMetric is the duplicate_rate metric of the k-th watched step w, and
// the expectations with its duplicate rate in DuplicateRate, for the
// columns of a watched step after the first.
func watchedMetric(row stats.Row, k int, w stats.Watch) (stats.Metric, stats.Expected) {
	m := stats.Metrics()[len(stats.Metrics())-1] // duplicate_rate
	m.Name += "_step_" + strconv.Itoa(w.Step+1)
	m.Estimate = func(r stats.Row) stats.Estimate { return r.WatchedRate(k, w) }
	var e stats.Expected
	if row.Expected != nil {
		e = *row.Expected
		if k < len(e.DuplicateRates) {
			e.DuplicateRate = e.DuplicateRates[k]
		}
	}
	return m, e
}

func zText(m stats.Metric, c stats.Counters, e stats.Expected) string {
	zs, ok := m.Z(c, e)
	if !ok {
		return "z n/a"
	}
	return "z " + strconv.FormatFloat(zs, 'f', 2, 64)
}

// spreadCells are the replicates' mean ± standard deviation under a row.
func spreadCells(row stats.Row) []string {
	n := float64(row.Jobs) / float64(len(row.Replicates))
	cells := []string{fmt.Sprintf("  mean ± sd of %d", len(row.Replicates))}
	for i, m := range stats.Metrics() {
		s := m.SpreadOf(row.Replicates)
		switch i {
		case 0:
			cells = append(cells, fmt.Sprintf("%s%% ± %s", toFixed(100*s.Mean, 3), toFixed(100*s.SD, 3)))
		case 2:
			cells = append(cells, fmt.Sprintf("%s ± %s", toFixed(s.Mean, 2), toFixed(s.SD, 2)))
		default:
			cells = append(cells, fmt.Sprintf("%s ± %s", strconv.FormatFloat(s.Mean*n, 'f', 1, 64), strconv.FormatFloat(s.SD*n, 'f', 1, 64)))
		}
	}
	return cells
}

func writeTable(w io.Writer, r stats.Report, st tableStyle) error {
	title := reportTitle(r.Params)
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

// writeByStep is the delivery model's second table: the side effects each
// step repeated, one column a strategy.
func writeByStep(w io.Writer, r stats.Report, st tableStyle) error {
	header := []string{"Side effects repeated, by step"}
	align := []tw.Align{tw.AlignLeft}
	for _, row := range r.Rows {
		header = append(header, row.ID)
		align = append(align, tw.AlignRight)
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

// rowFields flattens a row for csv and json: counters, then every metric with its
// interval, then expectations and replicate spreads when present.
func rowFields(row stats.Row, r stats.Report) []field {
	c := row.Counters
	f := []field{
		{"strategy", row.ID}, {"label", row.Label},
		{"jobs", c.Jobs}, {"failed", c.Failed}, {"calls", c.Calls},
		{"repeated_steps", c.RepeatedSteps}, {"duplicate_users", c.DuplicateUsers},
		{"calls_sq", c.CallsSq}, {"repeated_steps_sq", c.RepeatedSq},
	}
	for _, m := range stats.Metrics() {
		e := m.Estimate(row)
		f = append(f, estimateFields(m.Name, e, c.Jobs)...)
	}
	if len(r.Watched) > 1 { // each watched step side by side, the first again
		for k, w := range watchedOf(r) {
			m, _ := watchedMetric(row, k, w)
			e := m.Estimate(row)
			n := "_step_" + strconv.Itoa(w.Step+1)
			f = append(f, field{"duplicate_users" + n, c.Twice(k, w)})
			f = append(f, estimateFields(m.Name, e, c.Jobs)...)
		}
	}
	if d := r.Delivery; d != nil {
		f = append(f,
			field{"deliveries", c.Deliveries}, field{"deliveries_per_job", nanNull(float64(c.Deliveries) / float64(c.Jobs))},
			field{"lost_work", c.LostWork},
			field{"completion_p50", quantileField(c.Completion.Quantile(0.5))},
			field{"completion_p95", quantileField(c.Completion.Quantile(0.95))},
			field{"completion_p99", quantileField(c.Completion.Quantile(0.99))},
			field{"completion_past_range", c.Completion.PastRange()},
			field{"failed_completion_p50", quantileField(c.FailedCompletion.Quantile(0.5))},
			field{"failed_completion_p95", quantileField(c.FailedCompletion.Quantile(0.95))},
			field{"failed_completion_p99", quantileField(c.FailedCompletion.Quantile(0.99))},
			field{"failed_completion_past_range", c.FailedCompletion.PastRange()})
		for i := range d.StepNames {
			f = append(f, field{"repeated_step_" + strconv.Itoa(i+1), c.RepeatedByStep[i]})
		}
	}
	if row.Expected != nil {
		for _, m := range stats.Metrics() {
			x := m.Expected(*row.Expected)
			var zv any // null when undefined
			if zs, ok := m.Z(c, *row.Expected); ok {
				zv = zs
			}
			f = append(f, field{"expected_" + m.Name, x}, field{"z_" + m.Name, zv})
		}
		if len(r.Watched) > 1 {
			for k, w := range watchedOf(r) {
				m, e := watchedMetric(row, k, w)
				var zv any
				if zs, ok := m.Z(c, e); ok {
					zv = zs
				}
				f = append(f, field{"expected_" + m.Name, m.Expected(e)}, field{"z_" + m.Name, zv})
			}
		}
	}
	if len(row.Replicates) > 1 {
		for _, m := range stats.Metrics() {
			s := m.SpreadOf(row.Replicates)
			f = append(f, field{m.Name + "_mean", s.Mean}, field{m.Name + "_sd", s.SD})
		}
	}
	return f
}

// estimateFields are an estimate's value and interval, named name,
// name_lo and name_hi: null, an empty csv cell, for a row of no jobs
// (a slice may hold none), whose rates are not numbers.
func estimateFields(name string, e stats.Estimate, jobs int64) []field {
	if jobs == 0 {
		return []field{{name, nil}, {name + "_lo", nil}, {name + "_hi", nil}}
	}
	return []field{{name, e.Value}, {name + "_lo", e.Lo}, {name + "_hi", e.Hi}}
}

// nanNull keeps NaN (nothing counted, or a rate of no jobs) out of json,
// which cannot hold it: null, and an empty csv cell.
func nanNull(x float64) any {
	if x != x {
		return nil
	}
	return x
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
// the ones no flag shows. A step's own attempts, key mode and backoff are
// empty where it keeps the run's.
func stepFields(r stats.Report) []field {
	if r.StepList == nil {
		return nil
	}
	var f []field
	for i, st := range *r.StepList {
		n := "step_" + strconv.Itoa(i+1) + "_"
		f = append(f, field{n + "p_fail", st.PFail}, field{n + "lost_reply", st.LostReply},
			field{n + "latency", st.Latency}, field{n + "keys", strconv.FormatBool(st.Keys)},
			field{n + "attempts", ownAttempts(st.Attempts)}, field{n + "key_mode", st.KeyMode}, field{n + "backoff", st.Backoff})
	}
	return f
}

// ownAttempts is a step's own attempts as a csv field: empty where the step
// keeps the run's, as its key mode and backoff are.
func ownAttempts(n int) any {
	if n == 0 {
		return nil
	}
	return int64(n)
}

// writeFields writes rows of fields as csv, the first row's keys as the header.
func writeFields(w io.Writer, rows [][]field) error {
	var lines [][]string
	for i, fields := range rows {
		if i == 0 {
			keys := make([]string, len(fields))
			for j, f := range fields {
				keys[j] = f.key
			}
			lines = append(lines, keys)
		}
		vals := make([]string, len(fields))
		for j, f := range fields {
			vals[j] = text(f.value)
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

// object writes fields as one JSON object, keys in order.
func object(fields []field) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSON(w io.Writer, r stats.Report) error {
	var rows []json.RawMessage
	for _, row := range r.Rows {
		o, err := object(rowFields(row, r))
		if err != nil {
			return err
		}
		rows = append(rows, o)
	}
	if r.StepList != nil {
		return writeIndented(w, struct {
			fileParams
			Rows []json.RawMessage `json:"rows"`
		}{fileParams{Params: r.Params, Watched: r.Watched}, rows})
	}
	return writeIndented(w, struct {
		stats.Params
		Rows []json.RawMessage `json:"rows"`
	}{r.Params, rows})
}

// fileParams are the parameters of a run whose steps come from a file. Its
// two nil fields hide Params' p_fail and lost_reply, which no step may have
// used: step_params carries what each step did, and watched names the
// watched steps, in the order of their columns.
type fileParams struct {
	stats.Params
	PFail     *float64      `json:"p_fail,omitempty"`
	LostReply *float64      `json:"lost_reply,omitempty"`
	Watched   []stats.Watch `json:"watched"`
}

// writeIndented writes v as indented json, whole or not at all.
func writeIndented(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
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
	return writeIndented(w, out)
}
