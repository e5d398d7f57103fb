package ownjob_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"

	"example.com/ownjob"
)

// experiment is the team's job and strategy beside the library's per-step
// retry with the same key, at n jobs, in the job model (untimed).
func experiment(n int64, engine string) retrysim.Experiment {
	return retrysim.Experiment{
		Scenario: untimed(ownjob.Invoice()),
		Strategies: []strategy.Strategy{
			ownjob.NewBudget(2),
			strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey},
		},
		Jobs:   n,
		Seed:   42,
		Engine: engine,
	}
}

// untimed is sc without its steps' latencies, for the job model, which has
// no time: Check refuses a step that takes time where nothing would read it.
func untimed(sc provider.Scenario) provider.Scenario {
	for i := range sc.Steps {
		sc.Steps[i].Latency = provider.Latency{}
	}
	return sc
}

// runAndMerge runs e whole, and again as count shards, each written to a
// file as on another machine and read back with the library's checks
// (retrysim.ReadShard, then Merger.Add) in reverse order,
// and fails unless the merged report is the whole run's byte for byte (as
// JSON).
func runAndMerge(t *testing.T, e retrysim.Experiment, count int) retrysim.Report {
	t.Helper()
	whole, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := e.Merger()
	for i := count - 1; i >= 0; i-- {
		sh, err := e.Shard(context.Background(), i, count)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(sh)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := retrysim.ReadShard(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Add(path, back); err != nil {
			t.Fatal(err)
		}
	}
	merged, err := m.Report()
	if err != nil {
		t.Fatal(err)
	}
	a, err := json.Marshal(whole)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%d shards merged differ from the single run:\n merged %s\n single %s", count, b, a)
	}
	// Every call of the charge sends the action's key, which its provider
	// honours: whatever the engine, no card is charged twice, while the
	// email, which has no key, is sent twice after a lost reply.
	for _, r := range whole.Rows {
		if c := r.Counters(); c.TwiceByStep[1] != 0 || c.TwiceByStep[3] == 0 {
			t.Errorf("%s: %d invoices charged twice, %d emailed twice; want none, and some", r.Label, c.TwiceByStep[1], c.TwiceByStep[3])
		}
	}
	return whole
}

// failRate is the closed form of the budget strategy's failed jobs. A call
// of step i is seen to fail with f_i = p_fail, or, on a step that can lose
// its reply, f_i = p_fail + (1 - p_fail) lost_reply (the work is done, the
// caller sees an error), independently of every other call. It is retried
// with the same key until it is seen to succeed, so step i fails G_i ~
// Geometric(f_i) times (P(G_i = g) = f_i^g (1 - f_i)), and the job fails
// when its steps' failures together exceed the budget: 1 - P(G_1 + ... +
// G_n <= retries), summed here by convolution over the totals 0 to retries.
// It knows nothing of engines, streams or strategies.
func failRate(steps []provider.Step, retries int) float64 {
	dist := make([]float64, retries+1) // dist[k] = P(failures so far = k)
	dist[0] = 1
	for _, s := range steps {
		f := s.PFail
		if s.CanLoseReply {
			f += (1 - s.PFail) * s.LostReply
		}
		next := make([]float64, retries+1)
		for k, pk := range dist {
			for g := 0; k+g <= retries; g++ {
				next[k+g] += pk * math.Pow(f, float64(g)) * (1 - f)
			}
		}
		dist = next
	}
	ok := 0.0
	for _, pk := range dist {
		ok += pk
	}
	return 1 - ok
}

// TestBudgetPart5 runs the team's strategy and scenario through both Part 5
// engines, sharded and merged, and checks its failed jobs against the closed
// form. The failures are binomial(n, q); |z| < 5 wrongly fails with
// probability 5.7e-7 per engine, 1.1e-6 for the two.
func TestBudgetPart5(t *testing.T) {
	const n = 1_000_000
	q := failRate(ownjob.Invoice().Steps, 2)
	for _, engine := range []string{"plain", "skip"} {
		t.Run(engine, func(t *testing.T) {
			rep := runAndMerge(t, experiment(n, engine), 4)
			if got := rep.Experiment.Engine; got != engine {
				t.Fatalf("ran the %s engine; want %s", got, engine)
			}
			failed := rep.Rows[0].Counters().Failed
			z := (float64(failed) - n*q) / math.Sqrt(n*q*(1-q))
			if math.Abs(z) >= 5 {
				t.Errorf("%s: %d of %d jobs failed; the closed form expects %.1f (z = %.2f)", rep.Rows[0].Label, failed, n, n*q, z)
			}
		})
	}
}

