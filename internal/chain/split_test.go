package chain

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/metastable"
	"github.com/retrysim/retrysim/schema"
)

// splitModel is a lightly loaded fleet (0.6 requests a second on two
// workers serving one a second each) whose orbit reaches splitTarget within
// splitHorizon seconds of starting empty with a probability near 1e-6.
var splitModel = Model{Rate: 0.6, Workers: 2, Queue: 3, ServiceRate: 1, TimeoutRate: 0.3, RetryProb: 0.8, BackoffRate: 1, Orbit: splitTarget}

const (
	splitTarget  = 11
	splitHorizon = 30.0
	// splitRuns independent splittings of splitEffort paths a level.
	splitRuns   = 20
	splitEffort = 200
)

// TestSplittingAgreesWithChain holds multilevel splitting (importance: the
// orbit's size, a level each request, splitEffort paths a level) to the
// exact chain on a probability near 1e-6: the mean of splitRuns independent
// estimates must be within Student's t quantile at a false-failure rate of
// 1e-4 (two-sided, splitRuns-1 degrees of freedom) of their standard error
// from the chain's value. The log gives the relative error and the work
// ratio: the events crude replicates would take for the same relative error
// ((1-p)/(p x relative error^2) replicates at the mean events of one, run
// here) over the events splitting took.
func TestSplittingAgreesWithChain(t *testing.T) {
	c, err := Build(splitModel)
	if err != nil {
		t.Fatal(err)
	}
	full := func(s fleetdata.MarkovState) bool { return s.Orbit >= splitTarget }
	p, err := c.Hit(c.Empty(), 0, splitHorizon, full)
	if err != nil {
		t.Fatal(err)
	}
	cfg := splitModel.Config(splitHorizon + 1)
	levels := make([]int, splitTarget)
	for i := range levels {
		levels[i] = i + 1
	}
	sp := metastable.Splitting{Importance: func(s fleetdata.MarkovState) int { return s.Orbit }, Levels: levels,
		Horizon: splitHorizon, Effort: splitEffort, Seed: 1}
	ests, err := sp.RepeatRuns(context.Background(), &cfg, 0, splitRuns, 2)
	if err != nil {
		t.Fatal(err)
	}
	var sum, sum2 float64
	var events int64
	for _, est := range ests {
		sum += est.P
		sum2 += est.P * est.P
		events += est.Events
	}
	n := float64(splitRuns)
	mean := sum / n
	se := math.Sqrt((sum2 - sum*sum/n) / (n - 1) / n)
	crit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - 1e-4/2)
	// The events of a crude replicate: a path from 0 to the horizon.
	var crude int64
	const crudeRuns = 200
	for r := range crudeRuns {
		tr := fleetrun.Fleet().NewTracer(&cfg, uint64(r))
		if _, err := tr.Run(context.Background(), func(at, _ float64, _ fleetdata.MarkovState) bool { return at > splitHorizon }); err != nil {
			t.Fatal(err)
		}
		crude += tr.Events()
	}
	rel := se / mean
	need := (1 - p) / (p * rel * rel) * float64(crude) / crudeRuns
	t.Logf("chain %.4g, splitting %.4g ± %.2g (relative error %.3f, z %+.2f, bound %.2f); %d events, crude replicates would take %.3g: work ratio %.3g",
		p, mean, se, rel, (mean-p)/se, crit, events, need, need/float64(events))
	if math.Abs(mean-p) > crit*se {
		t.Errorf("splitting %.4g ± %.2g is more than %.2f standard errors from the chain's %.4g", mean, se, crit, p)
	}
}

