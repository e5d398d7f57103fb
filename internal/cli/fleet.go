package cli

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetpreset"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/scenarioref"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/schema"
)

// FleetRuns declares the flags of kind (fleet, or its sweep): -preset's
// presets, a flag a fleet setting (decl.Params, by its Key) and -outage; it
// parses args (-help printing help, filled with the presets and limits), and
// makes the runs, checked with the output files: the preset's, or one from
// the flags and -scenario ("one run").
func FleetRuns(kind string, args []string, help string, stdout, stderr io.Writer) (r *Run, p fleetpreset.Preset[fleet.Config], cfgs []fleet.Config, err error) {
	r = New(kind, Usages{
		Preset:     "run the runs of the preset `name` (listed above) instead of one run from the flags",
		Scenario:   "take the model's settings from the fleet section of this scenario `file` (keys named as the flags, with _ for -: server, capacity, policy, hedges, ...), which holds no job (steps, watched, queue); a flag it sets may not be given too",
		Duration:   "requests arrive for this `duration` of virtual time, 1s to 1h (a preset has its own)",
		Replicates: "a run is simulated with `r` independent seeds, 1 to 1000 (a preset has its own)",
		Series:     "also write the time series, a row a run a second, to `file` (.csv or .json)",
		Plot:       "also draw the time series to `file` (.png or .svg), a panel a run",
		Doc:        render.FleetDoc,
		Formats:    " (json also holds the series; html is one page with the series drawn)",
	}, 10)
	choosePresets(r, fleetpreset.Presets(), fleetpreset.LookupPreset)
	c := fleet.DefaultConfig() // the model flags write into it
	r.Duration = c.Duration
	r.FS.Lookup("duration").DefValue = human.Duration(r.Duration)
	for _, p := range decl.Params[fleet.Config]() {
		r.FS.Var(flagval.ParamVar(p, &c), p.Key, FleetWords(p.Usage))
	}
	var outage flagval.Window
	r.FS.Var(&outage, "outage", "the server fails or stalls every call arriving in this `window` from:to (20s:25s)")
	intro := fmt.Sprintf(help, render.Presets(fleetpreset.Presets()), render.FleetLimits(render.FleetLimitList()))
	if err := r.Parse(args, intro, fleetGroups(), stdout); err != nil {
		return r, p, nil, err
	}
	p = fleetpreset.Preset[fleet.Config]{Name: "one run"}
	if r.Preset.V != "" {
		p, _ = fleetpreset.LookupPreset(r.Preset.V)
		if err := flagval.Refuse(r.FS, FleetPresetRefuses); err != nil {
			return r, p, nil, err
		}
		if p.Totals && r.Given["series"] {
			return r, p, nil, flagval.Usage(fmt.Errorf("-series: -preset %s prints totals by failure rate and policy, with no time series", p.Name))
		}
		cfgs = p.Runs(r.fromPreset(p.Duration, p.Replicates))
	} else {
		c.Duration, c.Outage.From, c.Outage.To = r.Duration, outage.From, outage.To
		if r.Scenario != "" {
			if err := fleetScenario(r.FS, r.Scenario, &c); err != nil {
				return r, p, nil, err
			}
		}
		unread := decl.UnreadWhy[fleet.Config](c)
		if err := flagval.Refuse(r.FS, func(n string) string { p, _ := decl.LookupKey[fleet.Config](n); return FleetWords(unread[p.Path]) }); err != nil {
			return r, p, nil, err
		}
		cfgs = []fleet.Config{c}
	}
	if err := fleet.Check(cfgs, r.Options(stderr)); err != nil {
		return r, p, nil, flagval.Usage(FleetFlagError(err))
	}
	return r, p, cfgs, r.checkOutputs()
}

// FleetFamily is a kind of fleet runs: fleet's, or a sweep of it.
type FleetFamily = Family[fleet.Config, fleetdata.Replicate, fleet.Result]

