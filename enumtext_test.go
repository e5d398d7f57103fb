package retrysim_test

import (
	"encoding/json"
	"testing"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Every enumeration a Go program sets marshals as its name, the name a
// scenario file and a report give it, and reads back from it; a value with
// no name is an error, not a number. Before, strategy.Scope,
// fleet.PolicyKind and fleet.ServerKind marshalled as numbers, where
// schema.KeyMode and backoff.Kind gave names.
func TestEnumsMarshalAsNames(t *testing.T) {
	type all struct {
		Scope   strategy.Scope
		Keys    schema.KeyMode
		Backoff backoff.Kind
		Policy  fleet.PolicyKind
		Server  fleet.ServerKind
		Shape   fleet.ShapeKind
		Outage  fleet.OutageMode
		Dist    fleet.Dist
		Reply   provider.Reply
	}
	v := all{strategy.WholeJob, schema.SameKey, backoff.FullJitter, fleet.TokenBucket, fleet.QueueServer, fleet.SpikeLoad, fleet.Stall, fleet.ExponentialService, provider.NoReply}
	b, err := json.Marshal(v)
	const want = `{"Scope":"job","Keys":"same","Backoff":"full-jitter","Policy":"token-bucket","Server":"queue","Shape":"spike","Outage":"stall","Dist":"exp","Reply":"none"}`
	if err != nil || string(b) != want {
		t.Fatalf("json.Marshal = %s, %v; want %s", b, err, want)
	}
	var back all
	if err := json.Unmarshal(b, &back); err != nil || back != v {
		t.Errorf("json.Unmarshal = %+v, %v; want %+v", back, err, v)
	}
	for _, bad := range []any{strategy.Scope(7), fleet.PolicyKind(99), fleet.ServerKind(9)} {
		if b, err := json.Marshal(bad); err == nil {
			t.Errorf("json.Marshal(%v) = %s; want an error", bad, b)
		}
	}
	if err := json.Unmarshal([]byte(`{"Server":"mainframe"}`), &back); err == nil {
		t.Errorf("json.Unmarshal of an unknown server kind succeeded")
	}
}
