package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/retrysim/retrysim/fleet"
)

// FleetReport is what `retrysim fleet` prints: a row a run and each run's
// series. Only json carries the series; the html page draws Runs.
type FleetReport struct {
	Title  string
	Rows   []fleet.Summary
	Series []fleet.Point
	// Params are the page's parameter lines; Runs, Configs and PlotTitle
	// what its plot draws (as PlotFleet takes them), when Runs is not empty.
	Params    []string
	Runs      [][]fleet.Point
	Configs   []fleet.Config
	PlotTitle string
	// Spikes, when not empty, are the runs of a preset that compares
	// policies over spike heights (fleet.Preset.Spikes): the page draws them
	// as PlotFleetSpikes does, one picture, instead of a time series a run.
	Spikes []fleet.Result
}

// writeFleetCSV writes a row a run; the series go to -series.
func writeFleetCSV(w io.Writer, r FleetReport) error {
	rows := make([][]field, len(r.Rows))
	for i, s := range r.Rows {
		rows[i] = fleetFields(s)
	}
	return writeFields(w, rows)
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
	add("local_rejected", s.LocalRejected)
	add("hedges", s.Hedges)
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

// fleetHeader heads the fleet's table, in every format for people.
var fleetHeader = []string{"Run", "Requests", "Succeeded", "Goodput /s", "Calls per request", "Timeouts", "Conflicts",
	"Duplicates", "Latency p50 / p95 / p99", "Peak in progress", "Recovery"}

// fleetCells are a run's row for people, in fleetHeader's order.
func fleetCells(s fleet.Summary) []string {
	rec := plusMinus(s.Recovery, 1, " s")
	switch {
	case s.Recovery.N == 0:
		rec = "never"
	case s.Recovery.N < s.Replicates:
		rec = fmt.Sprintf("never in %d of %d", s.Replicates-s.Recovery.N, s.Replicates)
	}
	lat := fmt.Sprintf("%s / %s / %s s", sigOrDash(s.P50.Value), sigOrDash(s.P95.Value), sigOrDash(s.P99.Value))
	return []string{s.Run, plusMinus(s.Requests, 1, ""), plusMinus(s.Succeeded, 100, "%"), plusMinus(s.Goodput, 1, ""),
		plusMinus(s.Amplification, 1, ""), plusMinus(s.Timeouts, 1, ""), plusMinus(s.Conflicts, 1, ""),
		plusMinus(s.Duplicates, 1, ""), lat, plusMinus(s.PeakInProgress, 1, ""), rec}
}

func writeFleetTable(w io.Writer, r FleetReport, markdown bool) error {
	header := fleetHeader
	opts := tableOptions(markdown, numberColumns(len(header), 1))
	title := r.Title
	title = tableTitle(title, markdown)
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(header)
	for _, s := range r.Rows {
		cells := fleetCells(s)
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

// PlotFleet draws each run's series in its own panel, one above the other on
// one time axis: new requests (the offered load), successes (goodput),
// retries and timeouts a second, averaged over replicates, in front of the
// load shape the run was given (grey), each panel titled with the run's name
// and what it holds fixed. cfgs are the runs' configurations, in runs' order.
// ext (".png" or ".svg") picks the encoding.
func PlotFleet(w io.Writer, title string, runs [][]fleet.Point, cfgs []fleet.Config, ext string) error {
	f, err := newFleetFigure(title, runs, cfgs)
	if err != nil {
		return err
	}
	return f.encode(w, ext, 0, len(runs))
}

// fleetFigure is PlotFleet's panels, a run each, and each panel's legend,
// drawn right of its data area: inside, it covered the series where a
// spike or ramp starts (the top left of the panel).
type fleetFigure struct {
	plots   [][]*plot.Plot
	legends []plot.Legend
}

// fleetLegendWidth is the strip right of each panel that holds its legend.
const fleetLegendWidth = 5 * vg.Centimeter

// fleetPanelHeight is the height of one run's panel.
const fleetPanelHeight = 8 * vg.Centimeter

// fleetPanels draws each run's panel of PlotFleet's figure as a picture of
// its own, so a page can break between them; every panel is laid out as in
// the whole figure, so their time axes stay aligned.
func fleetPanels(title string, runs [][]fleet.Point, cfgs []fleet.Config, ext string) ([][]byte, error) {
	f, err := newFleetFigure(title, runs, cfgs)
	if err != nil {
		return nil, err
	}
	var panels [][]byte
	for i := range runs {
		var b bytes.Buffer
		if err := f.encode(&b, ext, i, i+1); err != nil {
			return nil, err
		}
		panels = append(panels, b.Bytes())
	}
	return panels, nil
}

func newFleetFigure(title string, runs [][]fleet.Point, cfgs []fleet.Config) (fleetFigure, error) {
	if len(runs) == 0 || len(runs) != len(cfgs) {
		return fleetFigure{}, fmt.Errorf("nothing to plot")
	}
	end := 0.0
	for _, c := range cfgs {
		end = math.Max(end, c.Duration)
	}
	f := fleetFigure{plots: make([][]*plot.Plot, len(runs)), legends: make([]plot.Legend, len(runs))}
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
		p.Title.Text = cfgs[i].Name + "\n" + describeRun(cfgs[i])
		if i == 0 {
			p.Title.Text = title + "\n" + p.Title.Text
		}
		p.Title.TextStyle.Font.Size = vg.Points(10)
		p.X.Label.Text = "t (s)"
		p.Y.Label.Text = "a second"
		p.X.Min, p.X.Max = 0, end
		legend := plot.NewLegend()
		legend.TextStyle.Font.Size = vg.Points(10)
		legend.Top, legend.Left = true, true
		p.Add(plotter.NewGrid())
		load, err := loadArea(cfgs[i].Load, cfgs[i].Duration)
		if err != nil {
			return fleetFigure{}, err
		}
		p.Add(load)
		legend.Add("load shape (offered rate)", load)
		for k, l := range lines {
			xy := make(plotter.XYs, len(pts))
			for j, pt := range pts {
				xy[j] = plotter.XY{X: float64(pt.T) + 0.5, Y: l.get(pt)}
			}
			line, err := plotter.NewLine(xy)
			if err != nil {
				return fleetFigure{}, fmt.Errorf("%s: %w", l.name, err)
			}
			line.Color = plotutil.Color(k)
			line.Dashes = plotutil.Dashes(k)
			line.Width = vg.Points(1.2)
			p.Add(line)
			legend.Add(l.name, line)
		}
		p.X.Min, p.X.Max = 0, end // the same time axis in every panel
		f.plots[i], f.legends[i] = []*plot.Plot{p}, legend
	}
	return f, nil
}

// encode draws the panels from up to (not including) to: the whole figure
// laid out (plot.Align), shifted so that those panels fall on the canvas.
func (f fleetFigure) encode(w io.Writer, ext string, from, to int) error {
	width, height := 20*vg.Centimeter, vg.Length(to-from)*fleetPanelHeight
	tiles := draw.Tiles{Rows: len(f.plots), Cols: 1, PadX: vg.Centimeter / 2, PadY: vg.Centimeter / 2,
		PadTop: vg.Centimeter / 4, PadBottom: vg.Centimeter / 4, PadLeft: vg.Centimeter / 4, PadRight: fleetLegendWidth}
	return encode(w, ext, width, height, func(dc draw.Canvas) {
		whole := dc
		whole.Max.Y = dc.Max.Y + vg.Length(from)*fleetPanelHeight
		whole.Min.Y = whole.Max.Y - vg.Length(len(f.plots))*fleetPanelHeight
		canvases := plot.Align(f.plots, tiles, whole)
		for i := from; i < to; i++ {
			c := canvases[i][0]
			f.plots[i][0].Draw(c)
			da := f.plots[i][0].DataCanvas(c)
			strip := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: c.Max.X + vg.Centimeter/4, Y: da.Min.Y}, Max: vg.Point{X: dc.Max.X, Y: da.Max.Y}}}
			f.legends[i].Draw(strip)
		}
	})
}

