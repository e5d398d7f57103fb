package render

import (
	"bytes"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	gtext "gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// okabeIto is the Okabe-Ito palette, safe for colour-vision deficiencies, darkest first.
var okabeIto = [...]color.RGBA{
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	{0x00, 0x9e, 0x73, 0xff}, // bluish green
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xf0, 0xe4, 0x42, 0xff}, // yellow
}

// lineColour is series k's colour; past eight they repeat.
func lineColour(k int) color.Color { return okabeIto[k%len(okabeIto)] }

// stack is panels one above the other, each with its legend in a strip to its right.
type stack struct {
	panels  []*plot.Plot
	legends []plot.Legend
	// plotWidth is the panels' width, axes included; panelHeight each one's height.
	plotWidth, panelHeight vg.Length
	// heading is drawn above the first panel in a band of its own, so a
	// long one does not push the panel's axis out of its height.
	heading string
}

// headHeight is the height of the heading band: 12 pt a line, 6 pt below; 0 without one.
func (s stack) headHeight() vg.Length {
	if s.heading == "" {
		return 0
	}
	return vg.Length(strings.Count(s.heading, "\n")+1)*vg.Points(12) + vg.Points(6)
}

// legendGap is the space between a panel and its legend.
const legendGap = vg.Centimeter / 4

// newStack stacks panels under heading, each width wide and height tall, their legends to their right.
func newStack(width, height vg.Length, heading string, panels ...*plot.Plot) stack {
	s := stack{plotWidth: width, panelHeight: height, heading: heading}
	for _, p := range panels {
		l := p.Legend // drawn in the strip, the panel left without one
		p.Legend = plot.NewLegend()
		l.Top, l.Left = true, true
		// Room for the largest marker: with no padding neighbouring markers overlapped.
		l.Padding = vg.Points(4)
		s.panels, s.legends = append(s.panels, p), append(s.legends, l)
	}
	return s
}

// width is the stack's canvas width: the panels' and the legend strip's, as wide as the widest legend.
func (s stack) width() vg.Length {
	var legend vg.Length
	for i := range s.legends {
		r := s.legends[i].Rectangle(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: 100 * vg.Centimeter, Y: 100 * vg.Centimeter}}})
		legend = max(legend, r.Size().X)
	}
	return s.plotWidth + legendGap + legend + vg.Centimeter/4
}

// layout lays the stack out from panel from on, returning each panel's and legend's canvas.
func (s stack) layout(dc draw.Canvas, from int) (panels, legends []draw.Canvas) {
	whole := dc
	whole.Max.Y = dc.Max.Y + vg.Length(from)*s.panelHeight
	whole.Min.Y = whole.Max.Y - vg.Length(len(s.panels))*s.panelHeight
	canvases := alignColumn(s.panels, whole, dc.Size().X-s.plotWidth+vg.Centimeter/4)
	for i := range s.panels {
		c := canvases[i][0]
		da := s.panels[i].DataCanvas(c)
		panels = append(panels, c)
		legends = append(legends, draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.Max.X + legendGap, Y: da.Min.Y}, Max: vg.Point{X: dc.Max.X, Y: da.Max.Y}}})
	}
	return panels, legends
}

// alignColumn aligns panels one above the other on dc, their axes lined up, padRight to their right.
func alignColumn(panels []*plot.Plot, dc draw.Canvas, padRight vg.Length) [][]draw.Canvas {
	rows := mapped(panels, func(p *plot.Plot) []*plot.Plot { return []*plot.Plot{p} })
	return plot.Align(rows, draw.Tiles{Rows: len(rows), Cols: 1, PadX: vg.Centimeter / 2, PadY: vg.Centimeter / 2,
		PadTop: vg.Centimeter / 4, PadBottom: vg.Centimeter / 4, PadLeft: vg.Centimeter / 4, PadRight: padRight}, dc)
}

// encode draws panels [from, to) with their legends, under the heading when from is 0.
func (s stack) encode(w io.Writer, ext string, from, to int) error {
	height, head := vg.Length(to-from)*s.panelHeight, vg.Length(0)
	if from == 0 {
		head = s.headHeight()
	}
	return encode(w, ext, s.width(), height+head, func(dc draw.Canvas) {
		if head > 0 {
			dc.FillText(gtext.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(10)),
				XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler},
				vg.Point{X: dc.Min.X + s.plotWidth/2, Y: dc.Max.Y - vg.Points(3)}, s.heading)
			dc = draw.Crop(dc, 0, 0, 0, -head)
		}
		panels, legends := s.layout(dc, from)
		for i := from; i < to; i++ {
			s.panels[i].Draw(panels[i])
			s.legends[i].Draw(legends[i])
		}
	})
}

// encodeWhole writes s whole (or returns err, from making s) as ext encodes it.
func encodeWhole(w io.Writer, ext string) func(s stack, err error) error {
	return func(s stack, err error) error {
		if err != nil {
			return err
		}
		return s.encode(w, ext, 0, len(s.panels))
	}
}

// writeFigured writes page p with s's panels (or returns err, from making s) inline, a picture each.
func writeFigured(w io.Writer, p page) func(s stack, err error) error {
	return func(s stack, err error) error {
		if p.figures, err = pageFigures(s, err); err != nil {
			return err
		}
		return writePage(w, p)
	}
}

// pageFigures draws each panel of s (or returns err) as an svg of its own, axes aligned.
func pageFigures(s stack, err error) ([][]byte, error) {
	if err != nil {
		return nil, err
	}
	return pictures(len(s.panels), func(w io.Writer, i int) error { return s.encode(w, ".svg", i, i+1) })
}

// pictures are the n pictures draw writes, picture k by draw(w, k).
func pictures(n int, draw func(w io.Writer, k int) error) ([][]byte, error) {
	var pics [][]byte
	for k := range n {
		var b bytes.Buffer
		if err := draw(&b, k); err != nil {
			return nil, err
		}
		pics = append(pics, b.Bytes())
	}
	return pics, nil
}
