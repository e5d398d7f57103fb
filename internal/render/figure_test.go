package render

import (
	"bytes"
	"math"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/schema"
)

// markerReach is how far from its point a drawn marker reaches: the
// largest marker's radius (3 pt, plus 2 pt for each of two equal series
// drawn under it) and a point of line width.
const markerReach = 8

// pointsUnder returns the points (x, y in data units) whose markers, drawn
// on data area da of p, reach into rectangle r, in canvas coordinates.
func pointsUnder(p *plot.Plot, da draw.Canvas, r vg.Rectangle, xys [][2]float64) [][2]float64 {
	trX, trY := p.Transforms(&da)
	var under [][2]float64
	reach := vg.Points(markerReach)
	for _, xy := range xys {
		x, y := trX(xy[0]), trY(xy[1])
		if x >= r.Min.X-reach && x <= r.Max.X+reach && y >= r.Min.Y-reach && y <= r.Max.Y+reach {
			under = append(under, xy)
		}
	}
	return under
}

// legendClear checks, from the stack's layout on a canvas of its size,
// that no marker of points[i] drawn on panel i falls within panel i's
// legend, and that the legend is outside the panel's data area. It
// returns the legend rectangles and data areas for a control.
func legendClear(t *testing.T, s stack, points [][][2]float64) {
	t.Helper()
	height := vg.Length(len(s.panels)) * s.panelHeight
	dc := draw.New(vgimg.New(s.width(), height))
	panels, legends := s.layout(dc, 0)
	for i := range s.panels {
		da := s.panels[i].DataCanvas(panels[i])
		r := s.legends[i].Rectangle(legends[i])
		if r.Size().X <= 0 || r.Size().Y <= 0 {
			t.Fatalf("panel %d: an empty legend %v", i, r)
		}
		if r.Min.X < da.Max.X && r.Max.X > da.Min.X && r.Min.Y < da.Max.Y && r.Max.Y > da.Min.Y {
			t.Errorf("panel %d: the legend %v overlaps the data area %v", i, r, da.Rectangle)
		}
		if r.Max.X > dc.Max.X || r.Min.Y < dc.Min.Y {
			t.Errorf("panel %d: the legend %v runs off the canvas %v", i, r, dc.Rectangle)
		}
		if under := pointsUnder(s.panels[i], da, r, points[i]); len(under) > 0 {
			t.Errorf("panel %d: points %v drawn under the legend", i, under)
		}
	}
}

// TestLineLegendClearOfPoints: the sweep line plot's legend covers no point,
// from the plot's geometry: each strategy's (x, value) transformed to the
// canvas lies outside the legend's rectangle, markers included. The legend
// of the old layout (gonum's, at the data area's top left) had c's first
// point under it: the check, run on that placement, finds it.
func TestLineLegendClearOfPoints(t *testing.T) {
	s := lineSweep()
	f, err := linePlot(s, AutoScale)
	if err != nil {
		t.Fatal(err)
	}
	var xys [][2]float64
	for _, r := range s.Rows { // the shares in percent, from the counts
		xys = append(xys, [2]float64{r.Point[0], 100 * float64(r.Core.Failed) / float64(r.Core.Jobs)})
	}
	legendClear(t, f, [][][2]float64{xys})

	// The control: the same legend inside the data area, top left, as
	// gonum draws p.Legend, covers c's first point (0.25% at p_fail 0.01).
	dc := draw.New(vgimg.New(f.width(), f.panelHeight))
	panels, _ := f.layout(dc, 0)
	da := f.panels[0].DataCanvas(panels[0])
	old := f.legends[0]
	old.Top, old.Left = true, true
	if under := pointsUnder(f.panels[0], da, old.Rectangle(da), xys); len(under) == 0 {
		t.Errorf("a legend at the data area's top left covers no point: the check cannot fail")
	}
}

