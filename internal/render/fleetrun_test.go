package render

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetpreset"
)

// Presets lays a preset out as name, wrapped source, then what it runs
// with the duration and replicates taken from its fields; a name too long
// for the column gets a line of its own. The first preset that compares
// totals says how they are printed, a later one that it is printed as the
// first (with clients first when it varies them), a later one that prints
// runs as the first such, and a preset of spikes what its plot draws.
func TestPresets(t *testing.T) {
	ps := []fleetpreset.Preset[fleet.Config]{
		{Name: "short", Source: "a source", About: "Runs a and b", Duration: 80 * time.Second, Replicates: 10},
		{Name: "a-name-longer-than-18", Source: "s", About: "2 x 3 runs", Duration: 10 * time.Second, Replicates: 1},
		{Name: "totals", Source: "t", About: "4 runs", Totals: true, Duration: time.Second, Replicates: 1},
		{Name: "clients", Source: "c", About: "8 runs", Totals: true, ByClients: true, Duration: time.Second, Replicates: 1},
		{Name: "spikes", Source: "p", About: "2 runs", Spikes: true, Duration: time.Second, Replicates: 2},
	}
	want := "  short             a source.\n" +
		"                    Runs a and b; 1m20s and 10 replicates unless -duration or\n" +
		"                    -replicates say otherwise.\n" +
		"  a-name-longer-than-18\n" +
		"                    s.\n" +
		"                    2 x 3 runs, printed as short's; 10s and 1 replicate unless\n" +
		"                    -duration or -replicates say otherwise.\n" +
		"  totals            t.\n" +
		"                    " + indentWrap("4 runs; "+totalsPrints+"; 1s and 1 replicate unless -duration or -replicates say otherwise.", 60, "                    ") + "\n" +
		"  clients           c.\n" +
		"                    8 runs, printed as totals's with clients first; 1s and 1\n" +
		"                    replicate unless -duration or -replicates say otherwise.\n" +
		"  spikes            p.\n" +
		"                    2 runs, printed as short's; -plot draws recovery and\n" +
		"                    duplicates against the height, and html draws that picture\n" +
		"                    under the table instead of a run's series; 1s and 2\n" +
		"                    replicates unless -duration or -replicates say otherwise.\n"
	if got := Presets(ps); got != want {
		t.Errorf("Presets = \n%s; want\n%s", got, want)
	}
	// Presets that all print alike (a graph's, a worker fleet's) say
	// nothing of how they print.
	graphs := []fleetpreset.Preset[fleet.Graph]{{Name: "a", Source: "s", About: "Runs a", Duration: time.Second, Replicates: 1},
		{Name: "b", Source: "t", About: "Runs b", Duration: time.Second, Replicates: 2}}
	want = "  a                 s.\n                    Runs a; 1s and 1 replicate unless -duration or -replicates\n                    say otherwise.\n" +
		"  b                 t.\n                    Runs b; 1s and 2 replicates unless -duration or -replicates\n                    say otherwise.\n"
	if got := Presets(graphs); got != want {
		t.Errorf("Presets of graphs = \n%s; want\n%s", got, want)
	}
}

// FleetOutputs titles a run by what it ran, prints a preset that compares
// totals as totals with no series, and gives a run's series a row a second.
func TestFleetOutputs(t *testing.T) {
	cfg := fleet.Config{Name: "run", Duration: 3 * time.Second, Load: fleet.Shape{Kind: fleet.Constant, Rate: 5},
		Server: fleet.Server{Kind: fleet.Independent, Base: 100 * time.Millisecond}, Client: fleet.Client{Clients: 1, Timeout: 1 * time.Second, Attempts: 2}, Net: 10 * time.Millisecond}
	cfg.Server.PFail = 0.1
	failing := cfg
	failing.Server.PFail = 0.5
	cfgs := []fleet.Config{cfg, failing} // a totals plot's log axes want two failure rates above 0
	res, err := fleet.Run(context.Background(), cfgs, fleet.Options{Replicates: 2, Seed: 7, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		preset                fleetpreset.Preset[fleet.Config]
		title                 string
		seriesRows, plotBytes bool
	}{
		{fleetpreset.Preset[fleet.Config]{Name: "one run"}, "retrysim fleet: one run, 3s, 2 replicates ([lo, hi]: 95% intervals over them), seed 7; " +
			"shape constant, rate 5; server independent, base 100ms, p-fail 0.1; net 10ms; " +
			"clients 1, timeout 1s, attempts 2, backoff none, keys none; policy unlimited; hedges 0", true, true},
		{fleetpreset.Preset[fleet.Config]{Name: "t", Totals: true}, "retrysim fleet: t, 3s, 2 replicates (counts summed over them), seed 7", false, true},
	} {
		run := FleetRun{Preset: tc.preset, Replicates: 2, Seed: 7, Configs: cfgs, Results: res}
		if tc.preset.Name == "one run" {
			run.Configs, run.Results = cfgs[:1], res[:1]
		}
		out, series, plot, err := lookup(t, FleetDoc, "json").FleetOutputs(run, ".csv", ".svg")
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Title string }
		if err := json.Unmarshal(out, &doc); err != nil || doc.Title != tc.title {
			t.Errorf("%s: title %q (%v); want %q", tc.preset.Name, doc.Title, err, tc.title)
		}
		lines := strings.Count(string(series), "\n")
		if tc.seriesRows && lines != 1+len(run.Configs)*3 || !tc.seriesRows && lines != 0 {
			t.Errorf("%s: the series has %d lines; want a header and a row a run a second (%v)", tc.preset.Name, lines, tc.seriesRows)
		}
		if !strings.HasPrefix(string(plot), "<?xml") {
			t.Errorf("%s: the plot is not an svg: %.40q", tc.preset.Name, plot)
		}
		_, _, none, _ := lookup(t, FleetDoc, "csv").FleetOutputs(run, "", "")
		if len(none) != 0 {
			t.Errorf("%s: %d bytes of plot with no plot asked for", tc.preset.Name, len(none))
		}
	}
}

// The limits in the fleet command's -help are the library's words, each
// limit's bound wrapped under its column, no line over 80 columns (the
// hand-written block had lines of 81 to 90).
func TestFleetLimits(t *testing.T) {
	ls := FleetLimitList()
	got := FleetLimits(ls)
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if len(line) > 80 {
			t.Errorf("%d columns: %q", len(line), line)
		}
		if !strings.HasPrefix(line, "  ") || line[15] != ' ' || line[16] == ' ' {
			t.Errorf("not in the two columns: %q", line)
		}
	}
	var want []string
	for _, l := range ls {
		want = append(want, l.What)
		want = append(want, strings.Fields(l.Bound)...)
	}
	if w := strings.Fields(got); strings.Join(w, " ") != strings.Join(want, " ") {
		t.Errorf("words\n%s\nwant\n%s", strings.Join(w, " "), strings.Join(want, " "))
	}
}
