package fleet

import "testing"

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
