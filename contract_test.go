package retrysim_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// The models a strategy runs in: the job model with each Part 5 engine, and
// the delivery model.
var contractModels = []struct {
	name, engine string
	delivery     bool
}{{"plain", "plain", false}, {"auto", "", false}, {"delivery", "", true}}

// contractExperiment is the article's scenario at p_fail and lost_reply
// through strategies in the given model, one worker.
func contractExperiment(engine string, queue bool, pFail, lost float64, jobs int64, ss ...strategy.Strategy) retrysim.Experiment {
	e := retrysim.Experiment{
		Scenario: provider.Signup(pFail, lost), Strategies: ss, Jobs: jobs, Seed: 1, Engine: engine, Workers: 1,
	}
	if queue {
		q := delivery.Defaults()
		e.Delivery = &q
	}
	return e
}

// alwaysFails embeds the built-in Retry, for its name and store, and
// overrides Run: every delivery gives up at once.
type alwaysFails struct{ strategy.Retry }

func (alwaysFails) Run(strategy.Calls) bool { return false }

// A strategy that embeds strategy.Retry and overrides Run is run through its
// Run in every model: all 100,000 jobs fail. Before, the embedded Resume was
// promoted and taken for the fast path, and the job model reported 0 failed
// (the delivery model 99,896).
func TestEmbeddedRetryRunsItsOwnRun(t *testing.T) {
	const jobs = 100_000
	s := alwaysFails{strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey}}
	for _, m := range contractModels {
		rep, err := retrysim.Run(context.Background(), contractExperiment(m.engine, m.delivery, 0.01, 0.005, jobs, s))
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		if got := rep.Rows[0].Counters().Failed; got != jobs {
			t.Errorf("%s: %d of %d jobs failed; want every one, as the wrapper's Run says", m.name, got, jobs)
		}
	}
	// The skip engine runs only strategies with a fast path, and the wrapper
	// has none of its own.
	if _, err := retrysim.Run(context.Background(), contractExperiment("skip", false, 0.01, 0.005, jobs, s)); err == nil {
		t.Error("the skip engine ran a strategy that embeds Retry and overrides Run; want it refused")
	}
}

// counting counts its Run calls in an atomic counter and then runs Retry.
type counting struct {
	strategy.Retry
	runs *atomic.Int64
}

func (c counting) Run(calls strategy.Calls) bool {
	c.runs.Add(1)
	return c.Retry.Run(calls)
}

// Strategy.Run is called from several goroutines at once, as its doc says:
// with two workers over two blocks, the first Run waits for a second Run to
// start, which only the other worker can do (a deadlock guard of a minute
// ends the test if it never comes). A counter kept with sync/atomic, as the
// doc asks, counts every job's delivery exactly; `go test -race` holds the
// strategy race-free.
func TestStrategyRunIsConcurrent(t *testing.T) {
	var first, second sync.Once
	met := make(chan struct{})
	var calls atomic.Int64
	var waited atomic.Bool
	meet := funcStrategy{name: "meet", run: func(c strategy.Calls) bool {
		calls.Add(1)
		isFirst := false
		first.Do(func() { isFirst = true })
		if isFirst {
			select {
			case <-met:
			case <-time.After(time.Minute):
				waited.Store(true)
			}
		} else {
			second.Do(func() { close(met) })
		}
		return c.Call(0, provider.NoKey) == provider.ReplyOK
	}}
	const jobs = 2 << 16 // two blocks
	for _, m := range contractModels {
		first, second, met = sync.Once{}, sync.Once{}, make(chan struct{})
		calls.Store(0)
		e := contractExperiment(m.engine, m.delivery, 0, 0, jobs, meet)
		e.Workers = 2
		if _, err := retrysim.Run(context.Background(), e); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		if waited.Load() {
			t.Fatalf("%s: no second Run started while the first ran; want two workers calling Run at once", m.name)
		}
		if got := calls.Load(); got != jobs {
			t.Errorf("%s: Run called %d times; want one delivery a job, %d", m.name, got, jobs)
		}
	}
	var runs atomic.Int64
	s := counting{strategy.Retry{Scope: strategy.EachStep, Attempts: 3}, &runs}
	e := contractExperiment("", false, 0.01, 0.005, 3<<16, s)
	e.Workers = 4
	if _, err := retrysim.Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if got := runs.Load(); got != 3<<16 {
		t.Errorf("Run counted %d calls over 4 workers; want one a job, %d", got, 3<<16)
	}
}

