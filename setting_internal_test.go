package retrysim

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// A setting given as a command's flag gives (Override, with the flag's typed
// value) and the same name swept by -set (lookupParam, a number; durations
// in seconds) change the same field to the same value: one name, one thing.
// Every numeric field of a step and of the queue is covered.
func TestOverrideIsSet(t *testing.T) {
	const email, user = "steps[send the welcome email]", "steps[save the user]"
	cases := []struct {
		name string
		flag any     // what the flag's value is (flag.Getter)
		set  float64 // what -set gives
	}{
		{"queue.ttl", 2 * time.Hour, 7200},
		{"queue.lease", 90 * time.Second, 90},
		{"queue.visibility", time.Minute, 60},
		{"queue.backoff.base", 250 * time.Millisecond, 0.25},
		{"queue.backoff.cap", 3 * time.Second, 3},
		{"queue.repeat_delay", provider.Latency{Median: 2 * time.Second}, 2},
		{"queue.max_deliveries", 7, 7},
		{"queue.max_crashes", 3, 3},
		{"queue.repeat", 0.25, 0.25},
		{"queue.crash", 0.125, 0.125},
		{email + ".p_fail", 0.2, 0.2},
		{email + ".lost_reply", 0.3, 0.3},
		{user + ".latency", provider.Latency{Median: time.Second}, 1},
		{user + ".attempts", 4, 4},
	}
	base, defaults := provider.Signup(0.01, 0.005), delivery.Defaults()
	var covered []string
	for _, tt := range cases {
		// With no queue (the job model), a field only the delivery model
		// reads, a step's latency or the queue's, is refused by Override
		// and by -set alike: no setting turns the model on.
		for _, q := range []*delivery.Config{&defaults, nil} {
			if q == nil && (strings.HasPrefix(tt.name, "queue.") || strings.HasSuffix(tt.name, ".latency")) {
				var fe *schema.FieldError
				if _, _, err := Override(base, q, Setting{tt.name, tt.flag}); !errors.As(err, &fe) || fe.Field != tt.name {
					t.Errorf("Override(%s) with no queue = %v; want a schema.FieldError for %s", tt.name, err, tt.name)
				}
				if _, err := lookupParam(tt.name, base, q); err == nil || !strings.Contains(err.Error(), "only the delivery model reads it") {
					t.Errorf("-set %s with no queue = %v; want refused", tt.name, err)
				}
				continue
			}
			sc1, q1, err := Override(base, q, Setting{tt.name, tt.flag})
			if err != nil {
				t.Fatalf("Override(%s) = %v", tt.name, err)
			}
			sw := Sweep{Experiment: Experiment{Scenario: base, Delivery: q, Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}},
				Axes: []Axis{{Name: tt.name, Values: []float64{tt.set}}}}
			grid, err := sw.grid()
			if err != nil {
				t.Fatalf("-set %s: %v", tt.name, err)
			}
			e, err := sw.at(grid, sweep.Point{3, 1e6, tt.set}, sw.Experiment.Strategies)
			if err != nil {
				t.Fatalf("-set %s: %v", tt.name, err)
			}
			wantQueue := q != nil
			if !reflect.DeepEqual(sc1, e.Scenario) || !reflect.DeepEqual(q1, e.Delivery) || (q1 != nil) != wantQueue {
				t.Errorf("%s over queue %v: Override gives %+v %+v; -set gives %+v %+v", tt.name, q, sc1.Steps, q1, e.Scenario.Steps, e.Delivery)
			}
			if reflect.DeepEqual(sc1, base) && (q1 == nil || *q1 == defaults) {
				t.Errorf("%s: changed nothing", tt.name)
			}
		}
		covered = append(covered, tt.name[strings.LastIndex(tt.name, "]")+1:])
	}
	for _, name := range fieldNames(true, true) {
		if !slices.Contains(covered, "queue."+name) {
			t.Errorf("queue.%s is not covered", name)
		}
	}
	for _, name := range fieldNames(false, false) {
		if !slices.Contains(covered, "."+name) {
			t.Errorf("steps[STEP].%s is not covered", name)
		}
	}
}