// loadArea is the load shape's rate over [0, duration] as a grey area, a
// point every 1/400 of the run so steps and corners stay sharp.
func loadArea(s fleet.Shape, duration float64) (*plotter.Polygon, error) {
	const n = 400
	xy := plotter.XYs{{X: 0, Y: 0}}
	for i := 0; i <= n; i++ {
		t := duration * float64(i) / n
		xy = append(xy, plotter.XY{X: t, Y: s.At(t)})
		if s.Kind == fleet.Spike { // the step's edges, exactly
			for _, e := range []float64{s.From, s.To} {
				if next := duration * float64(i+1) / n; e > t && e < next {
					xy = append(xy, plotter.XY{X: e, Y: s.At(t)}, plotter.XY{X: e, Y: s.At(e)})
				}
			}
		}
	}
	xy = append(xy, plotter.XY{X: duration, Y: 0})
	poly, err := plotter.NewPolygon(xy)
	if err != nil {
		return nil, err
	}
	poly.Color = color.Gray{Y: 0xdd}
	poly.LineStyle.Width = 0
	return poly, nil
}

// describeRun names what a run holds fixed, for its panel's title, in two
// lines: the load shape and backoff (what presets vary), then the server
// and the rest of the client.
func describeRun(c fleet.Config) string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var load string
	switch c.Load.Kind {
	case fleet.Constant:
		load = "load " + g(c.Load.Rate) + "/s"
	case fleet.Spike:
		load = fmt.Sprintf("load %s/s, %s/s from %s to %s s", g(c.Load.Rate), g(c.Load.Peak), g(c.Load.From), g(c.Load.To))
	case fleet.Ramp:
		load = fmt.Sprintf("load ramp %s/s to %s/s and back from %s to %s s", g(c.Load.Rate), g(c.Load.Peak), g(c.Load.From), g(c.Load.To))
	}
	server := "server " + c.Server.Kind.String()
	if c.Server.Kind == fleet.Latency {
		server += fmt.Sprintf(" %s s + %s s per call in progress", g(c.Server.Base), g(c.Server.Slope))
	}
	load += "; backoff " + c.Client.Backoff.Kind.String()
	if c.Client.Backoff.Base > 0 {
		load += " base " + c.Client.Backoff.Base.String()
	}
	client := fmt.Sprintf("timeout %s s, %d tries, keys %s", g(c.Client.Timeout), c.Client.Attempts, c.Client.Keys)
	if c.Net > 0 {
		client += ", network " + g(c.Net) + " s each way"
	}
	return load + "\n" + server + "; " + client
}
