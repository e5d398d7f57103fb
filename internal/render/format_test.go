package render

import "testing"

// Expected strings come from Node.js 20 (x.toFixed(d) and Math.round), the
// article's runtime, so the table prints what the article's code would.
func TestToFixedMatchesJavaScript(t *testing.T) {
	tests := []struct {
		x      float64
		digits int
		want   string
	}{
		{0.0625, 3, "0.063"}, // an exact tie: JavaScript takes the larger, strconv the even
		{93.8125, 3, "93.813"},
		{99.9375, 3, "99.938"},
		{1.005, 2, "1.00"}, // 1.005 is really 1.00499999...
		{99.9005, 3, "99.900"},
		{99.9995, 3, "99.999"},
		{99.9995, 2, "100.00"},
		{12.3455, 3, "12.345"},
		{0, 3, "0.000"},
		{100, 3, "100.000"},
		{2.5e-7, 3, "0.000"},
	}
	for _, tt := range tests {
		if got := toFixed(tt.x, tt.digits); got != tt.want {
			t.Errorf("toFixed(%v, %d) = %q; want %q", tt.x, tt.digits, got, tt.want)
		}
	}
}

func TestPercentOfMatchesArticle(t *testing.T) {
	tests := []struct {
		part, whole int64
		want        string
	}{
		{999_989, 1_000_000, "99.999%"},
		{999_005, 1_000_000, "99.900%"}, // 100*(part/whole) would print 99.901%
		{999_750, 1_000_000, "99.975%"},
		{1599, 1600, "99.938%"},
		{0, 7, "0.000%"},
	}
	for _, tt := range tests {
		if got := percentOf(tt.part, tt.whole); got != tt.want {
			t.Errorf("percentOf(%d, %d) = %q; want %q", tt.part, tt.whole, got, tt.want)
		}
	}
}

func TestRoundJS(t *testing.T) {
	tests := []struct {
		calls, jobs int64
		want        string
	}{
		{10106306, 1e6, "10.11"},
		{10603013, 1e6, "10.6"},
		{1005, 100, "10.05"},
		{1015, 100, "10.15"},
		{2345, 1000, "2.35"},
	}
	for _, tt := range tests {
		if got := roundJS(float64(tt.calls)/float64(tt.jobs), 2); got != tt.want {
			t.Errorf("roundJS(%d/%d, 2) = %q; want %q", tt.calls, tt.jobs, got, tt.want)
		}
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 464233: "464,233", 1_000_000_000: "1,000,000,000", -4971: "-4,971"} {
		if got := group(n); got != want {
			t.Errorf("group(%d) = %q; want %q", n, got, want)
		}
	}
}
