package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/schema"
)

// Summary is a row of a run's figures, each a mean over its replicates with
// its 95% interval (a share with its Wilson interval).
type Summary struct {
	// Service is "end to end: NAME" for an entry's row, "" for a fleet run
	// or a worker fleet.
	Run, Service string
	Replicates   int
	keys         []string
	figures      []schema.Estimate
}

// Figure is s's figure keyed key, as json and csv write it (requests,
// latency_p99...); an error lists the keys s has.
func (s Summary) Figure(key string) (schema.Estimate, error) {
	return figure(s.keys, s.figures, key, s.Run, s.Service, "row")
}

// figure is values[i] where keys[i] is key; an error names the run's
// service's row or series (what) and lists the keys.
func figure[T any](keys []string, values []T, key, run, service, what string) (T, error) {
	if i := slices.Index(keys, key); i >= 0 {
		return values[i], nil
	}
	if service != "" {
		run += ", " + service
	}
	var zero T
	return zero, fmt.Errorf("fleet: no figure %q in %s's %s; its figures are %s", key, run, what, strings.Join(keys, ", "))
}

// summaryOf is row's Summary, its figures figs'.
func summaryOf[R any](run, service string, replicates int, row R, figs []fleetdata.Figure[R, schema.Estimate]) Summary {
	s := Summary{Run: run, Service: service, Replicates: replicates, keys: fleetdata.Keys(figs)}
	for _, f := range figs {
		s.figures = append(s.figures, f.Of(&row))
	}
	return s
}

// Series is a run's figures second by second, each a mean over its
// replicates.
type Series struct {
	Run, Service string
	keys         []string
	values       [][]float64 // by key, a value a second
}

// Figure is s's figure keyed key (starts, retries_sent...), a value a
// second from the run's start; an error lists the keys s has.
func (s Series) Figure(key string) ([]float64, error) {
	return figure(s.keys, s.values, key, s.Run, s.Service, "series")
}

// seriesOf is the Series of pts, one point a second, its figures figs'.
func seriesOf[P any](run, service string, pts []P, figs []fleetdata.Figure[P, float64]) Series {
	s := Series{Run: run, Service: service, keys: fleetdata.Keys(figs), values: make([][]float64, len(figs))}
	for i, f := range figs {
		s.values[i] = make([]float64, len(pts))
		for t := range pts {
			s.values[i][t] = f.Of(&pts[t])
		}
	}
	return s
}

// Summary sums up r's replicates.
func (r Result) Summary() Summary {
	return summaryOf(r.Config.Name, "", len(r.replicates), r.summary(), fleetdata.RunFigures())
}

// Series is r's series.
func (r Result) Series() Series {
	return seriesOf(r.Config.Name, "", r.series(), fleetdata.PointFigures())
}

// Summaries sum up r's replicates: a row an entry from end to end, then a
// row a service.
func (r GraphResult) Summaries() []Summary {
	rows := r.rows()
	out := make([]Summary, len(rows))
	for i, row := range rows {
		out[i] = summaryOf(row.Run, row.Service, row.Replicates, row, fleetdata.GraphFigures())
	}
	return out
}

// WorkersSummary sums up r's replicates as a worker fleet's.
func (r GraphResult) WorkersSummary() Summary {
	row := r.workersRows()[0]
	return summaryOf(row.Run, "", row.Replicates, row, fleetdata.WorkersFigures())
}

// Series is r's series, one a service, in Graph.Services order.
func (r GraphResult) Series() []Series {
	pts := r.series()
	var out []Series
	for _, n := range r.Graph.Services {
		var own []fleetdata.GraphPoint
		for _, p := range pts {
			if p.Service == n.Name {
				own = append(own, p)
			}
		}
		out = append(out, seriesOf(r.Graph.Name, n.Name, own, fleetdata.GraphPointFigures()))
	}
	return out
}
