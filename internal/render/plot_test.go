package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/stats"
)

// svgTexts draws s as SVG and returns the text of every <text> element, in
// document order, parsed as XML: what a reader of the picture sees written.
func svgTexts(t *testing.T, s stats.Sweep, opts PlotOptions) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := PlotSweep(&buf, s, ".svg", opts); err != nil {
		t.Fatal(err)
	}
	return svgTextsOf(t, buf.Bytes())
}

// svgTextsOf returns the text of every <text> element of svg, in order.
func svgTextsOf(t *testing.T, svg []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = false
	var texts []string
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
			if inText {
				texts = append(texts, "")
			}
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts[len(texts)-1] += strings.TrimSpace(string(tok))
			}
		}
	}
	return texts
}

// sweepOf builds a sweep of failed_rate from failures per million jobs, one
// slice a strategy, at the points given (each a full grid point).
func sweepOf(swept []int, points []stats.Point, failed map[string][]int64, order []string) stats.Sweep {
	m, _ := stats.LookupMetric("failed_rate")
	s := stats.Sweep{Scenario: "signup", RNG: "pcg", Seed: 1, Engine: "skip", Metric: m, Swept: swept, Strategies: order}
	for i, pt := range points {
		for _, id := range order {
			s.Rows = append(s.Rows, stats.SweepRow{Point: pt, ID: id, Core: stats.Core{Jobs: 1_000_000, Failed: failed[id][i]}})
		}
	}
	return s
}

// lineSweep has three strategies over p_fail: a and b identical, c failing
// 1000 times as often, so the plotted shares span 10/10^6 = 0.001% to
// 10000/10^6 = 1% (three decades).
func lineSweep() stats.Sweep {
	pts := []stats.Point{{0.01, 0.005, 3, 1e6}, {0.02, 0.005, 3, 1e6}, {0.03, 0.005, 3, 1e6}}
	return sweepOf([]int{0}, pts, map[string][]int64{
		"a": {10, 40, 90}, "b": {10, 40, 90}, "c": {2500, 5000, 10000},
	}, []string{"a", "b", "c"})
}

func contains(texts []string, want string) bool {
	for _, t := range texts {
		if t == want {
			return true
		}
	}
	return false
}

// TestLinePlotAxis: values over three decades get a log axis labelled at
// each decade in percent (the tables' unit); -linear-y and values within two
// decades get a linear one, and -log-y forces the log axis.
func TestLinePlotAxis(t *testing.T) {
	decades := []string{"0.001%", "0.01%", "0.1%", "1%"} // 10/10^6 .. 10^4/10^6, times 100
	texts := svgTexts(t, lineSweep(), PlotOptions{})
	for _, d := range decades {
		if !contains(texts, d) {
			t.Errorf("auto scale over three decades: no tick label %q in %q", d, texts)
		}
	}
	if !strings.Contains(strings.Join(texts, "\n"), "log y axis") {
		t.Errorf("the subtitle does not say the axis is log: %q", texts)
	}
	linear := svgTexts(t, lineSweep(), PlotOptions{Y: LinearScale})
	if contains(linear, "0.001%") || contains(linear, "0.01%") {
		t.Errorf("-linear-y still labels decades: %q", linear)
	}
	if !strings.Contains(strings.Join(linear, "\n"), "linear y axis") {
		t.Errorf("-linear-y subtitle does not say linear: %q", linear)
	}
	// Within two decades (0.001% to 0.009%) the automatic axis is linear,
	// and -log-y makes it log.
	narrow := lineSweep()
	narrow.Strategies = []string{"a", "b"}
	var rows []stats.SweepRow
	for _, r := range narrow.Rows {
		if r.ID != "c" {
			rows = append(rows, r)
		}
	}
	narrow.Rows = rows
	if texts := svgTexts(t, narrow, PlotOptions{}); !strings.Contains(strings.Join(texts, "\n"), "linear y axis") {
		t.Errorf("values within a decade: want a linear axis; texts %q", texts)
	}
	if texts := svgTexts(t, narrow, PlotOptions{Y: LogScale}); !contains(texts, "0.001%") || !contains(texts, "0.01%") {
		t.Errorf("-log-y: want decade labels 0.001%% and 0.01%%; texts %q", texts)
	}
}

