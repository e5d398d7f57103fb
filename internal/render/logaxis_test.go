package render

import (
	"math"
	"testing"
)

// A log x axis with one value drew forever: gonum widens an axis whose ends
// are equal by 1 each way, to below 0, and logTicks counted decades up from
// log10 of a negative number (from MinInt). On the old code this test hangs
// until go test's -timeout. (The comparison plots that drew a log x axis
// now draw the failure rate on a linear one, so only logTicks' guard is
// left to check.)
func TestLogAxisOfOneValueDraws(t *testing.T) {
	for _, lohi := range [][2]float64{{0, 1}, {-0.9, 1.1}, {math.NaN(), 1}, {1, math.Inf(1)}} {
		if ticks := (logTicks{}).Ticks(lohi[0], lohi[1]); ticks != nil {
			t.Errorf("Ticks(%v, %v) = %v; want none", lohi[0], lohi[1], ticks)
		}
	}
}
