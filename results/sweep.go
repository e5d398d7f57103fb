package results

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

	"github.com/olekukonko/tablewriter"
)

// Axes are the parameters a sweep can vary, in grid order, with the words
// that label them.
var Axes = []struct{ Name, Label string }{
	{"p_fail", "Probability that a call fails"},
	{"lost_reply", "Probability that the watched step's reply is lost"},
	{"attempts", "Attempts a retry allows"},
	{"jobs", "Jobs simulated"},
}

// Point is one grid point of a sweep: a value for every axis, in Axes order.
type Point [4]float64

// SweepRow is one strategy at one grid point. It keeps the Part 5 model's
// counters only (a sweep runs no delivery model), so that a grid of thousands
// of points holds a hundred bytes a row, not Counters' kilobytes.
type SweepRow struct {
	Point Point
	// ID is the strategy's short name; Label the name people read.
	ID, Label string
	// NoRepeats is Row.NoRepeats.
	NoRepeats bool
	Core
}

// Core are the counters of the Part 5 model, the rates' inputs: a hundred
// bytes, where the delivery model's histograms and per-step counts make
// Counters kilobytes.
type Core struct {
	Jobs, Failed, Calls, RepeatedSteps, DuplicateUsers, SideEffects int64
	CallsSq, RepeatedSq                                             Wide
}

// CoreOf is c's Part 5 counters.
func CoreOf(c Counters) Core {
	return Core{c.Jobs, c.Failed, c.Calls, c.RepeatedSteps, c.DuplicateUsers, c.SideEffects, c.CallsSq, c.RepeatedSq}
}

// Row is the sweep row as a Row, for the metrics and the flat fields.
func (r SweepRow) Row() Row {
	c := r.Core
	return Row{ID: r.ID, Label: r.Label, NoRepeats: r.NoRepeats, Counters: Counters{
		Jobs: c.Jobs, Failed: c.Failed, Calls: c.Calls, RepeatedSteps: c.RepeatedSteps, DuplicateUsers: c.DuplicateUsers,
		SideEffects: c.SideEffects, CallsSq: c.CallsSq, RepeatedSq: c.RepeatedSq,
	}}
}

// Sweep is a whole sweep: the fixed parameters, which axes vary, the metric
// the table formats and plots show, and a row per point and strategy.
type Sweep struct {
	Scenario string `json:"scenario"`
	RNG      string `json:"rng"`
	Seed     uint64 `json:"seed"`
	Engine   string `json:"engine"`
	// Swept are indexes into Axes of the parameters that take several values.
	Swept  []int      `json:"-"`
	Metric Metric     `json:"-"`
	Rows   []SweepRow `json:"-"`
	// Strategies are the row IDs in the order asked for, for columns and legends.
	Strategies []string `json:"strategies"`
}

// run names what drew the numbers, for titles: the generator, the seed and
// the engine (skip and plain agree in distribution, not draw for draw).
func (s Sweep) run() string { return fmt.Sprintf("%s, seed %d, %s engine", s.RNG, s.Seed, s.Engine) }

// WriteSweep renders s: long-format csv or json with every counter and
// interval, or a table or markdown pivot of s.Metric.
func WriteSweep(w io.Writer, s Sweep, format string) error {
	switch format {
	case "table", "markdown":
		return writePivot(w, s, format == "markdown")
	case "csv":
		return writeSweepCSV(w, s)
	case "json":
		return writeSweepJSON(w, s)
	}
	return CheckFormat(format)
}

// fields are a row's grid point, then the row's own fields (jobs among them).
func (r SweepRow) fields() []field {
	f := []field{
		{Axes[0].Name, r.Point[0]},
		{Axes[1].Name, r.Point[1]},
		{Axes[2].Name, int64(r.Point[2])},
	}
	return append(f, r.Row().fields(Report{})...)
}

// writeSweepCSV writes a line a row as it goes, so that a large grid's
// output is not held twice, as fields and as text.
func writeSweepCSV(w io.Writer, s Sweep) error {
	cw := csv.NewWriter(w)
	for i, row := range s.Rows {
		fields := row.fields()
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
func writeSweepJSON(w io.Writer, s Sweep) error {
	swept := make([]string, len(s.Swept))
	for i, a := range s.Swept {
		swept[i] = Axes[a].Name
	}
	head, err := json.MarshalIndent(struct {
		Sweep
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
		o, err := object(row.fields())
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
func metricText(m Metric, e Estimate) string {
	if m.percent() {
		return fmt.Sprintf("%s%% [%s, %s]", sig(100*e.Value), sig(100*e.Lo), sig(100*e.Hi))
	}
	return fmt.Sprintf("%s [%s, %s]", sig(e.Value), sig(e.Lo), sig(e.Hi))
}

// percent reports whether m is a share, shown in percent by tables and plots.
func (m Metric) percent() bool { return strings.HasSuffix(m.Name, "_rate") || m.Name == "succeeded" }

// unit is what m's values are multiplied by and followed with for people.
func (m Metric) unit() (float64, string) {
	if m.percent() {
		return 100, "%"
	}
	return 1, ""
}

// axisText formats a grid value: probabilities and counts, shortest form.
func axisText(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writePivot shows s.Metric with one line a grid point and one column a strategy.
func writePivot(w io.Writer, s Sweep, markdown bool) error {
	header := []string{}
	for _, a := range s.Swept {
		header = append(header, Axes[a].Name)
	}
	header = append(header, s.Strategies...)
	opts := tableOptions(markdown, numberColumns(len(header), 0))
	title := fmt.Sprintf("%s, 95%% intervals; %s", s.Metric.Label, s.run())
	if markdown {
		title = "**" + title + "**\n"
	}
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(header)
	per := len(s.Strategies)
	for i := 0; i < len(s.Rows); i += per {
		var cells []string
		for _, a := range s.Swept {
			cells = append(cells, axisText(s.Rows[i].Point[a]))
		}
		for _, row := range s.Rows[i : i+per] {
			cells = append(cells, metricText(s.Metric, s.Metric.Estimate(row.Row())))
		}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	return t.Render()
}