// TestBudgetDelivery runs the team's strategy and scenario through the
// delivery model (the steps' latencies, a claim store, repeated requests,
// crashes after the work), sharded and merged.
func TestBudgetDelivery(t *testing.T) {
	q := delivery.Defaults()
	q.Store = delivery.Claim
	q.RepeatP, q.RepeatDelay = 0.05, provider.Latency{Median: time.Second, P99: 10 * time.Second}
	q.CrashP, q.CrashAt = 0.01, delivery.AfterWork
	e := experiment(200_000, "")
	e.Scenario, e.Delivery = ownjob.Invoice(), &q
	rep := runAndMerge(t, e, 3)
	for _, r := range rep.Rows {
		c := r.Counters()
		// Every job is delivered once, and again for a repeated request or
		// a crash: both happen here, so there are more deliveries than jobs.
		if c.Deliveries <= c.Jobs {
			t.Errorf("%s: %d deliveries of %d jobs; want repeats and crashes to add some", r.Label, c.Deliveries, c.Jobs)
		}
	}
}

// TestBudgetAlone runs the team's strategy with no strategy.Retry beside
// it, so the run has no attempts of its own (0, each strategy setting its
// own limits), through both Part 5 engines and the delivery model, sharded
// into files and merged.
func TestBudgetAlone(t *testing.T) {
	q := delivery.Defaults()
	for _, tc := range []struct {
		engine string
		queue  *delivery.Config
	}{{"plain", nil}, {"skip", nil}, {"", &q}} {
		e := experiment(100_000, tc.engine)
		e.Strategies = e.Strategies[:1]
		if e.Delivery = tc.queue; tc.queue != nil {
			e.Scenario = ownjob.Invoice()
		}
		rep := runAndMerge(t, e, 2)
		var echo struct {
			Attempts int `json:"attempts"`
		}
		if b, err := json.Marshal(rep); err != nil || json.Unmarshal(b, &echo) != nil || echo.Attempts != 0 {
			t.Errorf("%s engine, delivery %t: the json echoes attempts %d (%v); want 0, there being no strategy.Retry", rep.Experiment.Engine, tc.queue != nil, echo.Attempts, err)
		}
	}
}

// TestOwnStrategyRace runs the team's strategies beside the library's
// built-ins, in the job model's two engines and the delivery model: Counted
// embeds strategy.Retry and overrides Run, and its Run is the one the
// engines call, once a delivery, from several workers at once (the main
// module runs this test under -race). Its counts equal the plain Retry's,
// the same draws through the same loop.
func TestOwnStrategyRace(t *testing.T) {
	const n = 3 << 16 // three blocks, for three workers
	q := delivery.Defaults()
	q.RepeatP, q.RepeatDelay = 0.05, provider.Latency{Median: time.Second}
	for _, tc := range []struct {
		engine string
		queue  *delivery.Config
	}{{"plain", nil}, {"", nil}, {"", &q}} {
		var runs atomic.Int64
		retry := strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey}
		e := experiment(n, tc.engine)
		e.Strategies = []strategy.Strategy{ownjob.NewBudget(2), ownjob.Counted{Retry: retry, Runs: &runs}, retry,
			strategy.Retry{Scope: strategy.WholeJob, Attempts: 3, Keys: schema.SameKey, SkipFinished: true}}
		e.Delivery, e.Workers = tc.queue, 3
		rep, err := retrysim.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		counted, plain := rep.Rows[1].Counters(), rep.Rows[2].Counters()
		want := int64(n) // the job model: one delivery a job
		if tc.queue != nil {
			want = counted.Deliveries
		}
		if got := runs.Load(); got != want || got < n {
			t.Errorf("%s engine, delivery %t: Counted's Run ran %d times; want once a delivery, %d (at least once a job, %d)",
				rep.Experiment.Engine, tc.queue != nil, got, want, n)
		}
		counted.Deliveries, plain.Deliveries = 0, 0
		a, _ := json.Marshal(counted)
		b, _ := json.Marshal(plain)
		if !bytes.Equal(a, b) {
			t.Errorf("%s engine, delivery %t: Counted counted %s; the Retry it wraps %s", rep.Experiment.Engine, tc.queue != nil, a, b)
		}
	}
}
