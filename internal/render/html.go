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

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// page is one self-contained HTML report: no scripts, fonts or links to fetch.
type page struct {
	// title is the heading's first line; any further lines open the parameters.
	title  string
	params []string
	tables []pageTable
	// figures are SVG pictures drawn before the tables, each fitting a printed page.
	figures [][]byte
}

// pageTable is a table with a paragraph on how to read it.
type pageTable struct {
	heading, howTo string
	header         []string
	rows           []pageRow
}

// pageRow is a table row; a sub row, drawn lighter, is a line under the row before.
type pageRow struct {
	cells []pageCell
	sub   bool
}

// pageCell is one cell: prose wraps; value is json row row's figure under field ("a/b": a over b).
type pageCell struct {
	text  string
	prose bool
	row   int
	field string
	value *float64
}

// num is a cell showing json row row's value v under field as text (none when NaN).
func num(text string, row int, field string, v float64) pageCell {
	if math.IsNaN(v) {
		return pageCell{text: text}
	}
	return pageCell{text: text, row: row, field: field, value: &v}
}

// prose is a cell of words: a name or an explanation.
func prose(text string) pageCell { return pageCell{text: strings.TrimSpace(text), prose: true} }

// plain is a number cell that no json field holds as it is shown.
func plain(text string) pageCell { return pageCell{text: text} }

// pageStyle reads at 1280 px, on a phone and on A4; every table fits (TestPageTablesFit).
const pageStyle = `
body { font-family: system-ui, sans-serif; max-width: 1220px; margin: 1.5em auto; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.3em; margin-bottom: 0.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
ul.params { columns: 2; column-gap: 2em; font-size: 0.9em; padding-left: 1.2em; }
ul.params li { break-inside: avoid; overflow-wrap: anywhere; }
h1, h2, p { overflow-wrap: anywhere; }
p.how { background: #f4f4f4; padding: 0.5em 0.8em; font-size: 0.9em; }
div.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85em; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; vertical-align: top; }
th { background: #eee; text-align: left; font-weight: 600; }
td { text-align: right; }
td span { white-space: nowrap; }
td.prose { text-align: left; min-width: 8em; }
tr.sub td { color: #555; font-size: 0.92em; border-top-style: dotted; }
tr.sub td.prose { padding-left: 1.5em; }
figure { margin: 1.5em 0; overflow-x: auto; } figure svg { display: block; width: 100%; max-width: 1000px; height: auto; }
dl.terms { font-size: 0.9em; } dl.terms dt { font-weight: 600; margin-top: 0.6em; } dl.terms dd { margin-left: 1.2em; }
@media (max-width: 700px) {
  body { margin: 0.8em auto; padding: 0 0.6em; }
  ul.params { columns: 1; }
  figure svg { min-width: 600px; }
}
@media print {
  @page { size: A4; margin: 12mm; }
  body { max-width: none; margin: 0; padding: 0; font-size: 9pt; }
  h1 { font-size: 13pt; } h2 { font-size: 11pt; break-after: avoid; }
  p.how { break-after: avoid; print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  ul.params { columns: 1; }
  div.scroll { overflow: visible; }
  table { font-size: 7.5pt; }
  th { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  th, td { padding: 0.15em 0.3em; }
  td.prose { min-width: 6em; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; }
  figure { break-inside: avoid; margin: 1em 0; overflow: visible; } figure svg { min-width: 0; max-width: 100%; max-height: 255mm; }
}
`

// numberSpans writes a number cell's text as spans that do not break inside.
func numberSpans(b *bytes.Buffer, text string) {
	var spans [][]string
	inInterval := false
	for i, w := range strings.Fields(text) {
		opens := strings.HasPrefix(w, "[") || strings.HasPrefix(w, "(")
		if opens {
			inInterval = strings.HasPrefix(w, "[")
		}
		var last string
		if i > 0 {
			last = spans[len(spans)-1][len(spans[len(spans)-1])-1]
		}
		if i == 0 || opens || last == "/" || inInterval && strings.HasSuffix(last, ",") {
			spans = append(spans, nil)
		}
		spans[len(spans)-1] = append(spans[len(spans)-1], w)
	}
	for i, s := range spans {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(b, "<span>%s</span>", html.EscapeString(strings.Join(s, " ")))
	}
}

// words is a header's or prose cell's text, escaped, breakable after each underscore.
func words(s string) string {
	return strings.ReplaceAll(html.EscapeString(s), "_", "_<wbr/>")
}

