package render

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/schema"
)

// A new column is one declaration (issue 32): a column appended to the
// fleet's declarations, and nothing else, is in the table, markdown, csv,
// json and html outputs and in the glossary, where its entry falls in
// alphabetical order.
func TestNewColumnIsOneDeclaration(t *testing.T) {
	probe(t, &fleetColumns)
	nan := math.NaN()
	row := fleetdata.RunRow{Run: "probe_run", Replicates: 2, RecoveredShare: schema.Estimate{Value: nan, Lo: nan, Hi: nan}}
	rep := FleetReport{Title: "probe", Rows: []fleetdata.RunRow{row}, Replicates: 2, Seed: 1}
	out := map[string]string{}
	for _, name := range Names(FleetDoc) {
		r, err := Lookup(FleetDoc, name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.Runs(&b, rep.report()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.String()
	}
	// expectedCount has one decimal, its interval's bounds rounded outwards:
	// 40.02 down to 40.0, 44.98 up to 45.0.
	for _, name := range []string{"table", "markdown"} {
		if !strings.Contains(out[name], "Probe figure") || !strings.Contains(out[name], "42.5 [40.0, 45.0]") {
			t.Errorf("%s output lacks the column's header or its cell 42.5 [40.0, 45.0]:\n%s", name, out[name])
		}
	}
	lines := strings.Split(out["csv"], "\n")
	if !strings.Contains(lines[0], ",probe_figure,probe_figure_lo,probe_figure_hi,") || !strings.Contains(lines[1], ",42.5,40.02,44.98,") {
		t.Errorf("csv lacks the column's key and its figures 42.5,40.02,44.98:\n%s", out["csv"])
	}
	var doc struct{ Rows []map[string]any }
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 1 || doc.Rows[0]["probe_figure"] != 42.5 || doc.Rows[0]["probe_figure_hi"] != 44.98 {
		t.Errorf("json rows = %v; want probe_figure 42.5, probe_figure_hi 44.98", doc.Rows)
	}
	for _, want := range []string{"<th>Probe figure</th>", `data-field="probe_figure" data-value="42.5"`, "<dt>Probe figure</dt>\n<dd>" + probeGloss + "</dd>"} {
		if !strings.Contains(out["html"], want) {
			t.Errorf("html lacks %q", want)
		}
	}
	g := Glossary()
	if !strings.Contains(g, "\n\n### Probe figure\n"+probeGloss+"\n\n### ") {
		t.Errorf("the glossary lacks the column's entry")
	}
	var terms []string
	for _, e := range glossary() {
		terms = append(terms, strings.ToLower(e.term))
	}
	if !slices.IsSorted(terms) || !slices.Contains(terms, "probe figure") {
		t.Errorf("glossary terms = %q; want them sorted, the column's among them", terms)
	}
}

// render writes what it is given and reads no scenario file: it reaches
// no scenario package, directly or through another (issue 32: it imported
// scenario for a graph setting's key, which decl.SectionKey now
// gives).
func TestRenderImportsNoScenario(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/retrysim/retrysim/internal/render").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/retrysim/retrysim/fleet") {
		t.Fatalf("go list -deps = %q; want fleet among them", deps)
	}
	if slices.Contains(deps, "github.com/retrysim/retrysim/internal/scenario") {
		t.Error("internal/render reaches the scenario package")
	}
}

// A new series figure is one declaration too: appended to the fleet's
// series, it is in -series' csv and json and in the plot's legend.
func TestNewSeriesColumnIsOneDeclaration(t *testing.T) {
	saved := fleetSeries
	t.Cleanup(func() { fleetSeries = saved })
	fleetSeries = append(slices.Clip(fleetSeries), seriesColumn[fleetdata.Point]{"probe_rate", "probe line", func(fleetdata.Point) float64 { return 7.25 }})
	runs, cfgs := fleetRuns()
	for ext, want := range map[string]string{".csv": ",probe_rate\n", ".json": `"probe_rate": 7.25`} {
		var b bytes.Buffer
		if err := (FleetReport{Series: runs[0]}).report().writeSeries(&b, ext); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("the %s series lacks %q:\n%.300s", ext, want, b.String())
		}
	}
	var svg bytes.Buffer
	if err := PlotFleet(&svg, "probe", runs, cfgs, ".svg"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(svg.String(), ">probe line<"); n != len(runs) {
		t.Errorf("the plot's legend names the probe %d times; want once a run's panel, %d", n, len(runs))
	}
}

// probeGloss is the glossary entry of probe's column.
const probeGloss = "A figure only this test declares, to show that one declaration is enough."

// probe appends to *cs a column only a test declares, with a figure of
// 42.5 in [40.02, 44.98] and its own glossary entry, until the test ends.
func probe[R any](t *testing.T, cs *columns[R]) {
	saved := *cs
	t.Cleanup(func() { *cs = saved })
	*cs = append(slices.Clip(saved), column[R]{header: "Probe figure", key: "probe_figure", style: expectedCount,
		est:   func(R) schema.Estimate { return schema.Estimate{Value: 42.5, Lo: 40.02, Hi: 44.98} },
		gloss: probeGloss})
}

// The graph's and the workers' writers are the same over their own
// declarations: a column appended to either is in its table, markdown,
// csv and json (their pages draw plots of real runs, which the fleet's
// test above does without).
func TestNewColumnInEveryKind(t *testing.T) {
	for name, tc := range map[string]struct {
		add func(*testing.T)
		doc func() Runs
	}{
		"graph": {func(t *testing.T) { probe(t, &graphColumns) }, func() Runs {
			return GraphReport{Title: "g", Rows: []fleetdata.GraphRow{{Run: "r", Service: "s", Depth: 1}}}.report()
		}},
		"workers": {func(t *testing.T) { probe(t, &workersColumns) }, func() Runs { return WorkersReport{Title: "w", Rows: []fleetdata.WorkersRow{{Run: "r"}}}.report() }},
	} {
		t.Run(name, func(t *testing.T) {
			tc.add(t)
			for format, want := range map[string][]string{"table": {"Probe figure", "42.5 [40.0, 45.0]"}, "markdown": {"Probe figure", "42.5 [40.0, 45.0]"},
				"csv": {",probe_figure,probe_figure_lo,probe_figure_hi,", ",42.5,40.02,44.98,"}, "json": {`"probe_figure": 42.5,`}} {
				var b bytes.Buffer
				if err := lookup(t, FleetDoc, format).Runs(&b, tc.doc()); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				for _, w := range want {
					if !strings.Contains(b.String(), w) {
						t.Errorf("%s output lacks %q:\n%s", format, w, b.String())
					}
				}
			}
		})
	}
}
