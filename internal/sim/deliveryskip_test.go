package sim

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// The delivery model's skip engine is exact in distribution, as the job
// model's is (TestSkipMatchesPlain): for every store, at four queues that
// repeat requests, crash at each crash point or both (one with a visibility
// timeout and a lease shorter than a job, so deliveries overlap and clean
// jobs outlast the timeout), each counter of each strategy agrees with the
// plain engine's within a bound on the difference: the shares of
// failed jobs, of duplicate users and of jobs that lost work, the calls and
// the repeated side effects a job, the deliveries a job, and the shares of
// succeeded jobs done by the plain engine's median and 95th percentile. The
// engines run on independent seeds. The bound is Bonferroni's for the 540
// comparisons (a few cannot differ: nothing repeated): each fails falsely
// with probability 1/54,000, so a seed fails one by chance about one time in
// a hundred.
func TestDeliverySkipMatchesPlain(t *testing.T) {
	jobs := skipJobs(t) / 20
	const comparisons = 540
	z := distuv.UnitNormal.Quantile(1 - 0.01/comparisons/2)
	lat := provider.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	var strats []strategy.Strategy
	for _, id := range []string{"step-samekey", "job-samekey-skip", "step-nokey"} {
		s, err := strategy.Parse(id, 3)
		if err != nil {
			t.Fatal(err)
		}
		strats = append(strats, s)
	}
	for _, pt := range []struct {
		p, l, repeat, crash float64
		at                  delivery.CrashPoint
		short               bool // visibility 400 ms, lease 500 ms, TTL 350 ms
	}{
		{0.01, 0.005, 0.01, 0.001, delivery.AfterKey, false},
		{0.02, 0.01, 0.05, 0.01, delivery.BeforeKey, true},
		{0.01, 0.005, 0, 0.02, delivery.AfterWork, false},
		{0.05, 0.02, 0.02, 0.01, delivery.BeforeAck, false},
	} {
		for _, store := range []delivery.Store{delivery.NoStore, delivery.After, delivery.Loose, delivery.Claim, delivery.Lease} {
			t.Run(fmt.Sprintf("p=%v/l=%v/repeat=%v/crash=%v@%s/short=%v/%s", pt.p, pt.l, pt.repeat, pt.crash, pt.at, pt.short, store), func(t *testing.T) {
				q := delivery.Defaults()
				q.Store, q.RepeatP, q.CrashP, q.CrashAt = store, pt.repeat, pt.crash, pt.at
				q.RepeatDelay = lat
				if pt.short {
					q.Visibility, q.Lease, q.TTL = 400*time.Millisecond, 500*time.Millisecond, 350*time.Millisecond
				}
				sc := provider.Signup(pt.p, pt.l)
				for i := range sc.Steps {
					sc.Steps[i].Latency = lat
				}
				none := schema.NoKeys
				sc.Steps[2].Retry = provider.StepRetry{Attempts: 5, Keys: &none} // a step's own policy
				cfg := Config{Scenario: sc, Strategies: strats, Jobs: jobs, Seed: 99, Generator: rng.PCGGenerator(), Delivery: &q}
				plainCfg, skipCfg := cfg, cfg
				plainCfg.Engine, skipCfg.Engine = Plain, Skip
				skipCfg.Seed = 100
				got, err := RunAll(context.Background(), []Config{plainCfg, skipCfg}, 0, nil)
				if err != nil {
					t.Fatal(err)
				}
				for s := range strats {
					plain, skip := got[0][s], got[1][s]
					for _, c := range deliveryComparisons(plain, skip) {
						bound := z * c.se
						if d := math.Abs(c.plain - c.skip); d > bound {
							t.Errorf("%s %s: plain %.6g, skip %.6g: difference %.3g beyond the bound %.3g", strats[s].Name(), c.name, c.plain, c.skip, d, bound)
						} else if testing.Verbose() {
							t.Logf("%s %s: plain %.6g, skip %.6g (difference %.2f of the bound)", strats[s].Name(), c.name, c.plain, c.skip, d/bound)
						}
					}
				}
			})
		}
	}
}