// TestLinePlotLegendAndSubtitle: equal strategies say so in the legend, and
// the subtitle names every fixed parameter, the generator, seed and engine.
func TestLinePlotLegendAndSubtitle(t *testing.T) {
	texts := svgTexts(t, lineSweep(), PlotOptions{})
	for _, want := range []string{"a", "b (same as a)", "c"} {
		if !contains(texts, want) {
			t.Errorf("legend: no %q in %q", want, texts)
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"signup", "lost_reply 0.005", "attempts 3", "jobs 1000000", "pcg, seed 1, skip engine",
		"Share of jobs that failed (%)"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among the texts %q", want, texts)
		}
	}
	if strings.Contains(all, "p_fail 0.01") {
		t.Errorf("the swept p_fail is listed as fixed: %q", texts)
	}
}

// heatSweep has two strategies over p_fail x lost_reply; a's shares run
// from 0.001% to 1% (three decades), b's from 10% to 16% (within one).
func heatSweep() stats.Sweep {
	var pts []stats.Point
	for _, lost := range []float64{0, 0.02} {
		for _, p := range []float64{0.001, 0.005, 0.05} {
			pts = append(pts, stats.Point{p, lost, 3, 1e6})
		}
	}
	return sweepOf([]int{0, 1}, pts, map[string][]int64{
		"a": {10, 100, 1000, 20, 200, 10000},
		"b": {100000, 110000, 120000, 130000, 140000, 160000},
	}, []string{"a", "b"})
}

// TestHeatMap: ticks at the swept values, each cell's value written in it
// to two significant digits, a colour bar labelled in decades for the panel
// that spans decades, each panel saying whose scale it uses, one shared by
// default and -own-scales giving each its own.
func TestHeatMap(t *testing.T) {
	texts := svgTexts(t, heatSweep(), PlotOptions{OwnScales: true})
	for _, want := range []string{"0.001", "0.005", "0.05", "0", "0.02", // swept values
		"0.0010%", "0.010%", "0.10%", "1.0%", "10%", "16%", // cells: failed/10^6 in percent, two digits
		"≤0.001%", "0.01%", "0.1%", "1%", // a's colour bar, log: its floor and decades
		"a (this panel's own colour scale, log)", "b (this panel's own colour scale)"} {
		if !contains(texts, want) {
			t.Errorf("no text %q in %q", want, texts)
		}
	}
	if contains(texts, "0.015") || contains(texts, "0.025") {
		t.Errorf("ticks between swept values: %q", texts)
	}
	if contains(texts, "0.001000%") || contains(texts, "1.000%") {
		t.Errorf("cells with four significant digits: %q", texts)
	}
	shared := svgTexts(t, heatSweep(), PlotOptions{})
	for _, want := range []string{"a (colour scale shared by every panel, log)", "b (colour scale shared by every panel, log)", "10%"} {
		if !contains(shared, want) {
			t.Errorf("default: no text %q in %q", want, shared)
		}
	}
}

