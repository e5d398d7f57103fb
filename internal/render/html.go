package render

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/stats"
)

// page is one self-contained HTML report: no scripts, fonts or links to
// fetch. It is well-formed XML as well, so encoding/xml reads it back.
type page struct {
	title  string
	params []string
	tables []pageTable
	// svg is a picture drawn inline after the tables (nil: none).
	svg []byte
}

// pageTable is a table with a paragraph on how to read it. A cell's value,
// when set, is the exact number the json output carries for it.
type pageTable struct {
	heading, howTo string
	// pre, when set, is shown as preformatted text instead of a table.
	pre    string
	header []string
	rows   [][]pageCell
}

type pageCell struct {
	text string
	// field and value are the json output's key and number for the cell.
	field string
	value *float64
}

// num is a cell showing the json field's value v as text (no value when v
// is NaN, which json writes as null).
func num(text, field string, v float64) pageCell {
	if math.IsNaN(v) {
		return pageCell{text: text}
	}
	return pageCell{text: text, field: field, value: &v}
}

// pageStyle reads at 1280 px (a centred column, wide tables scroll) and
// prints on A4 (smaller type, no scrolling, a picture never split).
const pageStyle = `
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 1.5em auto; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.5em; }
ul.params { columns: 2; font-size: 0.9em; }
p.how { background: #f4f4f4; padding: 0.5em 0.8em; font-size: 0.9em; }
div.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85em; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; white-space: nowrap; }
th { background: #eee; text-align: left; }
figure { margin: 1.5em 0; } figure svg { max-width: 100%; height: auto; }
@media print {
  @page { size: A4; margin: 12mm; }
  body { max-width: none; margin: 0; padding: 0; font-size: 9pt; }
  ul.params { columns: 1; }
  div.scroll { overflow: visible; }
  table { font-size: 6.5pt; } th, td { padding: 0.1em 0.25em; white-space: normal; }
  figure { break-inside: avoid; } figure svg { max-height: 260mm; width: auto; }
}
`

