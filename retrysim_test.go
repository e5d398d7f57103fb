package retrysim_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// article is the Part 5 experiment at n jobs: the sign-up, the article's five
// strategies, seed 1.
func article(t *testing.T, n int64, gen string) retrysim.Experiment {
	t.Helper()
	e := retrysim.Experiment{Scenario: provider.Signup(0.01, 0.005), Jobs: n, Seed: 1, Generator: gen}
	for _, id := range []string{"step-nokey", "step-newkey", "step-samekey", "job-samekey", "job-samekey-skip"} {
		s, err := strategy.Parse(id, 3)
		if err != nil {
			t.Fatal(err)
		}
		e.Strategies = append(e.Strategies, s)
	}
	return e
}

// TestRunArticle runs the article's experiment through the API and checks
// the article's own table (its published figures, not this program's):
// failed jobs, steps done again and users emailed twice, row by row.
func TestRunArticle(t *testing.T) {
	if testing.Short() {
		t.Skip("a million jobs")
	}
	rep, err := retrysim.Run(context.Background(), article(t, 1_000_000, "mulberry32"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id                       string
		failed, repeated, emails int64
	}{
		{"step-nokey", 11, 4971, 4939}, {"step-newkey", 11, 4971, 4939}, {"step-samekey", 11, 0, 0},
		{"job-samekey", 995, 464233, 0}, {"job-samekey-skip", 250, 0, 0},
	}
	if len(rep.Rows) != len(want) {
		t.Fatalf("%d rows; want %d", len(rep.Rows), len(want))
	}
	for i, w := range want {
		r := rep.Rows[i]
		if r.ID != w.id || r.Counters().Failed != w.failed || r.Counters().RepeatedSteps != w.repeated || r.Counters().DuplicateUsers != w.emails {
			t.Errorf("row %d = %s %d/%d/%d; want %s %d/%d/%d", i, r.ID, r.Counters().Failed, r.Counters().RepeatedSteps, r.Counters().DuplicateUsers,
				w.id, w.failed, w.repeated, w.emails)
		}
	}
	if p := rep.Params(); p.Jobs != 1_000_000 || p.Attempts != 3 || p.PFail != 0.01 || p.LostReply != 0.005 || p.Engine != "plain" || p.RNG != "mulberry32" || p.Replicates != 1 {
		t.Errorf("params = %+v; want the article's, plain engine, one replicate", p)
	}
}

// TestRate checks a row's rates against closed forms: with no duplicate in
// n jobs the duplicate rate's upper bound is Garwood's for a count of 0,
// -ln(0.025)/n (the chi-squared with 2 degrees of freedom is an exponential
// of mean 2); a strategy with a closed form carries it.
func TestRate(t *testing.T) {
	e := article(t, 100_000, "")
	rep, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Rows[2] // step-samekey: the key protects the only step that can repeat
	got, err := r.Rate("duplicate_rate")
	if err != nil {
		t.Fatal(err)
	}
	if want := -math.Log(0.025) / 1e5; got.Value != 0 || math.Abs(got.Hi-want) > 1e-9*want {
		t.Errorf("duplicate_rate = %+v; want 0 up to %g", got, want)
	}
	if got.Expected != 0 || got.Z != 0 {
		t.Errorf("duplicate_rate expected %g, z %g; want 0 and 0", got.Expected, got.Z)
	}
	if _, err := r.Rate("nonsense"); err == nil {
		t.Error(`Rate("nonsense") = nil error; want an unknown metric`)
	}
	// The delivery model has no closed form.
	q := delivery.Defaults()
	e.Delivery, e.Jobs = &q, 1000
	rep, err = retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := rep.Rows[0].Rate("failed_rate"); rep.Rows[0].Expected() != nil || !math.IsNaN(got.Expected) {
		t.Errorf("delivery model: expected %v, %g; want none", rep.Rows[0].Expected(), got.Expected)
	}
}

// TestCheck refuses each setting that cannot run, naming its field, before
// any work.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*retrysim.Experiment)
		field string
		msg   string
	}{
		{"skip with mulberry32", func(e *retrysim.Experiment) { e.Generator, e.Engine = "mulberry32", "skip" }, "engine", "skip cannot replay mulberry32"},
		{"unknown generator", func(e *retrysim.Experiment) { e.Generator = "lcg" }, "generator", `unknown generator "lcg"`},
		{"unknown engine", func(e *retrysim.Experiment) { e.Engine = "fast" }, "engine", `unknown engine "fast"`},
		{"no jobs", func(e *retrysim.Experiment) { e.Jobs = 0 }, "jobs", "0 is not a whole number"},
		{"too many jobs", func(e *retrysim.Experiment) { e.Jobs = limits.MaxJobs + 1 }, "jobs", "is not a whole number"},
		{"too many replicates", func(e *retrysim.Experiment) { e.Replicates = jobapi.MaxReplicates + 1 }, "replicates", "10001"},
		{"negative workers", func(e *retrysim.Experiment) { e.Workers = -1 }, "workers", "-1"},
		{"no scenario", func(e *retrysim.Experiment) { e.Scenario = provider.Scenario{} }, "scenario", "none given"},
		{"a scenario with no step", func(e *retrysim.Experiment) { e.Scenario.Steps = nil }, "scenario.steps", "at least one step"},
		{"no strategies", func(e *retrysim.Experiment) { e.Strategies = nil }, "strategies", "none given"},
		{"a strategy twice", func(e *retrysim.Experiment) { e.Strategies = append(e.Strategies, e.Strategies[0]) }, "strategies[5]", `"step-nokey" is listed twice`},
		{"attempts 0", func(e *retrysim.Experiment) { e.Strategies[0] = strategy.Retry{} }, "strategies[0].attempts", "0 is not"},
		// What a scenario file refuses, the Go path refuses (issue 37).
		{"a nil strategy", func(e *retrysim.Experiment) { e.Strategies[1] = nil }, "strategies[1]", "is nil"},
		{"a strategy with no name", func(e *retrysim.Experiment) {
			e.Strategies[2] = funcStrategy{run: func(strategy.Calls) bool { return true }}
		}, "strategies[2].name", "is empty"},
		{"two steps of one name", func(e *retrysim.Experiment) { e.Scenario.Steps[3].Name = e.Scenario.Steps[1].Name }, "scenario.steps[3].name", `"create the billing customer" is also the name of steps[1]`},
		{"a lost reply on a step that cannot lose it", func(e *retrysim.Experiment) { e.Scenario.Steps[0].LostReply = 0.5 }, "scenario.steps[0].lost_reply", "0.5 is never read: the step cannot lose its reply (steps[0].can_lose_reply false)"},
		// Names are held to stats.CheckName, so no run writes a shard that
		// merge refuses (issue 21).
		{"a tab in a step's name", func(e *retrysim.Experiment) { e.Scenario.Steps[2].Name = "create\tthe workspace" }, "scenario.steps[2].name", `"create\tthe workspace" holds a control character`},
		{"a newline in a label", func(e *retrysim.Experiment) { e.Scenario.Watched[0].Label = "Users\nforged" }, "scenario.watched[0].label", `"Users\nforged" holds a control character`},
		{"ESC in the noun", func(e *retrysim.Experiment) { e.Scenario.Noun = "\x1b[2J" }, "scenario.noun", `"\x1b[2J" holds a control character`},
		{"a strategy's label", func(e *retrysim.Experiment) {
			e.Strategies[0] = strategy.Retry{Attempts: 3, Label: strings.Repeat("x", 201)}
		}, "strategies[0].name", "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"... is 201 bytes, more than the 200 a name may be"},
		// Every run is costed in time (issue 34): 10^12 jobs x 5 strategies
		// x 1,000 deliveries would have run for decades.
		{"a delivery run past its deliveries", func(e *retrysim.Experiment) {
			d := delivery.Defaults()
			d.MaxDeliveries = 1000
			e.Jobs, e.Delivery = limits.MaxJobs, &d
		}, "jobs", "1,000,000,000,000 jobs x 5 strategies x 1 replicate, up to 1000 deliveries each (queue.max_deliveries), are up to 5e+15 deliveries; at most 1e+11"},
		{"max_deliveries past its default", func(e *retrysim.Experiment) {
			d := delivery.Defaults()
			d.MaxDeliveries, d.RepeatP = 1000, 0.1
			e.Jobs, e.Replicates, e.Delivery = 1_000_000, 20, &d
		}, "queue.max_deliveries", "1,000,000 jobs x 5 strategies x 20 replicates x 2 (repeats), up to 1000 deliveries each (queue.max_deliveries), are up to 2e+11 deliveries; at most 1e+11"},
		{"a scenario file named with a newline", func(e *retrysim.Experiment) { *jobapi.ScenarioFile(e) = "a\nb.yaml" }, "scenario", `file name "a\nb.yaml" holds a control character`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := article(t, 1000, "")
			tc.edit(&e)
			err := e.Check()
			var fe *schema.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Msg, tc.msg) {
				t.Fatalf("Check() = %v; want a %s error with %q", err, tc.field, tc.msg)
			}
			if _, err := retrysim.Run(context.Background(), e); err == nil || err.Error() != fe.Error() {
				t.Errorf("Run() = %v; want Check's %v", err, fe)
			}
		})
	}
}

