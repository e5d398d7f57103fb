package render

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/retrysim/retrysim/fleet"
)

// compareColours tell a dozen policies apart (plotutil's palette repeats
// after seven): Tableau's ten, then two darker tones.
var compareColours = [...]color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff}, {0x00, 0x33, 0x66, 0xff}, {0x66, 0x33, 0x00, 0xff},
}

// curve is one policy's estimates along a comparison's x axis.
type curve struct {
	label string
	series
}

// comparePanel draws curves against x, a line, markers and 95% error bars
// each, with the conventions of the sweep plots: a log x axis when xLog (the
// points at x = 0 are left out, and the title says so), values in unit
// (mul times the estimates), a log y axis when the values span more than two
// decades, and curves with the same numbers drawn widest first.
func comparePanel(title, xLabel, yLabel, unit string, xLog, legendTop bool, curves []curve) (*plot.Plot, error) {
	var values []float64
	for _, c := range curves {
		for i, v := range c.vs {
			if !math.IsNaN(v) && (!xLog || c.xs[i] > 0) {
				values = append(values, v)
			}
		}
	}
	logY := spansDecades(values)
	p := plot.New()
	var notes []string
	if xLog {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
		notes = append(notes, "log x axis (x = 0 not drawn)")
	}
	var floor float64
	if logY {
		floor = decadeFloor(values)
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{unit}
		note := "log y axis"
		if slices.Contains(values, 0) {
			note += " (values of 0 not drawn)"
		}
		notes = append(notes, note)
	} else {
		p.Y.Tick.Marker = unitTicks{unit}
		notes = append(notes, "linear y axis")
	}
	p.Title.Text = title + "; " + strings.Join(notes, ", ")
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top = legendTop
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	for k, c := range curves {
		same, later := -1, 0
		for j := range k {
			if curves[j].series.equal(c.series) && same < 0 {
				same = j
			}
		}
		for j := k + 1; j < len(curves); j++ {
			if curves[j].series.equal(c.series) {
				later++
			}
		}
		var pts errorPoints
		for i, v := range c.vs {
			if math.IsNaN(v) || xLog && c.xs[i] <= 0 || logY && v <= 0 {
				continue
			}
			lo, hi := c.los[i], c.his[i]
			if math.IsNaN(lo) || math.IsNaN(hi) {
				lo, hi = v, v // one replicate: no interval
			}
			if logY {
				lo = math.Max(lo, floor)
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: c.xs[i], Y: v})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{v - lo, hi - v})
		}
		label := c.label
		if same >= 0 {
			label += " (same as " + curves[same].label + ")"
		}
		if len(pts.XYs) == 0 {
			p.Legend.Add(label+": nothing to draw", blank{})
			continue
		}
		if err := addSeries(p, pts, k, later, compareColours[k%len(compareColours)], 2.5, label); err != nil {
			return nil, fmt.Errorf("%s: %w", c.label, err)
		}
	}
	if logY {
		p.Y.Min = floor
		p.Y.Max = math.Max(p.Y.Max, floor*10)
	}
	if xLog && p.X.Min == p.X.Max && p.X.Min > 0 {
		// One x: gonum would widen the axis by 1 each way, below 0, where
		// a log axis has no place.
		p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
	}
	return p, nil
}

// drawPanels encodes panels one above the other, each height tall.
func drawPanels(w io.Writer, ext string, height vg.Length, panels ...*plot.Plot) error {
	rows := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadX: vg.Centimeter / 2, PadY: vg.Centimeter / 2,
		PadTop: vg.Centimeter / 4, PadBottom: vg.Centimeter / 4, PadLeft: vg.Centimeter / 4, PadRight: vg.Centimeter / 4}
	return encode(w, ext, 20*vg.Centimeter, vg.Length(len(rows))*height, func(dc draw.Canvas) {
		canvases := plot.Align(rows, tiles, dc)
		for i, row := range rows {
			row[0].Draw(canvases[i][0])
		}
	})
}

// PlotFleetTotals draws a preset that compares client policies over failure
// rates (fleet.Preset.Totals), as the figure of Brooker's "Fixing retries"
// post: the share of requests that succeeded, and the server calls a request
// (amplification), against the server's failure rate, a line per policy
// (and client count, when the preset varies it) with 95% Student t intervals
// over the replicates (none with one replicate, as the subtitle says).
// The subtitle names what the runs hold fixed. The failure rate axis is
// logarithmic, its 0 left out.
func PlotFleetTotals(w io.Writer, title string, res []fleet.Result, byClients bool, ext string) error {
	if len(res) == 0 {
		return fmt.Errorf("nothing to plot")
	}
	c := res[0].Config
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	clients := fmt.Sprintf("%d clients", c.Client.Clients)
	if byClients {
		clients = "clients"
	}
	subtitle := fmt.Sprintf("%s sharing %s requests a second for %s s; server %s (%s s a call, failing each at the failure rate);\nnetwork %s s each way; timeout %s s",
		clients, g(c.Load.Rate), g(c.Duration), c.Server.Kind, g(c.Server.Base), g(c.Net), g(c.Client.Timeout))
	var labels []string
	succ, amp := map[string]*curve{}, map[string]*curve{}
	for _, r := range res {
		label := r.Config.Name
		if byClients {
			label = fmt.Sprintf("%s, %d clients", label, r.Config.Client.Clients)
		}
		if succ[label] == nil {
			labels = append(labels, label)
			succ[label], amp[label] = &curve{label: label}, &curve{label: label}
		}
		s := r.Summary()
		add := func(c *curve, e fleet.Estimate, mul float64) {
			c.xs = append(c.xs, r.Config.Server.PFail)
			c.vs, c.los, c.his = append(c.vs, mul*e.Value), append(c.los, mul*e.Lo), append(c.his, mul*e.Hi)
		}
		add(succ[label], s.Succeeded, 100)
		add(amp[label], s.Amplification, 1)
	}
	head := title + "\n" + subtitle + "; " + intervalsOver(len(res[0].Replicates)) + "\n"
	pick := func(m map[string]*curve) []curve {
		cs := make([]curve, len(labels))
		for i, l := range labels {
			cs[i] = *m[l]
		}
		return cs
	}
	top, err := comparePanel(head+"Requests that succeeded (%)", "server failure rate", "requests that succeeded (%)", "%", true, false, pick(succ))
	if err != nil {
		return err
	}
	bottom, err := comparePanel("Server calls a request (amplification)", "server failure rate", "server calls a request", "", true, true, pick(amp))
	if err != nil {
		return err
	}
	return drawPanels(w, ext, 11*vg.Centimeter, top, bottom)
}