// funcStrategy is a strategy made of a function, with no fast path.
type funcStrategy struct {
	name string
	run  func(c strategy.Calls) bool
}

func (f funcStrategy) Name() string              { return f.name }
func (f funcStrategy) Run(c strategy.Calls) bool { return f.run(c) }
func (f funcStrategy) UsesStore() bool           { return false }

// straight gives s the fast path, resuming with run as it runs.
func straight(s funcStrategy) strategy.Straight {
	return strategy.Straight{Strategy: s, Resume: func(c strategy.Calls, from int) bool { return s.run(c) }}
}

var errBoom = errors.New("boom")

// A panic in a strategy is Run's error, a *schema.PanicError that names
// the strategy, the job and the step of its last call, and wraps the value,
// in every engine and model: with every call failing (p_fail 1), job 0 is
// the first to run (one worker), it calls steps 0 and 2, and panics. In the
// delivery model a panic on a second delivery, which runs on a coroutine of
// its own, is the error too. Before, each of these crashed the program from
// a worker goroutine.
func TestStrategyPanicIsError(t *testing.T) {
	boom := funcStrategy{name: "boom", run: func(c strategy.Calls) bool {
		c.Call(0, provider.NoKey)
		c.Call(2, provider.NoKey)
		panic(errBoom)
	}}
	type tc struct {
		name string
		e    retrysim.Experiment
		step int
	}
	var cases []tc
	for _, m := range contractModels {
		cases = append(cases, tc{m.name + " Run", contractExperiment(m.engine, m.delivery, 1, 0, 1000, boom), 2})
		cases = append(cases, tc{m.name + " Resume", contractExperiment(m.engine, m.delivery, 1, 0, 1000, straight(boom)), 2})
	}
	cases = append(cases, tc{"skip Resume", contractExperiment("skip", false, 1, 0, 1000, straight(boom)), 2})
	// The first delivery waits a second for its first call; the repeated
	// request's delivery starts a millisecond in, on a coroutine, and
	// panics before any call of its own: the job's last step is the first
	// delivery's, 0.
	var runs atomic.Int64
	second := funcStrategy{name: "boom", run: func(c strategy.Calls) bool {
		if runs.Add(1) == 2 {
			panic(errBoom)
		}
		return c.Call(0, provider.NoKey) == provider.ReplyOK
	}}
	e := contractExperiment("", true, 0, 0, 1000, second)
	for i := range e.Scenario.Steps {
		e.Scenario.Steps[i].Latency = provider.Latency{Median: time.Second}
	}
	e.Delivery.RepeatP, e.Delivery.RepeatDelay = 1, provider.Latency{Median: time.Millisecond}
	cases = append(cases, tc{"delivery on a coroutine", e, 0})
	for _, c := range cases {
		_, err := retrysim.Run(context.Background(), c.e)
		var pe *schema.PanicError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v; want a *schema.PanicError", c.name, err)
			continue
		}
		if where := fmt.Sprintf("job 0 at step %d", c.step); pe.Kind != "strategy" || pe.Name != "boom" || pe.Where != where || pe.Value != errBoom || len(pe.Stack) == 0 {
			t.Errorf("%s: %+v; want strategy boom, %s, value boom and a stack", c.name, *pe, where)
		}
		if !errors.Is(err, errBoom) {
			t.Errorf("%s: %v does not wrap the panic's error", c.name, err)
		}
		if want := `strategy "boom" panicked in job 0 at step ` + string(rune('0'+c.step)) + ": boom"; err.Error() != want {
			t.Errorf("%s: error %q; want %q", c.name, err, want)
		}
	}
}

