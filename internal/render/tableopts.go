package render

import (
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// tableOptions are the options every table of retrysim's takes: headers as
// written and left-aligned, each column aligned as align says, and the
// markdown renderer for markdown.
func tableOptions(markdown bool, align []tw.Align) []tablewriter.Option {
	opts := []tablewriter.Option{
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
