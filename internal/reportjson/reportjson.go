// Package reportjson writes a report's rows as csv and json carry them (every
// counter, every metric with its interval, raw) and a report's json
// document. It is the one writer of both: package internal/render writes
// the command's csv and json through it, and the root package's
// Report.MarshalJSON too, which is why it imports no presentation library.
package reportjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Field is one named value of a flat row, in output order.
type Field struct {
	Key   string
	Value any
}

// Watched are r's watched steps, each a duplicate column; one for none.
func Watched(r stats.Report) []stats.Watch {
	if len(r.Watched) == 0 {
		return []stats.Watch{{}}
	}
	return r.Watched
}

// QuantileField is a completion quantile in seconds for csv and json: null
// when nothing was counted, hist.Top past the histogram's range.
func QuantileField(x float64) any {
	if math.IsInf(x, 1) {
		return hist.Top()
	}
	return NaNNull(x)
}

// WatchedMetric is the duplicate_rate metric of the k-th watched step w, and
// the expectations with its duplicate rate in DuplicateRate.
func WatchedMetric(row *stats.Row, k int, w stats.Watch) (stats.Metric, stats.Expected) {
	m := stats.Metrics()[len(stats.Metrics())-1] // duplicate_rate
	m.Name += "_step_" + strconv.Itoa(w.Step+1)
	m.Estimate = func(c *stats.Counters, _ bool) schema.Estimate { return c.WatchedRate(k, w) }
	var e stats.Expected
	if row.Expected != nil {
		e = *row.Expected
		if k < len(e.DuplicateRates) {
			e.DuplicateRate = e.DuplicateRates[k]
		}
	}
	return m, e
}

// Row flattens a row for csv and json: counters, metrics, expectations, spreads.
func Row(row *stats.Row, r stats.Report) []Field {
	c := &row.Counters
	f := []Field{
		{"strategy", row.ID}, {"label", row.Label},
		{"jobs", c.Jobs}, {"failed", c.Failed}, {"calls", c.Calls},
		{"repeated_steps", c.RepeatedSteps}, {"duplicate_users", c.DuplicateUsers},
		{"calls_sq", c.CallsSq}, {"repeated_steps_sq", c.RepeatedSq},
	}
	for _, m := range stats.Metrics() {
		e := m.Estimate(c, row.NoRepeats)
		f = append(f, estimateFields(m.Name, e, c.Jobs)...)
	}
	if len(r.Watched) > 1 { // each watched step side by side, the first again
		for k, w := range Watched(r) {
			m, _ := WatchedMetric(row, k, w)
			e := m.Estimate(c, row.NoRepeats)
			n := "_step_" + strconv.Itoa(w.Step+1)
			f = append(f, Field{"duplicate_users" + n, c.Twice(k, w)})
			f = append(f, estimateFields(m.Name, e, c.Jobs)...)
		}
	}
	if d := r.Delivery; d != nil {
		f = append(f,
			Field{"deliveries", c.Deliveries}, Field{"deliveries_per_job", NaNNull(float64(c.Deliveries) / float64(c.Jobs))},
			Field{"lost_work", c.LostWork},
			Field{"completion_p50", QuantileField(c.Completion.QuantileSeconds(0.5))},
			Field{"completion_p95", QuantileField(c.Completion.QuantileSeconds(0.95))},
			Field{"completion_p99", QuantileField(c.Completion.QuantileSeconds(0.99))},
			Field{"completion_past_range", c.Completion.PastRange()},
			Field{"failed_completion_p50", QuantileField(c.FailedCompletion.QuantileSeconds(0.5))},
			Field{"failed_completion_p95", QuantileField(c.FailedCompletion.QuantileSeconds(0.95))},
			Field{"failed_completion_p99", QuantileField(c.FailedCompletion.QuantileSeconds(0.99))},
			Field{"failed_completion_past_range", c.FailedCompletion.PastRange()})
		for i := range d.StepNames {
			f = append(f, Field{"repeated_step_" + strconv.Itoa(i+1), c.RepeatedByStep[i]})
		}
	}
	if row.Expected != nil {
		expected := func(m stats.Metric, e stats.Expected) {
			var zv any // null when undefined
			if zs, ok := m.Z(c, e); ok {
				zv = zs
			}
			f = append(f, Field{"expected_" + m.Name, m.Expected(e)}, Field{"z_" + m.Name, zv})
		}
		for _, m := range stats.Metrics() {
			expected(m, *row.Expected)
		}
		if len(r.Watched) > 1 {
			for k, w := range Watched(r) {
				expected(WatchedMetric(row, k, w))
			}
		}
	}
	if len(row.Replicates) > 1 {
		for _, m := range stats.Metrics() {
			s := SpreadOf(m, row.Replicates)
			f = append(f, Field{m.Name + "_mean", s.Value}, Field{m.Name + "_sd", s.SD})
		}
	}
	return f
}

// estimateFields are e as name, name_lo and name_hi: null for a row of no jobs.
func estimateFields(name string, e schema.Estimate, jobs int64) []Field {
	if jobs == 0 {
		return []Field{{name, nil}, {name + "_lo", nil}, {name + "_hi", nil}}
	}
	return []Field{{name, e.Value}, {name + "_lo", e.Lo}, {name + "_hi", e.Hi}}
}

// NaNNull keeps NaN out of json, which cannot hold it: null, an empty csv cell.
func NaNNull(x float64) any {
	if x != x {
		return nil
	}
	return x
}

// Object writes fields as one JSON object, keys in order.
func Object(fields []Field) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// WriteReport writes r as json: its parameters, then its rows (Row).
func WriteReport(w io.Writer, r stats.Report) error {
	var rows []json.RawMessage
	for i := range r.Rows {
		o, err := Object(Row(&r.Rows[i], r))
		if err != nil {
			return err
		}
		rows = append(rows, o)
	}
	if r.StepList != nil {
		return WriteIndented(w, struct {
			fileParams
			Rows []json.RawMessage `json:"rows"`
		}{fileParams{Params: r.Params, Watched: r.Watched}, rows})
	}
	if r.EchoWatched {
		watched := make([]stats.EchoWatch, len(r.Watched))
		for i, w := range r.Watched {
			watched[i] = stats.EchoWatch{Step: w.Step + 1, Name: w.Name, Label: w.Label}
		}
		return WriteIndented(w, struct {
			stats.Params
			Watched []stats.EchoWatch `json:"watched"`
			Rows    []json.RawMessage `json:"rows"`
		}{r.Params, watched, rows})
	}
	return WriteIndented(w, struct {
		stats.Params
		Rows []json.RawMessage `json:"rows"`
	}{r.Params, rows})
}

// fileParams are the parameters of a run whose steps come from a file.
type fileParams struct {
	stats.Params
	PFail     *float64      `json:"p_fail,omitempty"`
	LostReply *float64      `json:"lost_reply,omitempty"`
	Watched   []stats.Watch `json:"watched"`
}

// WriteIndented writes v as indented json, whole or not at all.
func WriteIndented(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
