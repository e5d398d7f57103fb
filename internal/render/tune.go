package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TuneReport is a search's result as its page and markdown write it.
type TuneReport struct {
	// Headline is the answer in a line, Answer its details, Params what was searched.
	Headline string
	Answer   []string
	Params   []string
	// Header and Rows are the candidates' table, the searched settings first.
	Header   []string
	Rows     [][]string
	Settings int
	// Panels are the pictures: a figure against the searched setting each.
	Panels []TunePanel
}

// TunePanel is one picture of a search: a figure of every candidate.
type TunePanel struct {
	Title, X, Y string
	// Ticks label the searched setting's values (XValues, as plotted).
	XValues []float64
	Ticks   []string
	Series  []TuneSeries
	// Bound is a requirement's value, its ruled-out side shaded ("on": the line alone).
	Bound float64
	Shade string
	// Bands are spans of the searched setting where every candidate is ruled out.
	Bands [][2]float64
	// Best is the answer's point in this panel, nil for none.
	Best *[2]float64
	// Note says in words what is shaded.
	Note string
}

// TuneSeries is a line of a panel: its label and its values with intervals (NaN: none).
type TuneSeries struct {
	Label        string
	X, V, Lo, Hi []float64
}

// WriteTuneHTML writes r as one page: the answer, the pictures, the candidates.
func WriteTuneHTML(w io.Writer, r TuneReport) error {
	var answer []string // a list item a line, an indented line joined to the one above
	for _, l := range r.Answer {
		if n := len(answer); n > 0 && strings.HasPrefix(l, "  ") {
			answer[n-1] += "; " + strings.TrimSpace(l)
			continue
		}
		answer = append(answer, l)
	}
	p := page{title: r.Headline, params: append(answer, r.Params...)}
	var notes []string
	for _, pn := range r.Panels {
		figs, err := pageFigures(pn.stack())
		if err != nil {
			return err
		}
		p.figures = append(p.figures, figs...)
		if pn.Note != "" {
			notes = append(notes, pn.Note)
		}
	}
	how := "A row is one candidate: its settings, then each requirement's verdict on its 95% interval (holds when the " +
		"whole interval meets it, fails when none of it does, undecided otherwise), its status in the race and the work it got."
	if len(notes) > 0 {
		how += " In the pictures above, " + strings.Join(notes, "; ") + "."
	}
	// "jobs" alone is the glossary's term for a worker fleet's jobs.
	header := slices.Clone(r.Header)
	header[len(header)-1] += " spent"
	t := pageTable{heading: "The candidates", howTo: how, header: header}
	for _, row := range r.Rows {
		var cells []pageCell
		for j, c := range row {
			if j < r.Settings || j == len(row)-2 { // the settings and the status are words
				cells = append(cells, prose(c))
			} else {
				cells = append(cells, plain(c))
			}
		}
		t.rows = append(t.rows, pageRow{cells: cells})
	}
	p.tables = []pageTable{t}
	return writePage(w, p)
}

// WriteTuneMarkdown writes r as markdown: the headline, the answer, the candidates.
func WriteTuneMarkdown(w io.Writer, r TuneReport) error {
	var b strings.Builder
	b.WriteString(tableTitle(r.Headline, tableStyle{markdown: true}) + "\n")
	top := false // a list item opened at the top level
	for _, l := range r.Answer {
		item := "- "
		if top && strings.HasPrefix(l, "  ") {
			item = "  - "
		}
		top = top || item == "- " && !strings.HasPrefix(l, "  ")
		b.WriteString(item + markdownText(strings.TrimSpace(l)) + "\n")
	}
	b.WriteString("\n")
	for _, l := range r.Params {
		b.WriteString("- " + markdownText(l) + "\n")
	}
	if _, err := fmt.Fprintln(w, b.String()); err != nil {
		return err
	}
	align := numberColumns(len(r.Header), r.Settings)
	align[len(align)-2] = alignLeft // the status
	t := newTable(w, tableStyle{markdown: true}, align, r.Settings)
	t.Header(r.Header)
	for _, row := range r.Rows {
		t.Append(row)
	}
	return t.Render()
}

