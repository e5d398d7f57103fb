package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/schema"
)

// GraphReport is what `retrysim graph` prints: a row a run and service, and the series.
type GraphReport struct {
	Title  string
	Graphs []fleet.Graph
	Rows   []fleetdata.GraphRow
	Series []fleetdata.GraphPoint
	// Params are the page's parameter lines; PlotTitle heads the plot.
	Params    []string
	PlotTitle string
	// Replicates, Seed and Scenario (file, if any) are what ran the graphs.
	Replicates int
	Seed       uint64
	Scenario   string
}

// graphColumns are the graph's columns, a row a run and service (or entry, end to end).
var graphColumns = columns[fleetdata.GraphRow]{
	labelColumn("Run", "run", func(r fleetdata.GraphRow) string { return r.Run }),
	labelColumn("Service", "service", func(r fleetdata.GraphRow) string { return r.Service }),
	{header: "Depth", text: func(r fleetdata.GraphRow) string {
		if r.Depth > 0 {
			return fmt.Sprint(r.Depth)
		}
		return "-"
	}, fields: func(r fleetdata.GraphRow) []field {
		return []field{{"depth", int64(r.Depth)}, {"replicates", int64(r.Replicates)}}
	}},
	estimateColumn("Requests", "requests", wholeCount, fleetdata.GraphFigures()),
	estimateColumn("", "calls", expectedCount, fleetdata.GraphFigures()),
	estimateColumn("Calls per request", "amplification", perJob, fleetdata.GraphFigures()),
	estimateColumn("Succeeded", "succeeded", requestShare, fleetdata.GraphFigures()),
	estimateColumn("Goodput /s", "goodput", expectedCount, fleetdata.GraphFigures()),
	estimateColumn("Timeouts", "timeouts", expectedCount, fleetdata.GraphFigures()),
	estimateColumn("Retries", "retries", expectedCount, fleetdata.GraphFigures()),
	estimateColumn("Rejected", "rejected", expectedCount, fleetdata.GraphFigures()),
	estimateColumn("Duplicates", "duplicates", expectedCount, fleetdata.GraphFigures()),
	estimateColumn("In progress", "in_progress", expectedCount, fleetdata.GraphFigures()),
	estimateColumn("", "sojourn_seconds", expectedCount, fleetdata.GraphFigures()),
	quantilesColumn("Latency p50 / p95 / p99", "latency", fleetdata.GraphFigures()),
	estimateColumn("", "peak_in_progress", expectedCount, fleetdata.GraphFigures()),
}

// graphSeries are the figures of a service's second: its calls, then fleetSeries'.
var graphSeries = func() []seriesColumn[fleetdata.GraphPoint] {
	cs := []seriesColumn[fleetdata.GraphPoint]{figureSeries("calls", "calls", fleetdata.GraphPointFigures())}
	for _, c := range fleetSeries {
		cs = append(cs, seriesColumn[fleetdata.GraphPoint]{c.key, c.legend, func(p fleetdata.GraphPoint) float64 { return c.get(p.Point) }})
	}
	return cs
}()

// graphPointFields is a series point for csv and json.
func graphPointFields(p fleetdata.GraphPoint) []field {
	return append([]field{{"run", p.Run}, {"service", p.Service}, {"t", int64(p.T)}}, seriesFields(graphSeries, p)...)
}

// ranBy appends to each csv row the seed, and the scenario file when one was read.
func ranBy(rows [][]field, seed uint64, scenario string) [][]field {
	for i := range rows {
		rows[i] = append(rows[i], field{"seed", seed})
		if scenario != "" {
			rows[i] = append(rows[i], field{"scenario_file", scenario})
		}
	}
	return rows
}

// report is r as every format writes it: json echoes the graphs' settings and each row's amplification by depth.
func (r GraphReport) report() kindReport[fleetdata.GraphRow] {
	return kindReport[fleetdata.GraphRow]{cs: graphColumns, rows: r.Rows, caption: graphCaption,
		head: kindDoc{Title: r.Title, Replicates: r.Replicates, Seed: r.Seed, Scenario: r.Scenario},
		jsonRows: func(d *kindDoc, rows [][]field) ([][]field, error) {
			var err error
			if d.Params, err = objects(r.Graphs, graphSettings); err != nil {
				return nil, err
			}
			return withMore(rows, func(i int) ([]field, error) {
				if r.Rows[i].ByDepth == nil {
					return nil, nil
				}
				depth := int64(0) // ByDepth[k] is depth k + 1, counted as objects goes
				by, err := objects(r.Rows[i].ByDepth, func(e schema.Estimate) []field {
					depth++
					return append([]field{{"depth", depth}}, estimateFields("amplification", e)...)
				})
				return []field{{"amplification_by_depth", by}}, err
			})
		}, series: fieldRows(r.Series, graphPointFields), page: r.html}
}

