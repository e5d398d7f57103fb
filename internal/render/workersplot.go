package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
)

// workersPanel is one panel of a worker fleet's plot.
type workersPanel struct {
	title, y string
	lines    []seriesColumn[fleetdata.WorkersPoint] // a colour a line
}

// PlotWorkers draws r's series, one panel above the other on one time
// axis: jobs a second, jobs waiting, the oldest job's age, and a panel a
// dependency; a colour a figure, a dash pattern a run.
func PlotWorkers(w io.Writer, r WorkersReport, ext string) error {
	return encodeWhole(w, ext)(newWorkersFigure(r))
}

// workersPanels are the panels PlotWorkers may draw, in its order.
func workersPanels(r WorkersReport) []workersPanel {
	lines := func(keys ...string) []seriesColumn[fleetdata.WorkersPoint] {
		var ls []seriesColumn[fleetdata.WorkersPoint]
		for _, k := range keys {
			ls = append(ls, seriesColumnOf(workersSeries, k))
		}
		return ls
	}
	panels := []workersPanel{
		{"jobs a second", "per second", lines("arrivals", "completions", "dead", "redeliveries")},
		{"jobs waiting", "jobs", lines("backlog", "retries_scheduled")},
		{"oldest waiting job", "age (s)", lines("oldest_age_seconds")},
	}
	var deps []string // every run's dependencies, in the order they first come
	for _, g := range r.Graphs {
		for _, d := range r.runDeps(g.Name) {
			deps = appendNew(deps, d)
		}
	}
	for _, d := range deps {
		get := func(in bool) func(fleetdata.WorkersPoint) float64 {
			return func(p fleetdata.WorkersPoint) float64 {
				i := slices.Index(r.runDeps(p.Run), d)
				switch {
				case i < 0:
					return math.NaN()
				case in:
					return p.DepInProgress[i]
				}
				return p.DepCalls[i]
			}
		}
		panels = append(panels, workersPanel{d, "calls", []seriesColumn[fleetdata.WorkersPoint]{{legend: "calls a second", get: get(false)}, {legend: "in progress", get: get(true)}}})
	}
	return panels
}

// newWorkersFigure lays out PlotWorkers's panels.
func newWorkersFigure(r WorkersReport) (stack, error) {
	byRun := map[string][]fleetdata.WorkersPoint{}
	var runs []string
	end := 0.0
	for _, p := range r.Series {
		if _, ok := byRun[p.Run]; !ok {
			runs = append(runs, p.Run)
		}
		byRun[p.Run] = append(byRun[p.Run], p)
		end = math.Max(end, float64(p.T+1))
	}
	lo, hi := workersWindow(r, byRun, end)
	triggers := r.triggers() // shaded in every panel
	heading := r.Title
	if lo > 0 || hi < end {
		heading += fmt.Sprintf("\nshown: %s to %s s of %s s, the outages and their aftermath", human.Group(int64(lo)), human.Group(int64(hi)), human.Group(int64(end)))
	}
	var panels []*plot.Plot
	for i, pn := range workersPanels(r) {
		p, ok, err := workersPlot(pn, runs, byRun, lo, hi, triggers)
		if err != nil {
			return stack{}, err
		}
		if !ok && i > 0 {
			continue // nothing in it: the jobs a second stay, to say so
		}
		panels = append(panels, p)
	}
	return newStack(15*vg.Centimeter, graphPanelHeight, heading, panels...), nil
}

// workersPlot draws one panel over [lo, hi], a line a figure and run; ok
// is false when every figure is 0 in every run throughout.
func workersPlot(pn workersPanel, runs []string, byRun map[string][]fleetdata.WorkersPoint, lo, hi float64, triggers []window) (*plot.Plot, bool, error) {
	p := timePanel(pn.title, pn.y, 9)
	for _, w := range triggers {
		p.Add(w)
		p.Legend.Add(fmt.Sprintf("%s, %s to %s s (the trigger)", w.what, human.Group(int64(w.from)), human.Group(int64(w.to))), w)
	}
	// curves[j][k] is figure j of run k; nonzero[j] whether it is ever not 0.
	curves := make([][]plotter.XYs, len(pn.lines))
	nonzero := make([]bool, len(pn.lines))
	var values []float64
	for j, l := range pn.lines {
		curves[j] = make([]plotter.XYs, len(runs))
		for k, run := range runs {
			for _, pt := range byRun[run] {
				y := l.get(pt)
				if math.IsNaN(y) {
					continue
				}
				nonzero[j] = nonzero[j] || y != 0
				if x := float64(pt.T) + 0.5; x >= lo && x <= hi {
					curves[j][k] = append(curves[j][k], plotter.XY{X: x, Y: y})
					values = append(values, y)
				}
			}
		}
	}
	if !slices.Contains(nonzero, true) {
		return p, false, nil
	}
	slices.Sort(values)
	top := values[len(values)-1]
	zero := 0.0 // where 0 is drawn: the axis' foot
	// Spiky values, the top over ten times the 95th percentile, go on a log axis.
	if top > 0 && top > 10*values[(len(values)-1)*95/100] {
		least := values[slices.IndexFunc(values, func(v float64) bool { return v > 0 })]
		zero = decadeFloor([]float64{least}) / 10
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = zeroLogTicks{zero}
		// The unit goes to the title: gonum pads a log axis's label out of the panel.
		p.Title.Text += " (" + pn.y + ", log y axis)"
		p.Y.Label.Text = ""
	}
	for j, l := range pn.lines {
		if !nonzero[j] {
			p.Legend.Add(l.legend+": none in any run", blank{})
			continue
		}
		var same []string // "b same as a" for each run whose line is run a's
		firsts := 0       // the runs whose line is the first run's
		for k := range runs {
			xy := curves[j][k]
			if len(xy) == 0 {
				continue
			}
			if m := slices.IndexFunc(curves[j][:k], func(o plotter.XYs) bool { return slices.Equal(o, xy) }); m >= 0 {
				same = append(same, runs[k]+" same as "+runs[m])
				if m == 0 {
					firsts++
				}
			}
			drawn := slices.Clone(xy)
			for n := range drawn {
				drawn[n].Y = math.Max(drawn[n].Y, zero)
			}
			line, err := plotter.NewLine(drawn)
			if err != nil {
				return nil, false, fmt.Errorf("%s %s: %w", pn.title, l.legend, err)
			}
			line.Color = lineColour(j)
			line.Width = vg.Points(1.2)
			line.Dashes = runDashes(k)
			p.Add(line)
		}
		name := l.legend
		switch {
		case len(runs) > 2 && firsts == len(runs)-1:
			name += " (the same in every run)"
		case len(same) > 0:
			name += " (" + strings.Join(same, ", ") + ")"
		}
		p.Legend.Add(name, &plotter.Line{LineStyle: draw.LineStyle{Color: lineColour(j), Width: vg.Points(1.2)}})
	}
	if len(runs) > 1 {
		for k, run := range runs {
			p.Legend.Add("run "+run, &plotter.Line{LineStyle: draw.LineStyle{Color: lineColour(6), Width: vg.Points(1.2), Dashes: runDashes(k)}})
		}
	}
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = zero, math.Max(1, top*1.05)
	if zero > 0 {
		p.Y.Max = math.Max(zero*100, top*1.5)
	}
	return p, true, nil
}

