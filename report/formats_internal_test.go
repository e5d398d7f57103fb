package report

import (
	"slices"
	"testing"

	"github.com/retrysim/retrysim/internal/render"
)

// TestFormatsAreTheRegistrys holds the document formats Format declares
// (all but the images) to the command's registry of formats: every
// document this package writes is offered in exactly these formats, in
// this order, so that a format added there is seen here.
func TestFormatsAreTheRegistrys(t *testing.T) {
	var want []string
	for _, f := range []Format{Table, Markdown, CSV, JSON, HTML} {
		want = append(want, string(f))
	}
	for name, d := range map[string]render.Doc{"report": render.ReportDoc, "sweep": render.SweepDoc, "fleet": render.FleetDoc,
		"fleet totals": render.TotalsDoc, "cases": render.CasesDoc} {
		if got := render.Names(d); !slices.Equal(got, want) {
			t.Errorf("the registry writes a %s as %q; Formats are %q", name, got, want)
		}
	}
}
