package render

import (
	"io"
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// alignment is where a column's cells sit: left (text, the zero value) or right (numbers).
type alignment int

const (
	alignLeft alignment = iota
	alignRight
)

// narrowRunes measures runes as a terminal outside East Asia does, whatever the locale.
var narrowRunes = displaywidth.Options{EastAsianWidth: false}

// textWidth is the columns s takes on a terminal: its runes' widths summed.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		n += narrowRunes.Rune(r)
	}
	return n
}

// writeBox writes escaped cells as tablewriter v1's box or markdown renderer wrote them.
func writeBox(w io.Writer, markdown bool, header []string, rows [][]string, aligns []alignment) error {
	cols := len(header)
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	split := func(cells []string) [][]string {
		lines := make([][]string, cols)
		for j := range lines {
			cell := ""
			if j < len(cells) {
				cell = strings.TrimSpace(cells[j])
			}
			lines[j] = strings.Split(cell, "\n")
		}
		return lines
	}
	head := split(header)
	body := mapped(rows, split)
	widths := make([]int, cols)
	for _, cells := range append([][][]string{head}, body...) {
		for j, lines := range cells {
			for _, l := range lines {
				widths[j] = max(widths[j], textWidth(l))
			}
		}
	}
	if markdown {
		for j := range widths {
			widths[j] = max(widths[j], 1)
		}
	}
	alignOf := func(j int) alignment {
		if j < len(aligns) {
			return aligns[j]
		}
		return alignLeft
	}
	var b strings.Builder
	rule := func(left, cross, right string) {
		b.WriteString(left)
		for j, wd := range widths {
			if j > 0 {
				b.WriteString(cross)
			}
			b.WriteString(strings.Repeat("─", wd+2))
		}
		b.WriteString(right + "\n")
	}
	bar := "│"
	if markdown {
		bar = "|"
	}
	line := func(cells [][]string, isHeader bool) {
		height := 1
		for _, lines := range cells {
			height = max(height, len(lines))
		}
		for k := range height {
			b.WriteString(bar)
			for j, lines := range cells {
				text := ""
				if k < len(lines) {
					text = lines[k]
				}
				pad := strings.Repeat(" ", widths[j]-textWidth(text))
				if !isHeader && alignOf(j) == alignRight {
					text = pad + text
				} else {
					text += pad
				}
				b.WriteString(" " + text + " " + bar)
			}
			b.WriteString("\n")
		}
	}
	if markdown {
		if len(header) > 0 {
			line(head, true)
			b.WriteString("|")
			for j, wd := range widths {
				dashes := strings.Repeat("-", wd+1)
				if len(rows) > 0 && alignOf(j) == alignRight {
					b.WriteString(dashes + ":|")
				} else {
					b.WriteString(":" + dashes + "|")
				}
			}
			b.WriteString("\n")
		}
		for _, r := range body {
			line(r, false)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	rule("┌", "┬", "┐")
	if len(header) > 0 {
		line(head, true)
		if len(rows) > 0 {
			rule("├", "┼", "┤")
		}
	}
	for _, r := range body {
		line(r, false)
	}
	rule("└", "┴", "┘")
	_, err := io.WriteString(w, b.String())
	return err
}
