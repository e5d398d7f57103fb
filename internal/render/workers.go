package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
)

// WorkersReport is what `retrysim workers` prints: a row a run, and the series.
type WorkersReport struct {
	Title  string
	Rows   []fleetdata.WorkersRow
	Series []fleetdata.WorkersPoint
	// Graphs are the runs' graphs, Services their rows (fleet.GraphResult.Rows).
	Graphs   []fleet.Graph
	Services []fleetdata.GraphRow
	// Replicates, Seed and Scenario (file, if any) are what ran the runs.
	Replicates int
	Seed       uint64
	Scenario   string
	// Preset is the preset that ran, if any.
	Preset fleetpreset.Preset[fleet.Workers]
}

// drainCaption says how the drain columns are judged.
const drainCaption = "Drain: seconds from the end of the outages until the first whole second in which the jobs waiting, for a " +
	"worker (the backlog) or out a retry, are back on average to their highest one-second mean before them, at least one job; " +
	"a mean over the replicates that drained, \"never\" when none did; in parentheses, the " +
	"replicates that drained of those with an outage and a second after it, with a 95% Wilson interval."

// workersColumns are the workers' columns, a row a run.
var workersColumns = columns[fleetdata.WorkersRow]{
	labelColumn("Run", "run", func(r fleetdata.WorkersRow) string { return r.Run }),
	rawColumn(func(r fleetdata.WorkersRow) []field { return []field{{"replicates", int64(r.Replicates)}} }),
	estimateColumn("Jobs", "jobs", wholeCount, fleetdata.WorkersFigures()),
	estimateColumn("Completed", "completed", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("Dead", "dead", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("Queued at end", "queued_at_end", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("Deliveries", "deliveries", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("Duplicates", "duplicates", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("Lost work", "lost_work", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("Late", "late", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("", "conflicts", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("", "crashes", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("", "rolled_back", expectedCount, fleetdata.WorkersFigures()),
	rawColumn(func(r fleetdata.WorkersRow) []field {
		sh := r.DrainedReplicates
		return append(append(estimateFields("drain_seconds", r.DrainSeconds), estimateFields("drained_replicates", sh)...),
			field{"drained_count", sh.Count()}, field{"judged_replicates", sh.N})
	}),
	estimateColumn("Peak backlog", "peak_backlog", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("Peak retrying", "peak_retrying", expectedCount, fleetdata.WorkersFigures()),
	estimateColumn("Peak age", "peak_age_seconds", timeSeconds, fleetdata.WorkersFigures()),
	{header: "Drain (drained)", text: func(r fleetdata.WorkersRow) string {
		sh := r.DrainedReplicates
		if sh.N == 0 {
			return "-"
		}
		drain := "never"
		if sh.Count() > 0 {
			drain = timeSeconds.text(r.DrainSeconds.Value) + timeSeconds.interval(r.DrainSeconds.Lo, r.DrainSeconds.Hi)
		}
		return drain + " (" + shareText(sh) + ")"
	}},
	quantilesColumn("Completion p50 / p95 / p99", "completion", fleetdata.WorkersFigures()),
}

// workersSeries are the figures of a workers run's second, in csv and json's order.
var workersSeries = []seriesColumn[fleetdata.WorkersPoint]{
	figureSeries("arrivals", "arrivals", fleetdata.WorkersPointFigures()),
	figureSeries("completions", "completions", fleetdata.WorkersPointFigures()),
	figureSeries("dead", "dead-lettered", fleetdata.WorkersPointFigures()),
	figureSeries("redeliveries", "redeliveries (retries)", fleetdata.WorkersPointFigures()),
	figureSeries("backlog", "backlog", fleetdata.WorkersPointFigures()),
	figureSeries("oldest_age_seconds", "age", fleetdata.WorkersPointFigures()),
	figureSeries("in_flight", "", fleetdata.WorkersPointFigures()),
	figureSeries("retries_scheduled", "retries scheduled", fleetdata.WorkersPointFigures()),
}

// workersPointFields is a series point for csv and json, then each dependency's.
func workersPointFields(p fleetdata.WorkersPoint, deps []string) []field {
	f := append([]field{{"run", p.Run}, {"t", int64(p.T)}}, seriesFields(workersSeries, p)...)
	for d, name := range deps {
		f = append(f, field{name + "_calls", p.DepCalls[d]}, field{name + "_in_progress", p.DepInProgress[d]})
	}
	return f
}

// Add appends a run's result: its graph, services' rows, row and series.
func (r *WorkersReport) Add(res fleet.GraphResult) {
	r.Graphs = append(r.Graphs, res.Graph)
	r.Services = append(r.Services, fleetrun.Fleet().Rows(res)...)
	r.Rows = append(r.Rows, fleetrun.Fleet().WorkersRows(res)...)
	r.Series = append(r.Series, fleetrun.Fleet().WorkersSeries(res)...)
}

// WorkersOutputs renders res as retrysim workers prints them, and the plot by extension.
func (r Renderer) WorkersOutputs(rep WorkersReport, res []fleet.GraphResult, plotExt string) (out, pic []byte, err error) {
	name, d := rep.Preset.Name, time.Duration(0)
	if rep.Scenario != "" {
		name = Escaped(rep.Scenario)
	}
	for _, x := range res {
		rep.Add(x)
		d = max(d, x.Graph.Duration)
	}
	rep.Title = fmt.Sprintf("retrysim workers: %s, %s, %s, seed %d", name, human.Duration(d), human.Count(int64(rep.Replicates), "replicate"), rep.Seed)
	out, _, pic, err = r.Outputs(rep.report(), "", nil, plotExt, func(w io.Writer, ext string) error { return PlotWorkers(w, rep, ext) })
	return out, pic, err
}

// runDeps is the run's dependencies, in DepCalls' order: its services but the workers.
func (r WorkersReport) runDeps(run string) []string {
	var deps []string
	if i := slices.IndexFunc(r.Graphs, func(g fleet.Graph) bool { return g.Name == run }); i >= 0 {
		for _, n := range r.Graphs[i].Services {
			if n.Name != r.Graphs[i].Entries[0].To {
				deps = append(deps, n.Name)
			}
		}
	}
	return deps
}

// Runs is r as a document every format writes.
func (r WorkersReport) Runs() Runs { return r.report() }

// report is r as every format writes it: json echoes the graphs' settings, the services' rows and each row's steps.
func (r WorkersReport) report() kindReport[fleetdata.WorkersRow] {
	return kindReport[fleetdata.WorkersRow]{cs: workersColumns, rows: r.Rows, caption: drainCaption,
		head: kindDoc{Title: r.Title, Replicates: r.Replicates, Seed: r.Seed, Scenario: r.Scenario, Drain: drainCaption},
		jsonRows: func(d *kindDoc, rows [][]field) ([][]field, error) {
			var err error
			if d.Params, err = objects(r.Graphs, graphSettings); err != nil {
				return nil, err
			}
			if d.Services, err = objects(r.Services, graphColumns.fields); err != nil {
				return nil, err
			}
			return withMore(rows, func(i int) ([]field, error) {
				steps, err := objects(r.Rows[i].Steps, func(st fleetdata.WorkersStep) []field {
					return append([]field{{"step", int64(st.Step)}, {"to", st.To}}, estimateFields("duplicates", st.Duplicates)...)
				})
				return []field{{"steps", steps}}, err
			})
		}, series: fieldRows(r.Series, func(p fleetdata.WorkersPoint) []field { return workersPointFields(p, r.runDeps(p.Run)) }), page: r.html}
}

// workersJobsColumns is how many columns the page's first table holds, to fit the page.
const workersJobsColumns = 10

// html writes the workers' runs as one page: what ran them, the plot and two tables.
func (r WorkersReport) html(w io.Writer) error {
	p := page{title: r.Title, params: runParams(r.Preset.Name, r.Preset.Source, r.Replicates, r.Seed)}
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
	jobs := workersColumns[:workersJobsColumns].pageTable("The runs' jobs, means over replicates with 95% intervals",
		"A row a run. Each"+mean, r.Rows, 0)
	times := append(workersColumns[:1:1], workersColumns[workersJobsColumns:]...).pageTable("The runs' backlog, drain and completion times",
		"A row a run. "+drainCaption+" Each other"+mean, r.Rows, 0)
	p.tables = []pageTable{jobs, times}
	return writeFigured(w, p)(newWorkersFigure(r))
}