// comparison is one counter of two runs and the standard error of their
// difference.
type comparison struct {
	name        string
	plain, skip float64
	se          float64
}

// deliveryComparisons are the counters TestDeliverySkipMatchesPlain holds to
// agreement: the job model's metrics (succeeded mirrors failed_rate), shares
// with the binomial SE of the pooled share, and the deliveries a job with an
// SE bounded from above, since the counters keep no sum of its squares: a
// job's extra deliveries are at most 2 x 1,000 - 1 (two messages, each at
// most limits.DeliveryDeliveries), so their variance is at most that times their mean.
func deliveryComparisons(plain, skip stats.Counters) []comparison {
	var out []comparison
	for _, m := range stats.Metrics()[1:] {
		ep, es := m.Estimate(&plain, false), m.Estimate(&skip, false)
		sp, ss := se(m, &plain, ep.Value), se(m, &skip, es.Value)
		if m.Name == "failed_rate" || m.Name == "duplicate_rate" {
			pooled := (ep.Value + es.Value) / 2
			sp, ss = se(m, &plain, pooled), se(m, &skip, pooled)
		}
		out = append(out, comparison{m.Name, ep.Value, es.Value, math.Hypot(sp, ss)})
	}
	share := func(name string, x, n, y, m int64) comparison {
		a, b := float64(x)/float64(n), float64(y)/float64(m)
		p := (a + b) / 2
		return comparison{name, a, b, math.Sqrt(p * (1 - p) * (1/float64(n) + 1/float64(m)))}
	}
	out = append(out, share("lost_work_rate", plain.LostWork, plain.Jobs, skip.LostWork, skip.Jobs))
	extra := func(c stats.Counters) float64 { return float64(c.Deliveries-c.Jobs) / float64(c.Jobs) }
	bound := func(c stats.Counters, mean float64) float64 {
		return (2*limits.DeliveryDeliveries - 1) * mean / float64(c.Jobs)
	}
	ep, es := extra(plain), extra(skip)
	pooled := (ep + es) / 2
	out = append(out, comparison{"deliveries_per_job", 1 + ep, 1 + es, math.Sqrt(bound(plain, pooled) + bound(skip, pooled))})
	for _, p := range []float64{0.5, 0.95} {
		edge := bucketOfQuantile(&plain.Completion, p)
		x, n := doneBy(&plain.Completion, edge)
		y, m := doneBy(&skip.Completion, edge)
		out = append(out, share(fmt.Sprintf("done_by_plain_p%v", 100*p), x, n, y, m))
	}
	return out
}

// bucketOfQuantile is the index of the bucket that holds h's p-quantile.
func bucketOfQuantile(h *hist.Histogram, p float64) int {
	rank := max(int64(math.Ceil(p*float64(h.Count()))), 1)
	var seen int64
	for _, b := range h.Buckets() {
		if seen += b.Count; seen >= rank {
			return b.Index
		}
	}
	return hist.HistogramBuckets - 1
}

// doneBy counts h's durations in buckets up to edge, and all of them.
func doneBy(h *hist.Histogram, edge int) (x, n int64) {
	for _, b := range h.Buckets() {
		if b.Index <= edge {
			x += b.Count
		}
	}
	return x, h.Count()
}

// The delivery model's skip engine gives the same counters for the same seed
// whatever the workers, and its jobs add up.
func TestDeliverySkipDeterministic(t *testing.T) {
	q := delivery.Defaults()
	q.Store, q.RepeatP, q.CrashP = delivery.Claim, 0.01, 0.001
	cfg := Config{Scenario: provider.Signup(0.05, 0.02), Strategies: defaultStrategies(t, 3), Jobs: 3*BlockJobs + 5, Seed: 4,
		Generator: rng.PCGGenerator(), Delivery: &q}
	if e := cfg.EngineUsed(); e != Skip {
		t.Fatalf("EngineUsed = %s; want skip, the queue repeating requests and crashing", e)
	}
	sameWhateverWorkers(t, cfg)
}
