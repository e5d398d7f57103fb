package results

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
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

// SweepRow is one strategy at one grid point.
type SweepRow struct {
	Point Point
	Row
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
	return append(f, r.Row.fields(Report{})...)
}

func writeSweepCSV(w io.Writer, s Sweep) error {
	rows := make([][]field, len(s.Rows))
	for i, row := range s.Rows {
		rows[i] = row.fields()
	}
	return writeFields(w, rows)
}

func writeSweepJSON(w io.Writer, s Sweep) error {
	swept := make([]string, len(s.Swept))
	for i, a := range s.Swept {
		swept[i] = Axes[a].Name
	}
	out := struct {
		Sweep
		Swept  []string          `json:"swept"`
		Metric string            `json:"metric"`
		Rows   []json.RawMessage `json:"rows"`
	}{Sweep: s, Swept: swept, Metric: s.Metric.Name}
	for _, row := range s.Rows {
		o, err := object(row.fields())
		if err != nil {
			return err
		}
		out.Rows = append(out.Rows, o)
	}
	return writeIndented(w, out)
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
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	}
	title := fmt.Sprintf("%s, 95%% intervals; %s", s.Metric.Label, s.run())
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
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
			cells = append(cells, metricText(s.Metric, s.Metric.Estimate(row.Row)))
		}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	return t.Render()
}
