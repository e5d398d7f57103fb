package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/retrysim/retrysim/fleet"
)

// FleetReport is what `retrysim fleet` prints: a row a run and each run's
// series.
type FleetReport struct {
	Title  string
	Rows   []fleet.Summary
	Series []fleet.Point
}

// WriteFleet renders r in format (one of Formats). Only json carries the
// series; the others print the rows.
func WriteFleet(w io.Writer, r FleetReport, format string) error {
	switch format {
	case "table", "markdown":
		return writeFleetTable(w, r, format == "markdown")
	case "csv":
		rows := make([][]field, len(r.Rows))
		for i, s := range r.Rows {
			rows[i] = fleetFields(s)
		}
		return writeFields(w, rows)
	case "json":
		return writeFleetJSON(w, r)
	}
	return CheckFormat(format)
}

// fleetFields flattens a summary for csv and json: each figure with its
// interval as name, name_lo, name_hi (null when undefined).
func fleetFields(s fleet.Summary) []field {
	f := []field{{"run", s.Run}, {"replicates", int64(s.Replicates)}}
	add := func(name string, e fleet.Estimate) {
		f = append(f, field{name, nanNull(e.Value)}, field{name + "_lo", nanNull(e.Lo)}, field{name + "_hi", nanNull(e.Hi)})
	}
	add("requests", s.Requests)
	add("succeeded", s.Succeeded)
	add("goodput", s.Goodput)
	add("amplification", s.Amplification)
	add("timeouts", s.Timeouts)
	add("conflicts", s.Conflicts)
	add("duplicates", s.Duplicates)
	add("latency_p50", s.P50)
	add("latency_p95", s.P95)
	add("latency_p99", s.P99)
	add("peak_in_progress", s.PeakInProgress)
	rec := s.Recovery
	if rec.N < s.Replicates { // a replicate never recovered: so did the run
		rec = fleet.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), N: rec.N}
	}
	add("recovery_seconds", rec)
	return append(f, field{"recovered_replicates", int64(s.Recovery.N)})
}

func writeFleetJSON(w io.Writer, r FleetReport) error {
	out := struct {
		Title  string            `json:"title"`
		Rows   []json.RawMessage `json:"rows"`
		Series []json.RawMessage `json:"series"`
	}{Title: r.Title, Rows: []json.RawMessage{}, Series: []json.RawMessage{}}
	for _, s := range r.Rows {
		o, err := object(fleetFields(s))
		if err != nil {
			return err
		}
		out.Rows = append(out.Rows, o)
	}
	for _, p := range r.Series {
		o, err := object(pointFields(p))
		if err != nil {
			return err
		}
		out.Series = append(out.Series, o)
	}
	return writeIndented(w, out)
}

func pointFields(p fleet.Point) []field {
	return []field{{"run", p.Run}, {"t", int64(p.T)}, {"starts", p.Starts}, {"successes", p.Successes},
		{"retries", p.Retries}, {"timeouts", p.Timeouts}, {"conflicts", p.Conflicts}, {"in_progress", p.InProgress}}
}

// plusMinus formats an estimate for people: the mean and its interval's half
// width, the half width to two significant digits and the mean to the same
// decimals ("13.33 ±0.62", "3520 ±46"); the mean alone with one replicate or
// a zero width, "-" with none.
func plusMinus(e fleet.Estimate, scale float64, unit string) string {
	if math.IsNaN(e.Value) {
		return "-"
	}
	v, half := scale*e.Value, scale*(e.Hi-e.Lo)/2
	if math.IsNaN(half) || half <= 0 {
		return sig(v) + unit
	}
	decimals := max(0, 1-int(math.Floor(math.Log10(half))))
	return strconv.FormatFloat(v, 'f', decimals, 64) + unit + " ±" + strconv.FormatFloat(half, 'f', decimals, 64)
}

