package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/schema"
)

// WorkersReport is what `retrysim workers` prints: a row a run (its jobs,
// the queue's and the workers' figures), each run's series a second, and,
// in json, the graphs that ran and their services' rows as the graph
// command prints them (each dependency's calls and amplification).
type WorkersReport struct {
	Title  string
	Rows   []fleet.WorkersRow
	Series []fleet.WorkersPoint
	// Graphs are the runs' graphs, Services their rows (fleet.GraphResult.Rows).
	Graphs   []fleet.Graph
	Services []fleet.GraphRow
	// Dependencies names each run's dependencies, in the order of a point's
	// DepCalls and DepInProgress.
	Dependencies [][]string
	// Replicates, Seed and Scenario (the scenario file, if any) are what
	// ran the runs.
	Replicates int
	Seed       uint64
	Scenario   string
}

// drainCaption says how the drain columns are judged.
const drainCaption = "Drain: seconds from the end of the outages until the workers' backlog is back, for good, to its highest " +
	"one-second mean before them; a mean over the replicates that drained, \"never\" when none did; in parentheses, the " +
	"replicates that drained of those with an outage and a second after it, with a 95% Wilson interval."

// workersFields flattens a workers row for csv and json: each figure with
// its interval as name, name_lo, name_hi (null when undefined); a run that
// never drained has drain_seconds null.
func workersFields(r fleet.WorkersRow) []field {
	f := []field{{"run", r.Run}, {"replicates", int64(r.Replicates)}}
	add := func(name string, e schema.Estimate) { f = append(f, estimateFields(name, e)...) }
	add("jobs", r.Jobs)
	add("completed", r.Completed)
	add("dead", r.Dead)
	add("queued_at_end", r.Queued)
	add("deliveries", r.Deliveries)
	add("duplicates", r.Duplicates)
	add("lost_work", r.LostWork)
	add("late", r.Late)
	add("conflicts", r.Conflicts)
	add("crashes", r.Crashes)
	add("rolled_back", r.RolledBack)
	add("drain_seconds", r.DrainSeconds)
	add("drained_replicates", r.DrainedReplicates)
	f = append(f, field{"drained_count", r.DrainedReplicates.Count()}, field{"judged_replicates", r.DrainedReplicates.N})
	add("peak_backlog", r.PeakBacklog)
	add("peak_age_seconds", r.PeakAge)
	add("completion_p50", r.P50)
	add("completion_p95", r.P95)
	add("completion_p99", r.P99)
	return f
}

// workersPointFields is a series point for csv and json, each dependency's
// calls and calls in progress under its name.
func workersPointFields(p fleet.WorkersPoint, deps []string) []field {
	f := []field{{"run", p.Run}, {"t", int64(p.T)}, {"arrivals", p.Arrivals}, {"completions", p.Completions},
		{"dead", p.Dead}, {"backlog", p.Backlog}, {"oldest_age_seconds", p.OldestAge}, {"in_flight", p.InFlight},
		{"retries_scheduled", p.RetriesScheduled}}
	for d, name := range deps {
		f = append(f, field{name + "_calls", p.DepCalls[d]}, field{name + "_in_progress", p.DepInProgress[d]})
	}
	return f
}

// runDeps is the dependencies of the run a point belongs to.
func (r WorkersReport) runDeps(run string) []string {
	for i, row := range r.Rows {
		if row.Run == run && i < len(r.Dependencies) {
			return r.Dependencies[i]
		}
	}
	return nil
}

// writeWorkersCSV writes a row a run, then what ran it; the series go to
// -series.
func writeWorkersCSV(w io.Writer, r WorkersReport) error {
	rows := make([][]field, len(r.Rows))
	for i, row := range r.Rows {
		rows[i] = append(workersFields(row), ranBy(r.Seed, r.Scenario)...)
	}
	return writeFields(w, rows)
}

