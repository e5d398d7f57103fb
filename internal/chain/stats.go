package chain

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/metastable"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/rng"
)

// CrudeRuns is how many crude replicates measure the events of one.
const CrudeRuns = 200

// crudeSeed keeps the crude replicates' seeds apart from the splittings'.
const crudeSeed = 0xc0de

// Question is what retrysim chain asks: from collapse, the mean time to health and the
// probability of health within Within seconds (after a spike: from empty at 0); with Split,
// the splitting's estimate beside the exact value. Collapse is what the output calls collapse.
type Question struct {
	Chain    *Chain
	Within   float64
	Split    *Split
	Collapse string
}

// Split is Runs multilevel splittings of the orbit reaching the last of its Levels.
type Split struct {
	metastable.Splitting
	Config fleet.Config
	Runs   int
}

// OrbitSplit is the splitting of cfg for the orbit reaching target within horizon seconds
// of an empty server: a level each orbit size, runs runs of effort paths a level.
func OrbitSplit(cfg fleet.Config, target int, horizon float64, effort, runs int, seed uint64) *Split {
	levels := make([]int, target)
	for i := range levels {
		levels[i] = i + 1
	}
	return &Split{Splitting: metastable.Splitting{Importance: func(s fleetdata.MarkovState) int { return s.Orbit },
		Levels: levels, Horizon: horizon, Effort: effort, Seed: seed}, Config: cfg, Runs: runs}
}

// Answers are the chain's exact numbers.
type Answers struct {
	// Mean is the mean time from collapse to health, Health the probability within the span.
	Mean, Health float64
	// From says where the probability of health starts.
	From string
	// Exact is the probability the splitting estimates, when there is one.
	Exact float64
}

// Answer computes q's exact numbers; too long a span is a *schema.FieldError.
func (q Question) Answer() (Answers, error) {
	ch, md := q.Chain, q.Chain.Model
	healthy := func(s fleetdata.MarkovState) bool { return s.InServer <= md.Workers && s.Orbit == 0 }
	collapsed := md.Collapsed()
	var a Answers
	p0, from := ch.Point(collapsed), 0.0
	a.From = "from " + q.Collapse
	if md.To > md.From {
		p0, from, a.From = ch.Empty(), md.To, fmt.Sprintf("after the spike ends at %g s, from an empty server at 0 s", md.To)
	}
	var err error
	if a.Health, err = ch.Hit(p0, from, from+q.Within, healthy); err != nil {
		return a, pathtext.Errorf("within", "%g s: %v", q.Within, err)
	}
	mean, err := ch.Mean(healthy)
	if err != nil {
		return a, err
	}
	a.Mean = mean[ch.Index(collapsed)]
	if sp := q.Split; sp != nil {
		target := sp.Levels[len(sp.Levels)-1]
		if a.Exact, err = ch.Hit(ch.Empty(), 0, sp.Horizon, func(s fleetdata.MarkovState) bool { return s.Orbit >= target }); err != nil {
			return a, pathtext.Errorf("split.horizon", "%g s: %v", sp.Horizon, err)
		}
	}
	return a, nil
}

// Item is one splitting run's estimate and events, or a crude replicate's events (P 0):
// the splitting runs first, then CrudeRuns crude replicates.
type Item struct {
	P      float64
	Events int64
}

// Items is how many items q has.
func (q Question) Items() int {
	if q.Split == nil {
		return 0
	}
	return q.Split.Runs + CrudeRuns
}

