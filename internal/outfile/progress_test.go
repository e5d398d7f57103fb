package outfile

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// The line says the share done, as a bar of 20 cells, the count, and the
// time left at the pace so far: 450 of 1,000 in 12 s is 45%, 9 cells, and
// 550 more at 450 per 12 s, 14.67 s, shown as 15s.
func TestProgressLine(t *testing.T) {
	for _, tt := range []struct {
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{450, 1000, 12 * time.Second, "sweep  45% [#########           ] 450/1,000  12s, 15s left"},
		{1, 3, 1500 * time.Millisecond, "sweep  33% [######              ] 1/3  2s, 3s left"},
		{199_999_999, 200_000_000, 14 * time.Minute, "sweep  99% [################### ] 199,999,999/200,000,000  14m, 0s left"},
	} {
		if got := progressLine("sweep", tt.done, tt.total, tt.elapsed); got != tt.want {
			t.Errorf("progressLine(%d, %d, %v) = %q; want %q", tt.done, tt.total, tt.elapsed, got, tt.want)
		}
	}
}

// A meter stays silent for the first second, redraws at most every 100 ms,
// ignores a report older than one it has shown (workers report out of
// order), pads a shorter line over a longer one, and clears the line at the
// end, leaving the screen as it found it.
func TestMeter(t *testing.T) {
	var w bytes.Buffer
	at := time.Duration(0)
	m := &meter{w: &w, name: "fleet", now: func() time.Time { return time.Unix(0, 0).Add(at) }}
	m.start = m.now()
	steps := []struct {
		at          time.Duration
		done, total int64
		want        string // what this report writes
	}{
		{500 * time.Millisecond, 1, 100, ""}, // before a second: silent
		{1200 * time.Millisecond, 10, 100, "\rfleet  10% [##                  ] 10/100  1s, 11s left"},
		{1250 * time.Millisecond, 11, 100, ""}, // within 100 ms of the last
		{1400 * time.Millisecond, 9, 100, ""},  // older than what was shown
		{1400 * time.Millisecond, 60, 100, "\rfleet  60% [############        ] 60/100  1s, 1s left "},
		{1600 * time.Millisecond, 100, 100, "\r" + strings.Repeat(" ", 54) + "\r"},
		{1700 * time.Millisecond, 100, 100, ""}, // done already
	}
	for _, s := range steps {
		at = s.at
		w.Reset()
		m.report(s.done, s.total)
		if got := w.String(); got != s.want {
			t.Errorf("at %v, %d of %d: wrote %q; want %q", s.at, s.done, s.total, got, s.want)
		}
	}
}

// Progress is silent when stderr is not a terminal: a file or a buffer.
func TestProgressSilentOffTerminal(t *testing.T) {
	if Progress(&bytes.Buffer{}, "x") != nil {
		t.Error("Progress(a buffer) draws; want nil")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if Progress(f, "x") != nil {
		t.Error("Progress(a regular file) draws; want nil")
	}
}
