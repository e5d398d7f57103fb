package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/scenario"
	"github.com/retrysim/retrysim/schema"
)

var fleetIntro = `retrysim fleet simulates many clients calling one server in virtual time, where
retries add load, load adds latency, and latency causes more timeouts and
retries. It prints a row a run (means over replicates with 95% Student t
intervals) and, with -series and -plot, the runs' time series, a row a second.

Usage: retrysim fleet [flags]

Example: retrysim fleet -preset brooker-collapse

Presets (a preset sets the model: no model flag goes with it):
` + render.FleetPresets(fleet.Presets()) + `
Limits (checked before any work):
` + render.FleetLimits(render.FleetLimitList()) + `
Flags:
`

// fleetCommand runs the fleet model: flags, then fleet.Run, then a renderer.
func fleetCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flagval.NewFlagSet("retrysim fleet")
	c := fleet.DefaultConfig() // the model flags write into it
	var (
		preset       flagval.Choice
		seed         flagval.Seed = 1
		workers                   = flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096}
		replicates                = flagval.Bounded{V: 10, Lo: 1, Hi: fleet.MaxReplicates}
		outage       flagval.Window
		o            flagval.Output
		series, plot string
		scenPath     string
		shard        flagval.Shard
	)
	preset.Valid = func(s string) error { _, err := fleet.LookupPreset(s); return err }
	preset.Names = presetNames(fleet.Presets(), func(p fleet.Preset) string { return p.Name })
	fs.Var(&preset, "preset", "run the runs of the preset `name` (listed above) instead of one run from the flags")
	fs.Var(flagval.DurationVar(&c.Duration), "duration", "requests arrive for this `duration` of virtual time, 1s to 1h (a preset has its own)")
	fs.Var(&replicates, "replicates", "a run is simulated with `r` independent seeds, 1 to 1000 (a preset has its own)")
	fs.Var(&seed, "seed", "random `seed`; the same flags and seed print the same bytes")
	o.Register(fs, render.FleetDoc, " (json also holds the series; html is one page with the series drawn)", "")
	fs.Var(&workers, "workers", fmt.Sprintf("parallel `workers`, each simulating replicates, %d to %d; the output does not depend on it", workers.Lo, workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS" // not this machine's count
	fs.StringVar(&series, "series", "", "also write the time series, a row a run a second, to `file` (.csv or .json)")
	fs.StringVar(&plot, "plot", "", "also draw the time series to `file` (.png or .svg), a panel a run")
	for _, p := range fleet.Params() {
		fs.Var(flagval.ParamVar(p, &c), p.Key, fleetWords(p.Usage))
	}
	fs.Var(&outage, "outage", "the server fails or stalls every call arriving in this `window` from:to (20s:25s)")
	fs.StringVar(&scenPath, "scenario", "", "take the model's settings from the fleet section of this scenario `file` (keys named as the flags, with _ for -: server, capacity, policy, hedges, ...), which holds no job (steps, watched, queue); a flag it sets may not be given too")
	fs.Var(&shard, "shard", "run slice `i/n` of the replicates (0 <= i < n), or auto/n or auto (index, and count, from the environment, as retrysim fleet-map -help says), and write it as a shard for retrysim merge")
	if err := flagval.ParseGrouped(fs, args, fleetIntro, fleetGroups(), stdout); err != nil {
		return err
	}
	var cfgs []fleet.Config
	p := fleet.Preset{Name: "one run"}
	if preset.V != "" {
		p, _ = fleet.LookupPreset(preset.V)
		if err := flagval.Refuse(fs, fleetPresetRefuses); err != nil {
			return err
		}
		given := flagval.Given(fs)
		if p.Totals && given["series"] {
			return flagval.Usage(fmt.Errorf("-series: -preset %s prints totals by failure rate and policy, with no time series", p.Name))
		}
		duration := c.Duration
		if !given["duration"] {
			duration = p.Duration
		}
		if !given["replicates"] {
			replicates.V = p.Replicates
		}
		cfgs = p.Runs(duration)
	} else {
		c.Outage.From, c.Outage.To = outage.From, outage.To
		if scenPath != "" {
			if err := fleetScenario(fs, scenPath, &c); err != nil {
				return err
			}
		}
		if c.Client.Backoff.Cap == 0 { // from a flag or the file
			c.Client.Backoff.Cap = fleet.NoCap
		}
		unread := c.UnreadWhy()
		if err := flagval.Refuse(fs, func(n string) string { return fleetWords(unread[fleetPath(n)]) }); err != nil {
			return err
		}
		cfgs = []fleet.Config{c}
	}
	opts := fleet.Options{Replicates: replicates.V, Seed: uint64(seed), Workers: workers.V, Progress: outfile.Progress(stderr, "fleet")}
	if err := fleet.Check(cfgs, opts); err != nil {
		return flagval.Usage(fleetFlagError(err))
	}
	if err := render.CheckFleetFiles(series, plot); err != nil {
		return flagval.Usage(err)
	}
	seriesF, plotF := outfile.File{Flag: "series", Path: series}, outfile.File{Flag: "plot", Path: plot}
	if err := outfile.CheckReading("scenario file", scenPath, o.Out, seriesF, plotF); err != nil {
		return flagval.Usage(err)
	}

	if shard.Count > 0 {
		if series != "" || plot != "" {
			return flagval.Usage(fmt.Errorf("-shard: a shard writes no -series or -plot; give them to retrysim merge"))
		}
		if err := refuseInShard(fs, "format", "width"); err != nil {
			return err
		}
		return writeFleetShard(ctx, stdout, shard.Index, shard.Count, shardSettings(fs, args), cfgs, opts, o.Out)
	}
	res, err := fleetResults(ctx, cfgs, opts)
	if err != nil {
		return err
	}
	run := render.FleetRun{Preset: p, Replicates: replicates.V, Seed: uint64(seed), Configs: cfgs, Results: res, ScenarioFile: scenPath}
	main, ser, pic, err := o.Renderer(stdout).FleetOutputs(run, filepath.Ext(series), filepath.Ext(plot))
	if err != nil {
		return err
	}
	outs := []outfile.Output{{File: o.Out, Data: main}}
	if series != "" {
		outs = append(outs, outfile.Output{File: seriesF, Data: ser})
	}
	if plot != "" {
		outs = append(outs, outfile.Output{File: plotF, Data: pic})
	}
	return outfile.WriteAll(ctx, stdout, outs...)
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
			msg = w.Words(fleetFlag)
		}
		return flagval.Usage(fmt.Errorf("-scenario: %s", msg))
	}
	return nil
}

