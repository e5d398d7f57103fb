package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrysim/retrysim/internal/stats"
)

// numberColumns aligns n columns: the first left as text, the rest as numbers.
func numberColumns(n, left int) []alignment {
	align := make([]alignment, n)
	for i := range align {
		align[i] = alignRight
		if i < left {
			align[i] = alignLeft
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

// Escaped is s with every control character and byte that is not UTF-8
// as its Go escape (\n, \x1b, \u202e), for a name no reader checked, such
// as a file's, put into a title: it cannot break the title's line or
// reorder it, in any format.
func Escaped(s string) string { return terminalText(s) }

// markdownReplacer escapes what would end a markdown table's cell (|), or
// be read as html (markdown passes inline html through), an escape or a
// link (the ]( of [text](url) and ![image](url)).
var markdownReplacer = strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;", "&", "&amp;", "](", `\](`)

// markdownText is s as markdown text: terminalText's escapes, then |, <, >,
// &, the backslash and a link's ]( escaped, so that it reads as written in
// a cell.
func markdownText(s string) string { return markdownReplacer.Replace(terminalText(s)) }

// tableTitle is a table's title as markdown (in bold) or for a terminal,
// each of its lines escaped for either; for a terminal each line wraps at
// spaces to the style's width.
func tableTitle(title string, st tableStyle) string {
	escape := terminalText
	if st.markdown {
		escape = markdownText
	}
	var lines []string
	for _, l := range strings.Split(title, "\n") {
		l = escape(l)
		if st.markdown {
			lines = append(lines, l)
			continue
		}
		lines = append(lines, wrapWords(l, st.width)...)
	}
	if st.markdown {
		return "**" + strings.Join(lines, "\n") + "**\n"
	}
	return strings.Join(lines, "\n")
}

// writeTitled writes a table's title, the table t and a caption under it
// ("" for none), in style st.
func writeTitled(w io.Writer, st tableStyle, title string, t *table, caption string) error {
	if _, err := fmt.Fprintln(w, tableTitle(title, st)); err != nil {
		return err
	}
	if err := t.Render(); err != nil || caption == "" {
		return err
	}
	_, err := fmt.Fprintln(w, tableCaption(caption, st))
	return err
}

// tableCaption is a note under a table: in markdown a paragraph of its own
// (a markdown table goes on to the first blank line), for a terminal
// wrapped at spaces to the style's width.
func tableCaption(text string, st tableStyle) string {
	if st.markdown {
		return "\n" + markdownText(text)
	}
	return strings.Join(wrapWords(terminalText(text), st.width), "\n")
}
