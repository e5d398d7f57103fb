package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// pageCells parses a page as XML and returns its data cells (json key,
// exact value, text shown) and every element name and text, for checks on
// what the page holds and fetches.
type parsedPage struct {
	cells []struct {
		row         int
		field, text string
		value       float64
	}
	elements map[string]int
	text     string
	refs     []string // src and href attribute values
}

func parsePage(t *testing.T, page []byte) parsedPage {
	t.Helper()
	p := parsedPage{elements: map[string]int{}}
	d := xml.NewDecoder(bytes.NewReader(page))
	var cell *struct {
		row         int
		field, text string
		value       float64
	}
	var all strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the page does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			p.elements[tok.Name.Local]++
			var field, value string
			row := -1
			for _, a := range tok.Attr {
				switch a.Name.Local {
				case "data-row":
					row, _ = strconv.Atoi(a.Value)
				case "data-field":
					field = a.Value
				case "data-value":
					value = a.Value
				case "src", "href":
					p.refs = append(p.refs, a.Value)
				}
			}
			if tok.Name.Local == "td" && field != "" {
				v, err := strconv.ParseFloat(value, 64)
				if err != nil {
					t.Fatalf("data-value %q: %v", value, err)
				}
				p.cells = append(p.cells, struct {
					row         int
					field, text string
					value       float64
				}{row: row, field: field, value: v})
				cell = &p.cells[len(p.cells)-1]
			}
		case xml.EndElement:
			if tok.Name.Local == "td" {
				cell = nil
			}
		case xml.CharData:
			all.Write(tok)
			if cell != nil {
				cell.text += string(tok)
			}
		}
	}
	p.text = all.String()
	return p
}

// selfContained fails when the page could fetch anything: a script, a
// stylesheet or image by reference, or any src or href.
func selfContained(t *testing.T, p parsedPage) {
	t.Helper()
	for _, el := range []string{"script", "link", "img", "iframe", "object", "image"} {
		if p.elements[el] > 0 {
			t.Errorf("the page has %d <%s> elements; want none (self-contained)", p.elements[el], el)
		}
	}
	if len(p.refs) > 0 {
		t.Errorf("the page refers out: %q", p.refs)
	}
}

// shown is the first number a cell shows, divided by 100 when it is a percent.
func shown(t *testing.T, text string) float64 {
	f := strings.Fields(strings.ReplaceAll(strings.ReplaceAll(text, "%", " % "), ",", ""))
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatalf("cell %q: %v", text, err)
	}
	if len(f) > 1 && f[1] == "%" {
		v /= 100
	}
	return v
}

