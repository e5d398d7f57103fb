package sim

import (
	"fmt"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/stats"
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

// ShardConfig checks a shard (stats.Shard.Check) and rebuilds the run it is
// a slice of: the built-in sign-up at its rates, with its generator, engine,
// seed and strategies. The shard must be what running that configuration
// writes: parameters valid as the flags take them (provider.CheckProbability,
// CheckJobs, CheckAttempts, rng.Lookup, ParseEngine, strategy.Parse,
// Shard.Check), the engine as the run resolves it, each row labelled as its
// strategy, and each row's jobs those of the slice (Config.ShardJobs).
func ShardConfig(sh stats.Shard) (Config, error) {
	if err := sh.Check(); err != nil {
		return Config{}, err
	}
	p := sh.Params
	for _, f := range []struct {
		name string
		p    float64
	}{{"p_fail", p.PFail}, {"lost_reply", p.LostReply}} {
		if err := provider.CheckProbability(f.p); err != nil {
			return Config{}, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if err := CheckJobs(p.Jobs); err != nil {
		return Config{}, fmt.Errorf("jobs: %w", err)
	}
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
	if err := cfg.Shard.Check(); err != nil {
		return Config{}, fmt.Errorf("shard_index, shard_count: %w", err)
	}
	switch {
	case p.Scenario != cfg.Scenario.Name || p.File != "":
		return Config{}, fmt.Errorf("scenario: %q from %q, but shards hold the built-in %s only", p.Scenario, p.File, cfg.Scenario.Name)
	case p.Steps != len(cfg.Scenario.Steps):
		return Config{}, fmt.Errorf("steps: %d, but the %s scenario has %d", p.Steps, cfg.Scenario.Name, len(cfg.Scenario.Steps))
	case p.Replicates != 1:
		return Config{}, fmt.Errorf("replicates: %d, but a shard holds one replicate", p.Replicates)
	case engine != cfg.EngineUsed():
		return Config{}, fmt.Errorf("engine: %s, but a run with %s draws with %s", engine, gen.Name, cfg.EngineUsed())
	}
	want := cfg.ShardJobs()
	for i, r := range sh.Rows {
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
