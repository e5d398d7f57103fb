package render

import (
	"io"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/schema"
)

// SweepHead is what ran a sweep of a kind's runs (retrysim sweep KIND):
// its title, the paths of the settings it varies, in the order -set gave
// them, and the replicates, seed and scenario file (if any) of every point.
type SweepHead struct {
	Title      string
	Paths      []string
	Replicates int
	Seed       uint64
	Scenario   string
}

// sweepRow is a row of a kind's sweep: its point's values of the settings
// swept, then the kind's row.
type sweepRow[R any] struct {
	values []string
	row    R
}

// kindSweep is a sweep of a kind's runs as every format but html writes
// it: a row a point and kind's row, the settings first, then the kind's
// columns as metrics.
type kindSweep[R any] struct {
	SweepHead
	cs      columns[sweepRow[R]]
	rows    []sweepRow[R]
	caption string
}

// FleetSweep is a sweep of fleet runs, rows[p] the rows of point p
// (values points[p]).
func FleetSweep(h SweepHead, points [][]string, rows [][]fleetdata.RunRow) Runs {
	s := newKindSweep(h, fleetColumns, points, rows)
	if anyTrigger(fleetRowsOf(s.rows)) {
		s.caption = recoveryCaption
	}
	return s
}

// fleetRowsOf are the fleet rows of a sweep's rows.
func fleetRowsOf(rows []sweepRow[fleetdata.RunRow]) []fleetdata.RunRow {
	out := make([]fleetdata.RunRow, len(rows))
	for i, r := range rows {
		out[i] = r.row
	}
	return out
}

// GraphSweep is a sweep of graph runs, as FleetSweep's.
func GraphSweep(h SweepHead, points [][]string, rows [][]fleetdata.GraphRow) Runs {
	s := newKindSweep(h, graphColumns, points, rows)
	s.caption = graphCaption
	return s
}

// WorkersSweep is a sweep of worker fleets, as FleetSweep's.
func WorkersSweep(h SweepHead, points [][]string, rows [][]fleetdata.WorkersRow) Runs {
	s := newKindSweep(h, workersColumns, points, rows)
	s.caption = drainCaption
	return s
}

// newKindSweep is the sweep of rows, points[p]'s by point, under a label
// column a setting swept, then cs.
func newKindSweep[R any](h SweepHead, cs columns[R], points [][]string, rows [][]R) kindSweep[R] {
	s := kindSweep[R]{SweepHead: h}
	for i, path := range h.Paths {
		s.cs = append(s.cs, labelColumn(path, path, func(r sweepRow[R]) string { return r.values[i] }))
	}
	for _, c := range cs {
		s.cs = append(s.cs, lift(c))
	}
	for p, rs := range rows {
		for _, r := range rs {
			s.rows = append(s.rows, sweepRow[R]{points[p], r})
		}
	}
	return s
}

// lift is c over a sweep's rows: the same cells and fields of the kind's row.
func lift[R any](c column[R]) column[sweepRow[R]] {
	out := column[sweepRow[R]]{header: c.header, key: c.key, style: c.style, label: c.label, gloss: c.gloss}
	if c.est != nil {
		out.est = func(r sweepRow[R]) schema.Estimate { return c.est(r.row) }
	}
	if c.text != nil {
		out.text = func(r sweepRow[R]) string { return c.text(r.row) }
	}
	if c.value != nil {
		out.value = func(r sweepRow[R]) float64 { return c.value(r.row) }
	}
	if c.fields != nil {
		out.fields = func(r sweepRow[R]) []field { return c.fields(r.row) }
	}
	return out
}

// table writes the title, a row a point and kind's row, and the kind's
// caption.
func (s kindSweep[R]) table(w io.Writer, st tableStyle) error {
	return writeColumnsTable(w, st, s.Title, s.cs, s.rows, s.caption)
}

// csv writes a row a point and kind's row, then what ran it.
func (s kindSweep[R]) csv(w io.Writer) error {
	return writeFields(w, ranBy(columnsFields(s.cs, s.rows), s.Seed, s.Scenario))
}

// json writes the title, what ran the sweep and its rows.
func (s kindSweep[R]) json(w io.Writer) error {
	return kindDoc{Title: s.Title, Replicates: s.Replicates, Seed: s.Seed, Scenario: s.Scenario}.write(w, columnsFields(s.cs, s.rows))
}

// html is not written: KindSweepDoc is no page's document.
func (s kindSweep[R]) html(w io.Writer) error {
	return Renderer{name: "html"}.unwritten("a sweep of runs")
}
