package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/schema"
)

// TestFleetPlot: a panel a run, each titled with what it holds fixed, on one
// time axis (a 10 s run's panel still ends at the 20 s run's end), with the
// load shape drawn as a grey area behind the series.
func TestFleetPlot(t *testing.T) {
	runs, cfgs := fleetRuns()
	var buf bytes.Buffer
	if err := PlotFleet(&buf, "retrysim fleet: test", runs, cfgs, ".svg"); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	d := xml.NewDecoder(strings.NewReader(svg))
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
				texts[len(texts)-1] += string(tok)
			}
		}
	}
	count := func(want string) int {
		n := 0
		for _, s := range texts {
			if s == want {
				n++
			}
		}
		return n
	}
	// Each panel names its run's settings as used, in the flags' words, over
	// lines of at most 90 bytes: no base for a backoff of none (which never
	// waits), the policy with the parameters it reads, the hedges, the
	// failure rate, the server and the load; those every run shares (the
	// network and the clients) are said once, above the first panel, and
	// not again in each (issue 35 item 3), each still in its group.
	caption := func(run string) (string, int) {
		var lines []string
		for i, s := range texts {
			if s == run {
				for _, l := range texts[i+1:] {
					if l == "t (s)" {
						break
					}
					lines = append(lines, l)
				}
				break
			}
		}
		longest := 0
		for _, l := range lines {
			longest = max(longest, len(l))
		}
		return strings.Join(lines, " "), longest
	}
	for run, want := range map[string]string{
		"short": "shape constant, rate 40; server latency, base 1s, slope 10ms, p-fail 0; " +
			"timeout 3s, attempts 3, backoff none, keys none; policy unlimited; hedges 0",
		"long": "shape spike, rate 50, peak 100, from 5s, to 8s; server queue, capacity 8, queue 100, " +
			"service 100ms, service-dist exp, p-fail 0.3, pushback false; timeout 2s, attempts 1, keys same; " +
			"policy finagle-budget, policy-scope client, budget-ratio 0.2, budget-ttl 10s, budget-min-rate 10; " +
			"hedges 2, hedge-delay 50ms",
	} {
		if got, longest := caption(run); got != want || longest > 90 {
			t.Errorf("panel %s's caption %q (longest line %d bytes); want %q in lines of at most 90", run, got, longest, want)
		}
	}
	if !contains(texts, "every run: net 0s; clients 1") {
		t.Errorf("no line says what every run shares (\"every run: net 0s; clients 1\"); the picture says %q", texts)
	}
	// Series that coincide are said so: here retries, timeouts and
	// conflicts are 0 throughout, and the legend names the first drawn.
	if n := count("timeouts (same as retries decided)"); n != 2 {
		t.Errorf("%d legend entries say the timeouts are the retries decided; want one a panel", n)
	}
	if n := count("load shape (offered rate)"); n != 2 {
		t.Errorf("%d legend entries for the load shape; want one a panel", n)
	}
	// Conflicts are drawn for the run whose attempts carry keys (long,
	// -keys same), and only there: without keys there are none.
	if n := count("conflicts (key in use) (same as retries decided)"); n != 1 {
		t.Errorf("%d legend entries for conflicts; want one, the keyed run's", n)
	}
	if n := count("per second"); n != 2 {
		t.Errorf("the y label \"per second\" appears %d times; want once a panel", n)
	}
	if n := count("20"); n != 2 {
		t.Errorf("the 20 s tick appears %d times; want once in each panel (one time axis)", n)
	}
	if n := strings.Count(svg, "fill:#DDDDDD"); n != 4 { // color.Gray{0xdd}: the area and its legend swatch, a panel
		t.Errorf("%d grey areas in the SVG; want the load shape and its legend swatch in each of the 2 panels", n)
	}
}

// fleetRuns are two runs of 10 s and 20 s, the first's load 5 a second, the
// second's 50 with a spike to 100.
func fleetRuns() ([][]fleetdata.Point, []fleet.Config) {
	cfgs := []fleet.Config{
		{Name: "short", Duration: 10 * time.Second, Load: fleet.Shape{Kind: fleet.ConstantLoad, Rate: 40},
			Server: fleet.Server{Kind: fleet.LatencyServer, Base: time.Second, Slope: 10 * time.Millisecond},
			Client: fleet.Client{Clients: 1, Timeout: 3 * time.Second, Attempts: 3, Backoff: backoff.Schedule{Kind: backoff.None, Base: 100 * time.Millisecond}}},
		{Name: "long", Duration: 20 * time.Second, Load: fleet.Shape{Kind: fleet.SpikeLoad, Rate: 50, Peak: 100, From: 5 * time.Second, To: 8 * time.Second},
			Server: fleet.Server{Kind: fleet.QueueServer, Workers: 8, QueueMax: 100, Service: fleet.Service{Dist: fleet.ExponentialService, Median: 100 * time.Millisecond}, PFail: 0.3},
			Client: fleet.Client{Clients: 1, Timeout: 2 * time.Second, Attempts: 1, Keys: schema.SameKey, Hedges: 2, HedgeDelay: 50 * time.Millisecond,
				Policy: fleet.PolicyConfig{Kind: fleet.FinagleBudget, BudgetRatio: 0.2, TTL: 10 * time.Second, MinRate: 10}}},
	}
	var runs [][]fleetdata.Point
	for _, c := range cfgs {
		var pts []fleetdata.Point
		for s := range int(c.Duration.Seconds()) {
			pts = append(pts, fleetdata.Point{Run: c.Name, T: s, Starts: c.Load.At(float64(s)), Successes: 1})
		}
		runs = append(runs, pts)
	}
	return runs, cfgs
}

