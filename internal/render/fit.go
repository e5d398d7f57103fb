package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// DefaultWidth is the width in columns the table format fits unless WithWidth says.
const DefaultWidth = 100

// tableStyle is how a table format writes tables: markdown, or boxes width wide (0: any).
type tableStyle struct {
	markdown bool
	width    int
}

// table gathers a header and rows, then writes them escaped and fitted to the width.
type table struct {
	w      io.Writer
	st     tableStyle
	align  []alignment
	labels int   // leading columns that name a row: their cells wrap, and every part repeats them
	prose  []int // other columns whose cells are words, which wrap too
	header []string
	rows   [][]string
}

// newTable is a table written to w in style st, aligned as align says, labels columns first.
func newTable(w io.Writer, st tableStyle, align []alignment, labels int) *table {
	return &table{w: w, st: st, align: align, labels: labels}
}

// Header sets the column titles.
func (t *table) Header(h []string) { t.header = h }

// Append adds a row.
func (t *table) Append(cells []string) { t.rows = append(t.rows, cells) }

// Render writes the table, escaped and, for a terminal, fitted to the width.
func (t *table) Render() error {
	escape := Escaped
	if t.st.markdown {
		escape = markdownText
	}
	header := mapped(t.header, escape)
	rows := mapped(t.rows, func(r []string) []string { return mapped(r, escape) })
	if t.st.markdown || t.st.width <= 0 {
		return writeBox(t.w, t.st.markdown, header, rows, t.align)
	}
	cols := make([]fitColumn, len(header))
	for j := range cols {
		cols[j] = t.column(j, header, rows)
	}
	for k, part := range fitParts(cols, t.labels, t.st.width) {
		if k > 0 {
			if _, err := fmt.Fprintln(t.w); err != nil {
				return err
			}
		}
		h := make([]string, len(part))
		align := make([]alignment, len(part))
		for i, c := range part {
			h[i] = strings.Join(wrapWords(header[c.index], c.width), "\n")
			if c.index < len(t.align) {
				align[i] = t.align[c.index]
			}
		}
		body := make([][]string, len(rows))
		for r, row := range rows {
			body[r] = make([]string, len(part))
			for i, c := range part {
				if c.index >= len(row) {
					continue
				}
				body[r][i] = row[c.index]
				if c.wraps {
					body[r][i] = strings.Join(wrapWords(row[c.index], c.width), "\n")
				}
			}
		}
		if err := writeBox(t.w, t.st.markdown, h, body, align); err != nil {
			return err
		}
	}
	return nil
}

// fitColumn is one column as the fitting sees it.
type fitColumn struct {
	index          int
	cells          []string
	wraps          bool
	width          int
	natural, least int
}

// column measures column j of header and rows.
func (t *table) column(j int, header []string, rows [][]string) fitColumn {
	c := fitColumn{index: j, cells: []string{header[j]}, wraps: j < t.labels || slices.Contains(t.prose, j)}
	for _, r := range rows {
		cell := ""
		if j < len(r) {
			cell = r[j]
		}
		c.cells = append(c.cells, cell)
	}
	for i, s := range c.cells {
		c.natural = max(c.natural, textWidth(s))
		if i > 0 && !c.wraps {
			c.least = max(c.least, textWidth(s))
			continue
		}
		for _, word := range strings.Fields(s) {
			c.least = max(c.least, textWidth(word))
		}
	}
	c.width = c.natural
	return c
}

// lines are the lines each of c's cells takes at width w, and the widest's width.
func (c fitColumn) lines(w int) (lines []int, widest int) {
	lines = make([]int, len(c.cells))
	for i, s := range c.cells {
		if i > 0 && !c.wraps {
			lines[i], widest = 1, max(widest, textWidth(s))
			continue
		}
		wrapped := wrapWords(s, w)
		lines[i] = len(wrapped)
		for _, l := range wrapped {
			widest = max(widest, textWidth(l))
		}
	}
	return lines, widest
}

// boxWidth is the width of a box table whose columns hold widths.
func boxWidth(widths ...int) int {
	n := 1
	for _, w := range widths {
		n += w + 3
	}
	return n
}