func writeFleetTable(w io.Writer, r FleetReport, markdown bool) error {
	header := []string{"Run", "Requests", "Succeeded", "Goodput /s", "Calls per request", "Timeouts", "Conflicts",
		"Duplicates", "Latency p50 / p95 / p99", "Peak in progress", "Recovery"}
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	align[0] = tw.AlignLeft
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	}
	title := r.Title
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
		title = "**" + title + "**\n"
	}
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(header)
	for _, s := range r.Rows {
		rec := plusMinus(s.Recovery, 1, " s")
		switch {
		case s.Recovery.N == 0:
			rec = "never"
		case s.Recovery.N < s.Replicates:
			rec = fmt.Sprintf("never in %d of %d", s.Replicates-s.Recovery.N, s.Replicates)
		}
		lat := fmt.Sprintf("%s / %s / %s s", sigOrDash(s.P50.Value), sigOrDash(s.P95.Value), sigOrDash(s.P99.Value))
		cells := []string{s.Run, plusMinus(s.Requests, 1, ""), plusMinus(s.Succeeded, 100, "%"), plusMinus(s.Goodput, 1, ""),
			plusMinus(s.Amplification, 1, ""), plusMinus(s.Timeouts, 1, ""), plusMinus(s.Conflicts, 1, ""),
			plusMinus(s.Duplicates, 1, ""), lat, plusMinus(s.PeakInProgress, 1, ""), rec}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	return t.Render()
}

func sigOrDash(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return sig(x)
}

// SeriesFormats are the file extensions WriteFleetSeries writes.
var SeriesFormats = []string{".csv", ".json"}

// CheckSeriesPath refuses a file name whose extension WriteFleetSeries cannot write.
func CheckSeriesPath(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv", ".json":
		return nil
	}
	return fmt.Errorf("%q: want a file name ending in .csv or .json", path)
}

// WriteFleetSeries writes the series as csv or as a json array, by ext.
func WriteFleetSeries(w io.Writer, pts []fleet.Point, ext string) error {
	rows := make([][]field, len(pts))
	for i, p := range pts {
		rows[i] = pointFields(p)
	}
	if strings.ToLower(ext) == ".csv" {
		return writeFields(w, rows)
	}
	objs := []json.RawMessage{}
	for _, f := range rows {
		o, err := object(f)
		if err != nil {
			return err
		}
		objs = append(objs, o)
	}
	return writeIndented(w, objs)
}

// PlotFleet draws each run's series in its own panel, one above the other:
// new requests (the offered load), successes (goodput), retries and timeouts
// a second, averaged over replicates. ext (".png" or ".svg") picks the encoding.
func PlotFleet(w io.Writer, title string, runs [][]fleet.Point, ext string) error {
	if len(runs) == 0 {
		return fmt.Errorf("nothing to plot")
	}
	plots := make([][]*plot.Plot, len(runs))
	lines := []struct {
		name string
		get  func(fleet.Point) float64
	}{
		{"new requests", func(p fleet.Point) float64 { return p.Starts }},
		{"successes", func(p fleet.Point) float64 { return p.Successes }},
		{"retries", func(p fleet.Point) float64 { return p.Retries }},
		{"timeouts", func(p fleet.Point) float64 { return p.Timeouts }},
	}
	for i, pts := range runs {
		p := plot.New()
		if len(pts) > 0 {
			p.Title.Text = pts[0].Run
		}
		if i == 0 {
			p.Title.Text = title + "\n" + p.Title.Text
		}
		p.X.Label.Text = "t (s)"
		p.Y.Label.Text = "a second"
		p.Legend.Top = true
		p.Legend.Left = true
		for k, l := range lines {
			xy := make(plotter.XYs, len(pts))
			for j, pt := range pts {
				xy[j] = plotter.XY{X: float64(pt.T) + 0.5, Y: l.get(pt)}
			}
			line, err := plotter.NewLine(xy)
			if err != nil {
				return fmt.Errorf("%s: %w", l.name, err)
			}
			line.Color = plotutil.Color(k)
			line.Dashes = plotutil.Dashes(k)
			line.Width = vg.Points(1.2)
			p.Add(line)
			p.Legend.Add(l.name, line)
		}
		plots[i] = []*plot.Plot{p}
	}
	width, height := 18*vg.Centimeter, vg.Length(len(runs))*7*vg.Centimeter
	var c vg.CanvasWriterTo
	switch strings.ToLower(ext) {
	case ".png":
		c = vgimg.PngCanvas{Canvas: vgimg.New(width, height)}
	case ".svg":
		c = vgsvg.New(width, height)
	default:
		return CheckPlotPath("plot" + ext)
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadX: vg.Centimeter / 2, PadY: vg.Centimeter / 2,
		PadTop: vg.Centimeter / 4, PadBottom: vg.Centimeter / 4, PadLeft: vg.Centimeter / 4, PadRight: vg.Centimeter / 4}
	canvases := plot.Align(plots, tiles, dc)
	for i, row := range plots {
		row[0].Draw(canvases[i][0])
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
