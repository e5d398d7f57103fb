package limits

import (
	"math"
	"testing"
	"time"
)

// Virtual time saturates at the longest Duration instead of wrapping.
func TestLaterAndTimesSaturate(t *testing.T) {
	const most = time.Duration(math.MaxInt64)
	for _, c := range []struct{ got, want time.Duration }{
		{Later(1, 2), 3}, {Later(most-2, 2), most}, {Later(most-2, 3), most}, {Later(most, most), most},
		{Times(3, 4), 12}, {Times(0, 1000), 0}, {Times(most/2, 2), most - 1}, {Times(most/2+1, 2), most}, {Times(MaxDuration, 1000), most},
	} {
		if c.got != c.want {
			t.Errorf("got %d; want %d", c.got, c.want)
		}
	}
}
