package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/stats"
)

// hostile is a report whose every name holds what a terminal or a markdown
// table would act on, as if a reader had let it through: the table writes
// each as its Go escape, and markdown escapes |, <, >, & and \ besides.
func hostile() stats.Report {
	c := stats.Counters{Jobs: 1, Calls: 1}
	return stats.Report{
		Params: stats.Params{Scenario: "s\x1b]0;title\x07", Noun: "jobs\r", Steps: 1, Jobs: 1, Attempts: 1, RNG: "pcg", Engine: "plain", Replicates: 1,
			Watched: []stats.Watch{{Name: "a", Label: "Jobs | twice\t<script>"}}},
		Rows: []stats.Row{
			{ID: "x", Label: "Retry\x1b[2J\nforged | row \u2028 \u202e", Counters: c},
			{ID: "y", Label: "back\\| & \u009b \xff", Counters: c},
		},
	}
}

// The table wrote a name's escape sequences to the terminal raw (issue 21);
// now no control character reaches it, and no name adds a line.
func TestTableEscapesControlBytes(t *testing.T) {
	var out bytes.Buffer
	if err := writeTable(&out, hostile(), tableStyle{}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for i, r := range got {
		if r != '\n' && stats.IsControl(r) || r == '\uFFFD' && !strings.HasPrefix(got[i:], "\uFFFD") {
			t.Fatalf("table holds %U at byte %d:\n%s", r, i, got)
		}
	}
	for _, want := range []string{`Retry\x1b[2J\nforged | row \u2028 \u202e`, `back\| & \u009b \xff`, `Jobs | twice\t<script>`} {
		if !strings.Contains(got, want) {
			t.Errorf("table does not show %s:\n%s", want, got)
		}
	}
	// The title's one line, then three borders, a header and two rows.
	if n := strings.Count(got, "\n"); n != 7 {
		t.Errorf("table has %d lines; want 7:\n%s", n, got)
	}
}

// A | or newline in a name broke the markdown table (a header of 12 cells
// over a delimiter row of 11) and <script> passed through (issue 21); now
// each row has its header's cells and no html.
func TestMarkdownEscapesCells(t *testing.T) {
	var out bytes.Buffer
	if err := writeTable(&out, hostile(), tableStyle{markdown: true}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	// The title, an empty line, a header of 6 cells, its delimiter, two rows.
	if len(lines) != 6 {
		t.Fatalf("markdown has %d lines; want 6:\n%s", len(lines), got)
	}
	for _, line := range lines[2:] {
		if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 7 {
			t.Errorf("markdown row has %d cell borders; want 7: %s", n, line)
		}
	}
	for _, want := range []string{
		`| Retry\\x1b[2J\\nforged \| row \\u2028 \\u202e |`,
		`| back\\\| &amp; \\u009b \\xff `,
		`| Jobs \| twice\\t&lt;script&gt; |`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown does not hold %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<") {
		t.Errorf("markdown passes < through:\n%s", got)
	}
}

// A csv cell a spreadsheet would take for a formula (OWASP's CSV injection:
// text starting with =, +, -, @, a tab or a carriage return) is written
// with a ' in front; a number stays a number, negative or not, as a value
// or as text that is a number as a whole.
func TestCSVNeutralisesFormulas(t *testing.T) {
	row := []field{
		{"=name", "=HYPERLINK(\"http://x\",\"y\")"}, {"plus", "+1+1"}, {"minus", "-2+3"}, {"at", "@SUM(A1)"},
		{"tab", "\t=1"}, {"cr", "\r=1"}, {"dash", "-"}, {"text", "a=b"},
		{"negative", -3.5}, {"count", int64(-2)}, {"negative text", "-1.5"}, {"signed text", "+2"},
	}
	var out bytes.Buffer
	if err := writeFields(&out, [][]field{row}); err != nil {
		t.Fatal(err)
	}
	want := "'=name,plus,minus,at,tab,cr,dash,text,negative,count,negative text,signed text\n" +
		`"'=HYPERLINK(""http://x"",""y"")",'+1+1,'-2+3,'@SUM(A1),'` + "\t=1,\"'\r=1\",'-,a=b,-3.5,-2,-1.5,+2\n"
	if got := out.String(); got != want {
		t.Errorf("csv =\n%q\nwant\n%q", got, want)
	}
}

// A markdown link or image in a name ([text](url), ![alt](url)) is written
// as text: its ]( escaped, so no renderer makes it a link.
func TestMarkdownEscapesLinks(t *testing.T) {
	for in, want := range map[string]string{
		"[click](https://evil.example)": `[click\](https://evil.example)`,
		"![x](https://evil.example/p)":  `![x\](https://evil.example/p)`,
		"0.95 [0.76, 1.00]":             "0.95 [0.76, 1.00]",
	} {
		if got := markdownText(in); got != want {
			t.Errorf("markdownText(%q) = %q; want %q", in, got, want)
		}
	}
}