// runDashes is run k's dash pattern: solid, long dashes, dots, then plotutil's.
func runDashes(k int) []vg.Length {
	switch k {
	case 0:
		return nil
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(1.5), vg.Points(2)}
	}
	return plotutil.Dashes(k)
}

// zeroLogTicks label a log axis whose foot stands for 0.
type zeroLogTicks struct{ zero float64 }

// Ticks implements plot.Ticker.
func (t zeroLogTicks) Ticks(lo, hi float64) []plot.Tick {
	return append([]plot.Tick{{Value: t.zero, Label: "0"}}, logTicks{}.Ticks(t.zero*10, hi)...)
}

// workersWindow is the time window PlotWorkers shows: the outages and their aftermath.
func workersWindow(r WorkersReport, byRun map[string][]fleetdata.WorkersPoint, end float64) (lo, hi float64) {
	from, to, ok := r.outages()
	if !ok {
		return 0, end
	}
	last := to
	for _, pts := range byRun {
		var wait, age float64
		var deps []float64
		for _, p := range pts {
			if len(deps) < len(p.DepInProgress) {
				deps = append(deps, make([]float64, len(p.DepInProgress)-len(deps))...)
			}
			if float64(p.T+1) <= from {
				wait, age = math.Max(wait, p.Backlog+p.RetriesScheduled), math.Max(age, p.OldestAge)
				for d, v := range p.DepInProgress {
					deps[d] = math.Max(deps[d], v)
				}
				continue
			}
			back := p.Backlog+p.RetriesScheduled <= wait+1 && p.OldestAge <= age+1 && p.Dead == 0
			for d, v := range p.DepInProgress {
				back = back && v <= 1.5*deps[d]+1
			}
			if !back {
				last = math.Max(last, float64(p.T+1))
			}
		}
	}
	margin := math.Max(10, (last-from)/6)
	lo, hi = math.Max(0, from-margin), math.Min(end, last+margin)
	step := timeStep(hi - lo)
	lo, hi = math.Floor(lo/step)*step, math.Min(end, math.Ceil(hi/step)*step)
	if hi-lo > 0.6*end {
		return 0, end
	}
	return lo, hi
}

// triggers are the windows a worker fleet's plot shades: outages, then load spikes.
func (r WorkersReport) triggers() []window {
	var ws []window
	if from, to, ok := r.outages(); ok {
		ws = append(ws, window{"outages", from, to})
	}
	for i := range r.Graphs {
		for _, e := range r.Graphs[i].Entries {
			w := window{"load spike", e.Load.From.Seconds(), e.Load.To.Seconds()}
			if e.Load.Kind == fleet.SpikeLoad && !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
	}
	return ws
}

// outages is the span of the runs' outages; ok is false with none.
func (r WorkersReport) outages() (from, to float64, ok bool) {
	from, to = math.Inf(1), math.Inf(-1)
	for i := range r.Graphs {
		if f, t, on := fleetrun.Fleet().OutageWindow(&r.Graphs[i]); on {
			from, to, ok = math.Min(from, f), math.Max(to, t), true
		}
	}
	return from, to, ok
}

// window shades the seconds from to to across a panel.
type window struct {
	what     string
	from, to float64
}

// Plot implements plot.Plotter, clipped to the panel's time axis.
func (w window) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0, x1 := trX(math.Max(w.from, p.X.Min)), trX(math.Min(w.to, p.X.Max))
	if x1 > x0 {
		c.FillPolygon(shade, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
	}
}

// Thumbnail implements plot.Thumbnailer: the legend's grey box.
func (window) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(shade, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}
