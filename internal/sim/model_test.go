package sim

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// TestModelKeepsStepPolicy: a shard's model carries each step's own policy
// (attempts, key mode, backoff) through JSON, so that merge rebuilds the
// scenario the run had, and its closed forms; a step that keeps the run's
// writes nothing for it. A key mode or backoff that no file names is refused
// with its field.
func TestModelKeepsStepPolicy(t *testing.T) {
	same := schema.SameKey
	wait := backoff.Schedule{Kind: backoff.Constant, Base: time.Second}
	sc := provider.Scenario{Name: "checkout", Noun: "checkouts", Watched: []provider.Watch{{Step: 1}}, Steps: []provider.Step{
		{Name: "reserve", PFail: 0.01, Retry: provider.StepRetry{Attempts: 5}},
		{Name: "charge", PFail: 0.02, CanLoseReply: true, LostReply: 0.01, HonoursKeys: true, Retry: provider.StepRetry{Keys: &same, Backoff: &wait}},
		{Name: "ship", PFail: 0.01},
	}}
	data, err := json.Marshal(ModelOf(sc, nil))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), `"attempts"`) != 1 || strings.Count(string(data), `"keys"`) != 1 {
		t.Errorf("model %s; want the one step's attempts and the one step's keys, nothing for the steps that keep the run's", data)
	}
	var m stats.Model
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	back, q, err := FromModel(m)
	if err != nil || q != nil {
		t.Fatalf("FromModel = %v, %v", q, err)
	}
	if !reflect.DeepEqual(back, sc) {
		t.Errorf("FromModel(ModelOf(sc)) = %+v; want %+v", back, sc)
	}
	for _, tc := range []struct {
		edit func(*stats.Model)
		msg  string
	}{
		{func(m *stats.Model) { m.Steps[1].Set("keys", "sometimes") }, `steps[1].keys: unknown key mode "sometimes"`},
		{func(m *stats.Model) { b := m.Steps[1].Lookup("backoff").(stats.Settings); b.Set("policy", "soon") }, "steps[1].backoff.policy: "},
		{func(m *stats.Model) { m.Steps[0].Set("attempts", int64(1001)) }, "steps[0].attempts: 1001 is not a whole number from 1 to 1000"},
	} {
		var bad stats.Model
		if err := json.Unmarshal(data, &bad); err != nil {
			t.Fatal(err)
		}
		tc.edit(&bad)
		if _, _, err := FromModel(bad); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("FromModel = %v; want %q", err, tc.msg)
		}
	}
}

// ModelOf writes each setting of the queue in its own field, and FromModel
// reads back the same queue: every field here has a value of its own.
func TestModelQueueRoundTrip(t *testing.T) {
	q := delivery.Config{Store: delivery.Lease, TTL: time.Hour, Lease: 40 * time.Second, Visibility: 50 * time.Second,
		MaxDeliveries: 7, RepeatP: 0.25, RepeatDelay: provider.Latency{Median: 2 * time.Second, P99: time.Minute},
		CrashP: 0.125, CrashAt: delivery.AfterWork, MaxCrashes: 3,
		Backoff: backoff.Schedule{Kind: backoff.Exponential, Base: 300 * time.Millisecond, Cap: 9 * time.Second}}
	// The shard file's keys and values, written out from the format's rules
	// (modelKeys): the queue's own settings, then the backoff's.
	want := `{"store":"lease","ttl_ns":3600000000000,"lease_ns":40000000000,"visibility_ns":50000000000,"max_deliveries":7,` +
		`"repeat":0.25,"repeat_delay_ns":2000000000,"repeat_delay_p99_ns":60000000000,"crash":0.125,"crash_at":"after-work","max_crashes":3,` +
		`"backoff":"exponential","backoff_base_ns":300000000,"backoff_cap_ns":9000000000}`
	sc := provider.Signup(0.01, 0.005)
	m := ModelOf(sc, &q)
	if got, err := json.Marshal(m.Queue); err != nil || string(got) != want {
		t.Fatalf("ModelOf(...).Queue = %s, %v; want %s", got, err, want)
	}
	_, got, err := FromModel(*m)
	if err != nil || *got != q {
		t.Fatalf("FromModel = %+v, %v; want %+v", got, err, q)
	}
	var read stats.Settings
	if err := json.Unmarshal([]byte(want), &read); err != nil {
		t.Fatal(err)
	}
	m.Queue = read
	if _, got, err := FromModel(*m); err != nil || *got != q {
		t.Fatalf("FromModel of the queue read from json = %+v, %v; want %+v", got, err, q)
	}
	for _, tc := range []struct{ from, to, msg string }{
		{`"crash_at":"after-work"`, `"crash_at":"lunch"`, `queue.crash_at: unknown crash point "lunch"`},
		{`"ttl_ns":3600000000000,`, ``, `queue.ttl_ns: missing`},
		{`"store":"lease"`, `"store":"lease","surprise":1`, `queue.surprise: no setting of the delivery model`},
		{`"ttl_ns":3600000000000`, `"ttl_ns":3.6e12`, `queue.ttl_ns: 3.6e+12 is not a whole number`},
		{`"max_deliveries":7`, `"max_deliveries":"7"`, `queue.max_deliveries: 7 is not a whole number`},
		{`"store":"lease"`, `"store":2`, `queue.store: 2 is not a name`},
		{`"repeat":0.25`, `"repeat":"0.25"`, `queue.repeat: "0.25" is not a number`},
		{`"repeat":0.25`, `"repeat":true`, `queue.repeat: true is not a number`},
		{`"repeat":0.25`, `"repeat":1`, ``},
		{`"lease_ns":40000000000`, `"lease_ns":-1`, `queue.lease: `},
		// A latency's keys are both there before either is read; a step's are read in turn.
		{`"repeat_delay_ns":2000000000,"repeat_delay_p99_ns":60000000000`, `"repeat_delay_ns":"2s"`, `queue.repeat_delay_p99_ns: missing`},
		{`"repeat_delay_p99_ns":60000000000`, `"repeat_delay_p99_ns":"1m"`, `queue.repeat_delay_p99_ns: 1m is not a whole number`},
		{`"max_crashes":3`, `"max_crashes":3.5`, `queue.max_crashes: 3.5 is not a whole number`},
	} {
		data := strings.Replace(want, tc.from, tc.to, 1)
		var edited stats.Settings
		if err := json.Unmarshal([]byte(data), &edited); err != nil {
			t.Fatal(err)
		}
		m.Queue = edited
		_, _, err := FromModel(*m)
		if tc.msg == "" && err != nil || tc.msg != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.msg)) {
			t.Errorf("FromModel with %s = %v; want %q", tc.to, err, tc.msg)
		}
	}
}

