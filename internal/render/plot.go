package render

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	gtext "gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/stats"
)

// CheckPlotPath refuses a file name whose extension PlotSweep cannot write.
func CheckPlotPath(path string) error { return checkExt(path, ".png", ".svg") }

// checkExt refuses a file name that ends in neither of a and b.
func checkExt(path, a, b string) error {
	if ext := strings.ToLower(filepath.Ext(path)); ext == a || ext == b {
		return nil
	}
	return fmt.Errorf("%q: want a file name ending in %s or %s", path, a, b)
}

// Scale is how a plot maps values to an axis or to colours.
type Scale uint8

const (
	// AutoScale is logarithmic when the positive values span more than two decades.
	AutoScale Scale = iota
	// LogScale is logarithmic whatever the values.
	LogScale
	// LinearScale is linear whatever the values.
	LinearScale
)

// PlotOptions are the choices a person makes about a sweep's plot.
type PlotOptions struct {
	// Y is the line plot's y axis scale.
	Y Scale
	// OwnScales gives each heat map its own colour scale instead of one for all.
	OwnScales bool
}

// NewPlotOptions checks the choices that shape a sweep's pictures: path is
// the -plot file, if any, page whether the format draws it (html), swept
// how many parameters the sweep varies.
func NewPlotOptions(path string, page bool, swept int, logY, linearY, ownScales bool) (PlotOptions, error) {
	var o PlotOptions
	if path != "" {
		if err := CheckPlotPath(path); err != nil {
			return o, fmt.Errorf("-plot: %w", err)
		}
		if swept < 1 || swept > 2 {
			return o, fmt.Errorf("-plot: a plot needs one or two swept parameters; %d are swept", swept)
		}
	}
	for _, f := range []struct {
		name  string
		set   bool
		kind  int
		shape string
	}{{"log-y", logY, 1, "a line plot (one swept parameter)"}, {"linear-y", linearY, 1, "a line plot (one swept parameter)"},
		{"own-scales", ownScales, 2, "heat maps (two swept parameters)"}} {
		switch {
		case !f.set:
		case path == "" && !page:
			return o, fmt.Errorf("-%s: shapes the picture -plot or -format html draws; give one of them", f.name)
		case swept != f.kind:
			return o, fmt.Errorf("-%s: applies to %s; this sweep has %d", f.name, f.shape, swept)
		}
	}
	if logY && linearY {
		return o, fmt.Errorf("-linear-y: -log-y asks for the opposite; give one")
	}
	switch {
	case logY:
		o.Y = LogScale
	case linearY:
		o.Y = LinearScale
	}
	o.OwnScales = ownScales
	return o, nil
}

// PlotSweep draws s.Metric: a line a strategy for one swept parameter, heat maps for two.
func PlotSweep(w io.Writer, s stats.Sweep, ext string, opts PlotOptions) error {
	switch len(s.Swept) {
	case 1:
		f, err := linePlot(s, opts.Y)
		if err != nil {
			return err
		}
		return f.encode(w, ext, 0, 1)
	case 2:
		f := newHeatFigure(s, opts.OwnScales)
		return f.encode(w, ext, 0, len(f.panels))
	}
	return fmt.Errorf("a plot needs one or two swept parameters; this sweep has %d", len(s.Swept))
}