// writeWorkersJSON writes the title, what ran the runs (their graphs'
// settings, as retrysim graph writes them), the rows (each with its steps'
// duplicates), each service's row and the series.
func writeWorkersJSON(w io.Writer, r WorkersReport) error {
	out := struct {
		Title      string            `json:"title"`
		Replicates int               `json:"replicates"`
		Seed       uint64            `json:"seed"`
		Scenario   string            `json:"scenario_file,omitempty"`
		Drain      string            `json:"drain"`
		Params     []json.RawMessage `json:"params"`
		Rows       []json.RawMessage `json:"rows"`
		Services   []json.RawMessage `json:"services"`
		Series     []json.RawMessage `json:"series"`
	}{Title: r.Title, Replicates: r.Replicates, Seed: r.Seed, Scenario: r.Scenario, Drain: drainCaption,
		Rows: []json.RawMessage{}}
	var err error
	if out.Params, err = objects(r.Graphs, graphSettings); err != nil {
		return err
	}
	if out.Services, err = objects(r.Services, graphFields); err != nil {
		return err
	}
	for _, row := range r.Rows {
		steps, err := objects(row.Steps, func(st fleet.WorkersStep) []field {
			return append([]field{{"step", int64(st.Step)}, {"to", st.To}}, estimateFields("duplicates", st.Duplicates)...)
		})
		if err != nil {
			return err
		}
		o, err := object(append(workersFields(row), field{"steps", steps}))
		if err != nil {
			return err
		}
		out.Rows = append(out.Rows, o)
	}
	series, err := objects(r.Series, func(p fleet.WorkersPoint) []field { return workersPointFields(p, r.runDeps(p.Run)) })
	if err != nil {
		return err
	}
	out.Series = series
	return writeIndented(w, out)
}

// workersHeader heads the workers' table, in every format for people.
var workersHeader = []string{"Run", "Jobs", "Completed", "Dead", "Queued at end", "Deliveries", "Duplicates", "Lost work", "Late", "Peak backlog",
	"Peak age", "Drain (drained)", "Completion p50 / p95 / p99"}

// workersCells are a row for people, in workersHeader's order.
func workersCells(r fleet.WorkersRow) []string {
	drain := "-"
	if sh := r.DrainedReplicates; sh.N > 0 {
		drain = "never"
		if sh.Count() > 0 {
			drain = estimateText(r.DrainSeconds, timeSeconds)
		}
		drain += fmt.Sprintf(" (%s of %s [%s%%, %s%%])", human.Group(sh.Count()), human.Group(sh.N), percentDown(sh.Lo), percentUp(sh.Hi))
	}
	lat := fmt.Sprintf("%s / %s / %s s", timeSeconds.number(r.P50.Value), timeSeconds.number(r.P95.Value), timeSeconds.number(r.P99.Value))
	return []string{r.Run, estimateText(r.Jobs, wholeCount), estimateText(r.Completed, fleetMean), estimateText(r.Dead, fleetMean),
		estimateText(r.Queued, fleetMean), estimateText(r.Deliveries, fleetMean), estimateText(r.Duplicates, fleetMean), estimateText(r.LostWork, fleetMean),
		estimateText(r.Late, fleetMean), estimateText(r.PeakBacklog, fleetMean), estimateText(r.PeakAge, timeSeconds), drain, lat}
}

// writeWorkersTable writes the title, a row a run and the drain's caption.
func writeWorkersTable(w io.Writer, r WorkersReport, st tableStyle) error {
	cells := make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		cells[i] = workersCells(row)
	}
	return writeCaptionedTable(w, st, r.Title, workersHeader, 1, cells, drainCaption)
}

// writeWorkersHTML writes the workers' runs as one page: what ran them,
// PlotWorkers's panels a picture each, then the table a run.
func writeWorkersHTML(w io.Writer, r WorkersReport) error {
	p := page{title: r.Title, params: []string{fmt.Sprintf("%s a run, seed %d", replicatesText(r.Replicates), r.Seed)}}
	if r.Scenario != "" {
		p.params = append(p.params, "scenario file: "+Escaped(r.Scenario))
	}
	t := pageTable{heading: "The runs, means over replicates with 95% intervals", header: workersHeader,
		howTo: "A row a run. " + drainCaption + " Each other figure is the mean over the replicates, then its 95% Student t interval [low, high] (none with one replicate)."}
	for i, row := range r.Rows {
		c := workersCells(row)
		t.rows = append(t.rows, pageRow{cells: []pageCell{prose(c[0]), num(c[1], i, "jobs", row.Jobs.Value),
			num(c[2], i, "completed", row.Completed.Value), num(c[3], i, "dead", row.Dead.Value),
			num(c[4], i, "queued_at_end", row.Queued.Value),
			num(c[5], i, "deliveries", row.Deliveries.Value), num(c[6], i, "duplicates", row.Duplicates.Value),
			num(c[7], i, "lost_work", row.LostWork.Value), num(c[8], i, "late", row.Late.Value),
			num(c[9], i, "peak_backlog", row.PeakBacklog.Value), num(c[10], i, "peak_age_seconds", row.PeakAge.Value),
			plain(c[11]), plain(c[12])}})
	}
	p.tables = []pageTable{t}
	f, err := newWorkersFigure(r)
	if err != nil {
		return err
	}
	if p.figures, err = f.encodeEach(".svg"); err != nil {
		return err
	}
	return writePage(w, p)
}

// workersPanel is one panel of a worker fleet's plot: its title, y label
// and lines, each a figure of a point.
type workersPanel struct {
	title, y string
	lines    []workersLine
}

