package render

import (
	"bytes"
	"math"
	"testing"
)

// A log x axis with one value drew forever: gonum widens an axis whose ends
// are equal by 1 each way, to below 0, and logTicks counted decades up from
// log10 of a negative number (from MinInt). On the old code this test hangs
// until go test's -timeout.
func TestLogAxisOfOneValueDraws(t *testing.T) {
	for _, lohi := range [][2]float64{{0, 1}, {-0.9, 1.1}, {math.NaN(), 1}, {1, math.Inf(1)}} {
		if ticks := (logTicks{}).Ticks(lohi[0], lohi[1]); ticks != nil {
			t.Errorf("Ticks(%v, %v) = %v; want none", lohi[0], lohi[1], ticks)
		}
	}
	c := curve{label: "a", series: series{xs: []float64{0.1}, vs: []float64{1}, los: []float64{1}, his: []float64{1}}}
	p, err := comparePanel("t", "x", "y", "", true, true, []curve{c})
	if err != nil {
		t.Fatal(err)
	}
	if p.X.Min != 0.05 || p.X.Max != 0.2 {
		t.Errorf("x axis %v to %v; want 0.05 to 0.2, the one x widened by 2 each way", p.X.Min, p.X.Max)
	}
	if err := drawPanels(new(bytes.Buffer), ".svg", 300, p); err != nil {
		t.Fatal(err)
	}
}
