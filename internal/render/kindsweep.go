package render

import (
	"slices"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/schema"
)

// SweepHead is what ran a sweep of a kind's runs: title, paths swept, and what ran each point.
type SweepHead struct {
	Title      string
	Paths      []string
	Replicates int
	Seed       uint64
	Scenario   string
}

// sweepRow is a row of a kind's sweep: its point's values, then the kind's row.
type sweepRow[R any] struct {
	values []string
	row    R
}

// Table is a kind's rows declared once: its columns and its caption under a table.
type Table[R any] struct {
	cs      columns[R]
	caption func([]R) string
}

// FleetTable is the fleet kind's table, a run's summary a row.
func FleetTable() Table[fleetdata.RunRow] { return Table[fleetdata.RunRow]{fleetColumns, fleetCaption} }

// GraphTable is the graph kind's table, a run and service a row.
func GraphTable() Table[fleetdata.GraphRow] {
	return Table[fleetdata.GraphRow]{graphColumns, func([]fleetdata.GraphRow) string { return graphCaption }}
}

// WorkersTable is the workers kind's table, a run a row.
func WorkersTable() Table[fleetdata.WorkersRow] {
	return Table[fleetdata.WorkersRow]{workersColumns, func([]fleetdata.WorkersRow) string { return drainCaption }}
}

// Sweep is a sweep of the kind's runs, rows[p] the rows of point p (values points[p]); no page writes it.
func (t Table[R]) Sweep(h SweepHead, points [][]string, rows [][]R) Runs {
	s := kindReport[sweepRow[R]]{caption: t.caption(slices.Concat(rows...)),
		head: kindDoc{Title: h.Title, Replicates: h.Replicates, Seed: h.Seed, Scenario: h.Scenario}}
	for i, path := range h.Paths {
		s.cs = append(s.cs, labelColumn(path, path, func(r sweepRow[R]) string { return r.values[i] }))
	}
	for _, c := range t.cs {
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