// encode draws onto a width by height canvas of ext's encoding and writes it.
func encode(w io.Writer, ext string, width, height vg.Length, drawOn func(draw.Canvas)) error {
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
	dc.FillPolygon(color.White, []vg.Point{dc.Min, {X: dc.Min.X, Y: dc.Max.Y}, dc.Max, {X: dc.Max.X, Y: dc.Min.Y}})
	drawOn(dc)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// axisValue formats a grid value for labels, whole numbers as 1000000 (not 1e+06).
func axisValue(a stats.Axis, v float64) string {
	if a.Duration {
		return human.Seconds(v)
	}
	if a.Whole {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return g(v)
}

// subtitle names everything a plot holds fixed.
func subtitle(s stats.Sweep) string {
	parts := []string{s.Scenario}
	var fixed []string
	for a := range s.AxisList() {
		if !slices.Contains(s.Swept, a) && len(s.Rows) > 0 {
			fixed = append(fixed, s.AxisList()[a].Name+" "+axisValue(s.AxisList()[a], s.Rows[0].At(a)))
		}
	}
	if len(fixed) > 0 {
		parts = append(parts, "fixed: "+strings.Join(fixed, ", "))
	}
	return strings.Join(append(parts, sweepRun(s)), "; ")
}

// series is one strategy's estimates along the swept axis, in the metric's unit.
type series struct {
	xs, vs, los, his []float64
}

func (a series) equal(b series) bool {
	return slices.Equal(a.xs, b.xs) && slices.Equal(a.vs, b.vs) && slices.Equal(a.los, b.los) && slices.Equal(a.his, b.his)
}

// spansDecades reports whether the positive values in vs span more than two decades.
func spansDecades(vs []float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return hi > 0 && hi/lo > 100
}

// decadeFloor is the power of ten at or below the least positive value in vs.
func decadeFloor(vs []float64) float64 {
	lo := math.Inf(1)
	for _, v := range vs {
		if v > 0 {
			lo = math.Min(lo, v)
		}
	}
	return math.Pow(10, math.Floor(math.Log10(lo)))
}

// decadeLabel formats 10^k in plain decimals ("0.001", "100").
func decadeLabel(k int, unit string) string {
	return strconv.FormatFloat(math.Pow(10, float64(k)), 'f', max(0, -k), 64) + unit
}

// logTicks label every power of ten, with unlabelled ticks at 2 to 9 times it.
type logTicks struct{ unit string }

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	if !(lo > 0 && hi >= lo && !math.IsInf(hi, 0)) {
		return nil // no decade to count through (log10 of 0 would count from MinInt)
	}
	for k := int(math.Floor(math.Log10(lo))); k <= int(math.Ceil(math.Log10(hi))); k++ {
		d := math.Pow(10, float64(k))
		for m := 1; m < 10; m++ {
			v := float64(m) * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tick := plot.Tick{Value: v}
			if m == 1 {
				tick.Label = decadeLabel(k, t.unit)
			}
			ticks = append(ticks, tick)
		}
	}
	return ticks
}

// unitTicks are gonum's default ticks in shortest form ("50", not "50.00"), then unit.
type unitTicks struct{ unit string }

// Ticks implements plot.Ticker.
func (t unitTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if v, err := strconv.ParseFloat(ticks[i].Label, 64); err == nil { // gonum's label, rounded to its step
			ticks[i].Label = strconv.FormatFloat(v, 'f', -1, 64) + t.unit
		}
	}
	return ticks
}

// unitLabel is a metric's label with its unit.
func unitLabel(m stats.Metric) string {
	if _, u := metricUnit(m); u != "" {
		return m.Label + " (" + strings.TrimSpace(u) + ")"
	}
	return m.Label
}

// strategyLabels are s's strategies as its table names them.
func strategyLabels(s stats.Sweep) []string {
	labels := slices.Clone(s.Strategies)
	for k := range labels {
		if k < len(s.Rows) && s.Rows[k].Label != "" {
			labels[k] = s.Rows[k].Label
		}
	}
	return labels
}