// A step of a shard's model writes each setting of decl.StepSettings
// under its key, in the table's order (written out here from the format's
// rules: a latency in whole nanoseconds, the step's own policy last), and
// FromModel reads back the same step; a key missing, unknown or of the
// wrong type is refused with its field.
func TestModelStepKeys(t *testing.T) {
	same := schema.SameKey
	st := provider.Step{Name: "charge", PFail: 0.25, CanLoseReply: true, LostReply: 0.125, HonoursKeys: true,
		Latency: provider.Latency{Median: 20 * time.Millisecond, P99: 200 * time.Millisecond},
		Retry:   provider.StepRetry{Attempts: 4, Keys: &same, Backoff: &backoff.Schedule{Kind: backoff.Exponential, Base: time.Second, Cap: time.Minute}}}
	const want = `{"name":"charge","p_fail":0.25,"can_lose_reply":true,"lost_reply":0.125,"keyed":true,` +
		`"latency_ns":20000000,"latency_p99_ns":200000000,"attempts":4,"keys":"same",` +
		`"backoff":{"policy":"exponential","base_ns":1000000000,"cap_ns":60000000000}}`
	sc := provider.Scenario{Name: "one", Noun: "jobs", Steps: []provider.Step{st}, Watched: []provider.Watch{{Step: 0}}}
	got, err := json.Marshal(ModelOf(sc, nil).Steps[0])
	if err != nil || string(got) != want {
		t.Fatalf("ModelOf's step = %s, %v; want %s", got, err, want)
	}
	read := func(step string) (provider.Scenario, error) {
		var m stats.Model
		if err := json.Unmarshal([]byte(`{"name":"one","noun":"jobs","watched":[{"step":0,"label":""}],"steps":[`+step+`]}`), &m); err != nil {
			return provider.Scenario{}, err
		}
		back, _, err := FromModel(m)
		return back, err
	}
	if back, err := read(want); err != nil || !reflect.DeepEqual(back, sc) {
		t.Fatalf("FromModel of %s = %+v, %v; want %+v", want, back, err, sc)
	}
	for _, tc := range [][3]string{
		{`"p_fail":0.25,`, ``, "steps[0].p_fail: missing; a shard's step holds every setting of a step but the run's policy"},
		{`"latency_p99_ns":200000000,`, ``, "steps[0].latency_p99_ns: missing; a shard's step holds every setting of a step but the run's policy"},
		{`"keyed":true`, `"keyed":true,"colour":"red"`, "steps[0].colour: no setting of a step is written under this key"},
		{`"keyed":true`, `"keyed":1`, "steps[0].keyed: 1 is not true or false"},
		{`"p_fail":0.25`, `"p_fail":"0.25"`, "steps[0].p_fail: 0.25 is not a number"},
		{`"latency_ns":20000000`, `"latency_ns":2e7`, "steps[0].latency_ns: 2e+07 is not a whole number"},
		{`"latency_ns":20000000,"latency_p99_ns":200000000`, `"latency_ns":"20ms"`, "steps[0].latency_ns: 20ms is not a whole number"},
		{`"attempts":4`, `"attempts":4.5`, "steps[0].attempts: 4.5 is not a whole number"},
		{`"keys":"same"`, `"keys":true`, "steps[0].keys: true is not a name"},
		{`,"cap_ns":60000000000`, ``, "steps[0].backoff.cap_ns: missing; a step's backoff holds its policy, base_ns and cap_ns"},
		{`"cap_ns"`, `"jitter"`, "steps[0].backoff.jitter: a backoff has no such key (want policy, base_ns, cap_ns)"},
		{`{"policy":"exponential","base_ns":1000000000,"cap_ns":60000000000}`, `"exponential"`, "steps[0].backoff: exponential is not an object of policy, base_ns and cap_ns"},
	} {
		if !strings.Contains(want, tc[0]) {
			t.Fatalf("%s is not in %s", tc[0], want)
		}
		if _, err := read(strings.Replace(want, tc[0], tc[1], 1)); err == nil || err.Error() != tc[2] {
			t.Errorf("FromModel with %s for %s = %v; want %s", tc[1], tc[0], err, tc[2])
		}
	}
}
