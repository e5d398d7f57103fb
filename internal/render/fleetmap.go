package render

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/reportjson"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/retrysim/retrysim/internal/metastable"
)

// MapReport is what `retrysim fleet-map` prints: the map and each cell's outcome.
type MapReport struct {
	Title      string
	Map        metastable.Map
	Cells      []metastable.MapCell
	Replicates int
	Seed       uint64
}

// mapCaption says what a map's figures are.
const mapCaption = "Recovered: replicates judged (goodput back within 10% of the load for good by the run's end) " +
	"that recovered, with the share's 95% Wilson score interval; recovery: seconds after the trigger ended, " +
	"the Kaplan-Meier median over the replicates judged, one still down censored at its run's end (never: fewer than half recovered)."

// mapRow is a cell of the map, with the map and the cell's policy.
type mapRow struct {
	m      metastable.Map
	c      metastable.MapCell
	policy string
}

// trigger is the cell's trigger ("spike", "outage MODE") and its length.
func (r mapRow) trigger() (string, time.Duration) {
	if r.m.Outage {
		return "outage " + r.c.Config.Outage.Mode.String(), r.c.Config.Outage.To - r.c.Config.Outage.From
	}
	return "spike", r.c.Config.Load.To - r.c.Config.Load.From
}

// mapColumns are the map's columns, a row a cell.
var mapColumns = columns[mapRow]{
	labelColumn("Policy", "policy", func(r mapRow) string { return r.policy }),
	labelColumn("Trigger", "trigger", func(r mapRow) string { t, _ := r.trigger(); return t }),
	{header: "Length", text: func(r mapRow) string { _, l := r.trigger(); return human.Duration(l) },
		fields: func(r mapRow) []field { _, l := r.trigger(); return []field{{"length_seconds", l.Seconds()}} }},
	{header: "Height /s", text: func(r mapRow) string {
		if r.m.Outage {
			return "-"
		}
		return g(r.c.Config.Load.Peak)
	}, fields: func(r mapRow) []field { return []field{{"height", r.c.Config.Load.Peak}} }},
	{header: "Base rate /s", text: func(r mapRow) string { return g(r.c.Config.Load.Rate) },
		fields: func(r mapRow) []field {
			return []field{{"rate", r.c.Config.Load.Rate}, {"duration_seconds", r.c.Config.Duration.Seconds()}}
		}},
	{header: "Recovered", text: func(r mapRow) string {
		sh := r.c.Share()
		return human.Group(sh.Count()) + " of " + human.Group(sh.N)
	}, fields: func(r mapRow) []field {
		sh := r.c.Share()
		return []field{{"recovered_replicates", sh.Count()}, {"judged_replicates", sh.N}}
	}},
	{header: "Share (95% Wilson)", text: func(r mapRow) string {
		sh := r.c.Share()
		if sh.N == 0 {
			return "-"
		}
		return fmt.Sprintf("%s [%s, %s]", strconv.FormatFloat(sh.Value, 'f', 2, 64),
			strconv.FormatFloat(math.Floor(100*sh.Lo)/100, 'f', 2, 64), strconv.FormatFloat(math.Ceil(100*sh.Hi)/100, 'f', 2, 64))
	}, fields: func(r mapRow) []field { return estimateFields("recovered_share", r.c.Share()) }},
	{header: "Recovery median", text: func(r mapRow) string {
		if q := r.c.RecoveryTime(); !math.IsNaN(q.Median) {
			return strconv.FormatFloat(math.Round(1000*q.Median)/1000, 'f', -1, 64) + " s"
		}
		return "never"
	}, fields: func(r mapRow) []field {
		q := r.c.RecoveryTime()
		return []field{{"recovery_p25_seconds", reportjson.NaNNull(q.P25)}, {"recovery_median_seconds", reportjson.NaNNull(q.Median)}, {"recovery_p75_seconds", reportjson.NaNNull(q.P75)}}
	}},
}

// mapRows are the report's cells as rows.
func (r MapReport) mapRows() []mapRow {
	rows := make([]mapRow, len(r.Cells))
	per := len(r.Map.Lengths) * len(r.Map.Heights) * len(r.Map.Rates) // cells run policies outermost
	for i, c := range r.Cells {
		rows[i] = mapRow{r.Map, c, r.Map.Policies[i/per].Name}
	}
	return rows
}

