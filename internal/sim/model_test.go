package sim

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/stats"
)

// TestModelKeepsStepPolicy: a shard's model carries each step's own policy
// (attempts, key mode, backoff) through JSON, so that merge rebuilds the
// scenario the run had, and its closed forms; a step that keeps the run's
// writes nothing for it. A key mode or backoff that no file names is refused
// with its field.
func TestModelKeepsStepPolicy(t *testing.T) {
	same := schema.SameKey
	wait := backoff.Policy{Kind: backoff.Constant, Base: time.Second}
	sc := provider.Scenario{Name: "checkout", Noun: "checkouts", Watched: []provider.Watch{{Step: 1}}, Steps: []provider.Step{
		{Name: "reserve", PFail: 0.01, Policy: provider.Policy{Attempts: 5}},
		{Name: "charge", PFail: 0.02, CanLoseReply: true, LostReply: 0.01, HonoursKeys: true, Policy: provider.Policy{Keys: &same, Backoff: &wait}},
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
		Backoff: backoff.Policy{Kind: backoff.Exponential, Base: 300 * time.Millisecond, Cap: 9 * time.Second}}
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
		{`"repeat":0.25`, `"repeat":1`, ``},
		{`"lease_ns":40000000000`, `"lease_ns":-1`, `queue.lease: `},
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