func writePage(w io.Writer, p page) error {
	var b bytes.Buffer
	e := html.EscapeString
	lines := strings.Split(p.title, "\n")
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<h1>%s</h1>\n", e(lines[0]), pageStyle, e(lines[0]))
	if params := append(lines[1:], p.params...); len(params) > 0 {
		b.WriteString("<ul class=\"params\">\n")
		for _, s := range params {
			fmt.Fprintf(&b, "<li>%s</li>\n", e(s))
		}
		b.WriteString("</ul>\n")
	}
	for _, svg := range p.figures {
		if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
			svg = svg[i:] // drop the XML declaration: the page declares itself
		}
		b.WriteString("<figure>\n")
		b.Write(svg)
		b.WriteString("</figure>\n")
	}
	for _, t := range p.tables {
		fmt.Fprintf(&b, "<h2>%s</h2>\n<p class=\"how\"><strong>How to read it.</strong> %s</p>\n", e(t.heading), e(t.howTo))
		b.WriteString("<div class=\"scroll\"><table>\n<thead><tr>")
		for _, h := range t.header {
			fmt.Fprintf(&b, "<th>%s</th>", words(h))
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, row := range t.rows {
			if row.sub {
				b.WriteString("<tr class=\"sub\">")
			} else {
				b.WriteString("<tr>")
			}
			for i := range len(t.header) {
				if i >= len(row.cells) { // a sub row leaves the columns it has nothing for empty
					b.WriteString("<td></td>")
					continue
				}
				c := row.cells[i]
				switch {
				case c.prose:
					fmt.Fprintf(&b, "<td class=\"prose\">%s</td>", words(c.text))
					continue
				case c.value != nil:
					fmt.Fprintf(&b, "<td data-row=\"%d\" data-field=\"%s\" data-value=\"%s\">", c.row, e(c.field),
						strconv.FormatFloat(*c.value, 'g', -1, 64))
				default:
					b.WriteString("<td>")
				}
				numberSpans(&b, c.text)
				b.WriteString("</td>")
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n</table></div>\n")
	}
	if terms := pageTerms(p); len(terms) > 0 {
		b.WriteString("<h2 id=\"terms\">Terms</h2>\n<dl class=\"terms\">\n")
		for _, t := range terms {
			fmt.Fprintf(&b, "<dt>%s</dt>\n", e(t.term))
			for _, par := range t.paragraphs {
				fmt.Fprintf(&b, "<dd>%s</dd>\n", codeText.ReplaceAllString(e(par), "<code>$1</code>"))
			}
		}
		b.WriteString("</dl>\n")
	}
	b.WriteString("</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writePageWith writes p with the one picture draw writes.
func writePageWith(w io.Writer, p page, draw func(io.Writer) error) error {
	var err error
	if p.figures, err = pictures(1, func(w io.Writer, _ int) error { return draw(w) }); err != nil {
		return err
	}
	return writePage(w, p)
}

// writeSweepHTML writes s as one page: what ran, the pivot of s.Metric and its plot.
func writeSweepHTML(w io.Writer, s stats.Sweep, opts PlotOptions) error {
	p := page{title: fmt.Sprintf("retrysim sweep: %s", s.Metric.Label)}
	p.params = append(p.params, "scenario "+s.Scenario)
	swept := sweptNames(s)
	if len(swept) > 0 {
		p.params = append(p.params, "swept: "+strings.Join(swept, ", "))
	}
	for a := range s.AxisList() {
		if !slices.Contains(s.Swept, a) && len(s.Rows) > 0 {
			p.params = append(p.params, "fixed: "+s.AxisList()[a].Name+" "+axisValue(s.AxisList()[a], s.Rows[0].At(a)))
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
	t := pageTable{heading: s.Metric.Label, header: append(slices.Clone(swept), s.Strategies...),
		howTo: "A row is one grid point, a column one strategy. A cell is the " + strings.ToLower(s.Metric.Label) + " in " + unit}
	if hasInterval(s.Metric) {
		t.heading += ", 95% intervals"
		t.howTo += ", then its 95% interval [low, high]: where two strategies' intervals do not overlap, the difference is not chance"
	}
	t.howTo += fmt.Sprintf(". Every point uses seed %d, so a row equals a single run at that point.", s.Seed)
	per, sr := len(s.Strategies), new(stats.Row)
	for i := 0; i < len(s.Rows); i += per {
		var row []pageCell
		for _, a := range s.Swept {
			row = append(row, plain(axisValue(s.AxisList()[a], s.Rows[i].At(a))))
		}
		for k := range s.Rows[i : i+per] {
			s.Rows[i+k].Fill(sr)
			e := s.Metric.Estimate(&sr.Counters, sr.NoRepeats)
			row = append(row, num(metricText(s.Metric, e, true), i+k, s.Metric.Name, e.Value))
		}
		t.rows = append(t.rows, pageRow{cells: row})
	}
	p.tables = []pageTable{t}
	switch len(s.Swept) {
	case 1:
		return writePageWith(w, p, func(w io.Writer) error { return PlotSweep(w, s, ".svg", opts) })
	case 2:
		var err error
		if p.figures, err = heatPanels(s, ".svg", opts.OwnScales); err != nil {
			return err
		}
	}
	return writePage(w, p)
}

// html writes r as one page: the runs' table and their plot.
func (r FleetReport) html(w io.Writer) error {
	p := page{title: r.Title, params: r.Params}
	t := fleetColumns.pageTable("The runs, means over replicates with 95% intervals", "A row is one run. Each figure is the mean over the replicates, then its 95% Student t "+
		"interval [low, high] (none with one replicate). Calls per request counts every attempt a request made; timeouts, "+
		"conflicts and duplicates are counts over the run; latency is that of successful requests; recovered is "+
		"how many replicates had goodput back for good when the run ended, of those judged, with its 95% Wilson "+
		"score interval (\"no trigger\" for a run without a spike, ramp or outage, \"too short\" for one with no "+
		"10 s window after it); recovery is how long after the load's last change successes came back for good: "+
		"the Kaplan-Meier median and quartiles over the replicates judged, a replicate still down censored at its "+
		"run's end (\"never\" when fewer than that share recovered).", r.Rows, 0)
	if len(r.Spikes) > 0 {
		t.howTo += " A run's name is its client policy, keys none or same, and the spike's height; the picture above " +
			"the table draws each policy's recovery and duplicates against the height."
	}
	p.tables = []pageTable{t}
	switch {
	case len(r.Spikes) > 0:
		return writePageWith(w, p, func(w io.Writer) error { return encodeWhole(w, ".svg")(newSpikeFigure(r.PlotTitle, r.Spikes)) })
	case len(r.Runs) > 0:
		return writeFigured(w, p)(newFleetFigure(r.PlotTitle, r.Runs, r.Configs))
	}
	return writePage(w, p)
}

// writeReportHTML is the table command's page.
func writeReportHTML(w io.Writer, r stats.Report) error {
	p := page{title: reportTitle(r.Params)}
	cs := reportColumns(r)
	t := pageTable{heading: "The strategies", howTo: reportHowTo(r), header: cs.header()}
	for k := range r.Rows {
		row := &r.Rows[k] // by index: a Row's counters are 89 KB
		t.rows = append(t.rows, pageRow{cells: cs.pageCells(row, k)})
		for _, x := range subRows(row, r) {
			t.rows = append(t.rows, pageRow{cells: append([]pageCell{prose(x[0])}, mapped(x[1:], plain)...), sub: true})
		}
	}
	p.tables = []pageTable{t}
	if r.Delivery != nil {
		by := pageTable{heading: byStepHeading,
			howTo: "A row is one step of the job, a column one strategy: how many times that step's side effect " +
				"happened again, over every job. The steps' sum is the strategies' table's steps done again.",
			header: []string{"Step"}}
		for k := range r.Rows {
			by.header = append(by.header, r.Rows[k].ID)
		}
		for i, name := range r.Delivery.StepNames {
			cells := []pageCell{prose(name)}
			field := "repeated_step_" + strconv.Itoa(i+1)
			for k := range r.Rows {
				n := r.Rows[k].RepeatedByStep[i]
				cells = append(cells, num(human.Group(n), k, field, float64(n)))
			}
			by.rows = append(by.rows, pageRow{cells: cells})
		}
		p.tables = append(p.tables, by)
	}
	return writePage(w, p)
}

// reportHowTo is how to read the strategies' table of r's page.
func reportHowTo(r stats.Report) string {
	how := "A row is one strategy over every simulated job. Succeeded is the share of jobs that finished; " +
		"failed jobs, steps done again and the watched duplicates are counts over all jobs; calls per job is a mean " +
		"(each column is explained under Terms, at the end of the page)."
	replicated, expected := false, false
	for i := range r.Rows {
		replicated = replicated || len(r.Rows[i].Replicates) > 1
		expected = expected || r.Rows[i].Expected != nil
	}
	if r.ShowCI {
		how += " Brackets after a figure are its 95% interval [low, high] (-ci)."
	}
	if replicated {
		how += " A \"mean of n replicates\" line is the mean of each figure over the replicates, with the mean's 95% " +
			"Student t interval [low, high]."
	}
	if expected {
		how += " An \"expected (z)\" line is the closed form and how many standard errors the simulation is from it " +
			"(|z| above 3 is suspicious)."
	}
	return how
}

// writeCasesHTML is a preset's page: its cases' table.
func writeCasesHTML(w io.Writer, c stats.Cases) error {
	t := pageTable{
		heading: "The cases",
		howTo: "A row is one case of the preset. Charges per job above 1 means some jobs charged twice; lost work counts " +
			"jobs whose work was lost; deliveries per job counts how often the queue handed each job out.",
		header: casesHeader,
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		t.rows = append(t.rows, pageRow{cells: []pageCell{prose(r.Case), prose(r.Store),
			num(perJob.text(chargesPerJob(r)), i, "charges_per_job", chargesPerJob(r)),
			num(human.Group(r.LostWork), i, "lost_work", float64(r.LostWork)),
			plain(perJob.text(float64(r.Deliveries) / float64(r.Jobs))), prose(r.Meaning)}})
	}
	return writePage(w, page{title: c.Title, tables: []pageTable{t}})
}

// html is a totals preset's page: success and calls a request as pivots, and its plot.
func (t TotalsReport) html(w io.Writer) error {
	if len(t.Results) > 0 && len(t.Results) != len(t.Rows) {
		return fmt.Errorf("totals: %d results for %d rows", len(t.Results), len(t.Rows))
	}
	p := page{title: t.Title, params: t.Params}
	policies, keys, at := t.pivot()
	lead := []string{"Failure rate"}
	if t.ByClients {
		lead = []string{"Clients", "Failure rate"}
	}
	intervals := "the total over every replicate, as the text table prints it, then the 95% Student t " +
		"interval [low, high] of the mean of the replicates' own figures (none with one replicate): where two policies' " +
		"intervals do not overlap, the difference is not chance."
	if len(t.Results) == 0 {
		intervals = "the total over every replicate, as the text table prints it."
	}
	// pivot is a table of a figure of each run, as num/den of the totals (field/of in json).
	pivot := func(heading, howTo, field, of string, style numberStyle, ratio func(fleetdata.Totals) float64,
		est func(fleetdata.RunRow) schema.Estimate) pageTable {
		pt := pageTable{heading: heading, howTo: howTo + " " + intervals, header: append(slices.Clone(lead), policies...)}
		for _, k := range keys {
			cells := mapped(k.lead(t.ByClients), plain)
			for _, pol := range policies {
				i, ok := at[k][pol]
				if !ok || t.Rows[i].Requests == 0 {
					cells = append(cells, plain("-"))
					continue
				}
				s := style.text(ratio(t.Rows[i]))
				if len(t.Results) > 0 {
					e := est(fleetrun.Fleet().Summary(t.Results[i]))
					s += style.interval(e.Lo, e.Hi)
				}
				cells = append(cells, num(s, i, field+"/"+of, ratio(t.Rows[i])))
			}
			pt.rows = append(pt.rows, pageRow{cells: cells})
		}
		return pt
	}
	who := "A row is one failure rate of the server"
	if t.ByClients {
		who = "A row is one client count and failure rate of the server"
	}
	p.tables = []pageTable{
		pivot("Requests that succeeded", who+", a column one client policy: the share of the requests that "+
			"succeeded, within the policy's attempts, in percent;", "succeeded", "requests", jobShare,
			func(r fleetdata.Totals) float64 { return float64(r.Succeeded) / float64(r.Requests) },
			func(s fleetdata.RunRow) schema.Estimate { return s.Succeeded }),
		pivot("Server calls a request (amplification)", who+", a column one client policy: the calls the server "+
			"received over the requests, 1 when nothing is retried; what a policy adds above 1 is load on a server "+
			"that is already failing;", "calls", "requests", totalsCalls,
			func(r fleetdata.Totals) float64 { return float64(r.Calls) / float64(r.Requests) },
			func(s fleetdata.RunRow) schema.Estimate { return s.Amplification }),
	}
	if len(t.Results) == 0 {
		return writePage(w, p)
	}
	return writePageWith(w, p, func(w io.Writer) error { return PlotFleetTotals(w, t.PlotTitle, t.Results, t.ByClients, ".svg") })
}
