package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/fleet"
)

// TestFleetPlot: a panel a run, each titled with what it holds fixed, on one
// time axis (a 10 s run's panel still ends at the 20 s run's end), with the
// load shape drawn as a grey area behind the series.
func TestFleetPlot(t *testing.T) {
	cfgs := []fleet.Config{
		{Name: "short", Duration: 10, Load: fleet.Shape{Kind: fleet.Constant, Rate: 5},
			Server: fleet.Server{Kind: fleet.Latency, Base: 1, Slope: 0.01}, Client: fleet.Client{Clients: 1, Timeout: 3, Attempts: 3}},
		{Name: "long", Duration: 20, Load: fleet.Shape{Kind: fleet.Spike, Rate: 5, Peak: 10, From: 5, To: 8},
			Server: fleet.Server{Kind: fleet.Latency, Base: 1, Slope: 0.01}, Client: fleet.Client{Clients: 1, Timeout: 2, Attempts: 1}},
	}
	var runs [][]fleet.Point
	for _, c := range cfgs {
		var pts []fleet.Point
		for s := range int(c.Duration) {
			pts = append(pts, fleet.Point{Run: c.Name, T: s, Starts: c.Load.At(float64(s)), Successes: 1})
		}
		runs = append(runs, pts)
	}
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
	for _, want := range []string{"load 5/s; backoff none", "load 5/s, 10/s from 5 to 8 s; backoff none",
		"server latency 1 s + 0.01 s per call in progress; timeout 3 s, 3 tries, keys none",
		"server latency 1 s + 0.01 s per call in progress; timeout 2 s, 1 tries, keys none"} {
		if count(want) != 1 {
			t.Errorf("want one title line %q; texts %q", want, texts)
		}
	}
	if n := count("load shape (offered rate)"); n != 2 {
		t.Errorf("%d legend entries for the load shape; want one a panel", n)
	}
	if n := count("20"); n != 2 {
		t.Errorf("the 20 s tick appears %d times; want once in each panel (one time axis)", n)
	}
	if n := strings.Count(svg, "fill:#DDDDDD"); n != 4 { // color.Gray{0xdd}: the area and its legend swatch, a panel
		t.Errorf("%d grey areas in the SVG; want the load shape and its legend swatch in each of the 2 panels", n)
	}
}