// TestSplittingLowEffortUnbiased guards fixed-effort splitting against a
// bias that only low effort shows (entrance states not distributed as the
// chain's, a path counted twice or dropped, a copy sharing state with its
// parent): at lowEffort paths a level, few enough that the estimate is
// often far below the truth, the mean of lowRuns independent estimates
// must still be within Student's t quantile at a false-failure rate of
// 1e-4 (two-sided, lowRuns-1 degrees of freedom) of their standard error
// from the chain's value, for the orbit reaching lowTarget within
// lowHorizon seconds (about 0.002). A handful of such runs is not enough:
// their spread understates the estimator's, which is skewed (see
// docs/fleet.md).
func TestSplittingLowEffortUnbiased(t *testing.T) {
	const (
		lowTarget  = 6
		lowHorizon = 20.0
		lowEffort  = 50
		lowRuns    = 300
	)
	m := splitModel
	m.Orbit = lowTarget
	c, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Hit(c.Empty(), 0, lowHorizon, func(s fleetdata.MarkovState) bool { return s.Orbit >= lowTarget })
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.Config(lowHorizon + 1)
	levels := make([]int, lowTarget)
	for i := range levels {
		levels[i] = i + 1
	}
	sp := metastable.Splitting{Importance: func(s fleetdata.MarkovState) int { return s.Orbit }, Levels: levels,
		Horizon: lowHorizon, Effort: lowEffort, Seed: 1}
	ests, err := sp.RepeatRuns(context.Background(), &cfg, 0, lowRuns, 2)
	if err != nil {
		t.Fatal(err)
	}
	var sum, sum2 float64
	for _, est := range ests {
		sum += est.P
		sum2 += est.P * est.P
	}
	n := float64(lowRuns)
	mean := sum / n
	se := math.Sqrt((sum2 - sum*sum/n) / (n - 1) / n)
	crit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - 1e-4/2)
	t.Logf("chain %.4g, mean of %d splittings of %d paths a level %.4g ± %.2g (z %+.2f, bound %.2f)", p, lowRuns, lowEffort, mean, se, (mean-p)/se, crit)
	if math.Abs(mean-p) > crit*se {
		t.Errorf("splitting's mean %.4g ± %.2g is more than %.2f standard errors from the chain's %.4g", mean, se, crit, p)
	}
}