// fleetPresetRunFlags are the fleet command's flags that say how a
// preset's runs are run and printed; every other flag describes the model,
// which the preset sets.
var fleetPresetRunFlags = []string{"preset", "duration", "replicates", "seed", "format", "workers", "o", "width", "series", "plot", "shard"}

// fleetPresetRefuses says why the flag called name may not go with a
// preset, or "" if it may: a preset sets the model, so only the flags that
// run and print it go with one.
func fleetPresetRefuses(name string) string {
	if slices.Contains(fleetPresetRunFlags, name) {
		return ""
	}
	return fmt.Sprintf("a preset sets the model; drop -%s or -preset", name)
}

// fleetFlags are the flags of the fleet settings no fleet.Param holds, by
// their paths (fleet.FieldError's); a Param's flag is its Key.
var fleetFlags = map[string]string{
	"duration": "duration", "outage.from": "outage", "outage.to": "outage",
	"replicates": "replicates", "workers": "workers",
}

// fleetFlagError is err in the command's words: a *fleet.FieldError names
// the flag of its path, and the settings its message names by path are
// named as flags.
func fleetFlagError(err error) error {
	var fe *fleet.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	flag, ok := fleetFlags[fe.Field]
	if p, found := fleet.LookupParam(fe.Field); found {
		flag, ok = p.Key, true
	}
	if !ok {
		return err
	}
	return fmt.Errorf("-%s: %s", flag, fe.Words(fleetFlag))
}

// fleetPath is the path of the fleet setting whose flag is flag, "" for a
// flag that is no fleet.Param.
func fleetPath(flag string) string {
	p, _ := fleet.LookupKey(flag)
	return p.Path
}

// fleetGroups are fleet -help's headings over its 68 flags: the model's
// settings by what they set (the first word of their paths, the client's
// policy apart from the rest of the client), then every other flag, which
// run and replicates the command makes and where its output goes.
func fleetGroups() []flagval.Group {
	groups := []flagval.Group{{Title: "The load"}, {Title: "The server"}, {Title: "The client"},
		{Title: "The client's policy (-policy and the settings of each)"}, {Title: "The run and its output"}}
	groups[0].Flags = []string{"duration"}
	for _, p := range fleet.Params() {
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

// fleetWords is a fleet text (a Param's Usage, a reason Unread gives) with
// each setting it names by path named as its flag.
func fleetWords(t schema.Text) string { return t.Words(fleetFlag) }

// fleetFlag is the flag of the fleet setting at path (-budget-ratio for
// client.policy.budget_ratio), from its declaration; a path no fleet.Param
// declares is named as it is.
func fleetFlag(path string) string {
	if p, ok := fleet.LookupParam(path); ok {
		return "-" + p.Key
	}
	return path
}