func writePage(w io.Writer, p page) error {
	var b bytes.Buffer
	e := html.EscapeString
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<h1>%s</h1>\n", e(p.title), pageStyle, e(p.title))
	b.WriteString("<ul class=\"params\">\n")
	for _, s := range p.params {
		fmt.Fprintf(&b, "<li>%s</li>\n", e(s))
	}
	b.WriteString("</ul>\n")
	for _, t := range p.tables {
		fmt.Fprintf(&b, "<h2>%s</h2>\n<p class=\"how\"><strong>How to read it.</strong> %s</p>\n", e(t.heading), e(t.howTo))
		if t.pre != "" {
			fmt.Fprintf(&b, "<div class=\"scroll\"><pre>%s</pre></div>\n", e(t.pre))
			continue
		}
		b.WriteString("<div class=\"scroll\"><table>\n<thead><tr>")
		for _, h := range t.header {
			fmt.Fprintf(&b, "<th>%s</th>", e(h))
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, row := range t.rows {
			b.WriteString("<tr>")
			for _, c := range row {
				if c.value != nil {
					fmt.Fprintf(&b, "<td data-field=\"%s\" data-value=\"%s\">%s</td>", e(c.field), strconv.FormatFloat(*c.value, 'g', -1, 64), e(c.text))
				} else {
					fmt.Fprintf(&b, "<td>%s</td>", e(c.text))
				}
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n</table></div>\n")
	}
	if p.svg != nil {
		svg := p.svg
		if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
			svg = svg[i:] // drop the XML declaration: the page declares itself
		}
		b.WriteString("<figure>\n")
		b.Write(svg)
		b.WriteString("</figure>\n")
	}
	b.WriteString("</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writeSweepHTML writes s as one page: what was run, the pivot of s.Metric
// with its intervals, and when one or two parameters are swept the plot
// -plot draws (with opts), inline as SVG.
func writeSweepHTML(w io.Writer, s stats.Sweep, opts PlotOptions) error {
	p := page{title: fmt.Sprintf("retrysim sweep: %s", s.Metric.Label)}
	p.params = append(p.params, "scenario "+s.Scenario)
	var swept []string
	for _, a := range s.Swept {
		swept = append(swept, stats.Axes()[a].Name)
	}
	if len(swept) > 0 {
		p.params = append(p.params, "swept: "+strings.Join(swept, ", "))
	}
	for a := range stats.Axes() {
		if !slices.Contains(s.Swept, a) && len(s.Rows) > 0 {
			p.params = append(p.params, "fixed: "+stats.Axes()[a].Name+" "+axisValue(a, s.Rows[0].Point[a]))
		}
	}
	p.params = append(p.params, "generator "+s.RNG, "seed "+strconv.FormatUint(s.Seed, 10), s.Engine+" engine",
		"strategies: "+strings.Join(s.Strategies, ", "))
	_, unit := metricUnit(s.Metric)
	if unit == "" {
		unit = "its own unit"
	} else {
		unit = "percent"
	}
	t := pageTable{
		heading: fmt.Sprintf("%s, 95%% intervals", s.Metric.Label),
		howTo: fmt.Sprintf("A row is one grid point, a column one strategy. A cell is the %s in %s, then its 95%% interval "+
			"[low, high]: where two strategies' intervals do not overlap, the difference is not chance. Every point "+
			"uses seed %d, so a row equals a single run at that point.", strings.ToLower(s.Metric.Label), unit, s.Seed),
		header: append(slices.Clone(swept), s.Strategies...),
	}
	per := len(s.Strategies)
	for i := 0; i < len(s.Rows); i += per {
		var row []pageCell
		for _, a := range s.Swept {
			row = append(row, pageCell{text: axisText(s.Rows[i].Point[a])})
		}
		for _, r := range s.Rows[i : i+per] {
			e := s.Metric.Estimate(r.Row())
			row = append(row, num(metricText(s.Metric, e), s.Metric.Name, e.Value))
		}
		t.rows = append(t.rows, row)
	}
	p.tables = []pageTable{t}
	if len(s.Swept) == 1 || len(s.Swept) == 2 {
		var svg bytes.Buffer
		if err := PlotSweep(&svg, s, ".svg", opts); err != nil {
			return err
		}
		p.svg = svg.Bytes()
	}
	return writePage(w, p)
}

// writeFleetHTML writes r as one page: the runs' table with its intervals
// and, when r.Runs are given, their time series as -plot draws them, inline.
func writeFleetHTML(w io.Writer, r FleetReport) error {
	p := page{title: r.Title, params: r.Params}
	t := pageTable{
		heading: "The runs, means over replicates with 95% intervals",
		howTo: "A row is one run. Each figure is the mean over the replicates, then ± half its 95% Student t " +
			"interval (none with one replicate). Calls per request counts every attempt a request made; timeouts, " +
			"conflicts and duplicates are counts over the run; latency is that of successful requests; recovery is how " +
			"long after the load's last change successes came back, or never.",
		header: fleetHeader,
	}
	for _, s := range r.Rows {
		c := fleetCells(s)
		t.rows = append(t.rows, []pageCell{{text: c[0]}, num(c[1], "requests", s.Requests.Value),
			num(c[2], "succeeded", s.Succeeded.Value), num(c[3], "goodput", s.Goodput.Value),
			num(c[4], "amplification", s.Amplification.Value), num(c[5], "timeouts", s.Timeouts.Value),
			num(c[6], "conflicts", s.Conflicts.Value), num(c[7], "duplicates", s.Duplicates.Value),
			{text: c[8]}, num(c[9], "peak_in_progress", s.PeakInProgress.Value), {text: c[10]}})
	}
	p.tables = []pageTable{t}
	if len(r.Runs) > 0 {
		var svg bytes.Buffer
		if err := PlotFleet(&svg, r.PlotTitle, r.Runs, r.Configs, ".svg"); err != nil {
			return err
		}
		p.svg = svg.Bytes()
	}
	return writePage(w, p)
}

// writeReportHTML is the table command's page: the strategies' table with
// intervals, the spread and closed-form lines under a row when asked, and
// the delivery model's by-step table.
func writeReportHTML(w io.Writer, r stats.Report) error {
	p := page{title: reportTitle(r.Params)}
	t := pageTable{
		heading: "The strategies",
		howTo: "A row is one strategy over every simulated job. Succeeded is the share of jobs that finished; " +
			"failed jobs, steps done again and the watched duplicates are counts over all jobs; calls per job is a mean. " +
			"Brackets are 95% intervals (with -ci); an \"expected (z)\" line is the closed form and how many standard " +
			"errors the simulation is from it (|z| above 3 is suspicious).",
		header: header(r),
	}
	fields := []string{"", "succeeded", "failed", "calls_per_job", "repeated_steps", "duplicate_users"}
	for _, w := range r.Watched[min(1, len(r.Watched)):] {
		fields = append(fields, "duplicate_users_step_"+strconv.Itoa(w.Step+1))
	}
	values := func(row stats.Row) []float64 {
		c := row.Counters
		v := []float64{0, stats.Metrics()[0].Estimate(row).Value, float64(c.Failed), stats.Metrics()[2].Estimate(row).Value,
			float64(c.RepeatedSteps)}
		for k, w := range r.Watched {
			v = append(v, float64(c.Twice(k, w)))
		}
		return v
	}
	for _, row := range r.Rows {
		main := cells(row, r.ShowCI, r.Watched)
		if r.Delivery != nil {
			main = append(main, deliveryCells(row)...)
		}
		var cells []pageCell
		v := values(row)
		for i, c := range main {
			if i > 0 && i < len(fields) {
				cells = append(cells, num(c, fields[i], v[i]))
			} else {
				cells = append(cells, pageCell{text: c})
			}
		}
		t.rows = append(t.rows, cells)
		var extra [][]string
		if len(row.Replicates) > 1 {
			extra = append(extra, spreadCells(row))
		}
		if row.Expected != nil {
			extra = append(extra, expectedCells(row, r.Watched))
		}
		for _, x := range extra {
			var cells []pageCell
			for _, c := range x {
				cells = append(cells, pageCell{text: c})
			}
			t.rows = append(t.rows, cells)
		}
	}
	p.tables = []pageTable{t}
	if r.Delivery != nil {
		var by bytes.Buffer
		if err := writeByStep(&by, r, false); err != nil {
			return err
		}
		p.tables = append(p.tables, pageTable{heading: "Side effects repeated, by step",
			howTo: "A line is one step of the job, a column one strategy: how many times that step's side effect happened again.",
			pre:   by.String()})
	}
	return writePage(w, p)
}

// writeCasesHTML is a preset's page: its cases' table.
func writeCasesHTML(w io.Writer, c stats.Cases) error {
	t := pageTable{
		heading: "The cases",
		howTo: "A row is one case of the preset. Charges per job above 1 means some jobs charged twice; lost work counts " +
			"jobs whose work was lost; deliveries per job counts how often the queue handed each job out.",
		header: []string{"Case", "Store", "Charges per job", "Lost work", "Deliveries per job", "What it means"},
	}
	for _, r := range c.Rows {
		t.rows = append(t.rows, []pageCell{{text: r.Case}, {text: r.Store},
			num(toFixed(r.ChargesPerJob(), 3), "charges_per_job", r.ChargesPerJob()),
			num(group(r.LostWork), "lost_work", float64(r.LostWork)),
			{text: toFixed(float64(r.Deliveries)/float64(r.Jobs), 3)}, {text: r.Meaning}})
	}
	return writePage(w, page{title: c.Title, tables: []pageTable{t}})
}