// Fleet parses the flags of kind (fleet, or its sweep) into its run (as
// FleetRuns does), a replicate (of a point) an item.
func Fleet(kind string, args []string, help string, stdout, stderr io.Writer) (*shardrun.Work, error) {
	r, p, cfgs, err := FleetRuns(kind, args, help, stdout, stderr)
	if err != nil {
		return nil, err
	}
	opts := r.Options(stderr)
	f := FleetFamily{Kind: replicates.Fleet(), Runs: cfgs, Name: cmp.Or(render.Escaped(r.Scenario), p.Name)}
	if p.Totals && len(r.Reqs) > 0 {
		return nil, flagval.Usage(fmt.Errorf("-require: -preset %s prints totals by failure rate and policy, with no run's figures to judge", p.Name))
	}
	echo := make([]json.RawMessage, len(cfgs)) // the runs' settings as json's params object writes them
	for i, c := range cfgs {
		params, err := render.FleetParams(c)
		if err != nil {
			return nil, err
		}
		echo[i] = params
	}
	f.Echo = echo
	f.Grid = func(paths []string, points [][]string) ([]fleet.Config, error) {
		for _, path := range paths {
			p, ok := decl.LookupParam[fleet.Config](path)
			if !ok {
				p, ok = decl.LookupKey[fleet.Config](strings.ReplaceAll(path, "_", "-"))
			}
			if ok && r.Given[p.Key] {
				return nil, flagval.Usage(fmt.Errorf("-%s: -set %s varies it; give one of the two", p.Key, path))
			}
		}
		runs, err := fleetrun.SweepConfigs(cfgs, paths, points)
		if err == nil {
			err = fleet.Check(runs, opts)
		}
		return runs, err
	}
	f.Outputs = func(rr render.Renderer, res []fleet.Result, seriesExt, plotExt string) ([]byte, []byte, []byte, error) {
		return rr.FleetOutputs(render.FleetRun{Preset: p, Replicates: r.Replicates.V, Seed: uint64(r.Seed), Configs: cfgs, Results: res, ScenarioFile: r.Scenario}, seriesExt, plotExt)
	}
	return f.Work(r, stdout, stderr)
}

// fleetScenario sets the settings the fleet section of the scenario file at
// path gives in c, refusing a flag that sets the same thing.
func fleetScenario(fs *flag.FlagSet, path string, c *fleet.Config) error {
	loaded, err := scenario.LoadFleet(path)
	if err != nil {
		return flagval.Usage(fmt.Errorf("-scenario %w", err))
	}
	f := loaded.Fleet
	err = flagval.Refuse(fs, func(n string) string {
		if line, ok := f.Set[n]; ok {
			return fmt.Sprintf("%s:%d sets it too; drop one", path, line)
		}
		return ""
	})
	if err != nil {
		return err
	}
	if err := f.Apply(c); err != nil { // its settings named by path, as flags here
		msg := err.Error()
		if w, ok := err.(interface {
			Words(func(string) string) string
		}); ok {
			msg = w.Words(scenarioref.FleetFlag)
		}
		return flagval.Usage(fmt.Errorf("-scenario: %s", msg))
	}
	return nil
}

// fleetPresetRunFlags are the fleet command's flags that say how a
// preset's runs are run and printed; every other flag describes the model,
// which the preset sets.
var fleetPresetRunFlags = []string{"preset", "duration", "replicates", "seed", "format", "workers", "o", "width", "series", "plot", "shard", "set"}

// FleetPresetRefuses says why the flag called name may not go with a
// preset, or "" if it may: a preset sets the model, so only the flags that
// run and print it go with one.
func FleetPresetRefuses(name string) string {
	if slices.Contains(fleetPresetRunFlags, name) {
		return ""
	}
	return fmt.Sprintf("a preset sets the model; drop -%s or -preset", name)
}

// FleetFlagError is err in the command's words: a *schema.FieldError names
// the flag of its path (a decl.Param's Key, or the run's own flags), and
// the settings its message names by path are named as flags.
func FleetFlagError(err error) error {
	names := Names{"duration": "-duration", "outage.from": "-outage", "outage.to": "-outage", "replicates": "-replicates", "workers": "-workers"}
	for _, p := range decl.Params[fleet.Config]() {
		names[p.Path] = "-" + p.Key
	}
	return FlagError(err, names, func(fe *schema.FieldError) string { return pathtext.FieldWords(fe, scenarioref.FleetFlag) })
}

// fleetGroups are fleet -help's headings over its flags: the model's
// settings by what they set (the first word of their paths, the client's
// policy apart from the rest of the client), then every other flag, which
// run and replicates the command makes and where its output goes.
func fleetGroups() []flagval.Group {
	groups := []flagval.Group{{Title: "The load"}, {Title: "The server"}, {Title: "The client"},
		{Title: "The client's policy (-policy and the settings of each)"}, {Title: "The run and its output"}}
	groups[0].Flags = []string{"duration"}
	for _, p := range decl.Params[fleet.Config]() {
		if p.Path == "outage.mode" {
			groups[0].Flags = append(groups[0].Flags, "outage")
		}
		k := 2
		switch {
		case strings.HasPrefix(p.Path, "load.") || strings.HasPrefix(p.Path, "outage."):
			k = 0
		case strings.HasPrefix(p.Path, "server.") || p.Path == "net":
			k = 1
		case strings.HasPrefix(p.Path, "client.policy."):
			k = 3
		}
		groups[k].Flags = append(groups[k].Flags, p.Key)
	}
	return groups
}

// FleetWords is a fleet text (a Param's Usage, a reason Unread gives) with
// each setting it names by path named as its flag.
func FleetWords(t pathtext.Text) string { return t.Words(scenarioref.FleetFlag) }