// PlotFleetSpikes draws a preset that compares policies over spike heights
// (fleet.Preset.Spikes), runs named "policy keys none|same peak H": how long
// after the spike each policy's goodput is back (fleet.Result.Recovered, a
// replicate that never recovers counted at the run's end), without keys and
// with the request's key on every attempt, and the duplicate side effects a
// request without keys (with keys there are none), against the spike's
// height, a line a policy with 95% intervals over the replicates.
func PlotFleetSpikes(w io.Writer, title string, res []fleet.Result, ext string) error {
	if len(res) == 0 {
		return fmt.Errorf("nothing to plot")
	}
	var labels []string
	var heights []float64
	rec := [2]map[string]*curve{{}, {}}
	dup := map[string]*curve{}
	for _, r := range res {
		label, _, _ := strings.Cut(r.Config.Name, " ")
		if !slices.Contains(labels, label) {
			labels = append(labels, label)
			rec[0][label], rec[1][label], dup[label] = &curve{label: label}, &curve{label: label}, &curve{label: label}
		}
		add := func(c *curve, e fleet.Estimate) {
			c.xs = append(c.xs, r.Config.Load.Peak)
			c.vs, c.los, c.his = append(c.vs, e.Value), append(c.los, e.Lo), append(c.his, e.Hi)
		}
		k := 0
		if r.Config.Client.Keys == fleet.SameKey {
			k = 1
		}
		// A recovery lies in [0, the run's end], and so does its mean: the
		// interval is drawn within it.
		e, end := r.Recovered(), r.Config.Duration-r.Config.Load.To
		e.Lo, e.Hi = math.Max(0, e.Lo), math.Min(end, e.Hi)
		add(rec[k][label], e)
		if k == 0 {
			add(dup[label], r.DuplicatesPerRequest())
		}
		if !slices.Contains(heights, r.Config.Load.Peak) {
			heights = append(heights, r.Config.Load.Peak)
		}
	}
	pick := func(m map[string]*curve) []curve {
		var cs []curve
		for _, l := range labels {
			if c := m[l]; c != nil && len(c.xs) > 0 {
				cs = append(cs, *c)
			}
		}
		return cs
	}
	c := res[0].Config
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	end := c.Duration - c.Load.To
	head := fmt.Sprintf("%s\nserver %s s + %s s per call in progress, network %s s each way, timeout %s s, one client; %s requests a second,\n"+
		"the spike from %s to %s s; recovery: goodput back within 10%% of the load for good, never counted as %s s (the run's end);\n"+
		"%s\n", title, g(c.Server.Base), g(c.Server.Slope), g(c.Net), g(c.Client.Timeout), g(c.Load.Rate),
		g(c.Load.From), g(c.Load.To), g(end), intervalsOver(len(res[0].Replicates)))
	// The heights are ticked; the x axis runs on past the last for the
	// legend, so it covers no line.
	slices.Sort(heights)
	ticks := make(plot.ConstantTicks, len(heights))
	for i, h := range heights {
		ticks[i] = plot.Tick{Value: h, Label: g(h)}
	}
	room := func(p *plot.Plot) {
		p.X.Tick.Marker = ticks
		p.X.Min = heights[0] - 0.05*(heights[len(heights)-1]-heights[0])
		p.X.Max = heights[len(heights)-1] + 0.8*(heights[len(heights)-1]-heights[0])
		p.Legend.Left = false
	}
	var panels []*plot.Plot
	for i, t := range []string{head + "Recovery after the spike, no keys (s)", "Recovery after the spike, the same key on every attempt (s)"} {
		p, err := comparePanel(t, "spike height (requests a second)", "recovery (s)", " s", false, true, pick(rec[i]))
		if err != nil {
			return err
		}
		p.Y.Min, p.Y.Max = 0, end
		room(p)
		panels = append(panels, p)
	}
	p, err := comparePanel("Duplicate side effects a request, no keys (with keys: none)", "spike height (requests a second)",
		"duplicates a request", "", false, true, pick(dup))
	if err != nil {
		return err
	}
	room(p)
	panels = append(panels, p)
	return drawPanels(w, ext, 11*vg.Centimeter, panels...)
}

// intervalsOver says what a picture's intervals are over: "95% intervals
// over n replicates", or none with one.
func intervalsOver(replicates int) string {
	if replicates == 1 {
		return "1 replicate: no intervals"
	}
	return fmt.Sprintf("95%% intervals over %d replicates", replicates)
}
