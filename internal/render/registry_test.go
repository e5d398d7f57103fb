package render

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/raceresult"
	"github.com/retrysim/retrysim/internal/stats"
)

// lookup is the format name for d, failing the test if there is none.
func lookup(t *testing.T, d Doc, name string) Renderer {
	t.Helper()
	r, err := Lookup(d, name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Each document offers the formats that write it, in the table's order, and
// an unknown name's error lists exactly those: race has no html page, every
// other document has one.
func TestRegistryNames(t *testing.T) {
	text := []string{"table", "markdown", "csv", "json"}
	page := append(slices.Clone(text), "html")
	for _, tt := range []struct {
		doc  Doc
		want []string
	}{
		{ReportDoc, page}, {SweepDoc, page}, {FleetDoc, page}, {CasesDoc, page}, {TotalsDoc, page},
		{RaceDoc, text},
	} {
		if got := Names(tt.doc); !slices.Equal(got, tt.want) {
			t.Errorf("Names(%d) = %q; want %q", tt.doc, got, tt.want)
		}
		_, err := Lookup(tt.doc, "xml")
		want := `unknown format "xml" (want one of ` + strings.Join(tt.want, ", ") + ")"
		if err == nil || err.Error() != want {
			t.Errorf("Lookup(%d, xml) = %v; want %s", tt.doc, err, want)
		}
	}
}

// Every format a document offers writes it, and Raw and Page say which
// formats carry every number and which write a page.
func TestRegistryWrites(t *testing.T) {
	m, err := stats.LookupMetric("failed_rate")
	if err != nil {
		t.Fatal(err)
	}
	c := stats.Counters{Jobs: 4, Failed: 1, Calls: 6}
	rep := stats.Report{Params: stats.Params{Scenario: "s", Steps: 1, Jobs: 4, Attempts: 1, Replicates: 1}, Rows: []stats.Row{{ID: "a", Counters: c}}}
	sw := stats.Sweep{Scenario: "s", Metric: m, Strategies: []string{"a"}, Rows: []stats.SweepRow{{ID: "a", Core: stats.CoreOf(&c)}}}
	fl := FleetReport{Title: "f", Rows: []fleetdata.RunRow{{Run: "r", Replicates: 1}}}
	for _, d := range []Doc{ReportDoc, SweepDoc, FleetDoc, TotalsDoc, CasesDoc, RaceDoc} {
		for _, name := range Names(d) {
			r := lookup(t, d, name)
			if r.Name() != name {
				t.Errorf("Lookup(%d, %q).Name() = %q", d, name, r.Name())
			}
			if raw := name == "csv" || name == "json"; r.Raw() != raw {
				t.Errorf("%s: Raw() = %v; want %v", name, r.Raw(), raw)
			}
			if r.Page() != (name == "html") {
				t.Errorf("%s: Page() = %v; want %v", name, r.Page(), name == "html")
			}
			var b bytes.Buffer
			switch d {
			case ReportDoc:
				err = r.Report(&b, rep)
			case SweepDoc:
				err = r.Sweep(&b, sw, PlotOptions{})
			case FleetDoc:
				err = r.Runs(&b, fl.report())
			case TotalsDoc:
				err = r.Runs(&b, TotalsReport{Title: "t", Rows: []fleetdata.Totals{{Run: "r", FailureRate: 0.1, Requests: 2, Succeeded: 1, Calls: 3}}})
			case CasesDoc:
				err = r.Cases(&b, stats.Cases{Title: "t", Rows: []stats.CaseRow{{Case: "c", Counters: c}}})
			case RaceDoc:
				err = r.Race(&b, "t", []raceresult.Row{{Mode: "m", Races: 2}})
			}
			if err != nil || b.Len() == 0 {
				t.Errorf("%s writes doc %d: %v, %d bytes; want some bytes", name, d, err, b.Len())
			}
		}
	}
	html := lookup(t, ReportDoc, "html")
	if err := html.Race(&bytes.Buffer{}, "t", nil); err == nil {
		t.Error("html.Race = nil; want an error: html writes no race page")
	}
}