// An interrupt during splitting stops it within the path that is running:
// the context is looked at before each path, not only every 4,096 events of
// one (a path runs a few hundred, so a splitting of many paths went on for
// seconds). Importance cancels the context when it first sees an orbit of
// 2, on a path split from one kept at the first level (whose events go on
// from its parent's count, so the every-4,096 look falls anywhere); the
// states it is asked about afterwards are those of the one path then
// running.
func TestSplittingStopsWithinAPath(t *testing.T) {
	cfg := splitModel.Config(splitHorizon + 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	sp := metastable.Splitting{Importance: func(s fleetdata.MarkovState) int {
		if ctx.Err() != nil {
			calls++
		} else if s.Orbit >= 2 {
			cancel()
		}
		return s.Orbit
	}, Levels: []int{1, 2, 3, 4, 5}, Horizon: splitHorizon, Effort: 2000, Seed: 1}
	_, err := sp.Estimate(ctx, &cfg)
	if err != context.Canceled {
		t.Fatalf("Estimate after an interrupt = %v; want context.Canceled", err)
	}
	if calls > 4096 {
		t.Errorf("%d states looked at after the interrupt; want those of one path (at most 4,096)", calls)
	}
}

// A splitting is costed before it runs: a path holds a replicate's whole
// state, measured here (live heap over 500 paths kept, as a level keeps
// them) within PathBytes at a horizon of 31 s and of 3,600 s, where its
// series is most of it; and one whose paths at once pass limits.FleetBytes is
// refused naming effort, or horizon when the series make most of a path.
func TestSplittingCosted(t *testing.T) {
	for _, horizon := range []float64{31, 3600} {
		cfg := splitModel.Config(horizon)
		tr := fleetrun.Fleet().NewTracer(&cfg, 1)
		if _, err := tr.Run(context.Background(), func(at, _ float64, s fleetdata.MarkovState) bool { return s.Orbit >= 2 || at > horizon-1 }); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		kept := make([]fleetdata.Tracer, 500)
		for i := range kept {
			kept[i] = tr.Split(uint64(i))
			if _, err := kept[i].Run(context.Background(), func(at, _ float64, s fleetdata.MarkovState) bool { return s.Orbit >= 3 || at > horizon-1 }); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perPath := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(kept))
		runtime.KeepAlive(kept)
		if bound := fleetrun.Fleet().PathBytes(&cfg); perPath > bound || perPath < bound/4 {
			t.Errorf("horizon %g s: a path holds %.0f bytes; want within PathBytes %.0f, and not a quarter of it (a bound that tells)", horizon, perPath, bound)
		}
	}
	for _, tt := range []struct {
		effort  int
		horizon float64
		field   string
	}{{100_000, 31, "effort"}, {20_000, 3600, "horizon"}} {
		cfg := splitModel.Config(tt.horizon)
		sp := metastable.Splitting{Levels: []int{1}, Effort: tt.effort}
		var fe *schema.FieldError
		if err := sp.CheckCost(&cfg); !errors.As(err, &fe) || fe.Field != tt.field || 2*float64(tt.effort)*fleetrun.Fleet().PathBytes(&cfg) <= limits.FleetBytes {
			t.Errorf("effort %d, horizon %g s: CheckCost = %v; want a *FieldError naming %s", tt.effort, tt.horizon, err, tt.field)
		}
	}
	cfg := splitModel.Config(31)
	if err := (metastable.Splitting{Levels: []int{1}, Effort: 200}).CheckCost(&cfg); err != nil {
		t.Errorf("the default effort: CheckCost = %v; want nil", err)
	}
}

// Splitting refuses what it cannot run, and repeats to the same estimates
// whatever the workers.
func TestSplittingRepeat(t *testing.T) {
	cfg := Model{Rate: 1.8, Workers: 2, Queue: 3, ServiceRate: 1, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 6}.Config(30)
	sp := metastable.Splitting{Importance: func(s fleetdata.MarkovState) int { return s.Orbit }, Levels: []int{1, 2, 3}, Horizon: 10, Effort: 30, Seed: 5}
	one, err := sp.RepeatRuns(context.Background(), &cfg, 0, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	three, err := sp.RepeatRuns(context.Background(), &cfg, 0, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	middle, err := sp.RepeatRuns(context.Background(), &cfg, 1, 3, 2) // runs 1 and 2 alone, as a shard runs them
	if err != nil || len(middle) != 2 {
		t.Fatalf("RepeatRuns(1, 3) = %d estimates, %v; want 2", len(middle), err)
	}
	for i, e := range middle {
		if e.P != one[1+i].P || e.Events != one[1+i].Events {
			t.Errorf("RepeatRuns(1, 3)[%d] = %+v; want Repeat's run %d, %+v", i, e, 1+i, one[1+i])
		}
	}
	for r := range one {
		if one[r].P != three[r].P || one[r].Events != three[r].Events || !slices.Equal(one[r].Shares, three[r].Shares) {
			t.Errorf("run %d: %+v with one worker, %+v with three", r, one[r], three[r])
		}
		p := 1.0
		for _, s := range one[r].Shares {
			p *= s
		}
		if one[r].P != p || p == 0 {
			t.Errorf("run %d: P %g; want the product of the shares %v, above 0", r, one[r].P, one[r].Shares)
		}
	}
	if one[0].P == one[1].P {
		t.Errorf("runs 0 and 1 gave the same estimate %g", one[0].P)
	}
	plain := fleet.DefaultConfig()
	if _, err := sp.Estimate(context.Background(), &plain); err == nil || err.Error() != "memoryless.on: splitting needs a Memoryless run" {
		t.Errorf("Estimate(default) err = %v", err)
	}
	sp.Effort = 0
	if _, err := sp.Estimate(context.Background(), &cfg); err == nil || err.Error() != "Splitting: needs Importance, Levels and an Effort from 1 to 100000" {
		t.Errorf("Estimate(Effort 0) err = %v", err)
	}
}