// g formats x in the fewest digits that read back as x.
func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// report is r as every format writes it, its csv without the seed.
func (r MapReport) report() kindReport[mapRow] {
	return kindReport[mapRow]{cs: mapColumns, rows: r.mapRows(), caption: mapCaption,
		head:    kindDoc{Title: r.Title, Replicates: r.Replicates, Seed: r.Seed, Recovery: mapCaption},
		csvRows: func(rows [][]field) [][]field { return rows }, page: r.html}
}

// html writes one page: the table and the heat maps, inline.
func (r MapReport) html(w io.Writer) error {
	p := page{title: r.Title}
	t := pageTable{heading: "The cells", howTo: "A row is one cell: a policy, a trigger and a base load. " + mapCaption, header: mapColumns.header()}
	for _, row := range r.mapRows() { // every cell plain, as the table prints it
		t.rows = append(t.rows, pageRow{cells: mapped(mapColumns.cells(row), plain)})
	}
	p.tables = []pageTable{t}
	return writePageWith(w, p, func(w io.Writer) error { return PlotMap(w, r, ".svg") })
}

// mapPanelHeight and mapPlotWidth size each panel of the map's picture.
const (
	mapPanelHeight = 9 * vg.Centimeter
	mapPlotWidth   = 16 * vg.Centimeter
)

// PlotMap draws the map as heat maps of the share recovered, a panel a policy and length.
func PlotMap(w io.Writer, r MapReport, ext string) error {
	m := r.Map
	var panels []*plot.Plot
	per := len(m.Heights) * len(m.Rates)
	for k := 0; k < len(m.Policies)*len(m.Lengths); k++ {
		cells := r.Cells[k*per : (k+1)*per]
		title := fmt.Sprintf("%s, spike of %s s", m.Policies[k/len(m.Lengths)].Name, g(m.Lengths[k%len(m.Lengths)].Seconds()))
		if m.Outage {
			title = fmt.Sprintf("%s, outage of %s s", m.Policies[k/len(m.Lengths)].Name, g(m.Lengths[k%len(m.Lengths)].Seconds()))
		}
		if k == 0 {
			title = r.Title + "\nshare of replicates recovered (black line: 50%)\n" + title
		}
		panels = append(panels, mapPanel(m, cells, title))
	}
	height := vg.Length(len(panels))*mapPanelHeight + vg.Centimeter
	return encode(w, ext, mapPlotWidth, height, func(dc draw.Canvas) {
		for i, c := range alignColumn(panels, dc, vg.Centimeter/2) {
			panels[i].Draw(c[0])
		}
	})
}

// mapPanel is one policy and length's heat map.
func mapPanel(m metastable.Map, cells []metastable.MapCell, title string) *plot.Plot {
	cols, rows := len(m.Rates), len(m.Heights)
	pal := heatPalette(colourScale{lo: 0, hi: 1}) // the share, 0 to 1
	share := func(r, c int) float64 { return cells[r*cols+c].Share().Value }
	p := heatPlot(title, cols, rows, pal, false, func(c, r int) (float64, string, color.Color) {
		v := share(r, c)
		return v, sigDigits(v, 2), inkOn(pal, math.Max(0, v))
	})
	p.X.Label.Text = "base load (requests a second)"
	p.Y.Label.Text = "spike height (requests a second)"
	xt, yt := valueTicks(m.Rates, g, true), valueTicks(m.Heights, g, true)
	if m.Outage {
		p.Y.Label.Text = ""
		yt[0].Label = "outage"
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
	// The 50% boundary: each edge between two cells on either side of it.
	high := func(r, c int) bool { return share(r, c) >= 0.5 }
	var segs []plotter.XYs
	for r := range rows {
		for c := range cols {
			if c+1 < cols && high(r, c) != high(r, c+1) {
				segs = append(segs, plotter.XYs{{X: float64(c) + 0.5, Y: float64(r) - 0.5}, {X: float64(c) + 0.5, Y: float64(r) + 0.5}})
			}
			if r+1 < rows && high(r, c) != high(r+1, c) {
				segs = append(segs, plotter.XYs{{X: float64(c) - 0.5, Y: float64(r) + 0.5}, {X: float64(c) + 0.5, Y: float64(r) + 0.5}})
			}
		}
	}
	for _, s := range segs {
		if line, err := plotter.NewLine(s); err == nil {
			line.Color = color.Black
			line.Width = vg.Points(3)
			p.Add(line)
		}
	}
	return p
}
