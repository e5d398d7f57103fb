package results

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Formats lists the output formats, the default first.
var Formats = []string{"table", "markdown", "csv", "json"}

// CheckFormat refuses a format name Write does not know.
func CheckFormat(format string) error {
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
	}
	return nil
}

// Write renders r in format.
func Write(w io.Writer, r Report, format string) error {
	switch format {
	case "table":
		return writeTable(w, r, false)
	case "markdown":
		return writeTable(w, r, true)
	case "csv":
		return writeCSV(w, r)
	case "json":
		return writeJSON(w, r)
	}
	return CheckFormat(format)
}

// header is the column titles of the table formats.
func (r Report) header() []string {
	return []string{"Strategy", "Succeeded", "Failed jobs", "Calls per job", "Steps done again", r.WatchedLabel}
}

// cells are one row formatted for people, as the article prints them.
func (row Row) cells() []string {
	return []string{
		row.Label,
		percentOf(row.Jobs-row.Failed, row.Jobs),
		group(row.Failed),
		roundJS(row.CallsPerJob(), 2),
		group(row.RepeatedSteps),
		group(row.DuplicateUsers),
	}
}

func writeTable(w io.Writer, r Report, markdown bool) error {
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{
			PerColumn: []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight},
		}),
	}
	title := r.Title()
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
		title = "**" + title + "**\n"
	}
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(r.header())
	for _, row := range r.Rows {
		if err := t.Append(row.cells()); err != nil {
			return err
		}
	}
	return t.Render()
}

func writeCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"strategy", "label", "jobs", "failed", "calls", "repeated_steps", "duplicate_users", "succeeded", "calls_per_job"})
	for _, row := range r.Rows {
		cw.Write([]string{
			row.ID, row.Label,
			strconv.FormatInt(row.Jobs, 10), strconv.FormatInt(row.Failed, 10), strconv.FormatInt(row.Calls, 10),
			strconv.FormatInt(row.RepeatedSteps, 10), strconv.FormatInt(row.DuplicateUsers, 10),
			strconv.FormatFloat(row.Succeeded(), 'g', -1, 64), strconv.FormatFloat(row.CallsPerJob(), 'g', -1, 64),
		})
	}
	cw.Flush()
	return cw.Error()
}

// jsonRow adds the derived rates to a row's counters.
type jsonRow struct {
	Row
	Succeeded   float64 `json:"succeeded"`
	CallsPerJob float64 `json:"calls_per_job"`
}

func writeJSON(w io.Writer, r Report) error {
	out := struct {
		Params
		Rows []jsonRow `json:"rows"`
	}{Params: r.Params}
	for _, row := range r.Rows {
		out.Rows = append(out.Rows, jsonRow{row, row.Succeeded(), row.CallsPerJob()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