// TestShardsMerge cuts a run into shards, merges them in another order, and
// gets Run's report: counters add exactly, whatever the slices.
func TestShardsMerge(t *testing.T) {
	e := article(t, 300_000, "")
	want, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	var m retrysim.Merger
	for _, i := range []int{2, 0, 3, 1} {
		sh, err := retrysim.RunShard(context.Background(), e, i, 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Add(string(rune('a'+i)), retrysim.ShardOf(sh)); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := m.Add("again", retrysim.ShardOf(sh)); err == nil || !strings.Contains(err.Error(), "given twice") {
				t.Errorf("adding shard 0/4 twice = %v; want given twice", err)
			}
		}
	}
	got, err := m.Report()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged report differs from Run's:\n got %+v\nwant %+v", got, want)
	}
}

// TestShardRefused refuses a shard that merge could not rebuild.
func TestShardRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*retrysim.Experiment)
		msg  string
	}{
		{"sequential generator", func(e *retrysim.Experiment) { e.Generator = "mulberry32" }, "shard: mulberry32 has one stream"},
		{"replicates", func(e *retrysim.Experiment) { e.Replicates = 2 }, "shard: replicates cannot be split"},
		{"a labelled strategy", func(e *retrysim.Experiment) { e.Strategies[0] = strategy.Retry{Attempts: 3, Label: "mine"} }, "strategies[0]: merge rebuilds"},
		{"mixed attempts", func(e *retrysim.Experiment) { e.Strategies[0] = strategy.Retry{Attempts: 2} }, "strategies[0]: merge rebuilds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := article(t, 1000, "")
			tc.edit(&e)
			if _, err := retrysim.RunShard(context.Background(), e, 0, 2); err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("RunShard = %v; want %q", err, tc.msg)
			}
		})
	}
}