// RunItems runs q's items lo to hi-1, the same whatever the workers and the slice.
func (q Question) RunItems(ctx context.Context, lo, hi, workers int) ([]Item, error) {
	sp := q.Split
	ests, err := sp.RepeatRuns(ctx, &sp.Config, min(lo, sp.Runs), min(hi, sp.Runs), workers)
	if err != nil {
		return nil, err
	}
	out := make([]Item, 0, hi-lo)
	for _, e := range ests {
		out = append(out, Item{P: e.P, Events: e.Events})
	}
	for r := max(lo, sp.Runs) - sp.Runs; r < max(hi, sp.Runs)-sp.Runs; r++ { // the crude replicates
		tr := fleetrun.Fleet().NewTracer(&sp.Config, rng.ReplicateSeed(sp.Seed^crudeSeed, uint64(r)))
		if _, err := tr.Run(ctx, func(at, _ float64, _ fleetdata.MarkovState) bool { return at > sp.Horizon }); err != nil {
			return nil, err
		}
		out = append(out, Item{Events: tr.Events()})
	}
	return out, nil
}

// CheckItem refuses an item k that no run of q makes.
func (q Question) CheckItem(k int, it *Item) error {
	switch runs := q.Split.Runs; {
	case k < runs && (!(it.P >= 0 && it.P <= 1) || it.Events < 0 || it.Events > limits.FleetEvents):
		return fmt.Errorf("run %d (estimate %g, %d events): want an estimate from 0 to 1 and 0 to %.0e events", k, it.P, it.Events, float64(limits.FleetEvents))
	case k >= runs && (it.P != 0 || it.Events < 0 || it.Events > limits.FleetEvents):
		return fmt.Errorf("crude replicate %d took %d events (estimate %g), not 0 to %.0e (and none)", k-runs, it.Events, it.P, float64(limits.FleetEvents))
	}
	return nil
}

// Stats are what a chain run found: its question, the answers, and the splitting's runs
// folded (Fold, with a splitting).
type Stats struct {
	Question
	Answers
	Fold *SplitStats
}

// SplitStats are a splitting's runs, against the exact value, and the crude replicates' work.
type SplitStats struct {
	Mean, StdErr  float64
	Events, Crude int64 // the splittings' events, and the CrudeRuns crude replicates'
}

// Stats folds q's answers a and all its items, in order.
func (q Question) Stats(a Answers, items []Item) Stats {
	st := Stats{Question: q, Answers: a}
	sp := q.Split
	if sp == nil {
		return st
	}
	var sum, sum2 float64
	var events, total int64
	for k, e := range items {
		if k >= sp.Runs {
			total += e.Events
			continue
		}
		sum += e.P
		sum2 += e.P * e.P
		events += e.Events
	}
	n := float64(sp.Runs)
	st.Fold = &SplitStats{Mean: sum / n, StdErr: math.Sqrt(math.Max(0, sum2-sum*sum/n) / (n - 1) / n), Events: events, Crude: total}
	return st
}

// String is what retrysim chain prints after its settings' line.
func (st Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "states %d, transitions %d\n", st.Chain.Len(), st.Chain.Transitions())
	fmt.Fprintf(&b, "mean time from %s to health: %.6g s\n", st.Collapse, st.Mean)
	fmt.Fprintf(&b, "probability of health within %g s %s: %.6g\n", st.Within, st.From, st.Health)
	if sp, s := st.Split, st.Fold; s != nil {
		fmt.Fprintf(&b, "probability the orbit reaches %d within %g s of an empty server: chain %.6g\n", sp.Levels[len(sp.Levels)-1], sp.Horizon, st.Exact)
		fmt.Fprintf(&b, "multilevel splitting, %d runs of %d paths a level: %.4g, standard error %.2g (relative error %.3g), %d events\n",
			sp.Runs, sp.Effort, s.Mean, s.StdErr, s.StdErr/s.Mean, s.Events)
		if s.Mean > 0 && s.StdErr > 0 {
			rel := s.StdErr / s.Mean
			need := (1 - s.Mean) / (s.Mean * rel * rel) * float64(s.Crude) / CrudeRuns
			fmt.Fprintf(&b, "crude replicates for the same relative error: %.3g events (%.4g a replicate), %.3g times as many\n",
				need, float64(s.Crude)/CrudeRuns, need/float64(s.Events))
		}
	}
	return b.String()
}