// fitParts shares cols among tables that each fit width, each repeating the labels.
func fitParts(cols []fitColumn, labels, width int) [][]fitColumn {
	labels = min(labels, len(cols))
	lead, rest := cols[:labels], cols[labels:]
	if len(rest) == 0 {
		part, _ := narrow(slices.Clone(lead), width)
		return [][]fitColumn{part}
	}
	least := func(c fitColumn) int { return c.least }
	natural := func(c fitColumn) int { return c.natural }
	fits := func(part []fitColumn) bool {
		return len(part) == 1 || boxWidth(append(mapped(lead, least), mapped(part, least)...)...) <= width
	}
	cost := func(part []fitColumn) int {
		return boxWidth(append(mapped(lead, natural), mapped(part, natural)...)...)
	}
	var best [][]fitColumn
	bestLines := 0
	for g := 1; g <= len(rest); g++ {
		groups := partition(rest, g, fits, cost)
		if groups == nil {
			continue
		}
		parts := make([][]fitColumn, g)
		lines := g - 1 // the empty lines between tables
		for k, group := range groups {
			var height int
			parts[k], height = narrow(append(slices.Clone(lead), group...), width)
			lines += height + 3 // and three borders
		}
		if best == nil || lines < bestLines {
			best, bestLines = parts, lines
		}
	}
	return best
}

// partition cuts cols into g fitting runs, the costliest as cheap as can be; nil if none.
func partition(cols []fitColumn, g int, fits func([]fitColumn) bool, cost func([]fitColumn) int) [][]fitColumn {
	n := len(cols)
	const none = -1
	// worst[k][i]: the cheapest costliest run cutting cols[:i] in k; from[k][i]: its start.
	worst := make([][]int, g+1)
	from := make([][]int, g+1)
	for k := range worst {
		worst[k] = make([]int, n+1)
		from[k] = make([]int, n+1)
		for i := range worst[k] {
			worst[k][i] = none
		}
	}
	worst[0][0] = 0
	for k := 1; k <= g; k++ {
		for i := k; i <= n; i++ {
			for j := i - 1; j >= k-1; j-- {
				part := cols[j:i]
				if !fits(part) {
					break
				}
				if worst[k-1][j] == none {
					continue
				}
				c := max(worst[k-1][j], cost(part))
				if worst[k][i] == none || c < worst[k][i] {
					worst[k][i], from[k][i] = c, j
				}
			}
		}
	}
	if worst[g][n] == none {
		return nil
	}
	groups := make([][]fitColumn, g)
	for k, i := g, n; k > 0; k-- {
		groups[k-1] = cols[from[k][i]:i]
		i = from[k][i]
	}
	return groups
}

// narrow wraps cols, cheapest first, until their table fits width; height is its lines.
func narrow(cols []fitColumn, width int) (narrowed []fitColumn, height int) {
	lines := make([][]int, len(cols))
	for i, c := range cols {
		lines[i], _ = c.lines(c.width)
	}
	tall := func(swap int, with []int) int {
		h := 0
		for r := range lines[0] {
			tallest := 0
			for i := range cols {
				l := lines[i]
				if i == swap {
					l = with
				}
				tallest = max(tallest, l[r])
			}
			h += tallest
		}
		return h
	}
	for boxWidth(mapped(cols, func(c fitColumn) int { return c.width })...) > width {
		now := tall(-1, nil)
		pick, pickLines, pickWidth := -1, []int(nil), 0
		var pickCost float64
		for i, c := range cols {
			if c.width <= c.least {
				continue
			}
			l, w := c.lines(c.width - 1)
			cost := float64(tall(i, l)-now) / float64(c.width-w)
			if pick < 0 || cost < pickCost || cost == pickCost && c.width > cols[pick].width {
				pick, pickLines, pickWidth, pickCost = i, l, w, cost
			}
		}
		if pick < 0 {
			break
		}
		cols[pick].width, lines[pick] = pickWidth, pickLines
	}
	return cols, tall(-1, nil)
}

// wrapWords breaks s at spaces into lines at most width wide; s whole when width is 0.
func wrapWords(s string, width int) []string {
	if width <= 0 || textWidth(s) <= width {
		return []string{s}
	}
	var lines []string
	line, lineWidth := "", 0
	for _, word := range strings.Fields(s) {
		w := textWidth(word)
		switch {
		case line == "":
			line, lineWidth = word, w
		case lineWidth+1+w <= width:
			line, lineWidth = line+" "+word, lineWidth+1+w
		default:
			lines = append(lines, line)
			line, lineWidth = word, w
		}
	}
	return append(lines, line)
}
