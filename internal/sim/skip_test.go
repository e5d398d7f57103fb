package sim

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
)

// skipJobs is how many jobs each engine runs in TestSkipMatchesPlain:
// RETRYSIM_SKIP_JOBS=100000000 makes it the large check the README documents.
func skipJobs(t *testing.T) int64 {
	if s := os.Getenv("RETRYSIM_SKIP_JOBS"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			t.Fatalf("RETRYSIM_SKIP_JOBS=%q is not a job count", s)
		}
		return n
	}
	return 2_000_000
}

// The skip engine is exact in distribution: each counter of each strategy
// agrees with the plain engine's within the 99.9% interval of the difference,
// at the article's point and two others.
func TestSkipMatchesPlain(t *testing.T) {
	jobs := skipJobs(t)
	z := distuv.UnitNormal.Quantile(1 - 0.001/2)
	for _, pt := range []struct{ p, l float64 }{{0.01, 0.005}, {0.05, 0.02}, {0.001, 0}} {
		t.Run(fmt.Sprintf("p=%v/l=%v", pt.p, pt.l), func(t *testing.T) {
			cfg := Config{
				Scenario:   provider.Signup(pt.p, pt.l),
				Strategies: defaultStrategies(t, 3),
				Jobs:       jobs,
				Seed:       99,
				Generator:  rng.PCGGenerator(),
			}
			plainCfg, skipCfg := cfg, cfg
			plainCfg.Engine, skipCfg.Engine = Plain, Skip
			skipCfg.Seed = 100 // independent draws: the engines are compared as samples
			got, err := RunAll(context.Background(), []Config{plainCfg, skipCfg}, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			for s := range cfg.Strategies {
				plain, skip := got[0][s], got[1][s]
				for _, m := range stats.Metrics()[1:] { // succeeded mirrors failed_rate
					ep, es := m.Estimate(&plain, false), m.Estimate(&skip, false)
					sp, ss := se(m, &plain, ep.Value), se(m, &skip, es.Value)
					if m.Name == "failed_rate" || m.Name == "duplicate_rate" {
						pooled := (ep.Value + es.Value) / 2 // binomial SE from the pooled rate
						sp, ss = se(m, &plain, pooled), se(m, &skip, pooled)
					}
					bound := z * math.Hypot(sp, ss)
					if d := math.Abs(ep.Value - es.Value); d > bound {
						t.Errorf("%s %s: plain %.6g, skip %.6g: difference %.3g beyond the 99.9%% bound %.3g",
							cfg.Strategies[s].Name(), m.Name, ep.Value, es.Value, d, bound)
					} else if testing.Verbose() {
						t.Logf("%s %s: plain %.6g, skip %.6g (difference %.2f of the bound)", cfg.Strategies[s].Name(), m.Name, ep.Value, es.Value, d/bound)
					}
				}
			}
		})
	}
}

// Both engines give the same counters for the same seed and configuration,
// whatever the workers, and the skip engine's jobs add up.
func TestSkipDeterministic(t *testing.T) {
	cfg := Config{
		Scenario:   provider.Signup(0.05, 0.02),
		Strategies: defaultStrategies(t, 3),
		Jobs:       3*BlockJobs + 5,
		Seed:       4,
		Generator:  rng.PCGGenerator(),
		Engine:     Skip,
	}
	sameWhateverWorkers(t, cfg)
}

// sameWhateverWorkers fails t unless cfg's counters are the same on 1 worker
// and on 5, each strategy's over all of cfg's jobs.
func sameWhateverWorkers(t *testing.T, cfg Config) {
	t.Helper()
	one, err := RunAll(context.Background(), []Config{cfg}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	two, err := RunAll(context.Background(), []Config{cfg}, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	for s := range one[0] {
		if one[0][s] != two[0][s] || one[0][s].Jobs != cfg.Jobs {
			t.Errorf("strategy %d: 1 worker %+v; 5 workers %+v", s, one[0][s], two[0][s])
		}
	}
}

// With no failure possible every job is clean; with certain failure none is.
func TestSkipEdges(t *testing.T) {
	for _, pt := range []struct {
		p, l   float64
		failed int64
		calls  int64
	}{{0, 0, 0, 10}, {1, 1, 1, 3}} {
		cfg := Config{Scenario: provider.Signup(pt.p, pt.l), Strategies: defaultStrategies(t, 3)[:1], Jobs: 100_000, Generator: rng.PCGGenerator(), Engine: Skip}
		got, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if c := got[0]; c.Failed != pt.failed*cfg.Jobs || c.Calls != pt.calls*cfg.Jobs {
			t.Errorf("p=%v l=%v: failed %d, calls %d; want %d, %d", pt.p, pt.l, c.Failed, c.Calls, pt.failed*cfg.Jobs, pt.calls*cfg.Jobs)
		}
	}
}

func TestAliasTable(t *testing.T) {
	weights := []float64{0.5, 0, 0.25, 0.125, 0.125, 0, 0, 0}
	tab := newAliasTable(weights)
	counts := make([]int, len(weights))
	src := rng.NewStream(rng.PCGGenerator().New(1, 0))
	const n = 800_000
	for range n {
		counts[tab.draw(src.Next())]++
	}
	for i, w := range weights {
		sd := math.Sqrt(n * w * (1 - w))
		if d := math.Abs(float64(counts[i]) - n*w); d > 5*sd || (w == 0 && counts[i] != 0) {
			t.Errorf("value %d drawn %d times; want %.0f ± 5 × %.0f", i, counts[i], n*w, sd)
		}
	}
}

// se is the standard error of metric m's estimate from c when expected is
// the truth: the binomial one for a share, the normal interval's for a mean.
func se(m stats.Metric, c *stats.Counters, expected float64) float64 {
	switch m.Name {
	case "calls_per_job", "repeated_per_job":
		sum, sq := c.Calls, c.CallsSq
		if m.Name == "repeated_per_job" {
			sum, sq = c.RepeatedSteps, c.RepeatedSq
		}
		e := stats.MeanOf(sum, sq, c.Jobs)
		return (e.Hi - e.Value) / distuv.UnitNormal.Quantile(1-(1-stats.Confidence)/2)
	}
	return math.Sqrt(expected * (1 - expected) / float64(c.Jobs))
}