// TestLineLegendLabels: the legend names strategies as the table does (the
// rows' labels), not by their IDs.
func TestLineLegendLabels(t *testing.T) {
	s := lineSweep()
	for i := range s.Rows {
		s.Rows[i].Label = "Strategy " + s.Rows[i].ID
	}
	texts := svgTexts(t, s, PlotOptions{})
	for _, want := range []string{"Strategy a", "Strategy b (same as Strategy a)", "Strategy c"} {
		if !contains(texts, want) {
			t.Errorf("no legend entry %q in %q", want, texts)
		}
	}
	if contains(texts, "a") || contains(texts, "c") {
		t.Errorf("a strategy named by its ID: %q", texts)
	}
}

// TestLineZeroOnLogAxis: a value of 0 left out of a log axis is named in
// the legend, with where it is.
func TestLineZeroOnLogAxis(t *testing.T) {
	s := lineSweep()
	s.Rows[0].Core.Failed = 0 // a at p_fail 0.01
	texts := svgTexts(t, s, PlotOptions{Y: LogScale})
	if want := "values of 0 (at p_fail = 0.01) not shown on the log axis"; !contains(texts, want) {
		t.Errorf("no %q in %q", want, texts)
	}
}

// TestFleetLegendsClearOfPoints: each fleet panel's legend covers no point
// of any series (every second of every line and the load shape's corners).
func TestFleetLegendsClearOfPoints(t *testing.T) {
	runs, cfgs := fleetRuns()
	f, err := newFleetFigure("t", runs, cfgs)
	if err != nil {
		t.Fatal(err)
	}
	points := make([][][2]float64, len(runs))
	for i, pts := range runs {
		for _, l := range fleetLines(true) {
			for _, pt := range pts {
				points[i] = append(points[i], [2]float64{float64(pt.T) + 0.5, l.get(pt)})
			}
		}
		points[i] = append(points[i], [2]float64{0, cfgs[i].Load.At(0)}, [2]float64{cfgs[i].Duration.Seconds(), cfgs[i].Load.At(cfgs[i].Duration.Seconds())})
	}
	legendClear(t, f, points)
}

// TestFleetSharedScale: every fleet panel has one y range, 0 to the highest
// value of any run (the long run's spike to 100 a second) and a margin, so
// runs compare by eye; the time axis is ticked every 2 s up to 20 s (ten
// labels at most), with unlabelled ticks between.
func TestFleetSharedScale(t *testing.T) {
	runs, cfgs := fleetRuns()
	f, err := newFleetFigure("t", runs, cfgs)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range f.panels {
		if p.Y.Min != 0 || p.Y.Max != 105 {
			t.Errorf("panel %d: y from %v to %v; want 0 to 105 in every panel", i, p.Y.Min, p.Y.Max)
		}
	}
	var labels []string
	for _, tk := range (timeTicks{}).Ticks(0, 80) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := len(labels); got != 9 || labels[2] != "20" {
		t.Errorf("an 80 s axis labelled %q; want every 10 s, 0 to 80", labels)
	}
	if n := len((timeTicks{}).Ticks(0, 80)); n != 17 {
		t.Errorf("an 80 s axis has %d ticks; want 17 (every 5 s)", n)
	}
}

// TestHeatSharedColours: by default a value has the same colour in every
// panel, and each panel's highest value (a's 1%, b's 16%) a different one.
// With -own-scales, the old default, those two are the same colour: the
// issue's 0.15% and 2.2% in the same orange.
func TestHeatSharedColours(t *testing.T) {
	colourOf := func(f heatFigure, k int, v float64) [4]uint32 {
		cs := f.scales[k]
		c, err := heatPalette(cs).At(cs.coord(v))
		if err != nil {
			t.Fatal(err)
		}
		r, g, b, a := c.RGBA()
		return [4]uint32{r, g, b, a}
	}
	shared := newHeatFigure(heatSweep(), false)
	for _, v := range []float64{0.001, 1, 10, 16} {
		if a, b := colourOf(shared, 0, v), colourOf(shared, 1, v); a != b {
			t.Errorf("%v%% is %v in panel a and %v in panel b; want one colour", v, a, b)
		}
	}
	if colourOf(shared, 0, 1) == colourOf(shared, 1, 16) {
		t.Errorf("1%% in a and 16%% in b have one colour on the shared scale")
	}
	own := newHeatFigure(heatSweep(), true)
	if colourOf(own, 0, 1) != colourOf(own, 1, 16) {
		t.Errorf("with own scales each panel's top (1%%, 16%%) should share the palette's top colour")
	}
}