// A scenario of our own with the delivery model, sharded three ways (the
// shards carry the scenario and the queue) and merged, reports what Run
// reports for the whole: the same parameters and counters.
func TestShardOwnScenarioWithQueue(t *testing.T) {
	q := delivery.Defaults()
	q.Store = delivery.Claim
	e := article(t, 150_000, "")
	e.Scenario.Steps[0].PFail, e.Scenario.Steps[1].Latency = 0.05, provider.Latency{Median: 20e6, P99: 200e6}
	e.Scenario.Watched = append(e.Scenario.Watched, provider.Watch{Step: 0})
	e.Delivery = &q
	want, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	var m retrysim.Merger
	for i := range 3 {
		sh, err := retrysim.RunShard(context.Background(), e, i, 3)
		if err != nil {
			t.Fatal(err)
		}
		if sh.Model == nil || sh.Model.Queue == nil {
			t.Fatalf("shard %d carries no model and queue", i)
		}
		if err := m.Add(fmt.Sprint(i), retrysim.ShardOf(sh)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := m.Report()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Params(), want.Params()) {
		t.Errorf("merged params %+v; want %+v", got.Params(), want.Params())
	}
	for i := range want.Rows {
		if (*got.Rows[i].Stats()) != (*want.Rows[i].Stats()) {
			t.Errorf("%s: merged counters differ from Run's", want.Rows[i].ID)
		}
	}
}

// TestSweepPointIsRun checks that each row of a sweep is what a single Run
// at its point gives.
func TestSweepPointIsRun(t *testing.T) {
	res, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: strategiesNamed("step-nokey", "job-samekey"), Seed: 7}, Axes: []retrysim.Axis{{Name: "p_fail", Values: []float64{0.001, 0.05}}, {Name: "jobs", Values: []float64{20_000}}}})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Stats()
	if len(s.Rows) != 4 || !reflect.DeepEqual(s.Swept, []int{0}) {
		t.Fatalf("%d rows, swept %v; want 4, [0]", len(s.Rows), s.Swept)
	}
	for _, row := range s.Rows {
		e := retrysim.Experiment{Scenario: provider.Signup(row.Point[0], row.Point[1]), Jobs: int64(row.Point[3]), Seed: 7}
		st, _ := strategy.Parse(row.ID, int(row.Point[2]))
		e.Strategies = []strategy.Strategy{st}
		rep, err := retrysim.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := row.Core, stats.CoreOf(rep.Rows[0].Stats()); got != want {
			t.Errorf("%s at %v: sweep %+v; run %+v", row.ID, row.Point, got, want)
		}
	}
	for _, tc := range []struct {
		axes []retrysim.Axis
		msg  string
	}{
		{[]retrysim.Axis{{Name: "p-fail", Values: []float64{0.1}}}, `p-fail: unknown parameter (want steps[STEP].FIELD or queue.FIELD)`},
		{[]retrysim.Axis{{Name: "p_fail", Values: []float64{1.5}}}, "p_fail: 1.5 is not a probability"},
		{[]retrysim.Axis{{Name: "attempts", Values: []float64{2.5}}}, "attempts: 2.5 is not a whole number"},
		{[]retrysim.Axis{{Name: "p_fail", Values: make([]float64, 101)}, {Name: "lost_reply", Values: make([]float64, 101)}}, "p_fail x lost_reply: 101 x 101 = 10201 points"},
	} {
		_, err := retrysim.RunSweep(context.Background(), retrysim.Sweep{Experiment: retrysim.Experiment{Strategies: strategiesNamed("step-nokey")}, Axes: tc.axes})
		if err == nil || !strings.HasPrefix(err.Error(), tc.msg) {
			t.Errorf("RunSweep(%v) = %v; want %q", tc.axes[0].Name, err, tc.msg)
		}
	}
}

