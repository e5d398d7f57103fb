package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/render"
)

// Every flag a limit of the fleet command's -help names is one of the fleet command's
// flags, or a prefix of some (-bucket-*): a renamed flag fails here, not in
// -help.
func TestFleetLimitsNameFlags(t *testing.T) {
	help, _, code := retrysim(t, "fleet", "-help")
	help = unwrapHelp(help)
	if code != 0 {
		t.Fatalf("fleet -help: exit %d", code)
	}
	var names []string
	for _, e := range helpEntries(help) {
		names = append(names, e.name)
	}
	for _, l := range render.FleetLimitList() {
		for _, w := range strings.Fields(l.What + " " + l.Bound) {
			w = strings.Trim(w, "(),;")
			if !strings.HasPrefix(w, "-") {
				continue
			}
			name := strings.TrimPrefix(w, "-")
			if p, ok := strings.CutSuffix(name, "*"); ok {
				if !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, p) }) {
					t.Errorf("%s: no flag starts -%s", l.What, p)
				}
			} else if !slices.Contains(names, name) {
				t.Errorf("%s: -%s is no flag", l.What, name)
			}
		}
	}
}

// With a preset, the fleet command takes only the flags that run and print
// it, refusing one that describes the model, and a preset printing totals
// refuses -series.
func TestFleetPresetRefuses(t *testing.T) {
	for _, f := range []string{"preset", "duration", "replicates", "seed", "format", "workers", "o", "series", "plot"} {
		if r := cli.FleetPresetRefuses(f); r != "" {
			t.Errorf("-%s refused: %s", f, r)
		}
	}
	for _, f := range []string{"clients", "policy", "scenario", "outage"} {
		if r, want := cli.FleetPresetRefuses(f), "a preset sets the model; drop -"+f+" or -preset"; r != want {
			t.Errorf("-%s: %q, want %q", f, r, want)
		}
	}
	_, errOut, code := retrysim(t, "fleet", "-preset", "brooker-retries", "-series", "x.csv")
	if want := "retrysim: -series: -preset brooker-retries prints totals by failure rate and policy, with no time series\n"; code != 2 || errOut != want {
		t.Errorf("fleet -preset brooker-retries -series: exit %d, %q; want 2, %q", code, errOut, want)
	}
}
