package results

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PlotFormats are the file extensions PlotSweep writes.
var PlotFormats = []string{".png", ".svg"}

// CheckPlotPath refuses a file name whose extension PlotSweep cannot write.
func CheckPlotPath(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	for _, f := range PlotFormats {
		if ext == f {
			return nil
		}
	}
	return fmt.Errorf("%q: want a file name ending in .png or .svg", path)
}

// PlotSweep draws s.Metric: against the swept parameter with a line and 95%
// error bars per strategy when one parameter is swept, or as one heat map per
// strategy when two are. ext (".png" or ".svg") picks the encoding.
func PlotSweep(w io.Writer, s Sweep, ext string) error {
	var plots [][]*plot.Plot
	width, height := 18*vg.Centimeter, 11*vg.Centimeter
	switch len(s.Swept) {
	case 1:
		p, err := linePlot(s)
		if err != nil {
			return err
		}
		plots = [][]*plot.Plot{{p}}
	case 2:
		// One colour scale for every strategy, so tiles compare at a glance.
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range s.Rows {
			v := s.Metric.Estimate(r.Row).Value
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		for i := range s.Strategies {
			plots = append(plots, []*plot.Plot{heatPlot(s, i, lo, hi)})
		}
		height = vg.Length(len(plots)) * 9 * vg.Centimeter
	default:
		return fmt.Errorf("a plot needs one or two swept parameters; this sweep has %d", len(s.Swept))
	}
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
	tiles := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Centimeter / 2, PadY: vg.Centimeter / 2,
		PadTop: vg.Centimeter / 4, PadBottom: vg.Centimeter / 4, PadLeft: vg.Centimeter / 4, PadRight: vg.Centimeter / 4}
	canvases := plot.Align(plots, tiles, dc)
	for i, row := range plots {
		for j, p := range row {
			p.Draw(canvases[i][j])
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// errorPoints are a strategy's estimates with their intervals as error bars.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

func linePlot(s Sweep) (*plot.Plot, error) {
	axis := s.Swept[0]
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (95%% intervals); %s", s.Metric.Label, s.run())
	p.X.Label.Text = Axes[axis].Label
	p.Y.Label.Text = s.Metric.Label
	p.Legend.Top = true
	p.Legend.Left = true
	per := len(s.Strategies)
	for k, id := range s.Strategies {
		var pts errorPoints
		for i := k; i < len(s.Rows); i += per {
			e := s.Metric.Estimate(s.Rows[i].Row)
			pts.XYs = append(pts.XYs, plotter.XY{X: s.Rows[i].Point[axis], Y: e.Value})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{e.Value - e.Lo, e.Hi - e.Value})
		}
		line, points, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		col := plotutil.Color(k)
		line.Color, points.Color, bars.Color = col, col, col
		line.Dashes = plotutil.Dashes(k)
		points.Shape = plotutil.Shape(k)
		p.Add(line, points, bars)
		p.Legend.Add(id, line, points)
	}
	return p, nil
}

// grid is one strategy's metric over two swept axes, for a heat map.
type grid struct {
	xs, ys []float64
	z      map[[2]float64]float64
}

func (g grid) Dims() (c, r int)   { return len(g.xs), len(g.ys) }
func (g grid) Z(c, r int) float64 { return g.z[[2]float64{g.xs[c], g.ys[r]}] }
func (g grid) X(c int) float64    { return g.xs[c] }
func (g grid) Y(r int) float64    { return g.ys[r] }

// heatPlot draws strategy k's metric over the two swept axes on the colour
// scale [lo, hi].
func heatPlot(s Sweep, k int, lo, hi float64) *plot.Plot {
	ax, ay := s.Swept[0], s.Swept[1]
	g := grid{z: map[[2]float64]float64{}}
	seenX, seenY := map[float64]bool{}, map[float64]bool{}
	per := len(s.Strategies)
	for i := k; i < len(s.Rows); i += per {
		pt := s.Rows[i].Point
		x, y := pt[ax], pt[ay]
		if !seenX[x] {
			seenX[x] = true
			g.xs = append(g.xs, x)
		}
		if !seenY[y] {
			seenY[y] = true
			g.ys = append(g.ys, y)
		}
		g.z[[2]float64{x, y}] = s.Metric.Estimate(s.Rows[i].Row).Value
	}
	slices.Sort(g.xs)
	slices.Sort(g.ys)
	pal := moreland.SmoothBlueRed()
	pal.SetMin(lo)
	pal.SetMax(hi + 1e-300)
	h := plotter.NewHeatMap(g, pal.Palette(64))
	h.Min, h.Max = lo, hi
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s; %s", s.Strategies[k], s.Metric.Label, s.run())
	p.X.Label.Text = Axes[ax].Label
	p.Y.Label.Text = Axes[ay].Label
	p.Add(h)
	colors := pal.Palette(64).Colors()
	p.Legend.Add("low "+sig(lo), swatch{colors[0]})
	p.Legend.Add("high "+sig(hi), swatch{colors[len(colors)-1]})
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

// swatch is a legend entry of one colour.
type swatch struct{ color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(s.Color, c.ClipPolygonY(pts))
}
