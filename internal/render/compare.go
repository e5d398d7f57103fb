package render

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/schema"
)

// curve is one policy's estimates along a comparison's x axis.
type curve struct {
	label string
	series
}

// curveAxes are a curve panel's axes: x's label, y's label and unit, scale, the markers' radius,
// what a curve with nothing to draw says, and what a log axis's note says of values of 0.
type curveAxes struct {
	x, y, unit      string
	scale           Scale
	radius          float64
	empty, zeroNote string
}

// curvePanel draws curves with 95% error bars under title, noting the y axis's scale.
func curvePanel(title string, a curveAxes, curves []curve) (p *plot.Plot, logY bool, err error) {
	var values []float64
	for _, c := range curves {
		for _, v := range c.vs {
			if !math.IsNaN(v) {
				values = append(values, v)
			}
		}
	}
	logY = a.scale == LogScale || a.scale == AutoScale && spansDecades(values)
	if logY && !slices.ContainsFunc(values, func(v float64) bool { return v > 0 }) {
		logY = false // nothing to place on a log axis
	}
	note := "linear y axis"
	if logY {
		note = "log y axis"
		if slices.Contains(values, 0) {
			note += a.zeroNote
		}
	}
	p = newPanel(title+"; "+note, a.x, a.y, 10)
	p.X.Tick.Marker = unitTicks{}
	floor := yScale(p, logY, values, a.unit)
	p.Add(plotter.NewGrid())
	return p, logY, addCurves(p, curves, logY, floor, a.radius, a.empty)
}

// comparePanel is a curve panel of fleet runs against x, as the sweep plots draw them.
func comparePanel(title, xLabel, yLabel, unit string, curves []curve) (*plot.Plot, error) {
	p, _, err := curvePanel(title, curveAxes{x: xLabel, y: yLabel, unit: unit, radius: 2.5, empty: "nothing to draw",
		zeroNote: " (values of 0 not drawn)"}, curves)
	return p, err
}

// PlotFleetTotals draws a preset that compares client policies over failure
// rates (fleet.Preset.Totals): success and calls a request against the
// failure rate, a line a policy, with 95% intervals over the replicates.
func PlotFleetTotals(w io.Writer, title string, res []fleet.Result, byClients bool, ext string) error {
	if len(res) == 0 {
		return fmt.Errorf("nothing to plot")
	}
	c := res[0].Config
	clients := fmt.Sprintf("%d clients", c.Client.Clients)
	if byClients {
		clients = "clients"
	}
	subtitle := fmt.Sprintf("%s sharing %s requests a second for %s s; server %s (%s s a call, failing each at the failure rate);\nnetwork %s s each way; timeout %s s",
		clients, g(c.Load.Rate), g(c.Duration.Seconds()), c.Server.Kind, g(c.Server.Base.Seconds()), g(c.Net.Seconds()), g(c.Client.Timeout.Seconds()))
	var succ, amp curveSet
	for _, r := range res {
		label := r.Config.Name
		if byClients {
			label = fmt.Sprintf("%s, %d clients", label, r.Config.Client.Clients)
		}
		s := fleetrun.Fleet().Summary(r)
		succ.add(label, r.Config.Server.PFail, s.Succeeded, 100)
		amp.add(label, r.Config.Server.PFail, s.Amplification, 1)
	}
	head := title + "\n" + subtitle + "; " + intervalsOver(len(fleetrun.Fleet().Replicates(res[0]))) + "\n"
	top, err := comparePanel(head+"Requests that succeeded (%)", "server failure rate", "requests that succeeded (%)", "%", succ.curves(succ.labels))
	if err != nil {
		return err
	}
	bottom, err := comparePanel("Server calls a request (amplification)", "server failure rate", "server calls a request", "", amp.curves(amp.labels))
	if err != nil {
		return err
	}
	return newStack(17*vg.Centimeter, 11*vg.Centimeter, "", top, bottom).encode(w, ext, 0, 2)
}

// curveSet is curves by label, in the order their labels first come.
type curveSet struct {
	labels []string
	by     map[string]*curve
}

// add appends x and mul times e to label's curve.
func (s *curveSet) add(label string, x float64, e schema.Estimate, mul float64) {
	c := s.by[label]
	if c == nil {
		if s.by == nil {
			s.by = map[string]*curve{}
		}
		c = &curve{label: label}
		s.by[label], s.labels = c, append(s.labels, label)
	}
	c.xs = append(c.xs, x)
	c.vs, c.los, c.his = append(c.vs, mul*e.Value), append(c.los, mul*e.Lo), append(c.his, mul*e.Hi)
}

// curves are the set's curves in labels' order, those it holds.
func (s curveSet) curves(labels []string) []curve {
	var cs []curve
	for _, l := range labels {
		if c := s.by[l]; c != nil {
			cs = append(cs, *c)
		}
	}
	return cs
}

// never is where a recovery panel puts its runs that never recovered: at top.
type never struct {
	top float64
	at  [][]float64 // x values a curve
}