// TestPlotPNG decodes the pictures: the size asked for (20 cm at gonum's
// 96 dpi is 756 pixels for the heat map; the line plot is its plot's 17 cm
// and its legend's strip), the same bytes twice, and in the heat map a colour
// bar: a column with a long run of pixels each a different colour.
func TestPlotPNG(t *testing.T) {
	for what, s := range map[string]stats.Sweep{"line": lineSweep(), "heat": heatSweep()} {
		var one, two bytes.Buffer
		if err := PlotSweep(&one, s, ".png", PlotOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := PlotSweep(&two, s, ".png", PlotOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(one.Bytes(), two.Bytes()) {
			t.Errorf("%s: the same sweep gives other bytes", what)
		}
		img, err := png.Decode(&one)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want := 756
		if what == "line" {
			f, err := linePlot(s, AutoScale)
			if err != nil {
				t.Fatal(err)
			}
			want = int(f.width().Points() * 96 / 72) // vgimg truncates
		}
		if w := img.Bounds().Dx(); w != want {
			t.Errorf("%s: %d pixels wide; want %d", what, w, want)
		}
		if what != "heat" {
			continue
		}
		longest := 0
		b := img.Bounds()
		for x := b.Min.X + b.Dx()*4/5; x < b.Max.X; x++ {
			run := 0
			for y := b.Min.Y + 1; y < b.Max.Y; y++ {
				if same(img.At(x, y), img.At(x, y-1)) || same(img.At(x, y), color.White) {
					run = 0
					continue
				}
				run++
				longest = max(longest, run)
			}
		}
		if longest < 100 {
			t.Errorf("heat map: no colour bar right of the panels (longest gradient run %d pixels)", longest)
		}
	}
}

func same(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

// TestHeatMapColourBarAligned decodes the heat map PNG: in each panel the
// colour bar's coloured strip spans the same rows as the heat map's cells
// (within a pixel), so a colour reads straight across from a cell to its
// value; and the SVG draws the bar as shapes, not as an <image>, which
// browsers squeezed to a hairline (they keep an image's aspect ratio).
func TestHeatMapColourBarAligned(t *testing.T) {
	s := heatSweep()
	var buf bytes.Buffer
	if err := PlotSweep(&buf, s, ".png", PlotOptions{}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	white := func(x, y int) bool { return same(img.At(x, y), color.White) }
	// extent is the run of non-white rows through (x, y).
	extent := func(x, y int) (top, bottom int) {
		for top = y; top > 0 && !white(x, top-1); top-- {
		}
		for bottom = y; bottom < img.Bounds().Max.Y-1 && !white(x, bottom+1); bottom++ {
		}
		return top, bottom
	}
	const pxPerCm = 96 / 2.54
	b := img.Bounds()
	for k := range s.Strategies {
		// The middle of panel k's band, under the 1 cm heading, 10 cm a panel.
		y := int((1 + 10*float64(k) + 5) * pxPerCm)
		right := b.Max.X - 1
		for right > 0 && white(right, y) {
			right--
		}
		barTop, barBottom := extent(right-3, y)
		// Each panel's lowest values are in its first column: dark cells.
		cellTop, cellBottom := extent(b.Dx()/4, y)
		if barBottom-barTop < 100 {
			t.Fatalf("panel %d: the colour bar at column %d spans rows %d to %d; want a bar", k, right-3, barTop, barBottom)
		}
		if d := barTop - cellTop; d < -1 || d > 1 {
			t.Errorf("panel %d: the colour bar's top is at row %d, the cells' at %d", k, barTop, cellTop)
		}
		if d := barBottom - cellBottom; d < -1 || d > 1 {
			t.Errorf("panel %d: the colour bar's bottom is at row %d, the cells' at %d", k, barBottom, cellBottom)
		}
	}
	var svg bytes.Buffer
	if err := PlotSweep(&svg, s, ".svg", PlotOptions{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg.Bytes(), []byte("<image")) {
		t.Errorf("the heat map's SVG holds an <image>; want the colour bar drawn as shapes")
	}
}

// TestHeatPanels: the html page's heat maps, a picture a strategy, each
// with its own colour bar, the heading only above the first.
func TestHeatPanels(t *testing.T) {
	pics, err := heatPanels(heatSweep(), ".svg", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(pics) != 2 {
		t.Fatalf("%d pictures; want one a strategy, 2", len(pics))
	}
	for k, want := range []string{"a (this panel's own colour scale, log)", "b (this panel's own colour scale)"} {
		texts := svgTextsOf(t, pics[k])
		if !contains(texts, want) {
			t.Errorf("picture %d: no %q in %q", k, want, texts)
		}
		heading := strings.Contains(strings.Join(texts, "\n"), "fixed: attempts 3")
		if heading != (k == 0) {
			t.Errorf("picture %d: heading %v; want it above the first only", k, heading)
		}
	}
}

// TestLinePlotLegendSpacing parses the SVG: the legend's labels are in the
// title's 10 pt, and consecutive entries are at least 12 pt apart, room for
// the widest marker of equal series (7 pt across for three) without
// touching the next entry's, which gonum's 12 pt labels with no padding
// gave.
func TestLinePlotLegendSpacing(t *testing.T) {
	var buf bytes.Buffer
	if err := PlotSweep(&buf, lineSweep(), ".svg", PlotOptions{}); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(&buf)
	var ys []float64
	var y float64
	var style string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "text" {
				for _, a := range tok.Attr {
					switch a.Name.Local {
					case "y":
						y, _ = strconv.ParseFloat(a.Value, 64)
					case "style":
						style = a.Value
					}
				}
			}
		case xml.CharData:
			switch strings.TrimSpace(string(tok)) {
			case "a", "b (same as a)", "c":
				ys = append(ys, y)
				if !strings.Contains(style, "font-size:10px") {
					t.Errorf("legend label %q has style %q; want 10 pt", tok, style)
				}
			}
		}
	}
	if len(ys) != 3 {
		t.Fatalf("%d legend labels; want 3", len(ys))
	}
	for i := 1; i < len(ys); i++ {
		if gap := math.Abs(ys[i] - ys[i-1]); gap < 12 {
			t.Errorf("legend entries %d and %d are %.2f pt apart; want at least 12", i-1, i, gap)
		}
	}
}
