package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/retrysim/retrysim/internal/raceresult"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/internal/stats"
)

// Doc is one of the documents retrysim's commands print.
type Doc uint8

const (
	// ReportDoc is the table command's and merge's stats.Report.
	ReportDoc Doc = iota
	// SweepDoc is the sweep command's stats.Sweep.
	SweepDoc
	// FleetDoc is the fleet command's FleetReport.
	FleetDoc
	// TotalsDoc is a fleet preset's totals by failure rate and policy.
	TotalsDoc
	// CasesDoc is a table preset's stats.Cases.
	CasesDoc
	// RaceDoc is the race command's modes.
	RaceDoc
	// GraphDoc is the graph command's GraphReport.
	GraphDoc
	// WorkersDoc is the workers command's WorkersReport.
	WorkersDoc
	// KindSweepDoc is a sweep of a kind's runs (Table.Sweep); no page writes it.
	KindSweepDoc
)

// Renderer is one output format: its name and how it writes each document.
type Renderer struct {
	name string
	// raw formats print numbers unformatted, every counter and metric of a row.
	raw bool
	// page formats write one self-contained html page, plots included.
	page bool
	// table is the style of the table and markdown formats, nil for the others.
	table *tableStyle

	report func(io.Writer, stats.Report) error
	sweep  func(io.Writer, stats.Sweep, PlotOptions) error
	cases  func(io.Writer, stats.Cases) error
	race   func(w io.Writer, title string, rows []raceresult.Row) error
	// runs writes a kind's runs, nil for a format that writes none.
	runs func(Runs, io.Writer) error
}

// Runs is a kind's runs as every format writes them: each method writes
// the title (html: the page), the kind's rows over its columns, and its
// caption or, in json, what ran the runs and their series.
type Runs interface {
	table(w io.Writer, st tableStyle) error
	csv(w io.Writer) error
	json(w io.Writer) error
	html(w io.Writer) error
}

var _ Runs = TotalsReport{}

// renderers are every format, the default first, in the order commands offer them.
var renderers = []Renderer{tableFormat("table", tableStyle{width: DefaultWidth}), tableFormat("markdown", tableStyle{markdown: true}), {
	name: "csv", raw: true,
	report: writeCSV,
	sweep:  func(w io.Writer, s stats.Sweep, _ PlotOptions) error { return writeSweepCSV(w, s) },
	cases:  func(w io.Writer, c stats.Cases) error { return writeFields(w, casesFields(c)) },
	race: func(w io.Writer, _ string, rows []raceresult.Row) error {
		return writeFields(w, fieldRows(rows, raceFields)())
	},
	runs: Runs.csv,
}, {
	name: "json", raw: true,
	report: reportjson.WriteReport,
	sweep:  func(w io.Writer, s stats.Sweep, _ PlotOptions) error { return writeSweepJSON(w, s) },
	cases:  func(w io.Writer, c stats.Cases) error { return titledRows(w, c.Title, casesFields(c)) },
	race: func(w io.Writer, title string, rows []raceresult.Row) error {
		return titledRows(w, title, fieldRows(rows, raceFields)())
	},
	runs: Runs.json,
}, {
	name: "html", page: true,
	report: writeReportHTML,
	sweep:  writeSweepHTML,
	cases:  writeCasesHTML,
	runs:   Runs.html,
}}

// tableFormat is the format that writes every document as a table in style st.
func tableFormat(name string, st tableStyle) Renderer {
	return Renderer{
		name:   name,
		table:  &st,
		report: func(w io.Writer, r stats.Report) error { return writeTable(w, r, st) },
		sweep:  func(w io.Writer, s stats.Sweep, _ PlotOptions) error { return writePivot(w, s, st) },
		cases:  func(w io.Writer, c stats.Cases) error { return writeCasesTable(w, c, st) },
		race: func(w io.Writer, title string, rows []raceresult.Row) error {
			return writeRaceTable(w, title, rows, st)
		},
		runs: func(r Runs, w io.Writer) error { return r.table(w, st) },
	}
}

// WithWidth is the format fitting its tables to width columns, 0 for no limit.
func (r Renderer) WithWidth(width int) Renderer {
	if r.table == nil || r.table.markdown {
		return r
	}
	return tableFormat(r.name, tableStyle{width: max(width, 0)})
}

// writes reports whether r writes d.
func (r Renderer) writes(d Doc) bool {
	switch d {
	case ReportDoc:
		return r.report != nil
	case SweepDoc:
		return r.sweep != nil
	case FleetDoc, TotalsDoc, GraphDoc, WorkersDoc:
		return r.runs != nil
	case KindSweepDoc:
		return r.runs != nil && !r.page
	case CasesDoc:
		return r.cases != nil
	case RaceDoc:
		return r.race != nil
	}
	return false
}

// Names are the formats that write d, the default first.
func Names(d Doc) []string {
	var names []string
	for _, r := range renderers {
		if r.writes(d) {
			names = append(names, r.name)
		}
	}
	return names
}

// Lookup is the format called name, if it writes d.
func Lookup(d Doc, name string) (Renderer, error) {
	for _, r := range renderers {
		if r.name == name && r.writes(d) {
			return r, nil
		}
	}
	return Renderer{}, fmt.Errorf("unknown format %q (want one of %s)", name, strings.Join(Names(d), ", "))
}

// Name is the format's name, as -format takes it.
func (r Renderer) Name() string { return r.name }

// Raw reports whether the format prints every figure raw (csv and json).
func (r Renderer) Raw() bool { return r.raw }

// Page reports whether the format writes one self-contained html page.
func (r Renderer) Page() bool { return r.page }

// unwritten is the error of a format asked for a document it does not write.
func (r Renderer) unwritten(what string) error {
	return fmt.Errorf("format %q does not write %s", r.name, what)
}

// Report writes a run's report.
func (r Renderer) Report(w io.Writer, rep stats.Report) error {
	if r.report == nil {
		return r.unwritten("a report")
	}
	return r.report(w, rep)
}

// Sweep writes a sweep: a pivot for people, every figure in csv and json, a page.
func (r Renderer) Sweep(w io.Writer, s stats.Sweep, opts PlotOptions) error {
	if r.sweep == nil {
		return r.unwritten("a sweep")
	}
	return r.sweep(w, s, opts)
}

// Runs writes a kind's runs.
func (r Renderer) Runs(w io.Writer, doc Runs) error {
	if r.runs == nil {
		return r.unwritten("runs")
	}
	return r.runs(doc, w)
}

// Cases writes a table preset's cases.
func (r Renderer) Cases(w io.Writer, c stats.Cases) error {
	if r.cases == nil {
		return r.unwritten("a preset's cases")
	}
	return r.cases(w, c)
}

// Race writes the modes of a real run.
func (r Renderer) Race(w io.Writer, title string, rows []raceresult.Row) error {
	if r.race == nil {
		return r.unwritten("race modes")
	}
	return r.race(w, title, rows)
}
