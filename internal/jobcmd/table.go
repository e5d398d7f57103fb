// Package jobcmd is the job model's commands (the table, its sweep, the
// merge of the table's shards) from flags to outputs; -help texts are the
// command's.
package jobcmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/presets"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/tune"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// Table prints the table, or with -shard a slice of it for merge; help is
// its -help text.
func Table(ctx context.Context, args []string, help string, stdout, stderr io.Writer) error {
	j := newJobFlags("table", cli.Usages{Doc: render.ReportDoc, Scenario: "read the steps (and the queue, if the file has one) from a YAML `file`, a regular file of at most 1 MiB, with no fleet section (that is for retrysim fleet); flags override it; see examples/",
		Shard: "run only slice `i/n` (0 <= i < n) of the jobs (auto/n or auto: i, and n, from the environment, as retrysim fleet-map -help says) and write its raw counters as json, for retrysim merge; with -scenario and the delivery model too, the file carrying the scenario and the queue"})
	fs, jobs := j.FS, flagval.Count(1_000_000)
	attempts := flagval.Bounded{V: 3, Lo: 1, Hi: sim.MaxAttempts}
	var expect bool
	fs.Var(&jobs, "jobs", "simulate `n` jobs, 1 to 10^12 (1e6 and 1_000_000 work too)")
	fs.Var(&attempts, "attempts", "calls a retry allows, the first included (`n` from 1 to 1000)")
	fs.BoolVar(&expect, "expect", false, "show each strategy's closed-form expectations and z-scores")
	preset := flagval.Choice{Valid: func(s string) error { _, err := presets.LookupPreset(s); return err }}
	for _, p := range presets.Presets() {
		preset.Names = append(preset.Names, p.Name)
	}
	fs.Var(&preset, "preset", "run the preset `name` instead of the strategies: sqlite-check (the SQLite check's cases, forced, and the lease fix); it reads only -jobs, -attempts, -seed, -rng, -engine, -workers, -format, -o and -width")
	if err := j.Parse(args, help, nil, stdout); err != nil {
		return err
	}
	if err := outfile.CheckReading("scenario file", []string{j.Scenario}, j.O.Out); err != nil {
		return flagval.Usage(err)
	}
	if j.Shard.Count > 0 {
		if err := flagval.Refuse(fs, shardRefuses); err != nil {
			return err
		}
	}
	if preset.V != "" {
		p, _ := presets.LookupPreset(preset.V)
		if err := flagval.Refuse(fs, presetRefuses(p)); err != nil {
			return err
		}
		cases, err := p.Run(ctx, presets.PresetRun{Jobs: int64(jobs), Attempts: attempts.V, Seed: uint64(j.Seed),
			Generator: j.rng.V, Engine: j.engine.String(), Workers: j.Workers.V})
		if err != nil {
			return flagval.LibraryError(err)
		}
		return j.O.Out.Render(ctx, stdout, func(w io.Writer) error { return j.O.Renderer(stdout).Cases(w, cases) })
	}
	file, sc, queue, err := j.load()
	if err != nil {
		return err
	}
	settings := flagval.GivenSettings(fs, queue != nil)
	if sc, queue, err = api.Override(sc, queue, settings...); err != nil {
		return flagval.LibraryError(err)
	}
	e := api.Experiment{Scenario: sc, Jobs: int64(jobs), Seed: uint64(j.Seed),
		Generator: j.rng.V, Engine: j.engine.String(), Delivery: queue, Replicates: j.Replicates.V, Workers: j.Workers.V,
		Progress: outfile.Progress(stderr, "retrysim")}
	*jobapi.ScenarioFile(&e) = j.Scenario
	e.Strategies, _ = api.ParseStrategies(j.strategies, attempts.V) // -strategies and -attempts have checked them
	unread := flagval.UnreadFlags(jobapi.Unread(e))
	overrides := ""
	if file != nil {
		overrides = flagval.Overrides(fs, queue != nil, unread)
	}
	if err := j.refuseUnread(file, unread, queue != nil, e); err != nil {
		return err
	}
	if err := jobapi.CheckExpect(expect, queue != nil); err != nil {
		return flagval.LibraryError(err)
	}
	if err := shardrun.CheckRequire(j.Reqs, tune.Metrics(jobapi.Watches(e.Scenario), queue != nil), jobapi.RowIDs(e.Strategies)); err != nil {
		return err
	}
	if j.Shard.Count > 0 {
		shard, err := jobapi.RunShard(ctx, e, j.Shard.Index, j.Shard.Count)
		if err != nil {
			return flagval.LibraryError(err)
		}
		shard.Overrides = overrides
		return j.O.Out.Render(ctx, stdout, func(w io.Writer) error { return reportjson.WriteIndented(w, shard) })
	}
	if err := e.Check(); err != nil {
		return flagval.LibraryError(err)
	}
	warning := ""
	if queue != nil {
		warning = queue.Warning(sc, e.Strategies)
	}
	warnKeysInVain(stderr, j.Scenario, sc, j.strategies, e.Strategies, warning)
	rep, err := api.Run(ctx, e)
	if err != nil {
		return err
	}
	out := jobapi.Results(rep, j.ci, expect)
	out.Overrides = overrides
	if err := j.O.Out.Render(ctx, stdout, func(w io.Writer) error { return j.O.Renderer(stdout).Report(w, out) }); err != nil {
		return err
	}
	return tune.Enforce(j.Reqs, tune.ReportRows(out))
}