// TestExperimentShards cuts an experiment that no shard file can describe
// (a scenario built in Go, a labelled strategy, mixed attempts, the delivery
// model with latencies, a claim store, repeats and crashes) into shards,
// sends each through JSON as another machine would, and merges them with the
// experiment's own Merger, in another order: the report is Run's. The zero
// Merger, which rebuilds runs from their parameters alone, refuses them.
func TestExperimentShards(t *testing.T) {
	sc := provider.Scenario{Name: "pay", Noun: "payments", Watched: []provider.Watch{{Step: 1, Label: "Charged twice"}}, Steps: []provider.Step{
		{Name: "reserve", PFail: 0.05, Latency: provider.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}},
		{Name: "charge", PFail: 0.1, CanLoseReply: true, LostReply: 0.05, HonoursKeys: true, Latency: provider.Latency{Median: 300 * time.Millisecond}},
	}}
	q := delivery.Defaults()
	q.Store, q.RepeatP, q.RepeatDelay = delivery.Claim, 0.05, provider.Latency{Median: time.Second}
	q.CrashP, q.CrashAt = 0.02, delivery.AfterWork
	e := retrysim.Experiment{Scenario: sc, Jobs: 3 * sim.BlockJobs / 2, Seed: 7, Delivery: &q, Strategies: []strategy.Strategy{
		strategy.Retry{Scope: strategy.EachStep, Attempts: 4, Keys: schema.SameKey, Label: "ours"},
		strategy.Retry{Scope: strategy.WholeJob, Attempts: 2, Keys: schema.NoKeys},
	}}
	want, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	m := e.Merger()
	var zero retrysim.Merger
	for _, i := range []int{1, 2, 0} {
		sh, err := e.Shard(context.Background(), i, 3)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(sh)
		if err != nil {
			t.Fatal(err)
		}
		var back stats.Shard
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if err := m.Add(fmt.Sprint("shard ", i), retrysim.ShardOf(back)); err != nil {
			t.Fatal(err)
		}
		if err := zero.Add("any", retrysim.ShardOf(back)); err == nil {
			t.Errorf("the zero Merger took shard %d, which its parameters do not describe", i)
		}
	}
	got, err := m.Report()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged report differs from Run's:\n got %+v\nwant %+v", got, want)
	}
}

