package human

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{24 * time.Hour, "24h"},
		{90 * time.Minute, "1h30m"},
		{time.Hour + 30*time.Second, "1h0m30s"},
		{time.Minute, "1m"},
		{150 * time.Second, "2m30s"},
		{30 * time.Second, "30s"},
		{2500 * time.Millisecond, "2.5s"},
		{250 * time.Millisecond, "250ms"},
		{10 * time.Millisecond, "10ms"},
		{0, "0s"},
		{8760 * time.Hour, "8760h"},
	} {
		got := Duration(tc.d)
		if got != tc.want {
			t.Errorf("Duration(%v) = %q; want %q", tc.d, got, tc.want)
		}
		if back, err := time.ParseDuration(got); err != nil || back != tc.d {
			t.Errorf("time.ParseDuration(%q) = %v, %v; want %v", got, back, err, tc.d)
		}
	}
	if got := Seconds(60); got != "1m" {
		t.Errorf("Seconds(60) = %q; want 1m", got)
	}
}

func TestDigits(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"5022.7", "5,022.7"},
		{"999.5", "999.5"},
		{"1000", "1,000"},
		{"-1234567", "-1,234,567"},
		{"12345.678%", "12,345.678%"},
		{"0.0001234", "0.0001234"},
		{"≈ 2500 s", "≈ 2,500 s"},
		{"-", "-"},
		{"", ""},
		{".12345", ".12345"},
	} {
		if got := Digits(tc.in); got != tc.want {
			t.Errorf("Digits(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	if got := Group(464233); got != "464,233" {
		t.Errorf("Group(464233) = %q; want 464,233", got)
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		noun string
		want string
	}{
		{1, "replicate", "1 replicate"},
		{0, "round", "0 rounds"},
		{2, "job", "2 jobs"},
		{1000, "job", "1,000 jobs"},
		{2, "delivery", "2 deliveries"},
		{3, "worker process", "3 worker processes"},
		{2, "day", "2 days"},
	} {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q; want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

func TestDurations(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"24h0m0s", "24h"},
		{"fixed 1m0s", "fixed 1m"},
		{"full-jitter base 100ms cap 2m0s", "full-jitter base 100ms cap 2m"},
		{"lognormal median 1h30m0s, p99 2h0m0s;", "lognormal median 1h30m, p99 2h;"},
		{"up to 10 deliveries", "up to 10 deliveries"},
		{"up to 0 deliveries", "up to 0 deliveries"},
		{"", ""},
	} {
		if got := Durations(tc.in); got != tc.want {
			t.Errorf("Durations(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestAnd(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"step-newkey", "job-samekey", "job-samekey-skip"}, "step-newkey, job-samekey and job-samekey-skip"},
	} {
		if got := And(tc.words); got != tc.want {
			t.Errorf("And(%q) = %q; want %q", tc.words, got, tc.want)
		}
	}
}

// TestWrap: words fill lines of at most width columns after the indent, a
// word longer than a line stands alone, and an empty text writes nothing.
func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		text, indent string
		width        int
		want         string
	}{
		{"one two three four", "", 9, "one two\nthree\nfour\n"},
		{"one two three", "  ", 9, "  one two\n  three\n"},
		{"a enormously b", "", 5, "a\nenormously\nb\n"},
		{"  ", "  ", 10, ""},
	} {
		if got := Wrap(tc.text, tc.indent, tc.width); got != tc.want {
			t.Errorf("Wrap(%q, %q, %d) = %q; want %q", tc.text, tc.indent, tc.width, got, tc.want)
		}
	}
}

// A duration axis is written as people write a duration, never in seconds.
func TestSecondsAsPeopleWrite(t *testing.T) {
	for seconds, want := range map[float64]string{
		0: "0s", 0.25: "250ms", 2.5: "2.5s", 90: "1m30s", 60: "1m", 3600: "1h", 5400: "1h30m", 86400: "24h", 259200: "72h", 3601: "1h0m1s",
	} {
		if got := Seconds(seconds); got != want {
			t.Errorf("Seconds(%v) = %q; want %q", seconds, got, want)
		}
	}
}
