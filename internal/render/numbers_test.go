package render

import (
	"math"
	"testing"
)

// The table formats' number styles, written out by hand: thousands
// separated, fixed decimals, intervals cut at the quantity's range and
// rounded outwards, none where it has no width.
func TestNumberStyles(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"share", jobShare.text(0.99999), "99.999%"},
		{"count", wholeCount.text(5078), "5,078"},
		{"expected count", expectedCount.text(5022.7), "5,022.7"},
		{"per job", perJob.text(1.5), "1.500"},
		{"time", timeSeconds.text(2.1893), "2.189 s"},
		{"time, large", timeSeconds.text(5011872.34), "5,011,872 s"},
		{"NaN", wholeCount.text(math.NaN()), "-"},
		{"outwards", perJob.interval(1.0004, 1.0016), " [1.000, 1.002]"},
		{"a round bound stays", callsPerJob.interval(10.1, 10.2), " [10.10, 10.20]"},
		{"share cut at 100%", requestShare.interval(0.5, 1.2), " [50.0, 100.0]"},
		{"cut at 0", expectedCount.interval(-3, 4.01), " [0.0, 4.1]"},
		{"no width", expectedCount.interval(2, 2), ""},
		{"one replicate", expectedCount.interval(math.NaN(), math.NaN()), ""},
		{"with interval", wholeCount.text(3520.4) + wholeCount.interval(3473.2, 3566.1), "3,520 [3,473, 3,567]"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q; want %q", tc.name, tc.got, tc.want)
		}
	}
}

// A rate of the race and a swept metric end with no zeros past their
// significant digits (0.0013, not 0.001300), and a value that rounds up to a
// power of ten gets that power's digits (99.996 as 100.0, not 100.00): 20
// of 20 is 100% with a Wilson interval of [83.89%, 100%] (z = 1.96: centre
// (1 + z^2/40)/(1 + z^2/20) = 0.91944, half-width 0.08056, by hand).
func TestNumbersEndWithoutZeros(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"rate 20 of 20", rate(20, 20), "100% [83.89, 100]"},
		{"swept 0.0013", sig(0.0013), "0.0013"},
		{"swept 12.50", sig(12.5), "12.5"},
		{"swept 1,000", sig(1000), "1,000"},
		{"rounds up to a power of ten", significant(99.996, 4), "100.0"},
		{"rounds up below 1", significant(0.0099996, 4), "0.01000"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q; want %q", tc.name, tc.got, tc.want)
		}
	}
}