// TestFleetPanels: the html page's panels, a picture each, keep the whole
// figure's layout: the load shape's grey area (the data area's left edge,
// t = 0) starts at the same pixel column in each, and where it starts in
// the whole figure. (The panels share one y scale, so their tick labels no
// longer differ in width; the short run's load is 40 a second, tall enough
// on the long run's scale for the grey area to be found.)
func TestFleetPanels(t *testing.T) {
	runs, cfgs := fleetRuns()
	grey := color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	left := func(img image.Image) int { // the first column with 20 grey pixels in a row
		b := img.Bounds()
		for x := b.Min.X; x < b.Max.X; x++ {
			run := 0
			for y := b.Min.Y; y < b.Max.Y; y++ {
				if !same(img.At(x, y), grey) {
					run = 0
				} else if run++; run == 20 {
					return x
				}
			}
		}
		return -1
	}
	var whole bytes.Buffer
	if err := PlotFleet(&whole, "t", runs, cfgs, ".png"); err != nil {
		t.Fatal(err)
	}
	all, err := png.Decode(&whole)
	if err != nil {
		t.Fatal(err)
	}
	want := left(all)
	// pageFigures' pictures, a panel each, as png
	f, err := newFleetFigure("t", runs, cfgs)
	if err != nil {
		t.Fatal(err)
	}
	var panels [][]byte
	for i := range f.panels {
		var b bytes.Buffer
		if err := f.encode(&b, ".png", i, i+1); err != nil {
			t.Fatal(err)
		}
		panels = append(panels, b.Bytes())
	}
	if len(panels) != 2 {
		t.Fatalf("%d panels; want 2", len(panels))
	}
	var heights []int
	for i, b := range panels {
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if got := left(img); got < want-1 || got > want+1 || want < 0 {
			t.Errorf("panel %d: the load shape starts at column %d; the whole figure's at %d", i, got, want)
		}
		heights = append(heights, img.Bounds().Dy())
	}
	// The first picture holds the heading's band above its panel: the two
	// add up to the whole figure, the second is a panel's height alone.
	px := func(l vg.Length) int { return int(math.Round(l.Dots(vgimg.DefaultDPI))) }
	if sum := heights[0] + heights[1]; sum < all.Bounds().Dy()-1 || sum > all.Bounds().Dy()+1 ||
		heights[1] != px(fleetPanelHeight) || heights[0] != px(fleetPanelHeight+f.headHeight()) {
		t.Errorf("the panels are %v pixels high, the whole figure %d; want %d (heading and panel) and %d (a panel)",
			heights, all.Bounds().Dy(), px(fleetPanelHeight+f.headHeight()), px(fleetPanelHeight))
	}
}

// TestFleetLegendOutside: each panel's legend sits right of its data area,
// where it covers no series: in the PNG, the load shape's grey legend
// swatch is right of the grey load area itself (which reaches the data
// area's right edge in the 20 s run), not over the data as it was.
func TestFleetLegendOutside(t *testing.T) {
	runs, cfgs := fleetRuns()
	var buf bytes.Buffer
	if err := PlotFleet(&buf, "t", runs, cfgs, ".png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	grey := color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	b := img.Bounds()
	// The 20 s run's panel is the lower half; per column, the longest run
	// of grey pixels: 20 and more is the load area, 3 to 19 the swatch.
	area, swatchLeft := -1, b.Max.X
	for x := b.Min.X; x < b.Max.X; x++ {
		longest, run := 0, 0
		for y := b.Dy() / 2; y < b.Max.Y; y++ {
			if same(img.At(x, y), grey) {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
		switch {
		case longest >= 20:
			area = x
		case longest >= 3:
			swatchLeft = min(swatchLeft, x)
		}
	}
	if area < 0 || swatchLeft == b.Max.X {
		t.Fatalf("no load area (%d) or no legend swatch (%d) found", area, swatchLeft)
	}
	if swatchLeft <= area {
		t.Errorf("the legend's swatch starts at column %d, inside the data area (the load area ends at %d)", swatchLeft, area)
	}
}

// TestFleetColoursApart: the fleet's series are told apart by colour, not
// by dash alone: each its own colour, and the successes and the timeouts
// (issue 35 item 3: vermillion, hue 26°, and orange, hue 41°, read as one)
// at least 90° of hue apart.
func TestFleetColoursApart(t *testing.T) {
	lines := fleetLines(true)
	for i, a := range lines {
		for j := i + 1; j < len(lines); j++ {
			if lineColour(fleetColours[i]) == lineColour(fleetColours[j]) {
				t.Errorf("%s and %s are drawn in one colour, %v", a.legend, lines[j].legend, lineColour(fleetColours[i]))
			}
		}
	}
	var hs, ht float64
	for k, l := range lines {
		switch l.legend {
		case "successes":
			hs, _ = hue(lineColour(fleetColours[k]))
		case "timeouts":
			ht, _ = hue(lineColour(fleetColours[k]))
		}
	}
	if d := math.Min(math.Abs(hs-ht), 360-math.Abs(hs-ht)); d < 90 {
		t.Errorf("the successes (hue %.0f°) and the timeouts (hue %.0f°) are %.0f° apart; want at least 90", hs, ht, d)
	}
}

// hue is c's hue in degrees, and whether it has one (not a grey).
func hue(c color.Color) (float64, bool) {
	r, g, b, _ := c.RGBA()
	x, y, z := float64(r), float64(g), float64(b)
	hi, lo := math.Max(x, math.Max(y, z)), math.Min(x, math.Min(y, z))
	if hi == lo {
		return 0, false
	}
	var h float64
	switch hi {
	case x:
		h = math.Mod((y-z)/(hi-lo), 6)
	case y:
		h = (z-x)/(hi-lo) + 2
	default:
		h = (x-y)/(hi-lo) + 4
	}
	return math.Mod(60*h+360, 360), true
}
