package sim

import (
	"encoding/json"
	"reflect"
	"slices"
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
		{func(m *stats.Model) { m.Steps[1].Keys = "sometimes" }, `steps[1].keys: unknown key mode "sometimes"`},
		{func(m *stats.Model) { m.Steps[1].Backoff.Policy = "soon" }, "steps[1].backoff.policy: "},
		{func(m *stats.Model) { m.Steps[0].Attempts = 1001 }, "steps[0].attempts: 1001 is not a whole number from 1 to 1000"},
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

// stats.ModelQueue holds every setting of the queue, each under the json
// keys the codec writes it by, and no field that is no setting's: what
// ModelOf writes and FromModel reads is delivery.Settings, field for field.
func TestModelQueueHoldsEverySetting(t *testing.T) {
	want := map[string]bool{}
	for _, s := range delivery.Settings() {
		for _, k := range modelKeys(s) {
			want[k] = true
		}
	}
	typ := reflect.TypeFor[stats.ModelQueue]()
	var tags []string
	for i := range typ.NumField() {
		tag := strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]
		tags = append(tags, tag)
		if !want[tag] {
			t.Errorf("stats.ModelQueue.%s (%q) is no setting's key", typ.Field(i).Name, tag)
		}
	}
	for k := range want {
		if !slices.Contains(tags, k) {
			t.Errorf("stats.ModelQueue has no field for %q", k)
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
	want := stats.ModelQueue{Store: "lease", TTLNs: 3600e9, LeaseNs: 40e9, VisibilityNs: 50e9, MaxDeliveries: 7,
		Repeat: 0.25, RepeatDelayNs: 2e9, RepeatDelayP99: 60e9, Crash: 0.125, CrashAt: "after-work", MaxCrashes: 3,
		Backoff: "exponential", BackoffBaseNs: 3e8, BackoffCapNs: 9e9}
	sc := provider.Signup(0.01, 0.005)
	m := ModelOf(sc, &q)
	if *m.Queue != want {
		t.Fatalf("ModelOf(...).Queue = %+v; want %+v", *m.Queue, want)
	}
	_, got, err := FromModel(*m)
	if err != nil || *got != q {
		t.Fatalf("FromModel = %+v, %v; want %+v", got, err, q)
	}
	m.Queue.CrashAt = "lunch"
	if _, _, err := FromModel(*m); err == nil || !strings.HasPrefix(err.Error(), `queue.crash_at: unknown crash point "lunch"`) {
		t.Errorf("FromModel with crash_at lunch = %v; want queue.crash_at refused", err)
	}
}
