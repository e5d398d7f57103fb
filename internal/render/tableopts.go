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

// Escaped is s with every control character and non-UTF-8 byte as its Go escape.
func Escaped(s string) string {
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

// markdownReplacer escapes what would end a markdown cell or read as html or a link.
var markdownReplacer = strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;", "&", "&amp;", "](", `\](`)

// markdownText is s as markdown text, escaped to read as written in a cell.
func markdownText(s string) string { return markdownReplacer.Replace(Escaped(s)) }

// tableTitle is a table's title, bold in markdown, else wrapped to the width.
func tableTitle(title string, st tableStyle) string {
	escape := Escaped
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

// writeTitled writes a table's title, the table t and a caption ("" for none).
func writeTitled(w io.Writer, st tableStyle, title string, t *table, caption string) error {
	if _, err := fmt.Fprintln(w, tableTitle(title, st)); err != nil {
		return err
	}
	if err := t.Render(); err != nil || caption == "" {
		return err
	}
	// the caption is its own paragraph in markdown, else wrapped to the width
	text := strings.Join(wrapWords(Escaped(caption), st.width), "\n")
	if st.markdown {
		text = "\n" + markdownText(caption)
	}
	_, err := fmt.Fprintln(w, text)
	return err
}
