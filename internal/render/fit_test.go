package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// fitSample is a table with long headers, long labels and numbers of many
// widths, as the strategies' table with -ci has.
func fitSample(w *bytes.Buffer, st tableStyle) *table {
	t := newTable(w, st, numberColumns(7, 1), 1)
	t.Header([]string{"Strategy", "Succeeded", "Failed jobs", "Calls per job", "Steps done again",
		"Users with 2+ welcome emails", "Time p50 / p95 / p99, succeeded jobs"})
	t.Append([]string{"Retry each step, no key", "99.999% [99.998, 99.999]", "11 [5, 20]", "10.11 [10.106, 10.107]",
		"4,971 [4,832, 5,110]", "4,939 [4,802, 5,079]", "0.9441 s / 2.371 s / 29.85 s"})
	t.Append([]string{"Retry the whole job, same key, skip finished steps", "99.975% [99.972, 99.978]", "250 [220, 283]",
		"10.11 [10.109, 10.110]", "0 [0, 0]", "0 [0, 4]", "0.8414 s / 2.113 s / 29.85 s"})
	return t
}

// At any width from 43 to 200 columns (43: the widest number, 28 columns,
// beside the widest word of a label, "finished", with their borders and
// spaces) every line of the table fits, every
// number is printed whole on one line, and every part of a split table
// starts with the strategies' labels; at width 0 the table is one line a
// row, as before widths.
func TestTableFitsEveryWidth(t *testing.T) {
	cond := &runewidth.Condition{EastAsianWidth: false}
	var numbers []string
	var sample bytes.Buffer
	tb := fitSample(&sample, tableStyle{})
	for _, r := range tb.rows {
		numbers = append(numbers, r[1:]...)
	}
	for width := 43; width <= 200; width++ {
		var out bytes.Buffer
		if err := fitSample(&out, tableStyle{width: width}).Render(); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		for _, line := range strings.Split(got, "\n") {
			if w := cond.StringWidth(line); w > width {
				t.Fatalf("width %d: a line is %d columns:\n%s", width, w, got)
			}
		}
		for _, n := range numbers {
			if !strings.Contains(got, n) {
				t.Fatalf("width %d: %q is not printed whole:\n%s", width, n, got)
			}
		}
		for i, part := range strings.Split(got, "\n\n") {
			header := strings.SplitN(part, "\n", 3)[1]
			if !strings.HasPrefix(header, "│ Strategy ") {
				t.Fatalf("width %d: part %d does not start with the labels:\n%s", width, i+1, got)
			}
		}
	}
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(sample.String(), "\n"); n != 6 {
		t.Errorf("width 0: %d lines; want 6 (three borders, the header, two rows):\n%s", n, sample.String())
	}
}

// A table that fits as it is is not touched; one that fits once a header
// wraps keeps its rows on one line each, and the header that wraps is the
// one that frees the most columns for the line it adds, worked out by hand:
// "Label" 5, "Failed jobs" 11 (its number 2) and "Calls per job" 13 (its
// number 5) take 1+(5+3)+(11+3)+(13+3) = 39 columns; at 35, "Failed jobs"
// wrapped ("Failed"/"jobs", 6) frees 5 columns for one more header line,
// "Calls per job" ("Calls per"/"job", 9) 4, so the first wraps, and the
// table, 34 columns, then fits.
func TestTableWrapsHeadersFirst(t *testing.T) {
	render := func(width int) string {
		var out bytes.Buffer
		tb := newTable(&out, tableStyle{width: width}, numberColumns(3, 1), 1)
		tb.Header([]string{"Label", "Failed jobs", "Calls per job"})
		tb.Append([]string{"a b", "12", "10.11"})
		if err := tb.Render(); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if got, want := render(39), render(0); got != want {
		t.Errorf("width 39 (the table's own):\n%s\nwant it untouched:\n%s", got, want)
	}
	want := "" +
		"┌───────┬────────┬───────────────┐\n" +
		"│ Label │ Failed │ Calls per job │\n" +
		"│       │ jobs   │               │\n" +
		"├───────┼────────┼───────────────┤\n" +
		"│ a b   │     12 │         10.11 │\n" +
		"└───────┴────────┴───────────────┘\n"
	if got := render(35); got != want {
		t.Errorf("width 35:\n%s\nwant\n%s", got, want)
	}
}

func TestWrapWords(t *testing.T) {
	for _, tt := range []struct {
		s     string
		width int
		want  string
	}{
		{"Users with 2+ welcome emails", 14, "Users with 2+|welcome emails"},
		{"Users with 2+ welcome emails", 0, "Users with 2+ welcome emails"},
		{"a verylongword b", 4, "a|verylongword|b"},
	} {
		if got := strings.Join(wrapWords(tt.s, tt.width), "|"); got != tt.want {
			t.Errorf("wrapWords(%q, %d) = %q; want %q", tt.s, tt.width, got, tt.want)
		}
	}
}