// workersLine is one figure of a worker fleet's point, drawn a line a run.
type workersLine struct {
	name string
	get  func(fleet.WorkersPoint) float64
}

// PlotWorkers draws r's series, one panel above the other on one time
// axis: jobs a second (arrivals, completions, dead-lettered), jobs waiting
// (the workers' backlog, and jobs waiting out a retry's backoff), the
// oldest waiting job's age, and a panel a dependency (its calls a second
// and calls in progress); a colour a run, a dash a figure. ext (".png" or
// ".svg") picks the encoding.
func PlotWorkers(w io.Writer, r WorkersReport, ext string) error {
	f, err := newWorkersFigure(r)
	if err != nil {
		return err
	}
	return f.encode(w, ext, 0, len(f.panels))
}

// newWorkersFigure lays out PlotWorkers's panels, for -plot to draw whole
// and the html page a picture a panel.
func newWorkersFigure(r WorkersReport) (stack, error) {
	panels := []workersPanel{
		{"jobs a second", "per second", []workersLine{
			{"arrivals", func(p fleet.WorkersPoint) float64 { return p.Arrivals }},
			{"completions", func(p fleet.WorkersPoint) float64 { return p.Completions }},
			{"dead-lettered", func(p fleet.WorkersPoint) float64 { return p.Dead }}}},
		{"jobs waiting", "jobs", []workersLine{
			{"backlog", func(p fleet.WorkersPoint) float64 { return p.Backlog }},
			{"retries scheduled", func(p fleet.WorkersPoint) float64 { return p.RetriesScheduled }}}},
		{"oldest waiting job", "age (s)", []workersLine{
			{"age", func(p fleet.WorkersPoint) float64 { return p.OldestAge }}}},
	}
	var deps []string // every run's dependencies, in the order they first come
	for _, ds := range r.Dependencies {
		for _, d := range ds {
			if !slices.Contains(deps, d) {
				deps = append(deps, d)
			}
		}
	}
	for _, d := range deps {
		get := func(run string, in bool) func(fleet.WorkersPoint) float64 {
			i := slices.Index(r.runDeps(run), d)
			return func(p fleet.WorkersPoint) float64 {
				if i < 0 {
					return math.NaN()
				}
				if in {
					return p.DepInProgress[i]
				}
				return p.DepCalls[i]
			}
		}
		panels = append(panels, workersPanel{d, "calls", []workersLine{
			{"calls a second", func(p fleet.WorkersPoint) float64 { return get(p.Run, false)(p) }},
			{"in progress", func(p fleet.WorkersPoint) float64 { return get(p.Run, true)(p) }}}})
	}
	byRun := map[string][]fleet.WorkersPoint{}
	var runs []string
	end := 0.0
	for _, p := range r.Series {
		if _, ok := byRun[p.Run]; !ok {
			runs = append(runs, p.Run)
		}
		byRun[p.Run] = append(byRun[p.Run], p)
		end = math.Max(end, float64(p.T+1))
	}
	f := stack{plotWidth: 15 * vg.Centimeter, panelHeight: graphPanelHeight}
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.title
		if i == 0 {
			p.Title.Text = r.Title + "\n" + pn.title
		}
		p.Title.TextStyle.Font.Size = vg.Points(10)
		p.X.Label.Text = "t (s)"
		p.X.Tick.Marker = timeTicks{}
		p.Y.Label.Text = pn.y
		p.Legend.TextStyle.Font.Size = vg.Points(9)
		p.Add(plotter.NewGrid())
		top := 0.0
		for k, run := range runs {
			for j, l := range pn.lines {
				var xy plotter.XYs
				for _, pt := range byRun[run] {
					if y := l.get(pt); !math.IsNaN(y) {
						xy = append(xy, plotter.XY{X: float64(pt.T) + 0.5, Y: y})
						top = math.Max(top, y)
					}
				}
				if len(xy) == 0 {
					continue
				}
				line, err := plotter.NewLine(xy)
				if err != nil {
					return stack{}, fmt.Errorf("%s %s: %w", pn.title, l.name, err)
				}
				line.Color = lineColour(k)
				line.Width = vg.Points(1.2)
				line.Dashes = lineDashes(j)
				p.Add(line)
				name := l.name
				if len(runs) > 1 {
					name = run + ": " + l.name
				}
				p.Legend.Add(name, line)
			}
		}
		p.X.Min, p.X.Max = 0, end
		p.Y.Min, p.Y.Max = 0, math.Max(1, top*1.05)
		p, legend := withLegend(p)
		f.panels, f.legends = append(f.panels, p), append(f.legends, legend)
	}
	return f, nil
}
