package tune

import (
	"fmt"
	"strings"

	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Metrics are the job model's metric keys (stats.SweepMetrics' names) for a
// scenario watching watched, with delivery the delivery model's too.
func Metrics(watched []stats.Watch, delivery bool) []string {
	var names []string
	for _, m := range stats.SweepMetrics(watched, delivery) {
		names = append(names, m.Name)
	}
	return names
}

// estimator is a stats.Row's metrics by key, as Metrics names them.
func estimator(r *stats.Row, watched []stats.Watch, delivery bool) func(string) schema.Estimate {
	return func(name string) schema.Estimate {
		m, err := stats.LookupSweepMetric(name, watched, delivery)
		if err != nil {
			panic("tune: " + err.Error()) // Requirement.Check refused it before any work
		}
		return m.Estimate(&r.Counters, r.NoRepeats)
	}
}

// ReportRows are a table's rows as requirements read them.
func ReportRows(rep stats.Report) []Row {
	return statRows(rep.Rows, rep.Watched, rep.Model == "delivery")
}

// statRows are job model rows as requirements read them.
func statRows(rs []stats.Row, watched []stats.Watch, delivery bool) []Row {
	rows := make([]Row, len(rs))
	for i := range rs {
		r := &rs[i] // by index: a Row's counters are 89 KB
		rows[i] = Row{ID: r.ID, Estimate: estimator(r, watched, delivery)}
	}
	return rows
}

// SweepRows are a sweep's rows as requirements read them, each named by its
// strategy and its point (step-samekey at attempts=3).
func SweepRows(s stats.Sweep, watched []stats.Watch, delivery bool) []Row {
	axes := s.AxisList()
	rows, scratch := make([]Row, len(s.Rows)), new(stats.Row)
	for i := range s.Rows {
		r := &s.Rows[i]
		var at []string
		for _, a := range s.Swept {
			at = append(at, fmt.Sprintf("%s=%g", axes[a].Name, r.At(a)))
		}
		rows[i] = Row{ID: r.ID, Where: strings.Join(at, ", "), Estimate: func(m string) schema.Estimate {
			r.Fill(scratch) // a row's counters only while read: a sweep has up to 50,000
			return estimator(scratch, watched, delivery)(m)
		}}
	}
	return rows
}

// FigureRows are a fleet family run's rows as requirements read them.
func FigureRows(fs []render.Figures) []Row {
	rows := make([]Row, len(fs))
	for i, f := range fs {
		rows[i] = Row{ID: f.ID, Estimate: f.Get}
	}
	return rows
}