// TestSigDigits: heat map cells show two significant digits, whatever the
// magnitude.
func TestSigDigits(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want string
	}{{0.0006, "0.00060"}, {0.15, "0.15"}, {2.2, "2.2"}, {0.0996, "0.10"}, {16, "16"}, {153, "150"}, {0, "0"}} {
		if got := sigDigits(tt.x, 2); got != tt.want {
			t.Errorf("sigDigits(%v, 2) = %q; want %q", tt.x, got, tt.want)
		}
	}
}

// spikeResults are two policies over spike heights 50 and 80, three
// replicates each, without keys and with the same key, alike: "steady" recovers in 2 s at both;
// "stuck" recovers in 4 s at 50, and at 80 two of three replicates never do.
func spikeResults() []fleet.Result {
	var res []fleet.Result
	for _, keys := range []schema.KeyMode{schema.NoKeys, schema.SameKey} {
		for _, policy := range []string{"steady", "stuck"} {
			for _, h := range []float64{50, 80} {
				cfg := fleet.Config{Name: policy + " keys " + map[schema.KeyMode]string{schema.NoKeys: "none", schema.SameKey: "same"}[keys] + " peak " + map[float64]string{50: "50", 80: "80"}[h], Duration: 80 * time.Second,
					Load: fleet.Shape{Kind: fleet.SpikeLoad, Rate: 40, Peak: h, From: 20 * time.Second, To: 25 * time.Second}, Client: fleet.Client{Keys: keys}}
				var reps []fleetdata.Replicate
				for i := range 3 {
					rep := fleetdata.Replicate{Recovery: 2, Verdict: fleetdata.Recovered, Series: make([]fleetdata.Second, 80)}
					if policy == "stuck" {
						rep.Recovery = 4
						if h == 80 && i > 0 {
							rep.Recovery, rep.Verdict = math.NaN(), fleetdata.Down
						}
					}
					rep.Requests = 100
					reps = append(reps, rep)
				}
				res = append(res, fleetrun.Fleet().Result(cfg, reps))
			}
		}
	}
	return res
}

// TestSpikeNever: a run where most replicates never recovered is drawn as
// an arrow at the top edge, ticked "never", with a legend entry, and not as
// a time with an interval; its panels' legends cover no point.
func TestSpikeNever(t *testing.T) {
	f, err := newSpikeFigure("t", spikeResults())
	if err != nil {
		t.Fatal(err)
	}
	p := f.panels[0]
	end := 55.0 // 80 s run, the spike ends at 25 s
	var never []plot.Tick
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if tk.Label == "never" {
			never = append(never, tk)
		}
		if tk.Label != "" && tk.Label != "never" && tk.Value > end {
			t.Errorf("a time tick %q above the run's end", tk.Label)
		}
	}
	if len(never) != 1 || never[0].Value != p.Y.Max || p.Y.Max <= end {
		t.Errorf("never ticks %v, y max %v; want one at the top edge, above %v s", never, p.Y.Max, end)
	}
	var svg bytes.Buffer
	if err := f.encode(&svg, ".svg", 0, len(f.panels)); err != nil {
		t.Fatal(err)
	}
	c := svgTextsOf(t, svg.Bytes())
	if !contains(c, "never recovered (most replicates)") {
		t.Errorf("no legend entry for never in %q", c)
	}
	if contains(c, "50.00 s") || contains(c, "50 s") {
		t.Errorf("recovery ticks with units in them: %q", c)
	}
	// The recovery curves: stuck's 80 is no value (drawn as the arrow).
	points := make([][][2]float64, len(f.panels))
	points[0] = [][2]float64{{50, 2}, {80, 2}, {50, 4}, {80, p.Y.Max}}
	points[1] = points[0]
	legendClear(t, f, points)
}