// stack is the panel drawn, log y when its values span more than two decades.
func (pn TunePanel) stack() (stack, error) {
	var values []float64
	for _, s := range pn.Series {
		values = append(values, s.V...)
	}
	if pn.Shade != "" {
		values = append(values, pn.Bound)
	}
	logY := spansDecades(values)
	p := newPanel(pn.Title, pn.X, pn.Y, 10)
	if len(pn.XValues) <= 12 {
		var ticks plot.ConstantTicks
		for i, x := range pn.XValues {
			ticks = append(ticks, plot.Tick{Value: x, Label: pn.Ticks[i]})
		}
		p.X.Tick.Marker = ticks
	}
	floor := yScale(p, logY, values, "")
	for _, b := range pn.Bands {
		p.Add(window{from: b[0], to: b[1]})
	}
	if len(pn.Bands) > 0 {
		p.Legend.Add("ruled out by a requirement", window{})
	}
	if pn.Shade != "" {
		l := level{bound: pn.Bound, side: pn.Shade}
		p.Add(l)
		p.Legend.Add(l.label(), l)
	}
	p.Add(plotter.NewGrid())
	var zeros []string // the settings of values a log axis cannot place
	lines := make([]series, len(pn.Series))
	for k, s := range pn.Series {
		lines[k] = series{s.X, s.V, s.Lo, s.Hi}
		for i, v := range s.V {
			if j := slices.Index(pn.XValues, s.X[i]); logY && v == 0 && j >= 0 {
				zeros = append(zeros, pn.Ticks[j])
			}
		}
	}
	for k, s := range pn.Series {
		pts := lines[k].points(logY, floor)
		if len(pts.XYs) == 0 {
			p.Legend.Add(s.Label+": no value to draw", blank{})
			continue
		}
		// Candidates with the same figures share a line, as in linePlot.
		same, later := twins(lines, k, series.equal)
		label := s.Label
		if same >= 0 {
			label += " (same as " + pn.Series[same].Label + ")"
		}
		if err := addSeries(p, pts, k, later, 3, label); err != nil {
			return stack{}, fmt.Errorf("%s: %w", s.Label, err)
		}
	}
	if pn.Best != nil && !(logY && pn.Best[1] <= 0) && !math.IsNaN(pn.Best[1]) {
		ring, err := plotter.NewScatter(plotter.XYs{{X: pn.Best[0], Y: pn.Best[1]}})
		if err != nil {
			return stack{}, err
		}
		ring.Radius = vg.Points(8)
		p.Add(ring)
		p.Legend.Add("the answer", ring)
	}
	if len(zeros) > 0 && logY {
		p.Legend.Add(fmt.Sprintf("values of 0 (at %s = %s) not shown on the log axis", pn.X, strings.Join(zeros, ", ")), blank{})
	}
	if len(pn.XValues) > 0 { // every candidate's place, drawn or not, with a margin
		lo, hi := slices.Min(pn.XValues), slices.Max(pn.XValues)
		margin := math.Max(hi-lo, 1) / 20
		p.X.Min, p.X.Max = lo-margin, hi+margin
	}
	if logY {
		p.Y.Min = math.Min(p.Y.Min, floor)
		p.Y.Max = math.Max(p.Y.Max*2, floor*10)
	}
	if pn.Shade != "" { // the bound within the axis, with a margin
		p.Y.Min, p.Y.Max = math.Min(p.Y.Min, pn.Bound), math.Max(p.Y.Max, pn.Bound)
		if logY {
			p.Y.Min, p.Y.Max = math.Min(p.Y.Min, pn.Bound/2), math.Max(p.Y.Max, pn.Bound*2)
		}
	}
	return newStack(17*vg.Centimeter, 11*vg.Centimeter, "", p), nil
}

// level shades a panel's side of a requirement's bound, and draws the bound.
type level struct {
	bound float64
	side  string // "above", "below" or "on"
}

// label is the legend's entry: what is shaded.
func (l level) label() string {
	if l.side == "on" {
		return fmt.Sprintf("the requirement's value, %g", l.bound)
	}
	return fmt.Sprintf("%s %g: ruled out", l.side, l.bound)
}

// Plot implements plot.Plotter, clipped to the panel's y axis.
func (l level) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(math.Min(math.Max(l.bound, p.Y.Min), p.Y.Max))
	switch l.side {
	case "above":
		c.FillPolygon(shade, []vg.Point{{X: c.Min.X, Y: y}, {X: c.Max.X, Y: y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
	case "below":
		c.FillPolygon(shade, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: y}, {X: c.Min.X, Y: y}})
	}
	c.StrokeLine2(draw.LineStyle{Color: lineColour(6), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}, c.Min.X, y, c.Max.X, y)
}

// Thumbnail implements plot.Thumbnailer.
func (l level) Thumbnail(c *draw.Canvas) {
	if l.side == "on" {
		y := (c.Min.Y + c.Max.Y) / 2
		c.StrokeLine2(draw.LineStyle{Color: lineColour(6), Width: vg.Points(1)}, c.Min.X, y, c.Max.X, y)
		return
	}
	window{}.Thumbnail(c)
}