// newSpikeFigure draws a spikes preset (fleet.Preset.Spikes): each policy's
// recovery (Kaplan-Meier median and quartiles) and duplicates against the spike's height.
func newSpikeFigure(title string, res []fleet.Result) (stack, error) {
	if len(res) == 0 {
		return stack{}, fmt.Errorf("nothing to plot")
	}
	var labels []string
	var heights []float64
	var rec [2]curveSet
	var dup curveSet
	nev := [2]map[string][]float64{{}, {}}
	for _, r := range res {
		label, _, _ := strings.Cut(r.Config.Name, " ")
		labels = appendNew(labels, label)
		k := 0
		if r.Config.Client.Keys == schema.SameKey {
			k = 1
		}
		// A third quartile not reached is drawn to the run's end.
		q, end := fleetrun.Fleet().RecoveryCurve(r).Quartiles(), (r.Config.Duration - r.Config.Load.To).Seconds()
		e := schema.Estimate{Value: q.Median, Lo: q.P25, Hi: q.P75}
		if math.IsNaN(e.Hi) {
			e.Hi = end
		}
		if math.IsNaN(q.Median) {
			e = schema.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
			nev[k][label] = append(nev[k][label], r.Config.Load.Peak)
		}
		rec[k].add(label, r.Config.Load.Peak, e, 1)
		if k == 0 {
			dup.add(label, r.Config.Load.Peak, fleetrun.Fleet().DuplicatesPerRequest(r), 1)
		}
		heights = appendNew(heights, r.Config.Load.Peak)
	}
	c := res[0].Config
	end := (c.Duration - c.Load.To).Seconds()
	head := fmt.Sprintf("%s\nserver %s s + %s s per call in progress, network %s s each way, timeout %s s, one client; %s requests a second,\n"+
		"the spike from %s to %s s; recovery: goodput back within 10%% of the load for good\n"+
		"(the Kaplan-Meier median, its bar the quartiles, a replicate still down censored at the run's end, %s s;\n"+
		"an arrow at the top edge, \"never\", when fewer than half recovered); duplicates: %s\n", title, g(c.Server.Base.Seconds()), g(c.Server.Slope.Seconds()), g(c.Net.Seconds()), g(c.Client.Timeout.Seconds()), g(c.Load.Rate),
		g(c.Load.From.Seconds()), g(c.Load.To.Seconds()), g(end), intervalsOver(len(fleetrun.Fleet().Replicates(res[0]))))
	slices.Sort(heights)
	ticks := valueTicks(heights, g, false)
	pad := 0.05 * (heights[len(heights)-1] - heights[0])
	var panels []*plot.Plot
	for i, t := range []string{head + "Recovery after the spike, no keys (s)", "Recovery after the spike, the same key on every attempt (s)"} {
		cs := rec[i].curves(labels)
		p, err := comparePanel(t, "spike height (requests a second)", "recovery (s)", "", cs)
		if err != nil {
			return stack{}, err
		}
		nv := never{top: end * 1.1}
		for _, cv := range cs {
			nv.at = append(nv.at, nev[i][cv.label])
		}
		p.Add(nv)
		p.Y.Min, p.Y.Max = 0, nv.top
		p.Y.Tick.Marker = recoveryTicks{end: end, never: nv.top}
		if slices.ContainsFunc(nv.at, func(xs []float64) bool { return len(xs) > 0 }) {
			p.Legend.Add("never recovered (most replicates)", neverThumb{})
		}
		panels = append(panels, p)
	}
	p, err := comparePanel("Duplicate side effects a request, no keys (with keys: none)", "spike height (requests a second)",
		"duplicates a request", "", dup.curves(labels))
	if err != nil {
		return stack{}, err
	}
	panels = append(panels, p)
	for _, p := range panels {
		p.X.Tick.Marker = ticks
		p.X.Min, p.X.Max = heights[0]-pad, heights[len(heights)-1]+pad
	}
	return newStack(17*vg.Centimeter, 11*vg.Centimeter, "", panels...), nil
}

// recoveryTicks are timeTicks up to end, and "never" at the top edge.
type recoveryTicks struct{ end, never float64 }

// Ticks implements plot.Ticker.
func (r recoveryTicks) Ticks(lo, hi float64) []plot.Tick {
	return append(timeTicks{}.Ticks(lo, r.end), plot.Tick{Value: r.never, Label: "never"})
}

// Plot implements plot.Plotter: an arrow up at each never recovered run.
func (n never) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	// Curves that never recovered at one x stand side by side, so each colour shows.
	at := map[float64][]int{}
	var xs []float64
	for k, kxs := range n.at {
		for _, x := range kxs {
			if at[x] == nil {
				xs = append(xs, x)
			}
			at[x] = append(at[x], k)
		}
	}
	for _, x := range xs {
		ks := at[x]
		for j, k := range ks {
			dx := (vg.Length(j) - vg.Length(len(ks)-1)/2) * vg.Points(neverArrowSize)
			neverArrow(c, vg.Point{X: trX(x) + dx, Y: trY(n.top)}, lineColour(k))
		}
	}
}

// neverArrowSize is the never arrow's height.
const neverArrowSize = 8

// neverArrow draws an arrow pointing up, its tip at tip.
func neverArrow(c draw.Canvas, tip vg.Point, col color.Color) {
	sty := draw.LineStyle{Color: col, Width: vg.Points(1.5)}
	h := vg.Points(neverArrowSize)
	c.StrokeLines(sty, []vg.Point{{X: tip.X, Y: tip.Y - h}, tip})
	c.StrokeLines(sty, []vg.Point{{X: tip.X - h/3, Y: tip.Y - h/3}, tip, {X: tip.X + h/3, Y: tip.Y - h/3}})
}

// neverThumb is the never arrow's legend entry.
type neverThumb struct{}

// Thumbnail implements plot.Thumbnailer.
func (neverThumb) Thumbnail(c *draw.Canvas) {
	neverArrow(*c, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y}, color.Black)
}

// intervalsOver says what a picture's intervals are over: "95% intervals over n replicates".
func intervalsOver(replicates int) string {
	if replicates == 1 {
		return "1 replicate: no intervals"
	}
	return fmt.Sprintf("95%% intervals over %d replicates", replicates)
}
