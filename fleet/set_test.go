package fleet

import (
	"errors"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/schema"
)

// A worker fleet built in Go takes a setting by the path a scenario file
// gives it, and a value as the file writes it: each case reads the field
// the path names directly, so the path's reading is checked against the
// struct, not against itself. The fleet it was copied from is unchanged.
func TestWorkersSet(t *testing.T) {
	base := outageFleet("o", time.Hour, DefaultConfig().Client)
	for _, tc := range []struct {
		path, value string
		got         func(w Workers) any
		want        any
	}{
		{"graph.services[workers].server.capacity", "20", func(w Workers) any { return w.WorkerCount }, 20},
		{"graph.services[0].server.queue", "7", func(w Workers) any { return w.QueueMax }, 7},
		{"graph.entries[0].client.timeout", "45s", func(w Workers) any { return w.Queue.Timeout }, 45 * time.Second},
		{"graph.entries[0].client.policy", "token-bucket", func(w Workers) any { return w.Queue.Policy.Kind }, TokenBucket},
		{"graph.entries[0].client.budget_ratio", "0.3", func(w Workers) any { return w.Queue.Policy.BudgetRatio }, 0.3},
		{"graph.entries[0].load.rate", "12.5", func(w Workers) any { return w.Load.Rate }, 12.5},
		{"graph.entries[0].poison", "0.1", func(w Workers) any { return w.Poison }, 0.1},
		{"graph.entries[0].heartbeat", "true", func(w Workers) any { return w.Heartbeat }, true},
		{"graph.entries[0].store", "lease", func(w Workers) any { return w.Store }, KeyStore{Mode: delivery.Lease, TTL: 24 * time.Hour, Lease: 30 * time.Second}},
		{"graph.entries[0].crash_at", "after-work", func(w Workers) any { return w.Crash.At }, delivery.AfterWork},
		{"graph.services[workers].outage.mode", "stall", func(w Workers) any { return w.Down.Mode }, Stall},
		{"graph.services[workers].calls[1].client.attempts", "5", func(w Workers) any { return w.Steps[1].Client.Attempts }, 5},
		{"graph.services[db].server.p_fail", "0.25", func(w Workers) any { return w.Dependencies[0].Server.PFail }, 0.25},
		{"graph.services[db].outage.to", "50m", func(w Workers) any { return w.Dependencies[0].Outage.To }, 50 * time.Minute},
		{"graph.duration", "50m", func(w Workers) any { return w.Duration }, 50 * time.Minute},
	} {
		w := outageFleet("o", time.Hour, DefaultConfig().Client)
		if err := w.Set(tc.path, tc.value); err != nil {
			t.Errorf("Set(%s, %s) = %v", tc.path, tc.value, err)
			continue
		}
		if got := tc.got(w); got != tc.want {
			t.Errorf("Set(%s, %s): the field is %v; want %v", tc.path, tc.value, got, tc.want)
		}
		if err := w.Check(); err != nil {
			t.Errorf("Set(%s, %s): Check = %v", tc.path, tc.value, err)
		}
	}
	if w := outageFleet("o", time.Hour, DefaultConfig().Client); w.Steps[1].Client.Attempts != base.Steps[1].Client.Attempts || w.WorkerCount != 20 {
		t.Errorf("Set changed the fleet it was copied from")
	}
}

// A path no setting has, a value its setting does not take and a setting
// of the graph a worker fleet does not hold are refused with a *schema.FieldError
// naming the path, the fleet unchanged.
func TestWorkersSetRefuses(t *testing.T) {
	for _, tc := range []struct{ path, value, msg string }{
		{"graph.entries[0].client.attempts", "0", "0 is not a whole number from 1 to 100"},
		{"graph.entries[0].client.attempts", "x", `"x" is not a whole number`},
		{"graph.entries[0].poison", "lots", `"lots" is not a number`},
		{"graph.entries[0].client.timeout", "3", `"3" is not a duration such as 250ms or 2s`},
		{"graph.services[db].server.p_fail", "1.5", "1.5 is not a probability in [0, 1]"},
		{"graph.entries[0].client.nope", "1", "no setting of a graph has this path (" + graphPaths + ")"},
		{"graph.entries[1].poison", "0", "the graph has 1 entries"},
		{"graph.services[cache].server.base", "1s", `no service is called "cache" (the graph's: workers, db)`},
		{"graph.services[workers].server.kind", "latency", "a worker fleet does not hold this setting of its graph"},
		{"entries[0].poison", "0", "not a path of a graph (graph.entries[0].client.timeout, graph.services[NAME].server.capacity)"},
	} {
		w := outageFleet("o", time.Hour, DefaultConfig().Client)
		err := w.Set(tc.path, tc.value)
		var fe *schema.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.path || fe.Msg != tc.msg {
			t.Errorf("Set(%s, %s) = %v; want %s: %s", tc.path, tc.value, err, tc.path, tc.msg)
		}
		if w.WorkerCount != 20 || w.Poison != 0 || w.Queue != DefaultConfig().Client {
			t.Errorf("Set(%s, %s) refused changed the fleet", tc.path, tc.value)
		}
	}
}

// A graph refuses a value out of its setting's bounds unchanged, its
// entry's load and client included.
func TestGraphSetRefusedLeavesGraph(t *testing.T) {
	g := outageFleet("o", time.Hour, DefaultConfig().Client).Graph()
	before := g.Entries[0]
	if err := g.Set("graph.entries[0].client.attempts", "0"); err == nil {
		t.Fatal("Set(attempts 0) = nil; want a refusal")
	}
	if err := g.Set("graph.entries[0].ttl", "x"); err == nil {
		t.Fatal("Set(ttl x) = nil; want a refusal")
	}
	if g.Entries[0] != before {
		t.Errorf("refused Sets changed the entry: %+v; want %+v", g.Entries[0], before)
	}
}

// TestPolicyKindSetTakesDefaults: a client with no policy parameters (a
// preset's unlimited client) given a kind by its path takes DefaultPolicy's
// parameters, as a scenario file's client does, and passes Check, where a
// token bucket of rate 0 and size 0 would never allow a retry; a policy
// with parameters keeps them.
func TestPolicyKindSetTakesDefaults(t *testing.T) {
	c := Config{Name: "x", Duration: time.Minute, Load: Shape{Kind: Constant, Rate: 10},
		Server: Server{Kind: Independent}, Client: Client{Clients: 1, Timeout: time.Second, Attempts: 3, Policy: PolicyConfig{Shared: true}}}
	if err := c.Set("client.policy.kind", "token-bucket"); err != nil {
		t.Fatal(err)
	}
	want := DefaultPolicy()
	want.Kind, want.Shared = TokenBucket, true
	if c.Client.Policy != want {
		t.Errorf("policy %+v; want %+v", c.Client.Policy, want)
	}
	if err := c.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	c.Client.Policy = PolicyConfig{Kind: TokenBucket, Rate: 0.5, Size: 2}
	if err := c.Set("client.policy.kind", "breaker"); err != nil {
		t.Fatal(err)
	}
	if p := c.Client.Policy; p != (PolicyConfig{Kind: Breaker, Rate: 0.5, Size: 2}) {
		t.Errorf("policy %+v; want the breaker with rate 0.5 and size 2 kept", p)
	}
}