// Override sets p_fail on every step, lost_reply on the steps that can lose
// their reply; latency and the queue's fields set the queue given and are
// refused without one (the job model), never turning the delivery model on;
// the input is never changed; a value of another type, an unknown name and
// a queue that Check refuses are errors.
func TestOverride(t *testing.T) {
	base := provider.Signup(0.01, 0.005)
	sc, q, err := Override(base, nil, Setting{"p_fail", 0.5}, Setting{"lost_reply", 0.25})
	if err != nil || q != nil {
		t.Fatalf("Override(p_fail, lost_reply) = %v, %v; want no queue", q, err)
	}
	for i, st := range sc.Steps {
		want := 0.0
		if st.CanLoseReply {
			want = 0.25
		}
		if st.PFail != 0.5 || st.LostReply != want {
			t.Errorf("step %d: p_fail %v, lost_reply %v; want 0.5, %v", i, st.PFail, st.LostReply, want)
		}
	}
	if base.Steps[0].PFail != 0.01 {
		t.Errorf("Override changed its input's steps")
	}
	lat := provider.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond}
	defaults := delivery.Defaults()
	sc, q, err = Override(base, &defaults, Setting{"latency", lat})
	if err != nil || q == nil || *q != delivery.Defaults() || sc.Steps[3].Latency != lat {
		t.Errorf("Override(latency) = %v, %v; want every step's latency and the default queue", q, err)
	}
	var jobModel *schema.FieldError
	if _, q, err := Override(base, nil, Setting{"latency", lat}); !errors.As(err, &jobModel) || jobModel.Field != "latency" || q != nil {
		t.Errorf("Override(latency) with no queue = %v, %v; want no queue and a schema.FieldError for latency", q, err)
	}
	_, q, err = Override(base, &defaults, Setting{"queue.store", delivery.Lease}, Setting{"queue.backoff", backoff.River},
		Setting{"queue.crash_at", delivery.AfterKey})
	if err != nil || q == nil || q.Store != delivery.Lease || q.Backoff.Kind != backoff.River || q.CrashAt != delivery.AfterKey {
		t.Errorf("Override(store, backoff, crash_at) = %+v, %v", q, err)
	}
	for _, tt := range []struct {
		s    Setting
		want string
	}{
		{Setting{"queue.ttl", 7200.0}, "queue.ttl: takes a time.Duration, not a float64"},
		{Setting{"p_fail", "0.1"}, "p_fail: takes a float64, not a string"},
		{Setting{"queue.colour", 1}, `queue.colour: the queue has no field "colour"`},
		{Setting{"attempts", 2}, `attempts: unknown setting (want p_fail`},
		{Setting{"p_fail", 7.0}, `p_fail: 7 is not a probability in [0, 1]`},
		{Setting{"steps[save the user].p_fail", -0.5}, `steps[save the user].p_fail: -0.5 is not a probability in [0, 1]`},
		{Setting{"queue.max_deliveries", 0}, `queue.max_deliveries: 0 is not a whole number from 1 to 1000`},
		{Setting{"steps[nope].p_fail", 0.1}, `no step is called "nope"`},
	} {
		if _, _, err := Override(base, nil, tt.s); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Override(%v) = %v; want %q", tt.s, err, tt.want)
		}
	}
	// Two steps of one name: a name that would set only the first is
	// refused (issue 37), as a scenario file refuses the scenario.
	twice := provider.Scenario{Steps: []provider.Step{{Name: "twice"}, {Name: "once"}, {Name: "twice"}}}
	if _, _, err := Override(twice, nil, Setting{"steps[twice].p_fail", 0.1}); err == nil || err.Error() != `steps[twice].p_fail: "twice" names two steps, 0 and 2, and a step's name must be its own` {
		t.Errorf("Override(steps[twice].p_fail) = %v; want refused", err)
	}
	// A value of another type is refused even where no step takes the
	// setting: lost_reply over a scenario with no step that can lose its reply.
	sure := provider.Scenario{Name: "sure", Steps: []provider.Step{{Name: "a"}}}
	if _, _, err := Override(sure, nil, Setting{"lost_reply", "0.1"}); err == nil || err.Error() != "lost_reply: takes a float64, not a string" {
		t.Errorf("Override(lost_reply %q) over no lossy step = %v; want lost_reply: takes a float64, not a string", "0.1", err)
	}
	var fe *schema.FieldError
	if _, _, err := Override(base, &defaults, Setting{"queue.lease", time.Duration(0)}); !errors.As(err, &fe) || fe.Field != "queue.lease" {
		t.Errorf("Override(lease 0) = %v; want a schema.FieldError for queue.lease", err)
	}
}

