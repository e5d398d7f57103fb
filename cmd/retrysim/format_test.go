package main

import (
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/render"
)

// Every command's -format takes the formats of render's one table that write
// its document and lists exactly those in -help and in its error.
func TestFormatsComeFromTheRegistry(t *testing.T) {
	for _, tt := range []struct {
		cmd []string
		doc render.Doc
	}{
		{nil, render.ReportDoc}, {[]string{"table"}, render.ReportDoc}, {[]string{"merge"}, render.ReportDoc},
		{[]string{"sweep"}, render.SweepDoc}, {[]string{"fleet"}, render.FleetDoc}, {[]string{"race"}, render.RaceDoc},
	} {
		names := strings.Join(render.Names(tt.doc), ", ")
		_, errOut, code := retrysim(t, append(tt.cmd, "-format", "xml")...)
		want := `retrysim: -format: unknown format "xml" (want one of ` + names + ")\n"
		if code != 2 || errOut != want {
			t.Errorf("%q -format xml: exit %d, stderr %q; want 2 and %q", tt.cmd, code, errOut, want)
		}
		help, _, _ := retrysim(t, append(tt.cmd, "-help")...)
		help = unwrapHelp(help)
		if !strings.Contains(help, "output format: "+names) {
			t.Errorf("%q -help does not list the formats %s:\n%s", tt.cmd, names, help)
		}
	}
}
