package sim

import (
	"fmt"

	"github.com/retrysim/retrysim/delivery"

	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/scenariocheck"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// MaxShards is the most slices a run can be cut into.
const MaxShards = 1_000_000

// Check reports whether s names a slice: 0 <= Index < Count <= MaxShards.
func (s Shard) Check() error {
	if s.Count < 1 || s.Count > MaxShards || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("%d/%d is not a slice i/n with 0 <= i < n <= %d", s.Index, s.Count, MaxShards)
	}
	return nil
}

// CheckJobs refuses a job count outside [1, MaxJobs].
func CheckJobs(n int64) error {
	if n < 1 || n > MaxJobs {
		return fmt.Errorf("%d is not a whole number from 1 to %d", n, int64(MaxJobs))
	}
	return nil
}

// CheckAttempts refuses attempts outside [1, MaxAttempts].
func CheckAttempts(n int) error {
	if n < 1 || n > MaxAttempts {
		return fmt.Errorf("%d is not a whole number from 1 to %d", n, MaxAttempts)
	}
	return nil
}

// ParseEngine is the engine called name, as Engine.String names it.
func ParseEngine(name string) (Engine, error) {
	for _, e := range []Engine{Auto, Plain, Skip} {
		if e.String() == name {
			return e, nil
		}
	}
	return Auto, fmt.Errorf("unknown engine %q (want auto, plain or skip)", name)
}

// ShardConfig checks a shard and rebuilds the run it is a slice of, refusing what running that
// configuration would not write; it cannot rebuild a strategy that sets its own limits.
func ShardConfig(sh stats.Shard) (Config, error) {
	if err := sh.Check(); err != nil {
		return Config{}, err
	}
	for i := range sh.Rows { // by index: a Row's counters are 89 KB
		if r := &sh.Rows[i]; r.OwnStrategy {
			return Config{}, fmt.Errorf("rows[%d].own_strategy: %q is not a strategy.Retry, and a shard does not carry its code: merge its shards in the Go program that ran them (retrysim's Experiment.Merger)", i, r.Label)
		}
	}
	p := sh.Params // sh.Check has held jobs, probabilities and replicates to what a run writes
	if err := CheckAttempts(p.Attempts); err != nil {
		return Config{}, fmt.Errorf("attempts: %w", err)
	}
	gen, ok := rng.Lookup(p.RNG)
	if !ok {
		return Config{}, fmt.Errorf("rng: unknown generator %q (want one of %s)", p.RNG, rng.Names())
	}
	engine, err := ParseEngine(p.Engine)
	if err != nil {
		return Config{}, fmt.Errorf("engine: %w", err)
	}
	cfg := Config{
		Scenario: provider.Signup(p.PFail, p.LostReply), Jobs: p.Jobs, Seed: p.Seed,
		Generator: gen, Engine: engine, Shard: Shard{Index: sh.Index, Count: sh.Count},
	}
	if sh.Model != nil {
		if cfg.Scenario, cfg.Delivery, err = FromModel(*sh.Model); err != nil {
			return Config{}, fieldpath.Within("model", err)
		}
	}
	if err := cfg.Shard.Check(); err != nil {
		return Config{}, fmt.Errorf("shard_index, shard_count: %w", err)
	}
	switch {
	case p.Scenario != cfg.Scenario.Name:
		return Config{}, fmt.Errorf("scenario: %q, but the model is %q", p.Scenario, cfg.Scenario.Name)
	case p.Steps != len(cfg.Scenario.Steps):
		return Config{}, fmt.Errorf("steps: %d, but the %s scenario has %d", p.Steps, cfg.Scenario.Name, len(cfg.Scenario.Steps))
	case engine != cfg.EngineUsed():
		return Config{}, fmt.Errorf("engine: %s, but a run with %s draws with %s", engine, gen.Name, cfg.EngineUsed())
	}
	want := cfg.ShardJobs()
	for i := range sh.Rows {
		r := &sh.Rows[i]
		s, err := strategy.Parse(r.ID, p.Attempts)
		if err != nil {
			return Config{}, fmt.Errorf("rows[%d].strategy: %w", i, err)
		}
		if r.Label != s.Name() {
			return Config{}, fmt.Errorf("rows[%d].label: %q, but strategy %s is %q", i, r.Label, r.ID, s.Name())
		}
		if r.Jobs != want {
			return Config{}, fmt.Errorf("rows[%d].jobs: %d, but slice %d/%d of %d jobs holds %d", i, r.Jobs, sh.Index, sh.Count, p.Jobs, want)
		}
		if w := cfg.Scenario.Watched[0].Step; r.DuplicateUsers != r.TwiceByStep[w] {
			return Config{}, fmt.Errorf("rows[%d].duplicate_users: %d, but twice_by_step[%d] of the watched step is %d", i, r.DuplicateUsers, w, r.TwiceByStep[w])
		}
		cfg.Strategies = append(cfg.Strategies, s)
	}
	if err := cfg.check(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// ModelOf is the model a shard carries for a run of sc and, when not nil, q.
func ModelOf(sc provider.Scenario, q *delivery.Config) *stats.Model {
	m := &stats.Model{Name: sc.Name, Noun: sc.Noun}
	for _, st := range sc.Steps {
		m.Steps = append(m.Steps, modelStep(st))
	}
	for _, w := range sc.Watched {
		m.Watched = append(m.Watched, stats.ModelWatch{Step: w.Step, Label: w.Label})
	}
	if q != nil {
		m.Queue = modelQueue(*q)
	}
	return m
}

// FromModel rebuilds the scenario and delivery model (nil without a queue) of m, refusing what the
// flags and scenario files refuse, as a *schema.FieldError.
func FromModel(m stats.Model) (provider.Scenario, *delivery.Config, error) {
	sc := provider.Scenario{Name: m.Name, Noun: m.Noun}
	for i, st := range m.Steps {
		step, err := stepOf(st, fmt.Sprintf("steps[%d]", i))
		if err != nil {
			return sc, nil, err
		}
		sc.Steps = append(sc.Steps, step)
	}
	for _, w := range m.Watched {
		sc.Watched = append(sc.Watched, provider.Watch{Step: w.Step, Label: w.Label})
	}
	if err := scenariocheck.Scenario(sc); err != nil {
		return sc, nil, err
	}
	if m.Queue == nil {
		return sc, nil, nil
	}
	c, err := queueOf(m.Queue)
	if err != nil {
		return sc, nil, err
	}
	if err := c.Check(); err != nil {
		return sc, nil, fieldpath.Within("queue", err)
	}
	return sc, &c, nil
}