// linePlot is the line plot of a sweep over one parameter: a line a strategy.
func linePlot(s stats.Sweep, scale Scale) (stack, error) {
	axis := s.Swept[0]
	mul, unit := metricUnit(s.Metric)
	per, row := len(s.Strategies), new(stats.Row)
	curves := make([]curve, per)
	var xs []float64
	for k, label := range strategyLabels(s) {
		c := &curves[k]
		c.label = label
		for i := k; i < len(s.Rows); i += per {
			s.Rows[i].Fill(row)
			e := s.Metric.Estimate(&row.Counters, row.NoRepeats)
			c.xs, c.vs = append(c.xs, s.Rows[i].At(axis)), append(c.vs, mul*e.Value)
			c.los, c.his = append(c.los, mul*e.Lo), append(c.his, mul*e.Hi)
			xs = appendNew(xs, s.Rows[i].At(axis))
		}
	}
	slices.Sort(xs)
	ax := s.AxisList()[axis]
	intervals := ", 95% intervals"
	if !hasInterval(s.Metric) {
		intervals = ""
	}
	p, logY, err := curvePanel(fmt.Sprintf("%s against %s%s\n%s", unitLabel(s.Metric), ax.Name, intervals, subtitle(s)),
		curveAxes{x: ax.Label, y: unitLabel(s.Metric), unit: unit, scale: scale, radius: 3, empty: "every value 0"}, curves)
	if err != nil {
		return stack{}, err
	}
	p.X.Tick.Marker = plot.DefaultTicks{}
	if len(xs) <= 12 {
		p.X.Tick.Marker = valueTicks(xs, func(x float64) string { return axisValue(ax, x) }, false)
	}
	var zeroAt []string // the x values where some value of 0 is left out
	for _, x := range xs {
		if logY && slices.ContainsFunc(curves, func(c curve) bool {
			i := slices.Index(c.xs, x)
			return i >= 0 && c.vs[i] <= 0
		}) {
			zeroAt = append(zeroAt, axisValue(ax, x))
		}
	}
	if len(zeroAt) > 0 {
		p.Legend.Add(fmt.Sprintf("values of 0 (at %s = %s) not shown on the log axis", ax.Name, strings.Join(zeroAt, ", ")), blank{})
	}
	return newStack(17*vg.Centimeter, 13*vg.Centimeter, "", p), nil
}

// errorPoints are a strategy's estimates with their intervals as error bars.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// grid is one strategy's colour values over two swept axes, a cell each.
type grid struct {
	cols, rows int
	z          []float64 // row-major
}