// ParseStrategies builds each name at the attempts given and refuses an
// unknown one as a schema.FieldError naming its index.
func TestParseStrategies(t *testing.T) {
	st, err := ParseStrategies([]string{"step-nokey", "job-samekey-skip"}, 7)
	if err != nil || len(st) != 2 || st[0].(strategy.Retry).Attempts != 7 || !st[1].(strategy.Retry).SkipFinished {
		t.Fatalf("ParseStrategies = %v, %v", st, err)
	}
	var fe *schema.FieldError
	if _, err := ParseStrategies([]string{"step-nokey", "step-retry-harder"}, 3); !errors.As(err, &fe) || fe.Field != "strategies[1]" {
		t.Errorf("ParseStrategies(step-retry-harder) = %v; want a schema.FieldError for strategies[1]", err)
	}
}

// Settings describes each setting a command declares as a flag: a help text
// naming its argument, and as default what a run has without it, written
// out here from the README's flags table (the sign-up at p_fail 0.01 and
// lost_reply 0.005, latency 0; the queue's full-jitter backoff of base 100ms
// and cap 2s, store none, ttl 24h, lease and visibility 30s, 10 deliveries,
// no repeat, no crash, crashes at before-key): giving every default over
// the run changes nothing. A count's bounds are the limits its field takes.
func TestSettingsDescribeTheirFlags(t *testing.T) {
	want := map[string]any{
		"p_fail": 0.01, "lost_reply": 0.005, "latency": provider.Latency{},
		"queue.backoff": backoff.FullJitter, "queue.backoff.base": 100 * time.Millisecond, "queue.backoff.cap": 2 * time.Second,
		"queue.store": delivery.NoStore, "queue.ttl": 24 * time.Hour, "queue.lease": 30 * time.Second,
		"queue.visibility": 30 * time.Second, "queue.max_deliveries": 10, "queue.repeat": 0.0,
		"queue.repeat_delay": provider.Latency{}, "queue.crash": 0.0, "queue.crash_at": delivery.BeforeKey, "queue.max_crashes": 0,
	}
	base, q := provider.Signup(0.01, 0.005), delivery.Defaults()
	var given []Setting
	for _, s := range settingDefs() {
		if strings.Count(s.Usage, "`") != 2 {
			t.Errorf("%s: usage %q names no argument in backquotes", s.Name, s.Usage)
		}
		if w, ok := want[s.Name]; !ok || s.Default != w {
			t.Errorf("%s: default %v (%T); want %v (%T)", s.Name, s.Default, s.Default, w, w)
		}
		delete(want, s.Name)
		given = append(given, Setting{s.Name, s.Default})
	}
	for name := range want {
		t.Errorf("%s: not among the settings", name)
	}
	sc, q2, err := Override(base, &q, given...)
	if err != nil || !reflect.DeepEqual(sc, base) || *q2 != q {
		t.Errorf("Override(every default) = %+v, %+v, %v; want the run unchanged", sc.Steps, q2, err)
	}
	if !reflect.DeepEqual(DefaultScenario(), base) {
		t.Errorf("DefaultScenario() = %+v; want the sign-up at 0.01, 0.005", DefaultScenario().Steps)
	}
	bounds := map[string][2]int{"queue.max_deliveries": {1, limits.DeliveryDeliveries}, "queue.max_crashes": {0, limits.DeliveryCrashes}}
	for _, s := range settingDefs() {
		if _, count := s.Default.(int); count && [2]int{s.Min, s.Max} != bounds[s.Name] {
			t.Errorf("%s: bounds %d to %d; want %v", s.Name, s.Min, s.Max, bounds[s.Name])
		}
	}
}
