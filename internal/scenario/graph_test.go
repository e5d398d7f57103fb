package scenario

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
)

// designGraph is the graph section of the agreed design (GRAPH.md), with a
// policy named as the fleet command names it.
const designGraph = `graph:
  duration: 60s
  deadlines: true
  entries:
    - to: api
      load: {shape: constant, rate: 40}
      client: {timeout: 3s, attempts: 3}
  services:
    - name: api
      server: {kind: independent, base: 10ms}
      calls:
        - to: db
          client: {timeout: 1s, attempts: 4, policy: finagle-budget, budget_ratio: 0.1, backoff: exponential, backoff_cap: 0s}
    - name: db
      server: {kind: independent, base: 5ms, p_fail: 1}
      outage: {from: 20s, to: 40s, mode: stall}
`

// The design's file reads as the graph it describes: each key given sets
// its setting, each left out keeps retrysim fleet's default.
func TestGraphSection(t *testing.T) {
	l, err := Parse("g.yaml", []byte(designGraph))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CheckGraph(); err != nil {
		t.Fatal(err)
	}
	if l.CheckFleet() == nil || l.CheckJob() == nil {
		t.Error("a graph alone is taken by retrysim fleet or by a job's command")
	}
	def := fleet.DefaultConfig()
	entry := def.Client
	entry.Timeout, entry.Attempts = 3*time.Second, 3
	call := def.Client
	call.Timeout, call.Attempts = time.Second, 4
	call.Policy.Kind, call.Policy.BudgetRatio = fleet.FinagleBudget, 0.1
	call.Backoff.Kind, call.Backoff.Cap = backoff.Exponential, 0 // backoff_cap 0s: no cap, as -backoff-cap 0
	api, db := def.Server, def.Server
	api.Kind, api.Base = fleet.IndependentServer, 10*time.Millisecond
	db.Kind, db.Base, db.PFail = fleet.IndependentServer, 5*time.Millisecond, 1
	want := fleet.Graph{Name: "graph", Duration: time.Minute, Net: def.Net, Deadlines: true,
		Entries: []fleet.Entry{{To: "api", Load: fleet.Shape{Kind: fleet.ConstantLoad, Rate: 40, Peak: 80, From: 20 * time.Second, To: 25 * time.Second}, Client: entry}},
		Services: []fleet.Node{
			{Name: "api", Server: api, Calls: []fleet.Call{{To: "db", Client: call}}},
			{Name: "db", Server: db, Outage: fleet.Outage{From: 20 * time.Second, To: 40 * time.Second, Mode: fleet.Stall}},
		}}
	if got := l.Graph.Graph; !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

// A service that forwards "do not retry" from its calls reads pushback
// whatever its kind, and a client of it reads honour_pushback.
func TestGraphPushbackForwarded(t *testing.T) {
	src := "graph:\n  entries: [{to: a, client: {honour_pushback: true}}]\n  services:\n" +
		"    - name: a\n      server: {kind: independent, pushback: true}\n      calls: [{to: b, client: {honour_pushback: true}}]\n" +
		"    - name: b\n      server: {kind: ratelimit, pushback: true}\n"
	l, err := Parse("g.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g := l.Graph.Graph
	if !g.Entries[0].Client.HonourPushback || !g.Services[0].Server.Pushback || !g.Services[0].Calls[0].Client.HonourPushback || !g.Services[1].Server.Pushback {
		t.Errorf("pushback not set as the file says: %+v", g)
	}
}

// graphHead is a graph's start: an entry to service a.
const graphHead = "graph:\n  entries:\n    - to: a\n  services:\n"

// Every refusal names the file, the line of the key and its path in the
// file, with the fleet's settings named by their keys in the section.
func TestGraphRefused(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"cycle", graphHead + "    - name: a\n      calls: [{to: b}]\n    - name: b\n      calls: [{to: c}]\n    - name: c\n      calls:\n        - to: a\n",
			"g.yaml:11: graph.services[2].calls[0].to: a cycle of calls: a -> b -> c -> a"},
		{"numbers for names", "graph:\n  entries: [{to: \"1\"}]\n  services:\n    - name: \"1\"\n      calls: [{to: \"0\"}]\n    - name: \"0\"\n      calls: [{to: \"1\"}]\n",
			"g.yaml:7: graph.services[1].calls[0].to: a cycle of calls: 1 -> 0 -> 1"},
		{"self call", graphHead + "    - name: a\n      calls: [{to: a}]\n",
			"g.yaml:6: graph.services[0].calls[0].to: a cycle of calls: a -> a"},
		{"unknown service", graphHead + "    - name: a\n      calls: [{to: nope}]\n",
			`g.yaml:6: graph.services[0].calls[0].to: unknown service "nope" (the services are a)`},
		{"unknown entry", "graph:\n  entries: [{to: b}]\n  services: [{name: a}]\n",
			`g.yaml:2: graph.entries[0].to: unknown service "b" (the services are a)`},
		{"unreachable", graphHead + "    - name: a\n    - name: b\n",
			"g.yaml:6: graph.services[1]: no entry reaches it (entries go to a)"},
		{"fan-out", graphHead + "    - name: a\n      calls: [" + strings.Repeat("{to: b}, ", 16) + "{to: b}]\n    - name: b\n",
			"g.yaml:6: graph.services[0].calls: 17 calls; at most 16 a service"},
		{"depth", graphHead + chain(9), "g.yaml:3: graph.entries[0].to: a request entering at a goes through a chain of 9 services; at most 8"},
		{"services", graphHead + chain(65), "g.yaml:4: graph.services: 65 services; at most 64"},
		{"same name", graphHead + "    - name: a\n    - name: a\n", `g.yaml:6: graph.services[1].name: "a" is also the name of graph.services[0]`},
		{"no name", graphHead + "    - server: {kind: independent}\n", "g.yaml:5: graph.services[0].name: missing; every service has a name, by which calls and entries reach it"},
		{"no entries", "graph:\n  services: [{name: a}]\n", "g.yaml:2: graph.entries: missing; a graph needs its entries (where load enters) and its services"},
		{"unknown key", graphHead + "    - name: a\n      sever: {kind: queue}\n", "g.yaml:6: graph.services[0].sever: unknown key (want name, server, outage, calls and parallel)"},
		{"unknown setting", graphHead + "    - name: a\n      server: {kind: queue, workers: 2}\n", "g.yaml:6: graph.services[0].server.workers: unknown key (want base, burst, capacity, kind, limit, p_fail, pushback, queue, service, service_dist, service_sigma and slope)"},
		{"pushback of a leaf that cannot refuse", graphHead + "    - name: a\n      server: {kind: independent, pushback: true}\n",
			`g.yaml:6: graph.services[0].server.pushback: only server.kind queue and ratelimit refuse calls for overload, and a makes no call whose "do not retry" it could forward; the server is independent`},
		{"honouring what is never said", graphHead + "    - name: a\n      calls: [{to: b, client: {honour_pushback: true}}]\n    - name: b\n      server: {kind: queue}\n",
			`g.yaml:6: graph.services[0].calls[0].client.honour_pushback: b never answers "do not retry" (it needs server.pushback, and a queue or rate limit or calls of its own)`},
		{"out of bounds", graphHead + "    - name: a\n      calls: [{to: b, client: {attempts: 0}}]\n    - name: b\n",
			"g.yaml:6: graph.services[0].calls[0].client.attempts: 0 is not a whole number from 1 to 100"},
		{"not read", graphHead + "    - name: a\n      calls: [{to: b, client: {budget_ratio: 0.1}}]\n    - name: b\n",
			"g.yaml:6: graph.services[0].calls[0].client.budget_ratio: client.policy unlimited does not read it"},
		{"refused with the others", "graph:\n  entries: [{to: a, client: {policy: envoy-budget, budget_ratio: 5}}]\n  services: [{name: a}]\n",
			"g.yaml:2: graph.entries[0].client.budget_ratio: 5 is not from 0 to 1"},
		{"outage mode alone", graphHead + "    - name: a\n      outage:\n        mode: stall\n", "g.yaml:7: graph.services[0].outage.mode: there is no outage"},
		{"duration", "graph:\n  duration: 0s\n  entries: [{to: a}]\n  services: [{name: a}]\n", "g.yaml:2: graph.duration: 0 s is not from 1 s to 3600 s"},
		{"spike after the end", "graph:\n  entries: [{to: a, load: {shape: spike, from: 70s, to: 80s}}]\n  services: [{name: a}]\n",
			"g.yaml:2: graph.entries[0].load.from: 1m10s is not before the run's end (duration 1m): the spike would never start"},
		{"not a mapping", "graph: [a]\n", "g.yaml:1: graph: want a mapping with entries and services"},
		{"not a bool", graphHead + "    - name: a\n      parallel: yes please\n", `g.yaml:6: graph.services[0].parallel: "yes please" is not true or false`},
		{"parallel without calls", graphHead + "    - name: a\n      parallel: true\n    - name: b\n      calls: [{to: a}]\n      parallel: false\n",
			"g.yaml:6: graph.services[0].parallel: a makes no calls; parallel says whether a service makes its calls at once"},
		{"parallel false without calls", graphHead + "    - name: a\n      calls: []\n      parallel: false\n",
			"g.yaml:7: graph.services[0].parallel: a makes no calls; parallel says whether a service makes its calls at once"},
		{"deadlines without calls", "graph:\n  entries: [{to: a}, {to: b}]\n  deadlines: true\n  services: [{name: a}, {name: b}]\n",
			"g.yaml:3: graph.deadlines: no service makes calls; deadlines propagate from a service's request to its calls"},
		{"deadlines false without calls", "graph:\n  deadlines: false\n  entries: [{to: a}]\n  services: [{name: a}]\n",
			"g.yaml:2: graph.deadlines: no service makes calls; deadlines propagate from a service's request to its calls"},
		{"unknown store", "graph:\n  entries: [{to: a, store: lose}]\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			`g.yaml:2: graph.entries[0].store: "lose" is not a store (want one of none, after, loose, claim, lease)`},
		{"lease without a store", "graph:\n  entries:\n    - to: a\n      lease: 10s\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			"g.yaml:4: graph.entries[0].lease: needs graph.entries[0].store: without it, it does nothing"},
		{"lease of 0s", "graph:\n  entries:\n    - to: a\n      store: lease\n      lease: 0s\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			"g.yaml:5: graph.entries[0].lease: a lease must be longer than 0s (one that ran out at once would hold nothing)"},
		{"store on a leaf", "graph:\n  entries:\n    - to: a\n      store: claim\n  services: [{name: a}]\n",
			`g.yaml:4: graph.entries[0].store: service "a" makes no calls: a store and crashes guard the steps (calls) of the workers an entry sends to`},
		{"unknown crash point", "graph:\n  entries: [{to: a, crash: 0.1, crash_at: midway}]\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			`g.yaml:2: graph.entries[0].crash_at: "midway" is not a crash point (want one of before-key, after-key, after-work, before-ack)`},
		{"crash bound", "graph:\n  entries:\n    - to: a\n      crash: 0.1\n      max_crashes: 1001\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			"g.yaml:5: graph.entries[0].max_crashes: 1001 is not a whole number from 0 to 1000"},
		{"ttl with no store", "graph:\n  entries:\n    - to: a\n      store: none\n      ttl: 1h\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			"g.yaml:5: graph.entries[0].ttl: no key is written: the store is none"},
		{"lease with no store", "graph:\n  entries:\n    - to: a\n      store: none\n      lease: 10s\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			"g.yaml:5: graph.entries[0].lease: only the lease store takes a lease; the store is none"},
		{"lease with a claim", "graph:\n  entries:\n    - to: a\n      store: claim\n      lease: 10s\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			"g.yaml:5: graph.entries[0].lease: only the lease store takes a lease; the store is claim"},
		{"crash point with no crash", "graph:\n  entries:\n    - to: a\n      crash: 0\n      crash_at: before-ack\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			"g.yaml:5: graph.entries[0].crash_at: no worker crashes: the crash probability is 0"},
		{"crash bound with no crash", "graph:\n  entries:\n    - to: a\n      crash: 0\n      max_crashes: 3\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n",
			"g.yaml:5: graph.entries[0].max_crashes: no worker crashes: the crash probability is 0"},
		{"outage backwards", graphHead + "    - name: a\n      outage: {from: 5s, to: 2s}\n",
			"g.yaml:6: graph.services[0].outage.to: 2s is not after from (5s): want a window from < to, such as {from: 20s, to: 25s}"},
		{"outage empty window", graphHead + "    - name: a\n      outage: {from: 5s, to: 5s}\n",
			"g.yaml:6: graph.services[0].outage.to: 5s is not after from (5s): want a window from < to, such as {from: 20s, to: 25s}"},
		{"outage with no end", graphHead + "    - name: a\n      outage:\n        from: 5s\n",
			"g.yaml:7: graph.services[0].outage.from: needs graph.services[0].outage.to: want a window from < to, such as {from: 20s, to: 25s}"},
		{"outage of nothing", graphHead + "    - name: a\n      outage: {}\n",
			"g.yaml:6: graph.services[0].outage: an empty outage; want a window from < to, such as {from: 20s, to: 25s}, or no outage key"},
		{"pushback of a leaf with calls", graphHead + "    - name: a\n      server: {kind: independent, pushback: true}\n      calls: [{to: b}]\n    - name: b\n      server: {kind: independent, pushback: true}\n",
			`g.yaml:9: graph.services[1].server.pushback: only server.kind queue and ratelimit refuse calls for overload, and b makes no call whose "do not retry" it could forward; the server is independent`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			_, err := Parse("g.yaml", []byte(tt.src))
			if err == nil || err.Error() != want {
				t.Errorf("got %v\nwant %s", err, want)
			}
		})
	}
}

// A file with both its duration and its net wrong is refused for its
// duration, every time: the two are read in a fixed order, not a map's.
func TestGraphDurationNetErrorFixed(t *testing.T) {
	src := "graph:\n  net: soon\n  duration: later\n  entries: [{to: a}]\n  services: [{name: a}]\n"
	const want = `g.yaml:3: graph.duration: "later" is not a duration such as 250ms or 2s`
	for range 50 {
		if _, err := Parse("g.yaml", []byte(src)); err == nil || err.Error() != want {
			t.Fatalf("got %v\nwant %s", err, want)
		}
	}
}

// chain is the services of a chain a, s1, s2, ... of n services, each
// calling the next.
func chain(n int) string {
	var b strings.Builder
	name := func(i int) string {
		if i == 0 {
			return "a"
		}
		return "s" + strconv.Itoa(i)
	}
	for i := range n {
		b.WriteString("    - name: " + name(i) + "\n")
		if i+1 < n {
			b.WriteString("      calls: [{to: " + name(i+1) + "}]\n")
		}
	}
	return b.String()
}

// A file with a graph is read by retrysim graph only, and with a job or a
// fleet section too by no command.
func TestCheckGraph(t *testing.T) {
	const g = "graph:\n  entries: [{to: a}]\n  services: [{name: a}]\n"
	for _, tt := range []struct{ src, want string }{
		{g + "fleet: {policy: aws}\n", "g.yaml:4: fleet: retrysim graph reads each call's client from the graph section, not the fleet section; give it a file with only a graph section"},
		{g + "watched: a\nsteps: [{name: a}]\n", "g.yaml:4: watched: describes a job, which retrysim graph does not read; give it a file with only a graph section"},
		{"fleet: {policy: aws}\n", "g.yaml:1: graph: missing; retrysim graph reads the services and their calls from the graph section"},
	} {
		l, err := Parse("g.yaml", []byte(tt.src))
		if err == nil {
			err = l.CheckGraph()
		}
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.src, err, tt.want)
		}
	}
	// a graph alone, given to the other commands, says which command runs it
	l, err := Parse("g.yaml", []byte(g))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{l.CheckFleet(), l.CheckJob()} {
		if err == nil || !strings.HasPrefix(err.Error(), "g.yaml:1: graph: the file describes a call graph, which retrysim graph runs;") {
			t.Errorf("got %v; want the graph's line and retrysim graph named", err)
		}
	}
}

func FuzzParseGraph(f *testing.F) {
	f.Add([]byte(designGraph))
	f.Add([]byte(graphHead + chain(3)))
	f.Add([]byte(graphHead + "    - name: a\n      parallel: true\n      calls: [{to: b}, {to: c, client: {policy: sre-throttle, sre_k: 2}}]\n    - name: b\n    - name: c\n      server: {kind: queue, capacity: 2, queue: 5}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse("f.yaml", data)
		if err != nil {
			if e := err.Error(); !strings.HasPrefix(e, "f.yaml:") || strings.Contains(e, "\n") || len(e) > maxErrorBytes+len("...") {
				t.Fatalf("error %q is not one line of at most %d bytes naming the file", e, maxErrorBytes)
			}
			return
		}
		if l.Graph == nil {
			return
		}
		g := l.Graph.Graph
		if err := g.Check(); err != nil {
			t.Fatalf("accepted a graph Check refuses: %v", err)
		}
		if l.CheckGraph() == nil && (l.CheckFleet() == nil || l.CheckJob() == nil) {
			t.Fatal("a file two commands take")
		}
	})
}

// An entry's store and crash keys are read into its Store and Crash, with
// the delivery model's TTL and lease (24h, 30s) for those left out.
func TestGraphEntryStore(t *testing.T) {
	for _, c := range []struct {
		keys  string
		store fleet.KeyStore
		crash fleet.Crashes
	}{
		{"store: lease, ttl: 1h, lease: 45s, crash: 0.2, crash_at: after-work, max_crashes: 2",
			fleet.KeyStore{Mode: delivery.Lease, TTL: time.Hour, Lease: 45 * time.Second}, fleet.Crashes{P: 0.2, At: delivery.AfterWork, Max: 2}},
		{"store: claim", fleet.KeyStore{Mode: delivery.Claim, TTL: 24 * time.Hour, Lease: 30 * time.Second}, fleet.Crashes{}},
		{"crash: 0.5", fleet.KeyStore{}, fleet.Crashes{P: 0.5}},
	} {
		s, err := Parse("g.yaml", []byte("graph:\n  entries: [{to: a, "+c.keys+"}]\n  services: [{name: a, calls: [{to: b}]}, {name: b}]\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.keys, err)
		}
		if e := s.Graph.Graph.Entries[0]; e.Store != c.store || e.Crash != c.crash {
			t.Errorf("%s: store %+v, crash %+v; want %+v, %+v", c.keys, e.Store, e.Crash, c.store, c.crash)
		}
	}
}
