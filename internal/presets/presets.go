// Package presets holds the job model's presets: fixed sets of cases the
// command runs instead of a comparison of strategies (its -preset).
package presets

import (
	"context"
	"fmt"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/sqlitecheck"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/strategy"
)

// Preset is a fixed set of cases run instead of a comparison of strategies, each case a
// retrysim.Experiment and a row of the report.
type Preset struct {
	Name string
	// Doc says what the preset runs, for a command's help.
	Doc string
	// Run runs the preset's cases.
	Run func(ctx context.Context, p PresetRun) (stats.Cases, error)
}

// PresetRun is what a preset takes from its caller.
type PresetRun struct {
	Jobs     int64
	Attempts int
	Seed     uint64
	// Generator, Engine and Workers are as in retrysim.Experiment.
	Generator, Engine string
	Workers           int
}

// Reads are the settings a preset takes from its caller, by their Experiment paths; a command
// refuses any other.
func (p Preset) Reads() []string {
	return []string{"jobs", "attempts", "seed", "generator", "engine", "workers"}
}

// Presets are the presets in help's order, a new slice each call.
func Presets() []Preset {
	return []Preset{{
		Name: "sqlite-check",
		Doc:  "the SQLite check's cases, forced, and the lease fix",
		Run:  sqliteCheck,
	}}
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset, error) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, nil
		}
	}
	return Preset{}, fmt.Errorf("unknown preset %q (want sqlite-check)", name)
}

// sqliteCheck runs the SQLite check's cases, each forced, with a per-step retry, then with the
// lease store: a row a case and one for the lease fix.
func sqliteCheck(ctx context.Context, r PresetRun) (stats.Cases, error) {
	cases := sqlitecheck.Cases()
	retry := strategy.Retry{Scope: strategy.EachStep, Attempts: r.Attempts}
	var counters []stats.Counters
	generator := ""
	for _, lease := range []bool{false, true} {
		for _, k := range cases {
			q := k.Config
			if lease {
				q.Store = delivery.Lease
			}
			e := retrysim.Experiment{Scenario: sqlitecheck.Charge(), Strategies: []strategy.Strategy{retry}, Jobs: r.Jobs, Seed: r.Seed,
				Generator: r.Generator, Engine: r.Engine, Delivery: &q, Workers: r.Workers}
			rep, err := retrysim.Run(ctx, e)
			if err != nil {
				return stats.Cases{}, err
			}
			counters = append(counters, jobapi.Results(rep, false, false).Rows[0].Counters)
			generator = rep.Experiment.Generator
		}
	}
	out := stats.Cases{Title: fmt.Sprintf("The SQLite idempotency check, forced: %s a case, one step (a charge), up to %s; %s, seed %d",
		human.Count(r.Jobs, "job"), human.Count(int64(r.Attempts), "attempt"), generator, r.Seed)}
	fix := stats.CaseRow{Case: "the lease fix, in every case above", Store: "lease",
		Meaning: "status, release, takeover, done committed with the work, keys kept past the retries"}
	for i, k := range cases {
		out.Rows = append(out.Rows, stats.CaseRow{Case: k.Name, Store: k.Config.Store.String(), Meaning: k.Meaning, Counters: counters[i]})
		fix.Counters.Add(&counters[len(cases)+i])
	}
	out.Rows = append(out.Rows, fix)
	return out, nil
}