// jobFlags are the flags the table and its sweep share, as parsed: the
// driver's (cli.Run's) and the job model's own.
type jobFlags struct {
	*cli.Run
	rng        flagval.Choice
	strategies []string
	engine     sim.Engine
	ci         bool
	model      flagval.Model
}

// newJobFlags registers the shared flags on a new flag set of the command
// kind, u saying those that are the command's own (-scenario, -shard,
// -plot and -format's doc), and the settings' flags but except's.
func newJobFlags(kind string, u cli.Usages, except ...string) *jobFlags {
	u.RequireRow, u.Workers = "strategy's", "parallel `workers`, %d to %d; the output does not depend on it"
	u.Replicates = "run `r` independent seeds derived from -seed (1 to 10000) and show, under each row, each column's mean over them with the mean's 95% Student t interval"
	j := &jobFlags{Run: cli.New(kind, u, 1), rng: flagval.Choice{V: rng.Generators()[0].Name, Valid: flagval.ValidRNG}, strategies: strategy.DefaultIDs()}
	j.Replicates.Hi = jobapi.MaxReplicates
	fs := j.FS
	gens := make([]string, len(rng.Generators()))
	for i, g := range rng.Generators() {
		gens[i] = fmt.Sprintf("%s: %s", g.Name, g.Doc)
	}
	fs.Var(&j.rng, "rng", "random `generator`: "+strings.Join(gens, "; "))
	fs.Var(flagval.StrategiesVar(&j.strategies), "strategies", "comma-separated strategy `names`, each once, each scope-keys[-skip] with scope step or job and keys nokey, newkey or samekey")
	fs.Var(flagval.NameVar(&j.engine, sim.ParseEngine, sim.Engine.String), "engine", "the `engine` that draws the jobs: auto (skip where allowed), plain (every draw of every job), or skip (only the jobs where something happens; not with mulberry32)")
	fs.BoolVar(&j.ci, "ci", false, "show 95% intervals in the table (csv and json always carry them)")
	j.model.RegisterModel(fs)
	flagval.RegisterSettings(fs, except...)
	return j
}

// load reads -scenario (nil for none) with -model applied, or the sign-up.
func (j *jobFlags) load() (*scenario.Loaded, provider.Scenario, *delivery.Config, error) {
	sc, queue := api.DefaultScenario(), (*delivery.Config)(nil)
	if j.Scenario == "" {
		sc, queue = j.model.Apply(sc, queue)
		return nil, sc, queue, nil
	}
	file, err := scenario.LoadJob(j.Scenario)
	if err != nil {
		return nil, sc, nil, flagval.Usage(fmt.Errorf("-scenario %w", err))
	}
	sc, queue = j.model.Apply(file.Scenario, file.Queue)
	return &file, sc, queue, nil
}

// refuseUnread refuses, in a run of e over file (nil: the sign-up), a flag
// or a file's queue key the run never reads (unread, by flag), and a step's
// own policy no strategy reads.
func (j *jobFlags) refuseUnread(file *scenario.Loaded, unread map[string]string, queue bool, e api.Experiment) error {
	if err := flagval.Refuse(j.FS, func(n string) string { return unread[n] }); err != nil || file == nil {
		return err
	}
	err := file.CheckRead(func(setting string) string {
		if f := flagval.FlagOf(setting); queue && !j.Given[f] {
			return unread[f]
		}
		return ""
	})
	if err == nil {
		err = file.CheckStepsRead(func(i int) (string, string) { return jobapi.UnreadStepPolicy(e.Scenario, e.Strategies, i) })
	}
	if err != nil {
		return flagval.Usage(fmt.Errorf("-scenario %w", err))
	}
	return nil
}

// presetRefuses says why the flag called name may not go with the preset
// p, or "" if it may (-preset, its Reads' flags, and the output flags).
func presetRefuses(p presets.Preset) func(name string) string {
	return func(name string) string {
		var reads []string
		for _, s := range p.Reads() {
			reads = append(reads, flagval.FlagOf(s))
		}
		reads = append(reads, "format", "o", "width")
		if name == "preset" || slices.Contains(reads, name) {
			return ""
		}
		return fmt.Sprintf("-preset %s runs its own fixed cases and reads only -%s", p.Name, strings.Join(reads, ", -"))
	}
}

// shardRefuses says why, with -shard, a flag that belongs to merge is refused.
func shardRefuses(name string) string {
	switch name {
	case "ci", "expect", "format", "width":
		return fmt.Sprintf("-shard writes raw json for merge; give -%s to retrysim merge instead", name)
	case "require":
		return shardrun.NoRequire
	}
	return ""
}