func (g grid) Dims() (c, r int)   { return g.cols, g.rows }
func (g grid) Z(c, r int) float64 { return g.z[r*g.cols+c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// colourScale maps values to a colour coordinate, log10 on a log scale.
type colourScale struct {
	log        bool
	floor      float64
	lo, hi     float64 // the coordinate's range
	unit, note string
}

func (cs colourScale) coord(v float64) float64 {
	if cs.log {
		return math.Log10(math.Max(v, cs.floor))
	}
	return v
}

func newColourScale(values []float64, unit, note string) colourScale {
	cs := colourScale{unit: unit, note: note}
	// a time of no job (NaN) or past the histogram (+Inf) has no colour
	values = slices.DeleteFunc(slices.Clone(values), func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
	if len(values) == 0 {
		cs.lo, cs.hi = 0, 1
		return cs
	}
	if spansDecades(values) {
		cs.log, cs.floor = true, decadeFloor(values)
		cs.note += ", log"
	}
	cs.lo, cs.hi = math.Inf(1), math.Inf(-1)
	for _, v := range values {
		cs.lo, cs.hi = math.Min(cs.lo, cs.coord(v)), math.Max(cs.hi, cs.coord(v))
	}
	if cs.log {
		cs.lo, cs.hi = math.Floor(cs.lo), math.Ceil(cs.hi)
	}
	if cs.hi <= cs.lo { // one value everywhere: still a bar to read it from
		cs.hi = cs.lo + 1
	}
	return cs
}

// Ticks implements plot.Ticker for the colour bar.
func (cs colourScale) Ticks(lo, hi float64) []plot.Tick {
	if !cs.log {
		return unitTicks{cs.unit}.Ticks(lo, hi)
	}
	var ticks []plot.Tick
	for k := int(math.Ceil(lo - 1e-9)); k <= int(math.Floor(hi+1e-9)); k++ {
		label := decadeLabel(k, cs.unit)
		if k == int(math.Round(math.Log10(cs.floor))) {
			label = "≤" + label
		}
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: label})
	}
	return ticks
}

// heatFigure is a sweep's heat maps: a panel and colour scale a strategy.
type heatFigure struct {
	s stats.Sweep
	// xs and ys are the swept values; panels[k][i][j] strategy k's value at xs[i] and ys[j].
	xs, ys  []float64
	panels  [][][]float64
	scales  []colourScale
	heading string
}

// The heat figure's heading band and each panel's height.
const (
	heatHeadHeight  = vg.Centimeter
	heatPanelHeight = 10 * vg.Centimeter
)

func newHeatFigure(s stats.Sweep, ownScales bool) heatFigure {
	ax, ay := s.Swept[0], s.Swept[1]
	mul, unit := metricUnit(s.Metric)
	var xs, ys []float64
	for _, r := range s.Rows {
		xs = appendNew(xs, r.At(ax))
		ys = appendNew(ys, r.At(ay))
	}
	slices.Sort(xs)
	slices.Sort(ys)
	per, row := len(s.Strategies), new(stats.Row)
	f := heatFigure{s: s, xs: xs, ys: ys, panels: make([][][]float64, per), scales: make([]colourScale, per),
		heading: fmt.Sprintf("%s over %s and %s\n%s", unitLabel(s.Metric), s.AxisList()[ax].Name, s.AxisList()[ay].Name, subtitle(s))}
	var everything []float64
	for k := range f.panels {
		f.panels[k] = make([][]float64, len(xs))
		for i := range xs {
			f.panels[k][i] = make([]float64, len(ys))
		}
		var values []float64
		for i := k; i < len(s.Rows); i += per {
			r := &s.Rows[i]
			r.Fill(row)
			v := mul * s.Metric.Estimate(&row.Counters, row.NoRepeats).Value
			f.panels[k][slices.Index(xs, r.At(ax))][slices.Index(ys, r.At(ay))] = v
			values = append(values, v)
		}
		everything = append(everything, values...)
		f.scales[k] = newColourScale(values, unit, "this panel's own colour scale")
	}
	if !ownScales {
		for k := range f.scales {
			f.scales[k] = newColourScale(everything, unit, "colour scale shared by every panel")
		}
	}
	return f
}

// heatPanels draws each strategy's panel as a picture of its own.
func heatPanels(s stats.Sweep, ext string, ownScales bool) ([][]byte, error) {
	f := newHeatFigure(s, ownScales)
	return pictures(len(f.panels), func(w io.Writer, k int) error { return f.encode(w, ext, k, k+1) })
}

// encode draws panels [from, to), under the heading when from is 0.
func (f heatFigure) encode(w io.Writer, ext string, from, to int) error {
	width, height := 20*vg.Centimeter, vg.Length(to-from)*heatPanelHeight
	top := vg.Length(0)
	head := from == 0
	if head {
		top = heatHeadHeight
		height += top
	}
	return encode(w, ext, width, height, func(dc draw.Canvas) {
		if head {
			band := draw.Crop(dc, 0, 0, height-top, 0)
			band.FillText(gtext.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(10)),
				XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler},
				vg.Point{X: (band.Min.X + band.Max.X) / 2, Y: (band.Min.Y + band.Max.Y) / 2}, f.heading)
		}
		for k := from; k < to; k++ {
			y := top + vg.Length(k-from)*heatPanelHeight
			f.drawPanel(draw.Crop(dc, 0, 0, height-y-heatPanelHeight, -y), k)
		}
	})
}

// drawPanel draws strategy k's heat map and its colour bar, the same height.
func (f heatFigure) drawPanel(c draw.Canvas, k int) {
	cs := f.scales[k]
	heat, bar := f.heatPanel(k), colourBar(cs)
	area := draw.Crop(c, vg.Centimeter/4, -4*vg.Centimeter, vg.Centimeter/4, -vg.Centimeter/4)
	heat.Draw(area)
	want := heat.DataCanvas(area)
	side := draw.Crop(c, c.Size().X-3.5*vg.Centimeter, -vg.Centimeter/4, 0, 0)
	// The bar's axis pads by its labels' size: one correction lines it up.
	for range 3 {
		got := bar.DataCanvas(side)
		if got.Min.Y == want.Min.Y && got.Max.Y == want.Max.Y {
			break
		}
		side.Min.Y += want.Min.Y - got.Min.Y
		side.Max.Y += want.Max.Y - got.Max.Y
	}
	bar.Draw(side)
}