// graphSettings is g as a scenario file's graph section, only the settings the run reads.
func graphSettings(g fleet.Graph) []field {
	def := fleet.DefaultConfig()
	section := func(name string, c fleet.Config) json.RawMessage {
		unread := c.Unread()
		var f []field
		if name == "outage" {
			if !c.Outage.On() {
				return nil
			}
			f = append(f, field{"from", durationValue(c.Outage.From.Seconds())}, field{"to", durationValue(c.Outage.To.Seconds())})
		}
		for _, p := range decl.Params[fleet.Config]() {
			if !strings.HasPrefix(p.Path, name+".") || unread[p.Path] != "" && !pushbackSet(p.Path, c) {
				continue
			}
			f = append(f, field{decl.SectionKey(name, p), fieldValue(p.Field(&c))})
		}
		o, _ := object(f) // every value is a number, text or bool
		return o
	}
	// every value below is a number, text or bool: objects cannot fail
	entries, _ := objects(g.Entries, func(e fleet.Entry) []field {
		c := def
		c.Load, c.Client = e.Load, e.Client
		f := []field{{"to", e.To}, {"load", section("load", c)}, {"client", section("client", c)}}
		for _, p := range decl.EntryParams[fleet.Entry]() {
			if v, ok := entryValue(p, &e); ok {
				f = append(f, field{p.Key, v})
			}
		}
		return f
	})
	services, _ := objects(g.Services, func(n fleet.Node) []field {
		c := def
		c.Server, c.Outage = n.Server, n.Outage
		f := []field{{"name", n.Name}, {"server", section("server", c)}}
		if o := section("outage", c); o != nil {
			f = append(f, field{"outage", o})
		}
		if len(n.Calls) > 0 {
			calls, _ := objects(n.Calls, func(call fleet.Call) []field {
				cc := def
				cc.Client = call.Client
				return []field{{"to", call.To}, {"client", section("client", cc)}}
			})
			f = append(f, field{"calls", calls}, field{"parallel", n.Parallel})
		}
		return f
	})
	f := []field{{"name", g.Name}, {"duration", durationValue(g.Duration.Seconds())}, {"net", durationValue(g.Net.Seconds())}}
	if slices.ContainsFunc(g.Services, func(n fleet.Node) bool { return len(n.Calls) > 0 }) { // read only along calls
		f = append(f, field{"deadlines", g.Deadlines})
	}
	return append(f, field{"entries", entries}, field{"services", services})
}

// entryValue is entry setting p's value in e, and whether the echo shows it.
func entryValue(p decl.EntryParam[fleet.Entry], e *fleet.Entry) (any, bool) {
	if p.Unread != nil && p.Unread(*e) != "" {
		return nil, false
	}
	v := fieldValue(p.Field(e))
	switch v {
	case nil:
		panic("render: decl.EntryParam[fleet.Entry] " + p.Key + " has a field of a type the echo does not write")
	case 0.0, false, int64(0), durationValue(0), p.Default:
		return v, p.Needs != ""
	}
	return v, true
}

// pushbackSet says whether path is a pushback setting on in c, which the echo always shows.
func pushbackSet(path string, c fleet.Config) bool {
	return path == "server.pushback" && c.Server.Pushback || path == "client.honour_pushback" && c.Client.HonourPushback
}

// graphCaption says, under the table, what its rows are.
const graphCaption = "A row a run and service (depth: its shortest distance from an entry, 1 for the service load enters at), " +
	"and a row a run and entry from end to end. Requests: those sent to the service by its callers (end to end: entering); " +
	"calls per request: the calls that reached the service per request that entered the graph (end to end: the calls at " +
	"every service); succeeded: the share of its requests that succeeded; rejected and duplicates: at the service " +
	"(end to end: at every service); in progress: the time average of the calls at the service over the run's duration."

// html writes the graph run as one page: its settings, the plot, and a table a run.
func (r GraphReport) html(w io.Writer) error {
	p := page{title: r.Title, params: r.Params}
	// a table a run, so that the run's name need not take a column
	header := graphColumns.header()[1:]
	byRun := map[string]int{}
	for i, row := range r.Rows {
		k, ok := byRun[row.Run]
		if !ok {
			k = len(p.tables)
			byRun[row.Run] = k
			howTo := graphCaption + " Each figure is the mean over the replicates, then its 95% Student t interval [low, high] (none with one replicate)."
			if k > 0 {
				howTo = "As the first run's table."
			}
			p.tables = append(p.tables, pageTable{heading: "Run " + row.Run + ": the services, means over replicates with 95% intervals", howTo: howTo, header: header})
		}
		p.tables[k].rows = append(p.tables[k].rows, pageRow{cells: graphColumns.pageCells(row, i)[1:]})
	}
	return writeFigured(w, p)(newGraphFigure(r.PlotTitle, r.Graphs, r.Series))
}

// graphPanelHeight is the height of one service's panel.
const graphPanelHeight = 6 * vg.Centimeter

