package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/retrysim/retrysim/stats"
)

// tableOptions are the options every table of retrysim's takes: headers as
// written and left-aligned, each column aligned as align says, every cell
// escaped (terminalText, markdownText), and the markdown renderer for
// markdown.
func tableOptions(markdown bool, align []tw.Align) []tablewriter.Option {
	escape := terminalText
	if markdown {
		escape = markdownText
	}
	filter := tw.CellFilter{Global: func(cells []string) []string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = escape(c)
		}
		return out
	}}
	opts := []tablewriter.Option{
		tablewriter.WithHeaderFilter(filter),
		tablewriter.WithRowFilter(filter),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	}
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	return opts
}

// numberColumns aligns n columns: the first left as text, the rest as numbers.
func numberColumns(n, left int) []tw.Align {
	align := make([]tw.Align, n)
	for i := range align {
		align[i] = tw.AlignRight
		if i < left {
			align[i] = tw.AlignLeft
		}
	}
	return align
}

// terminalText is s with every rune stats.IsControl reports, and every
// byte that is not UTF-8, written as its Go escape (\t, \x1b, \u2028), so
// that no text a table or title prints moves the cursor or breaks a line,
// even one no reader has checked.
func terminalText(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, stats.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case stats.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// markdownReplacer escapes what would end a markdown table's cell (|), or
// be read as html (markdown passes inline html through) or an escape.
var markdownReplacer = strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;", "&", "&amp;")

// markdownText is s as markdown text: terminalText's escapes, then |, <, >,
// & and the backslash escaped, so that it reads as written in a cell.
func markdownText(s string) string { return markdownReplacer.Replace(terminalText(s)) }

// tableTitle is a table's title as markdown (in bold) or for a terminal,
// each of its lines escaped for either.
func tableTitle(title string, markdown bool) string {
	escape := terminalText
	if markdown {
		escape = markdownText
	}
	lines := strings.Split(title, "\n")
	for i, l := range lines {
		lines[i] = escape(l)
	}
	if markdown {
		return "**" + strings.Join(lines, "\n") + "**\n"
	}
	return strings.Join(lines, "\n")
}
