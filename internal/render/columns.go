package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/schema"
)

// column is one column of a kind's rows, declared once for every format and the glossary.
type column[R any] struct {
	// header heads the column for people, its glossary term; "" for csv and json only.
	header string
	// key names the figure in csv, json and html's data-field; "" for people only.
	key string
	// est is the column's figure: csv and json write key, key_lo, key_hi; people read style.
	est   func(R) schema.Estimate
	style numberStyle
	// text, when set, is the column's cell for people instead: a label
	// (read as prose), or a cell no one json figure holds unless value does.
	text  func(R) string
	label bool
	value func(R) float64
	// fields, when set, are what csv and json write instead of est or a label's text.
	fields func(R) []field
	// gloss is header's glossary entry where glossary.md has none.
	gloss string
}

// columns are a kind's columns, in the order every format writes them.
type columns[R any] []column[R]

// header is the columns' headers for people.
func (cs columns[R]) header() []string {
	var h []string
	for _, c := range cs {
		if c.header != "" {
			h = append(h, c.header)
		}
	}
	return h
}

// labels is how many columns for people name a row (the leading labels).
func (cs columns[R]) labels() int {
	n := 0
	for _, c := range cs {
		if c.header != "" && c.label {
			n++
		}
	}
	return n
}

// cell is c's text for people.
func (c column[R]) cell(r R) string {
	if c.text != nil {
		return c.text(r)
	}
	e := c.est(r)
	return c.style.text(e.Value) + c.style.interval(e.Lo, e.Hi)
}

// cells are r's row for people, in header's order.
func (cs columns[R]) cells(r R) []string {
	var out []string
	for _, c := range cs {
		if c.header != "" {
			out = append(out, c.cell(r))
		}
	}
	return out
}

// fields flattens r for csv and json, each figure as key, key_lo, key_hi (null when undefined).
func (cs columns[R]) fields(r R) []field {
	var f []field
	for _, c := range cs {
		switch {
		case c.fields != nil:
			f = append(f, c.fields(r)...)
		case c.key == "":
		case c.est != nil:
			f = append(f, estimateFields(c.key, c.est(r))...)
		default:
			f = append(f, field{c.key, c.text(r)})
		}
	}
	return f
}

// pageCells are r's row for people as html cells of json row i.
func (cs columns[R]) pageCells(r R, i int) []pageCell {
	var out []pageCell
	for _, c := range cs {
		switch {
		case c.header == "":
		case c.label:
			out = append(out, prose(c.text(r)))
		case c.value != nil:
			out = append(out, num(c.cell(r), i, c.key, c.value(r)))
		case c.text == nil:
			out = append(out, num(c.cell(r), i, c.key, c.est(r).Value))
		default:
			out = append(out, plain(c.cell(r)))
		}
	}
	return out
}

// pageTable is a table of rows under heading, each as html cells of json row from+i.
func (cs columns[R]) pageTable(heading, howTo string, rows []R, from int) pageTable {
	t := pageTable{heading: heading, howTo: howTo, header: cs.header()}
	for i, r := range rows {
		t.rows = append(t.rows, pageRow{cells: cs.pageCells(r, from+i)})
	}
	return t
}

// glosses are the glossary entries the columns declare.
func (cs columns[R]) glosses() []glossaryEntry {
	var out []glossaryEntry
	for _, c := range cs {
		if c.gloss != "" {
			out = append(out, glossaryEntry{term: c.header, paragraphs: []string{c.gloss}})
		}
	}
	return out
}

// estimateColumn is the column of the figure of figs keyed key.
func estimateColumn[R any](header, key string, style numberStyle, figs []fleetdata.Figure[R, schema.Estimate]) column[R] {
	return column[R]{header: header, key: key, style: style, est: figureOf(figs, key)}
}

// figureOf is the figure of figs keyed key; a key figs lack panics as the package loads.
func figureOf[R, V any](figs []fleetdata.Figure[R, V], key string) func(R) V {
	f, ok := fleetdata.Lookup(figs, key)
	if !ok {
		panic("render: no figure keyed " + key)
	}
	return func(r R) V { return f.Of(&r) }
}

// labelColumn names a row: its text under key in csv and json.
func labelColumn[R any](header, key string, text func(R) string) column[R] {
	return column[R]{header: header, key: key, text: text, label: true}
}

// rawColumn is figures only csv and json write.
func rawColumn[R any](fields func(R) []field) column[R] { return column[R]{fields: fields} }

// quantilesColumn is three estimates as key_p50, key_p95, key_p99, one column for people.
func quantilesColumn[R any](header, key string, figs []fleetdata.Figure[R, schema.Estimate]) column[R] {
	p50, p95, p99 := figureOf(figs, key+"_p50"), figureOf(figs, key+"_p95"), figureOf(figs, key+"_p99")
	q := func(r R) [3]schema.Estimate { return [3]schema.Estimate{p50(r), p95(r), p99(r)} }
	return column[R]{header: header,
		text: func(r R) string {
			e := q(r)
			return fmt.Sprintf("%s / %s / %s s", timeSeconds.number(e[0].Value), timeSeconds.number(e[1].Value), timeSeconds.number(e[2].Value))
		},
		fields: func(r R) []field {
			e := q(r)
			return append(append(estimateFields(key+"_p50", e[0]), estimateFields(key+"_p95", e[1])...), estimateFields(key+"_p99", e[2])...)
		}}
}

