package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
	// Preset is the preset that ran, if any: its name, its source and what
	// its runs are.
	Preset fleet.WorkersPreset
}

// drainCaption says how the drain columns are judged.
const drainCaption = "Drain: seconds from the end of the outages until the first whole second in which the jobs waiting, for a " +
	"worker (the backlog) or out a retry, are back on average to their highest one-second mean before them, at least one job; " +
	"a mean over the replicates that drained, \"never\" when none did; in parentheses, the " +
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
	add("peak_retrying", r.PeakRetrying)
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
	"Peak retrying", "Peak age", "Drain (drained)", "Completion p50 / p95 / p99"}

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
		estimateText(r.Late, fleetMean), estimateText(r.PeakBacklog, fleetMean), estimateText(r.PeakRetrying, fleetMean), estimateText(r.PeakAge, timeSeconds), drain, lat}
}

// writeWorkersTable writes the title, a row a run and the drain's caption.
func writeWorkersTable(w io.Writer, r WorkersReport, st tableStyle) error {
	cells := make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		cells[i] = workersCells(row)
	}
	return writeCaptionedTable(w, st, r.Title, workersHeader, 1, cells, drainCaption)
}

// workersJobsColumns is how many of workersHeader's columns the html
// page's first table holds, the run's jobs; its second holds the run and
// the backlog, drain and completion times, so each fits the page.
const workersJobsColumns = 9

// writeWorkersHTML writes the workers' runs as one page: what ran them,
// PlotWorkers's panels a picture each, then two tables a row a run: the
// jobs, then the backlog, drain and completion times.
func writeWorkersHTML(w io.Writer, r WorkersReport) error {
	p := page{title: r.Title}
	if r.Preset.Name != "" {
		p.params = append(p.params, "model: "+r.Preset.Name)
	}
	p.params = append(p.params, fmt.Sprintf("%s a run, seed %d", replicatesText(r.Replicates), r.Seed))
	if r.Preset.Source != "" {
		p.params = append(p.params, "source: "+r.Preset.Source)
	}
	if r.Preset.About != "" {
		p.params = append(p.params, "runs: "+strings.Join(strings.Fields(r.Preset.About), " "))
	}
	if r.Scenario != "" {
		p.params = append(p.params, "scenario file: "+Escaped(r.Scenario))
	}
	for _, g := range r.Graphs {
		p.params = append(p.params, g.Name+": "+describeGraph(g))
	}
	mean := " figure is the mean over the replicates, then its 95% Student t interval [low, high] (none with one replicate)."
	jobs := pageTable{heading: "The runs' jobs, means over replicates with 95% intervals", header: workersHeader[:workersJobsColumns],
		howTo: "A row a run. Each" + mean}
	times := pageTable{heading: "The runs' backlog, drain and completion times", header: append([]string{workersHeader[0]}, workersHeader[workersJobsColumns:]...),
		howTo: "A row a run. " + drainCaption + " Each other" + mean}
	for i, row := range r.Rows {
		c := workersCells(row)
		jobs.rows = append(jobs.rows, pageRow{cells: []pageCell{prose(c[0]), num(c[1], i, "jobs", row.Jobs.Value),
			num(c[2], i, "completed", row.Completed.Value), num(c[3], i, "dead", row.Dead.Value),
			num(c[4], i, "queued_at_end", row.Queued.Value),
			num(c[5], i, "deliveries", row.Deliveries.Value), num(c[6], i, "duplicates", row.Duplicates.Value),
			num(c[7], i, "lost_work", row.LostWork.Value), num(c[8], i, "late", row.Late.Value)}})
		times.rows = append(times.rows, pageRow{cells: []pageCell{prose(c[0]),
			num(c[9], i, "peak_backlog", row.PeakBacklog.Value), num(c[10], i, "peak_retrying", row.PeakRetrying.Value),
			num(c[11], i, "peak_age_seconds", row.PeakAge.Value), plain(c[12]), plain(c[13])}})
	}
	p.tables = []pageTable{jobs, times}
	f, err := newWorkersFigure(r)
	if err != nil {
		return err
	}
	if p.figures, err = f.encodeEach(".svg"); err != nil {
		return err
	}
	return writePage(w, p)
}
