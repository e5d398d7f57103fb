package metastable

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/schema"
)

// MaxEffort bounds Splitting.Effort, every path kept being a replicate's whole state.
const MaxEffort = 100_000

// Splitting is fixed-effort multilevel splitting of a Memoryless run, for the probability
// that the importance reaches the last of Levels by Horizon: Effort paths a level, each
// going on from the whole engine state of a path that reached the level before, on a seed
// of its own. The estimate, the product of the levels' shares, is unbiased and reproducible.
type Splitting struct {
	// Importance scores a state; Levels are increasing scores, the last the rare event.
	Importance func(fleetdata.MarkovState) int
	Levels     []int
	Horizon    float64
	Effort     int
	Seed       uint64
}

// SplitEstimate is what a Splitting found.
type SplitEstimate struct {
	// P is the estimate; Shares each level's share of paths that reached it (0 once none did).
	P      float64
	Shares []float64
	// Events counts the events every path processed: the work it took.
	Events int64
}

// Estimate runs the splitting on cfg, checked with Memoryless on.
func (sp Splitting) Estimate(ctx context.Context, cfg *fleet.Config) (SplitEstimate, error) {
	if !fleetrun.Fleet().Memoryless(cfg).On {
		return SplitEstimate{}, pathtext.Errorf("memoryless.on", "splitting needs a Memoryless run")
	}
	if sp.Effort < 1 || sp.Effort > MaxEffort || len(sp.Levels) == 0 || sp.Importance == nil {
		return SplitEstimate{}, fmt.Errorf("Splitting: needs Importance, Levels and an Effort from 1 to %d", MaxEffort)
	}
	est := SplitEstimate{P: 1, Shares: make([]float64, len(sp.Levels))}
	var from []fleetdata.Tracer
	for k, level := range sp.Levels {
		var reached []fleetdata.Tracer
		for j := range sp.Effort {
			if err := ctx.Err(); err != nil { // a path runs a few hundred events, fewer than Run's look at ctx
				return SplitEstimate{}, err
			}
			seed := rng.ReplicateSeed(sp.Seed, uint64(k)*MaxEffort+uint64(j))
			var tr fleetdata.Tracer
			if k == 0 {
				tr = fleetrun.Fleet().NewTracer(cfg, seed)
			} else {
				tr = from[j%len(from)].Split(seed)
			}
			before := tr.Events()
			hit := false
			if _, err := tr.Run(ctx, func(at, _ float64, st fleetdata.MarkovState) bool {
				if at > sp.Horizon {
					return true
				}
				hit = sp.Importance(st) >= level
				return hit
			}); err != nil {
				return SplitEstimate{}, err
			}
			est.Events += tr.Events() - before
			if hit {
				reached = append(reached, tr)
			}
		}
		est.Shares[k] = float64(len(reached)) / float64(sp.Effort)
		est.P *= est.Shares[k]
		if len(reached) == 0 {
			break
		}
		from = reached
	}
	return est, nil
}

// Bytes bounds the memory one splitting run on cfg holds at once.
func (sp Splitting) Bytes(cfg *fleet.Config) float64 {
	return float64(2*sp.Effort+1) * fleetrun.Fleet().PathBytes(cfg)
}

// CheckCost refuses a splitting on cfg one run of which would hold more than
// limits.FleetBytes, as a *FieldError naming effort or horizon.
func (sp Splitting) CheckCost(cfg *fleet.Config) error {
	b := sp.Bytes(cfg)
	if b <= limits.FleetBytes {
		return nil
	}
	path, series := "effort", fleetrun.Fleet().SeriesBytes(cfg)
	if series > fleetrun.Fleet().PathBytes(cfg)-series { // the series are most of a path
		path = "horizon"
	}
	return &schema.FieldError{Field: path, Msg: fmt.Sprintf("%s paths a level keep up to %s paths at once, each a replicate's state of up to %.0f KiB (its series over %s included), about %s; at most %s",
		human.Group(int64(sp.Effort)), human.Group(int64(2*sp.Effort+1)), fleetrun.Fleet().PathBytes(cfg)/(1<<10), human.Duration(cfg.Duration), human.GiB(b), human.GiB(limits.FleetBytes))}
}

// RepeatRuns runs splittings lo to hi-1, run r seeded by Seed and r, on up to workers
// goroutines; the estimates are the same whatever the workers or the slice.
func (sp Splitting) RepeatRuns(ctx context.Context, cfg *fleet.Config, lo, hi, workers int) ([]SplitEstimate, error) {
	runs := max(0, hi-lo)
	out := make([]SplitEstimate, runs)
	errs := make([]error, runs)
	if fit := int(limits.FleetBytes / sp.Bytes(cfg)); fit < workers {
		workers = fit // as many as fit at once, so that the workers never decide what is accepted
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(workers, runs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= runs || ctx.Err() != nil {
					return
				}
				one := sp
				one.Seed = rng.ReplicateSeed(sp.Seed, uint64(lo+i))
				out[i], errs[i] = one.Estimate(ctx, cfg)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, errors.Join(errs...)
}
