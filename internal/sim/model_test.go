package sim

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/stats"
)

// TestModelKeepsStepPolicy: a shard's model carries each step's own policy
// (attempts, key mode, backoff) through JSON, so that merge rebuilds the
// scenario the run had, and its closed forms; a step that keeps the run's
// writes nothing for it. A key mode or backoff that no file names is refused
// with its field.
func TestModelKeepsStepPolicy(t *testing.T) {
	same := provider.SameKey
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