// heatPalette is the heat maps' colours: dark for low values, light for high ones.
func heatPalette(cs colourScale) palette.ColorMap {
	pal := moreland.ExtendedBlackBody()
	pal.SetMin(cs.lo)
	pal.SetMax(cs.lo + (cs.hi-cs.lo)/0.9)
	return pal
}

// heatPanel is strategy k's heat map, in its colour scale.
func (f heatFigure) heatPanel(k int) *plot.Plot {
	ax, ay := f.s.AxisList()[f.s.Swept[0]], f.s.AxisList()[f.s.Swept[1]]
	cs := f.scales[k]
	pal := heatPalette(cs)
	p := heatPlot(fmt.Sprintf("%s (%s)", strategyLabels(f.s)[k], cs.note), len(f.xs), len(f.ys), pal, true, func(c, r int) (float64, string, color.Color) {
		v := f.panels[k][c][r]
		switch {
		case math.IsNaN(v): // no job to take the time of: an empty cell
			return cs.coord(v), "-", color.Black
		case math.IsInf(v, 1):
			return cs.coord(v), "past range", inkOn(pal, cs.hi)
		}
		return cs.coord(v), sigDigits(v, 2) + cs.unit, inkOn(pal, math.Min(math.Max(cs.coord(v), cs.lo), cs.hi))
	})
	p.X.Label.Text, p.Y.Label.Text = ax.Label, ay.Label
	p.X.Tick.Marker = valueTicks(f.xs, func(v float64) string { return axisValue(ax, v) }, true)
	p.Y.Tick.Marker = valueTicks(f.ys, func(v float64) string { return axisValue(ay, v) }, true)
	return p
}

// heatPlot is a heat map of cols by rows cells in pal's colours under title: cell(c, r) is
// a cell's colour coordinate, its label and the label's ink, the labels centred when centred.
func heatPlot(title string, cols, rows int, pal palette.ColorMap, centred bool, cell func(c, r int) (float64, string, color.Color)) *plot.Plot {
	g := grid{cols: cols, rows: rows, z: make([]float64, cols*rows)}
	var labels plotter.XYLabels
	var styles []gtext.Style
	for r := range rows {
		for c := range cols {
			z, label, ink := cell(c, r)
			g.z[r*cols+c] = z
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(r)})
			labels.Labels = append(labels.Labels, label)
			st := gtext.Style{Color: ink, Font: font.From(plot.DefaultFont, vg.Points(8)), Handler: plot.DefaultTextHandler}
			if centred {
				st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
			}
			styles = append(styles, st)
		}
	}
	h := plotter.NewHeatMap(g, pal.Palette(256))
	h.Min, h.Max = pal.Min(), pal.Max()
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Add(h)
	if l, err := plotter.NewLabels(labels); err == nil {
		l.TextStyle = styles
		p.Add(l)
	}
	return p
}

// inkOn is the colour a label reads in on pal's colour at v: white on a dark one.
func inkOn(pal palette.ColorMap, v float64) color.Color {
	if bg, err := pal.At(v); err == nil && luminance(bg) < 0.45 {
		return color.White
	}
	return color.Black
}

// sigDigits formats x with n significant digits in plain decimals.
func sigDigits(x float64, n int) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64) // rounded first: 0.0996 is 0.10, not 0.100
	return strconv.FormatFloat(r, 'f', max(0, n-1-int(math.Floor(math.Log10(math.Abs(r))))), 64)
}

// valueTicks label vs, each at its index (a heat map's cells) or at itself.
func valueTicks(vs []float64, label func(float64) string, atIndex bool) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(vs))
	for i, v := range vs {
		ticks[i] = plot.Tick{Value: v, Label: label(v)}
		if atIndex {
			ticks[i].Value = float64(i)
		}
	}
	return ticks
}

// colourBar is a vertical bar of the scale's colours with labelled values.
func colourBar(cs colourScale) *plot.Plot {
	p := plot.New()
	p.HideX()
	p.Add(colourStrip{pal: heatPalette(cs), lo: cs.lo, hi: cs.hi})
	p.Y.Min, p.Y.Max = cs.lo, cs.hi
	p.Y.Tick.Marker = cs
	if cs.unit != "" {
		p.Y.Label.Text = cs.unit
	}
	if cs.log {
		p.Y.Label.Text += " (log)"
	}
	return p
}