// TestExperimentMergerRefuses names what makes a shard not one of the
// experiment's: another experiment, another strategy, the wrong number of
// jobs for its slice, a slice that does not exist.
func TestExperimentMergerRefuses(t *testing.T) {
	e := article(t, 2*sim.BlockJobs, "") // two blocks: slice 0/2 is the first
	shard, err := e.Shard(context.Background(), 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	good := shard.Stats()
	for _, tc := range []struct {
		name string
		edit func(*stats.Shard)
		msg  string
	}{
		{"another seed", func(s *stats.Shard) { s.Seed = 2 }, "not a shard of this experiment: seed is 2 in one and 1 in the other"},
		{"another strategy", func(s *stats.Shard) { s.Rows[1].ID = "job-nokey" }, "rows[1]: strategy job-nokey"},
		{"wrong jobs", func(s *stats.Shard) { s.Rows[0].Jobs-- }, "rows[0].jobs: 65535, but slice 0/2 of 131072 jobs holds 65536"},
		{"no such slice", func(s *stats.Shard) { s.Index = 2 }, "shard_index, shard_count: shard: 2/2 is not a slice"},
		{"a row short", func(s *stats.Shard) { s.Rows = s.Rows[1:] }, "rows: 4, but the experiment has 5 strategies"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh := good
			sh.Rows = slices.Clone(good.Rows)
			tc.edit(&sh)
			if err := e.Merger().Add("f", retrysim.ShardOf(sh)); err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Add = %v; want %q", err, tc.msg)
			}
		})
	}
	if err := e.Merger().Add("f", shard); err != nil {
		t.Errorf("Add(the experiment's own shard) = %v", err)
	}
}

// TestUnread names the settings a run would not read, by their paths: in
// the job model the delivery model's (and lost_reply where no step loses a
// reply), and in the delivery model the key's TTL needs a key.
func TestUnread(t *testing.T) {
	e := article(t, 1000, "")
	var want []string // the settings the declarations say only the delivery model reads
	for _, s := range jobapi.Settings() {
		if s.Delivery {
			want = append(want, s.Name)
		}
	}
	slices.Sort(want)
	if got := jobapi.Unread(e); len(want) < 14 || !slices.Equal(slices.Sorted(maps.Keys(got)), want) || got["queue.ttl"] != jobapi.UnreadInJobModel {
		t.Errorf("the sign-up: Unread() = %v; want %v, each read only by the delivery model", got, want)
	}
	e.Scenario.Steps[6].CanLoseReply = false
	q := delivery.Defaults()
	e.Delivery, e.Strategies = &q, e.Strategies[:1] // step-nokey: no key is written
	got := jobapi.Unread(e)
	for _, k := range []string{"lost_reply", "queue.ttl", "queue.lease", "queue.crash_at", "queue.max_crashes", "queue.repeat_delay"} {
		if got[k] == "" {
			t.Errorf("Unread()[%q] is empty; want a reason", k)
		}
	}
	if got["queue.backoff"] != "" {
		t.Errorf("Unread()[queue.backoff] = %q; want it read (3 attempts)", got["queue.backoff"])
	}
}