// seriesColumn is a figure of a kind's series: its csv and json key and its plot legend.
type seriesColumn[P any] struct {
	key, legend string
	get         func(P) float64
}

// seriesFields are p's figures for csv and json.
func seriesFields[P any](cs []seriesColumn[P], p P) []field {
	return mapped(cs, func(c seriesColumn[P]) field { return field{c.key, c.get(p)} })
}

// figureSeries is the series column of the figure of figs keyed key, drawn under legend.
func figureSeries[P any](key, legend string, figs []fleetdata.Figure[P, float64]) seriesColumn[P] {
	return seriesColumn[P]{key, legend, figureOf(figs, key)}
}

// seriesColumnOf is the column of cs keyed key.
func seriesColumnOf[P any](cs []seriesColumn[P], key string) seriesColumn[P] {
	return cs[slices.IndexFunc(cs, func(c seriesColumn[P]) bool { return c.key == key })]
}

// kindDoc is a json document of a kind's runs (Series nil: no series).
type kindDoc struct {
	Title      string             `json:"title"`
	Replicates int                `json:"replicates"`
	Seed       uint64             `json:"seed"`
	Scenario   string             `json:"scenario_file,omitempty"`
	Recovery   string             `json:"recovery,omitempty"`
	Drain      string             `json:"drain,omitempty"`
	Params     []json.RawMessage  `json:"params,omitempty"`
	Rows       []json.RawMessage  `json:"rows"`
	Services   []json.RawMessage  `json:"services,omitempty"`
	Series     *[]json.RawMessage `json:"series,omitempty"`
}

// write writes d with rows, a json object each.
func (d kindDoc) write(w io.Writer, rows [][]field) error {
	var err error
	if d.Rows, err = objects(rows, func(f []field) []field { return f }); err != nil {
		return err
	}
	return reportjson.WriteIndented(w, d)
}

// kindReport is a kind's runs as every format writes them, from the
// kind's columns: its rows, the caption under the table, json's head and
// its series.
type kindReport[R any] struct {
	cs      columns[R]
	rows    []R
	caption string
	head    kindDoc
	// csvRows finishes csv's rows; nil appends the seed and scenario file (ranBy).
	csvRows func([][]field) [][]field
	// jsonRows, when set, finishes json's head and rows.
	jsonRows func(*kindDoc, [][]field) ([][]field, error)
	// series, when set, are the runs' seconds, a row a point: json's series and the -series file.
	series func() [][]field
	// page writes the html page; nil for a document no page writes.
	page func(io.Writer) error
}

// table writes the title, each row's cells under the columns' header, and the caption.
func (r kindReport[R]) table(w io.Writer, st tableStyle) error {
	t := newTable(w, st, numberColumns(len(r.cs.header()), r.cs.labels()), r.cs.labels())
	t.Header(r.cs.header())
	for _, row := range r.rows {
		t.Append(r.cs.cells(row))
	}
	return writeTitled(w, st, r.head.Title, t, r.caption)
}

func (r kindReport[R]) csv(w io.Writer) error {
	rows := fieldRows(r.rows, r.cs.fields)()
	if r.csvRows == nil {
		return writeFields(w, ranBy(rows, r.head.Seed, r.head.Scenario))
	}
	return writeFields(w, r.csvRows(rows))
}

// json writes the head, a row of fields each, and the series if any.
func (r kindReport[R]) json(w io.Writer) error {
	rows, d := fieldRows(r.rows, r.cs.fields)(), r.head
	if r.jsonRows != nil {
		var err error
		if rows, err = r.jsonRows(&d, rows); err != nil {
			return err
		}
	}
	if r.series != nil {
		series, err := objects(r.series(), func(f []field) []field { return f })
		if err != nil {
			return err
		}
		d.Series = &series
	}
	return d.write(w, rows)
}

func (r kindReport[R]) html(w io.Writer) error {
	if r.page == nil {
		return Renderer{name: "html"}.unwritten("a sweep of runs")
	}
	return r.page(w)
}

// writeSeries writes the series as csv or as a json array, by ext.
func (r kindReport[R]) writeSeries(w io.Writer, ext string) error {
	rows := r.series()
	if strings.ToLower(ext) == ".csv" {
		return writeFields(w, rows)
	}
	objs, err := objects(rows, func(f []field) []field { return f })
	if err != nil {
		return err
	}
	return reportjson.WriteIndented(w, objs)
}

// fieldRows are items as fields, a row an item (a point, a mode), made when called.
func fieldRows[P any](items []P, fields func(P) []field) func() [][]field {
	return func() [][]field { return mapped(items, fields) }
}

// withMore appends to each row i more(i)'s fields.
func withMore(rows [][]field, more func(int) ([]field, error)) ([][]field, error) {
	for i := range rows {
		f, err := more(i)
		if err != nil {
			return nil, err
		}
		rows[i] = append(rows[i], f...)
	}
	return rows, nil
}