// colourStrip is a colour bar of rectangles: a browser drew ColorBar's image as a hairline.
type colourStrip struct {
	pal    palette.ColorMap
	lo, hi float64
}

// colourSteps is how many rectangles make up a colour bar.
const colourSteps = 128

// Plot implements plot.Plotter.
func (b colourStrip) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, x1 := trX(0), trX(1)
	step := (b.hi - b.lo) / colourSteps
	for i := range colourSteps {
		lo := b.lo + float64(i)*step
		col, err := b.pal.At(lo + step/2)
		if err != nil {
			continue
		}
		y0, y1 := trY(lo), trY(math.Min(lo+1.5*step, b.hi))
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
}

// DataRange implements plot.DataRanger.
func (b colourStrip) DataRange() (xmin, xmax, ymin, ymax float64) { return 0, 1, b.lo, b.hi }

// luminance is c's relative luminance, 0 (black) to 1 (white).
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}

// blank is a legend entry without a picture.
type blank struct{}

// Thumbnail implements plot.Thumbnailer.
func (blank) Thumbnail(*draw.Canvas) {}

// addCurves draws curves on p with 95% error bars, equal ones named after the first; on a
// log axis (from floor) values <= 0 are left out; empty ends the legend of a curve with none.
func addCurves(p *plot.Plot, curves []curve, logY bool, floor, radius float64, empty string) error {
	for k, c := range curves {
		same, later := twins(curves, k, func(a, b curve) bool { return a.series.equal(b.series) })
		pts := c.points(logY, floor)
		label := c.label
		if same >= 0 {
			label += " (same as " + curves[same].label + ")"
		}
		if len(pts.XYs) == 0 {
			p.Legend.Add(label+": "+empty, blank{})
			continue
		}
		if err := addSeries(p, pts, k, later, radius, label); err != nil {
			return fmt.Errorf("%s: %w", c.label, err)
		}
	}
	if logY {
		p.Y.Min = floor
		p.Y.Max = math.Max(p.Y.Max, floor*10)
	}
	return nil
}

// twins are, of items, the first before item k equal to it (-1 for none) and how many after it are.
func twins[T any](items []T, k int, equal func(a, b T) bool) (first, later int) {
	first = -1
	for j := range items {
		switch {
		case j < k && first < 0 && equal(items[j], items[k]):
			first = j
		case j > k && equal(items[j], items[k]):
			later++
		}
	}
	return first, later
}

// points are a's estimates with their 95% intervals as error bars; NaN and
// infinite values are left out, and on a log axis (from floor) values <= 0.
func (a series) points(logY bool, floor float64) errorPoints {
	var pts errorPoints
	for i, v := range a.vs {
		if logY && v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) { // a time of no job, or past the histogram
			continue
		}
		lo, hi := a.los[i], a.his[i]
		if math.IsNaN(lo) || math.IsNaN(hi) { // no interval
			lo, hi = v, v
		}
		if logY {
			lo = math.Max(lo, floor)
		}
		pts.XYs = append(pts.XYs, plotter.XY{X: a.xs[i], Y: v})
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{v - lo, hi - v})
	}
	return pts
}

// addSeries draws one series with its error bars, wider when later series equal it.
func addSeries(p *plot.Plot, pts errorPoints, k, later int, radius float64, label string) error {
	line, points, err := plotter.NewLinePoints(pts.XYs)
	if err != nil {
		return err
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	col := lineColour(k)
	line.Color, points.Color, bars.Color = col, col, col
	if k >= 6 { // solid up to six series, plotutil's dashes after
		line.Dashes = plotutil.Dashes(k - 5)
	}
	line.Width = vg.Points(1 + 1.5*float64(later))
	points.Shape = plotutil.Shape(k)
	points.Radius = vg.Points(radius + 2*float64(later))
	p.Add(line, points, bars)
	p.Legend.Add(label, line, points)
	return nil
}