// UnreadStepPolicy: a step's own attempts and backoff are read only by a
// strategy that retries each step, and its backoff only if such a strategy
// retries the step (step-nokey at -attempts 1 never does, unless the step
// gives itself more attempts). Worked by hand from Retry.resume.
func TestUnreadStepPolicy(t *testing.T) {
	wait := delivery.Defaults().Backoff
	four := provider.StepRetry{Attempts: 4, Backoff: &wait}
	both := provider.StepRetry{Backoff: &wait}
	for _, tt := range []struct {
		strategies    string
		attempts      int
		own           provider.StepRetry
		attempt, wait bool // unread
	}{
		{"step-nokey", 3, four, false, false},
		{"job-samekey,job-samekey-skip", 3, four, true, true},
		{"job-samekey,step-samekey", 3, four, false, false},
		{"step-nokey", 1, both, false, true},
		{"step-nokey", 1, four, false, false}, // the step's own 4 attempts wait its backoff
		{"job-nokey", 1, provider.StepRetry{}, false, false},
	} {
		e := article(t, 10, "")
		e.Scenario.Steps[2].Retry = tt.own
		var err error
		if e.Strategies, err = retrysim.ParseStrategies(strings.Split(tt.strategies, ","), tt.attempts); err != nil {
			t.Fatal(err)
		}
		a, b := e.UnreadStepPolicy(2)
		if (a != "") != tt.attempt || (b != "") != tt.wait {
			t.Errorf("%s at -attempts %d, own %+v: UnreadStepPolicy = %q, %q; want unread attempts %v, backoff %v",
				tt.strategies, tt.attempts, tt.own, a, b, tt.attempt, tt.wait)
		}
	}
}

// Issue 20 item 12: two Retry values that differ only in their attempts
// had one ID and were refused as "listed twice". They are two rows, each ID
// and label naming its attempts, and the one with more attempts fails fewer
// jobs (at p_fail 0.2 a step fails for good with 0.2^3 = 0.008 against 0.2^5
// = 0.00032, so over 20,000 ten-step jobs about 1,500 against 64).
func TestRetriesDifferingInAttemptsAreTwoRows(t *testing.T) {
	sc := provider.Signup(0.2, 0.005)
	rep, err := retrysim.Run(context.Background(), retrysim.Experiment{Scenario: sc, Jobs: 20_000, Seed: 1,
		Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}, strategy.Retry{Attempts: 5}, strategy.Retry{Attempts: 3, Keys: schema.SameKey}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, label string }{
		{"step-nokey-3attempts", "Retry each step, no key, 3 attempts"},
		{"step-nokey-5attempts", "Retry each step, no key, 5 attempts"},
		{"step-samekey", "Retry each step, same key every time"},
	}
	for i, w := range want {
		if r := rep.Rows[i]; r.ID != w.id || r.Label != w.label {
			t.Errorf("row %d: %q %q; want %q %q", i, r.ID, r.Label, w.id, w.label)
		}
	}
	if three, five := rep.Rows[0].Counters().Failed, rep.Rows[1].Counters().Failed; !(five < three/5) {
		t.Errorf("failed: %d with 3 attempts, %d with 5; want far fewer with 5", three, five)
	}
	_, err = retrysim.Run(context.Background(), retrysim.Experiment{Scenario: sc, Jobs: 10, Seed: 1,
		Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}, strategy.Retry{Attempts: 3}}})
	if err == nil || !strings.Contains(err.Error(), `"step-nokey" is listed twice`) {
		t.Errorf("the same Retry twice: err = %v; want listed twice", err)
	}
}
