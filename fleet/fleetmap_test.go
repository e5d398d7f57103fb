package fleet

import (
	"testing"
	"time"
)

// TestSlice: the shards' slices of n cells are contiguous, in order, cover
// every cell once, and differ in size by at most one.
func TestSlice(t *testing.T) {
	for _, n := range []int{1, 7, 100} {
		for _, count := range []int{1, 3, 4, 8} {
			next := 0
			for i := range count {
				lo, hi := Slice(n, i, count)
				if lo != next || hi < lo || hi-lo > n/count+1 || hi-lo < n/count {
					t.Errorf("Slice(%d, %d, %d) = %d, %d; want from %d, %d or %d cells", n, i, count, lo, hi, next, n/count, n/count+1)
				}
				next = hi
			}
			if next != n {
				t.Errorf("Slice(%d, _, %d) ends at %d; want %d", n, count, next, n)
			}
		}
	}
}

// TestCollapseMapCells: the default map is 100 cells, policies outermost,
// then lengths, heights and rates, each a spike from 20 s on Brooker's
// collapse server, 120 s past the spike.
func TestCollapseMapCells(t *testing.T) {
	m := CollapseMap()
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	cells := m.Cells()
	if len(cells) != 100 {
		t.Fatalf("%d cells; want 100", len(cells))
	}
	c := cells[1*25+2*5+3] // length 2 s, height 100, rate 40
	if c.Load != (Shape{Kind: Spike, Rate: 40, Peak: 100, From: 20 * time.Second, To: 22 * time.Second}) || c.Duration != 142*time.Second ||
		c.Name != "no_backoff spike 2s to 100 rate 40" || c.Server.Slope != 10*time.Millisecond || c.Client.Timeout != 3*time.Second {
		t.Errorf("cell 38 = %+v; want a spike to 100 from 20 to 22 s at rate 40, 142 s", c)
	}
	m.After = 5 * time.Second
	if err := m.Check(); err == nil {
		t.Errorf("After 5 s: Check passed; want an error")
	}
}
