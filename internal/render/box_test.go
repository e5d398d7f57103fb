package render

import (
	"bytes"
	"testing"
)

// writeBox writes tablewriter v1's bytes, worked out by hand: a space
// either side of a cell, cells trimmed, the header left and the rows as
// aligned, a cell over two lines, an empty column two spaces wide (three in
// markdown), a wide rune two columns, no rule under a header without rows
// in a box, and in markdown then every column marked left.
func TestWriteBox(t *testing.T) {
	for _, c := range []struct {
		name     string
		markdown bool
		header   []string
		rows     [][]string
		aligns   []alignment
		want     string
	}{
		{"box", false, []string{"Run", "Calls\nper job", ""}, [][]string{{" a ", "1.5", ""}, {"日本", "12", ""}}, []alignment{alignLeft, alignRight},
			"┌──────┬─────────┬──┐\n" +
				"│ Run  │ Calls   │  │\n" +
				"│      │ per job │  │\n" +
				"├──────┼─────────┼──┤\n" +
				"│ a    │     1.5 │  │\n" +
				"│ 日本 │      12 │  │\n" +
				"└──────┴─────────┴──┘\n"},
		{"box without rows", false, []string{"Run", "n"}, nil, []alignment{alignLeft, alignRight},
			"┌─────┬───┐\n" +
				"│ Run │ n │\n" +
				"└─────┴───┘\n"},
		{"markdown", true, []string{"Run", "n", ""}, [][]string{{"a", "1,234", ""}}, []alignment{alignLeft, alignRight, alignRight},
			"| Run | n     |   |\n" +
				"|:----|------:|--:|\n" +
				"| a   | 1,234 |   |\n"},
		{"markdown without rows", true, []string{"Run", "n"}, nil, []alignment{alignLeft, alignRight},
			"| Run | n |\n" +
				"|:----|:--|\n"},
	} {
		var b bytes.Buffer
		if err := writeBox(&b, c.markdown, c.header, c.rows, c.aligns); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, b.String(), c.want)
		}
	}
}