// newGraphFigure draws a panel a service: each run's calls and successes a second.
func newGraphFigure(title string, graphs []fleet.Graph, series []fleetdata.GraphPoint) (stack, error) {
	if len(graphs) == 0 {
		return stack{}, fmt.Errorf("nothing to plot")
	}
	// the services in the order the runs first name them
	var services []string
	end := 0.0
	for _, g := range graphs {
		end = math.Max(end, g.Duration.Seconds())
		for _, n := range g.Services {
			services = appendNew(services, n.Name)
		}
	}
	type key struct{ run, service string }
	pts := map[key][]fleetdata.GraphPoint{}
	for _, p := range series {
		k := key{p.Run, p.Service}
		pts[k] = append(pts[k], p)
	}
	var panels []*plot.Plot
	for i, s := range services {
		heading := s
		if i == 0 {
			heading = title + "\n" + s
		}
		p := timePanel(heading, "per second", 9)
		top := 0.0
		for k, g := range graphs {
			ps := pts[key{g.Name, s}]
			if len(ps) == 0 {
				continue
			}
			for j, key := range []string{"calls", "successes"} {
				l := seriesColumnOf(graphSeries, key)
				xy := make(plotter.XYs, len(ps))
				for n, pt := range ps {
					xy[n] = plotter.XY{X: float64(pt.T) + 0.5, Y: l.get(pt)}
					top = math.Max(top, xy[n].Y)
				}
				line, err := plotter.NewLine(xy)
				if err != nil {
					return stack{}, fmt.Errorf("%s %s: %w", s, l.legend, err)
				}
				line.Color = lineColour(k)
				line.Width = vg.Points(1.2)
				if j == 1 {
					line.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
				}
				p.Add(line)
				name := l.legend
				if len(graphs) > 1 {
					name = g.Name + ": " + l.legend
				}
				p.Legend.Add(name, line)
			}
		}
		p.X.Min, p.X.Max = 0, end
		p.Y.Min, p.Y.Max = 0, math.Max(1, top*1.05)
		panels = append(panels, p)
	}
	return newStack(15*vg.Centimeter, graphPanelHeight, "", panels...), nil
}

// GraphRun is what one `retrysim graph` ran: a preset's graphs or a scenario file's.
type GraphRun struct {
	Preset       fleetpreset.Preset[fleet.Graph]
	Replicates   int
	Seed         uint64
	Results      []fleet.GraphResult
	ScenarioFile string
}

// GraphOutputs renders run as the graph command prints it, series and plot by extension.
func (r Renderer) GraphOutputs(run GraphRun, seriesExt, plotExt string) (out, series, pic []byte, err error) {
	what := run.Preset.Name
	if run.ScenarioFile != "" {
		what = "scenario file " + Escaped(run.ScenarioFile)
	}
	secs := time.Duration(0)
	rep := GraphReport{Replicates: run.Replicates, Seed: run.Seed, Scenario: run.ScenarioFile}
	for _, res := range run.Results {
		rep.Graphs = append(rep.Graphs, res.Graph)
		rep.Rows = append(rep.Rows, fleetrun.Fleet().Rows(res)...)
		rep.Series = append(rep.Series, fleetrun.Fleet().GraphSeries(res)...)
		secs = max(secs, res.Graph.Duration)
	}
	reps := replicatesNoted(run.Replicates, "[lo, hi]: 95% intervals over them")
	rep.Title = fmt.Sprintf("retrysim graph: %s, %s, %s, seed %d", what, human.Duration(secs), reps, run.Seed)
	rep.PlotTitle = fmt.Sprintf("retrysim graph: %s, %s, means of %s, seed %d", what, human.Duration(secs), replicatesText(run.Replicates), run.Seed)
	rep.Params = runParams(what, run.Preset.Source, run.Replicates, run.Seed)
	for _, g := range rep.Graphs {
		rep.Params = append(rep.Params, g.Name+": "+describeGraph(g))
	}
	return r.Outputs(rep.report(), seriesExt, rep.report().writeSeries, plotExt, func(w io.Writer, ext string) error {
		return encodeWhole(w, ext)(newGraphFigure(rep.PlotTitle, rep.Graphs, rep.Series))
	})
}

// describeGraph is g's calls on one line: "-> a 3 tries; a -> b 3 tries, finagle-budget".
func describeGraph(g fleet.Graph) string {
	edge := func(from, to string, c fleet.Client) string {
		s := fmt.Sprintf("%s-> %s %s", from, to, human.Count(int64(c.Attempts), "try"))
		if k := c.Policy.Kind; k != fleet.Unlimited {
			s += ", " + k.String()
		}
		if c.HonourPushback {
			s += ", honours do-not-retry"
		}
		return s
	}
	var parts []string
	for _, e := range g.Entries {
		parts = append(parts, edge("", e.To, e.Client))
	}
	for _, n := range g.Services {
		for _, c := range n.Calls {
			parts = append(parts, edge(n.Name+" ", c.To, c.Client))
		}
	}
	return strings.Join(parts, "; ")
}