// TestSweepHTML: the page's numbers are the json output's, exactly in the
// data attributes and to the 4 significant digits shown (a relative
// difference within 5e-4) in the text; the page carries its parameters, a
// "how to read it", the plot inline, and fetches nothing.
func TestSweepHTML(t *testing.T) {
	s := lineSweep()
	var page, js bytes.Buffer
	if err := lookup(t, SweepDoc, "html").Sweep(&page, s, PlotOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := lookup(t, SweepDoc, "json").Sweep(&js, s, PlotOptions{}); err != nil {
		t.Fatal(err)
	}
	var out struct{ Rows []map[string]any }
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	p := parsePage(t, page.Bytes())
	selfContained(t, p)
	if len(p.cells) != len(out.Rows) {
		t.Fatalf("%d numeric cells; want one per json row, %d", len(p.cells), len(out.Rows))
	}
	for i, c := range p.cells { // the pivot reads the rows in json order
		want := out.Rows[i][c.field].(float64)
		if c.value != want {
			t.Errorf("cell %d (%s): data-value %v; json %v", i, c.field, c.value, want)
		}
		if got := shown(t, c.text); math.Abs(got-want) > 5e-4*want {
			t.Errorf("cell %d shows %q; json %v", i, c.text, want)
		}
	}
	for _, want := range []string{"How to read it.", "fixed: lost_reply 0.005", "fixed: attempts 3", "fixed: jobs 1000000",
		"seed 1", "skip engine", "generator pcg"} {
		if !strings.Contains(p.text, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if p.elements["svg"] != 1 || p.elements["style"] != 1 {
		t.Errorf("want one inline <svg> and one <style>; have %v", p.elements)
	}
	if !bytes.Contains(page.Bytes(), []byte("@media print")) {
		t.Errorf("no print style")
	}
}

// TestFleetHTML: the same for the fleet's table: each numeric cell's value
// is the json field it names, and its text shows it.
func TestFleetHTML(t *testing.T) {
	e := func(v, half float64) schema.Estimate {
		return schema.Estimate{Value: v, Lo: v - half, Hi: v + half, N: 5}
	}
	r := FleetReport{Title: "retrysim fleet: test", Params: []string{"model: test"}, Rows: []fleetdata.RunRow{{
		Run: "a", Replicates: 5, Requests: e(3520, 46), Succeeded: e(0.37, 0.023), Goodput: e(16.25, 0.95),
		Amplification: e(2.384, 0.029), Timeouts: e(7090, 234), Conflicts: e(3, 1), Duplicates: e(4871, 135),
		P50: e(2.4, 0), P95: e(56.6, 0), P99: e(63, 0), PeakInProgress: e(1544, 107), Recovery: e(math.NaN(), 0),
	}}}
	var page, js bytes.Buffer
	if err := lookup(t, FleetDoc, "html").Runs(&page, r.report()); err != nil {
		t.Fatal(err)
	}
	if err := lookup(t, FleetDoc, "json").Runs(&js, r.report()); err != nil {
		t.Fatal(err)
	}
	var out struct{ Rows []map[string]any }
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	p := parsePage(t, page.Bytes())
	selfContained(t, p)
	if len(p.cells) != 8 {
		t.Errorf("%d numeric cells; want 8 (every column but run, latency and recovery)", len(p.cells))
	}
	for _, c := range p.cells {
		want := out.Rows[0][c.field].(float64)
		if c.value != want {
			t.Errorf("%s: data-value %v; json %v", c.field, c.value, want)
		}
		if got := shown(t, c.text); math.Abs(got-want) > 5e-3*want { // shown to the interval's decimals
			t.Errorf("%s shows %q; json %v", c.field, c.text, want)
		}
	}
	if !strings.Contains(p.text, "How to read it.") || !strings.Contains(p.text, "model: test") {
		t.Errorf("no parameters or how to read it in %q", p.text)
	}
}

// TestReportHTMLByStep: the delivery model's by-step table is an HTML table,
// not preformatted text: a row a step named in its first cell, a column a
// strategy, each cell the step's repeated side effects as set in the
// counters here, grouped in thousands as the text table shows them.
func TestReportHTMLByStep(t *testing.T) {
	steps := []string{"charge", "email", "log"}
	by := map[string][]int64{"a": {1234, 0, 7}, "b": {0, 56789, 1}}
	r := stats.Report{Params: stats.Params{Scenario: "test", Noun: "jobs", Steps: len(steps), Jobs: 100000, Attempts: 3, RNG: "pcg",
		Seed: 1, Engine: "plain", Watched: []stats.Watch{{Step: 1, Name: "email", Label: "Watched twice"}}, Replicates: 1,
		Delivery: &stats.DeliveryParams{Settings: stats.Settings{{Key: "store", Value: "claim"}}, StepNames: steps}}}
	for _, id := range []string{"a", "b"} {
		row := stats.Row{ID: id, Label: "strategy " + id, Counters: stats.Counters{Jobs: 100000, Calls: 300000, Deliveries: 100000}}
		for i, v := range by[id] {
			row.RepeatedByStep[i] = v
			row.RepeatedSteps += v
		}
		r.Rows = append(r.Rows, row)
	}
	var page bytes.Buffer
	if err := writeReportHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	p := parsePage(t, page.Bytes())
	selfContained(t, p)
	if p.elements["pre"] != 0 || p.elements["table"] != 2 {
		t.Errorf("want two tables and no <pre>; have %v", p.elements)
	}
	want := map[string]string{}
	for k, id := range []string{"a", "b"} {
		for i, v := range by[id] {
			want[fmt.Sprintf("%d repeated_step_%d", k, i+1)] = fmt.Sprint(v)
		}
	}
	shows := map[string]string{"1234": "1,234", "56789": "56,789"}
	for _, c := range p.cells {
		key := fmt.Sprintf("%d %s", c.row, c.field)
		w, ok := want[key]
		if !ok {
			continue
		}
		delete(want, key)
		if got := strconv.FormatFloat(c.value, 'f', -1, 64); got != w {
			t.Errorf("%s holds %s; want %s", key, got, w)
		}
		text := w
		if s, ok := shows[w]; ok {
			text = s
		}
		if c.text != text {
			t.Errorf("%s shows %q; want %q", key, c.text, text)
		}
	}
	if len(want) > 0 {
		t.Errorf("no cells for %v", want)
	}
	for _, name := range steps {
		if !strings.Contains(p.text, name) {
			t.Errorf("the step %q is not named", name)
		}
	}
}

// TestPageLayout: what makes a page read at 1280 px and print on A4 (seen
// in Chromium; the style itself is checked here): prose cells are marked to
// wrap left-aligned, a number and its interval are separate unbreakable
// spans (so a narrow column breaks between them, never inside a number),
// sub rows are marked, and the style sets an A4 page and keeps rows whole.
func TestPageLayout(t *testing.T) {
	c := stats.Cases{Title: "t", Rows: []stats.CaseRow{{Case: "race, claim", Store: "claim",
		Meaning:  "the database refused the second key: treat that error as already handled",
		Counters: stats.Counters{Jobs: 1000, SideEffects: 2000, Deliveries: 2000}}}}
	var page bytes.Buffer
	if err := writeCasesHTML(&page, c); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	for _, want := range []string{`<td class="prose">race, claim</td>`, `<td class="prose">the database refused`,
		`data-field="charges_per_job" data-value="2"><span>2.000</span></td>`,
		"@page { size: A4;", "tr { break-inside: avoid; }", "td.prose { text-align: left;"} {
		if !strings.Contains(s, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	var b bytes.Buffer
	for text, want := range map[string]string{
		"99.999% [99.998, 99.999]":     "<span>99.999%</span> <span>[99.998,</span> <span>99.999]</span>",
		"0.2113 s / 29.85 s / 59.57 s": "<span>0.2113 s /</span> <span>29.85 s /</span> <span>59.57 s</span>",
		"3,520 [3,473, 3,567]":         "<span>3,520</span> <span>[3,473,</span> <span>3,567]</span>",
		"12.3 (z -0.10)":               "<span>12.3</span> <span>(z -0.10)</span>",
		"never in 9 of 10":             "<span>never in 9 of 10</span>",
	} {
		b.Reset()
		numberSpans(&b, text)
		if b.String() != want {
			t.Errorf("numberSpans(%q) = %q; want %q", text, b.String(), want)
		}
	}
}

// TestReportHowTo is issue 23 item 6: the page's "How to read it" spoke of
// -ci brackets and "expected (z)" lines on pages that had neither. It names
// each only when the page shows it: intervals with ShowCI, the replicates'
// means with replicated rows, closed forms with Expected.
func TestReportHowTo(t *testing.T) {
	base := func() stats.Report {
		r := stats.Report{Params: stats.Params{Scenario: "test", Noun: "jobs", Steps: 1, Jobs: 1000, Attempts: 3, RNG: "pcg",
			Seed: 1, Engine: "plain", Replicates: 1}}
		r.Rows = []stats.Row{{ID: "a", Label: "strategy a", Counters: stats.Counters{Jobs: 1000, Calls: 1000}}}
		return r
	}
	howTo := func(r stats.Report) string {
		var page bytes.Buffer
		if err := writeReportHTML(&page, r); err != nil {
			t.Fatal(err)
		}
		text := parsePage(t, page.Bytes()).text
		_, after, _ := strings.Cut(text, "How to read it.")
		return after
	}
	for _, tc := range []struct {
		name        string
		edit        func(*stats.Report)
		ci, mean, z bool
	}{
		{"plain", func(*stats.Report) {}, false, false, false},
		{"-ci", func(r *stats.Report) { r.ShowCI = true }, true, false, false},
		{"-expect", func(r *stats.Report) { r.Rows[0].Expected = &stats.Expected{} }, false, false, true},
		{"-replicates", func(r *stats.Report) {
			r.Replicates = 2
			r.Rows[0].Replicates = []stats.Values{stats.ValuesOf(&r.Rows[0].Counters), stats.ValuesOf(&r.Rows[0].Counters)}
		}, false, true, false},
	} {
		r := base()
		tc.edit(&r)
		got := howTo(r)
		for _, c := range []struct {
			word string
			want bool
		}{{"-ci", tc.ci}, {"mean of n replicates", tc.mean}, {"expected (z)", tc.z}} {
			if strings.Contains(got, c.word) != c.want {
				t.Errorf("%s: how to read it mentions %q: %v; want %v\n%s", tc.name, c.word, !c.want, c.want, got)
			}
		}
	}
}