// A strategy that never returns does not hold a run up once its context is
// cancelled, in every engine and model: one waits for the context and then
// calls on for ever, one calls for ever from the start. Every Calls method
// then unwinds it (strategy.ErrStopped), and Run returns context.Canceled.
// The test cancels once a strategy has started and waits for Run with a
// deadlock guard of a minute, not a measure of speed. Before, Run never
// returned.
func TestStrategyThatNeverReturnsIsStopped(t *testing.T) {
	for _, loop := range []string{"waits, then calls for ever", "calls for ever"} {
		for _, m := range append(contractModels, struct {
			name, engine string
			delivery     bool
		}{"skip", "skip", false}) {
			ctx, cancel := context.WithCancel(context.Background())
			started := make(chan struct{})
			var once sync.Once
			var sawStop atomic.Bool
			forever := funcStrategy{name: "forever", run: func(c strategy.Calls) bool {
				once.Do(func() { close(started) })
				if loop == "waits, then calls for ever" {
					<-ctx.Done()
				}
				defer func() {
					if v := recover(); v != nil {
						sawStop.Store(v == strategy.ErrStopped)
						panic(v)
					}
				}()
				for {
					c.Call(0, provider.StepKey)
				}
			}}
			var s strategy.Strategy = forever
			if m.engine == "skip" {
				s = straight(forever)
			}
			e := contractExperiment(m.engine, m.delivery, 0.5, 0, 1000, s)
			e.Workers = 2
			done := make(chan error, 1)
			go func() {
				_, err := retrysim.Run(ctx, e)
				done <- err
			}()
			<-started
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s, %s: Run returned %v; want context.Canceled", m.name, loop, err)
				}
				if !sawStop.Load() {
					t.Errorf("%s, %s: the strategy's calls did not fail with strategy.ErrStopped", m.name, loop)
				}
			case <-time.After(time.Minute):
				t.Fatalf("%s, %s: Run still running a minute after its context was cancelled", m.name, loop)
			}
		}
	}
}

// sameKeyRetry retries each step up to three times, sending the step's own
// key, provider.StepKey, on every call: what Retry's SameKey mode does.
var sameKeyRetry = funcStrategy{name: "own same key", run: func(c strategy.Calls) bool {
	for i := range c.Steps() {
		ok := c.Call(i, provider.StepKey) == provider.ReplyOK
		for a := 1; a < 3 && !ok; a++ {
			ok = c.Call(i, provider.StepKey) == provider.ReplyOK
		}
		if !ok {
			return false
		}
	}
	return true
}}

// A strategy of its own can send the step's stable key (provider.StepKey):
// on the same draws it counts what the built-in per-step retry with the same
// key counts, no user getting two emails, while fresh keys (FreshKey) send
// some twice.
func TestOwnStrategySendsTheStepKey(t *testing.T) {
	builtin := strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.SameKey}
	fresh := strategy.Retry{Scope: strategy.EachStep, Attempts: 3, Keys: schema.FreshKeys}
	rep, err := retrysim.Run(context.Background(), contractExperiment("plain", false, 0.05, 0.05, 200_000, sameKeyRetry, builtin, fresh))
	if err != nil {
		t.Fatal(err)
	}
	own, same, freshC := (*rep.Rows[0].Stats()), (*rep.Rows[1].Stats()), (*rep.Rows[2].Stats())
	if !reflect.DeepEqual(own, same) {
		t.Errorf("own strategy with provider.StepKey counted %+v; the built-in same key %+v", own, same)
	}
	if own.DuplicateUsers != 0 || freshC.DuplicateUsers == 0 {
		t.Errorf("%d users emailed twice with the step's key, %d with fresh keys; want none, and some", own.DuplicateUsers, freshC.DuplicateUsers)
	}
}
