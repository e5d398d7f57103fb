package fleet

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/schema"
)

// Graph is one run of the service-graph model: services that call each
// other, each call an edge with its own client policy, and load entering at
// one or more services. The fleet model's run is a graph of one entry and
// one service without calls (Config.Graph), and Run runs it so: one engine.
type Graph struct {
	// Name labels the run in outputs.
	Name string
	// Duration is how long requests arrive, as Config.Duration.
	Duration time.Duration
	// Net is the mean one-way network delay of every call, as Config.Net.
	Net time.Duration
	// Services are the services; their names are unique.
	Services []Node
	// Entries are where load enters: at least one.
	Entries []Entry
	// Deadlines, when true, propagates deadlines: an attempt's timeout is at
	// most its caller's remaining time (gRPC's deadline propagation: the
	// caller's deadline is the timeout of the attempt it is serving), and a
	// service whose caller's deadline has passed makes no more calls or
	// retries (the call fails at once, counted as Expired).
	Deadlines bool

	// memoryless is the Markovian mode of a graph made from a Config
	// (Config.Graph); no other graph has one.
	memoryless fleetdata.Memoryless
}

// Node is a service: one of the fleet model's server kinds, its outage
// windows, and the calls it makes for each request it takes in.
type Node struct {
	Name   string
	Server Server
	Outage Outage
	// Calls are made after the service's own work succeeds, in order (each
	// after the previous succeeded) unless Parallel (all at once, fan-out);
	// the request succeeds when every call does, and fails at the first
	// call that fails. While they are out the request stays in progress at
	// the service (a queue server's worker stays held, as a thread per
	// request's does).
	Calls    []Call
	Parallel bool
}

// Call is an edge: a service calling another with a client policy. Its
// Client.Clients is how many client instances the caller's policy state is
// split over (each call picks one uniformly); Client.Keys, Hedges, Backoff
// and Policy are as in Config.
type Call struct {
	To     string
	Client Client
}

// Entry is load entering the graph: requests arriving with Load's shape and
// sent to service To by Client.
//
// A job queue is an entry (see Workers): its Client is the queue's
// redelivery of a job (Attempts its tries, Backoff its retry schedule,
// Timeout its visibility timeout, Keys the job's idempotency key), and the
// service it sends to is the workers.
type Entry struct {
	To     string
	Load   Shape
	Client Client
	EntrySettings
}

// EntrySettings are an entry's settings besides its service, load and
// client, each declared once (entryParams); a worker fleet holds its queue's
// (Workers).
type EntrySettings struct {
	// Poison is the share of the entry's requests that are poison: drawn
	// for each request from the arrival stream (so every run of a preset
	// poisons the same requests), a poison request's own work at service To
	// fails on every attempt, as a job that always fails does, before any
	// call of To's is made.
	Poison float64
	// RedeliverAtTimeout makes a failed attempt's retry wait until the
	// attempt's timeout would have passed, instead of Client.Backoff (not
	// used then): an SQS message not deleted reappears when its visibility
	// timeout runs out, whether its receive failed early or ran past it.
	RedeliverAtTimeout bool
	// Heartbeat makes a worker holding an attempt extend its lease: while
	// a queue server's worker holds the attempt (To's or, for a service
	// with calls, until it answers), its timeout is put off by another
	// Client.Timeout each time it falls due, as an SQS consumer's
	// ChangeMessageVisibility calls do; an attempt still waiting in the
	// queue times out as ever.
	Heartbeat bool
	// TimeoutAtReceive starts an attempt's timeout when a worker of
	// service To (a queue server) takes it, not when it is sent: SQS's
	// visibility timeout runs from a receive, so a message waiting in the
	// queue, or held while the workers are down, never reappears; one a
	// worker takes and fails at once (To's outage in Fail mode) does when
	// its timeout runs out. An attempt refused before any worker took it
	// (a full queue) is retried at once under RedeliverAtTimeout. It needs
	// To to be a queue server and the client to send no hedges.
	TimeoutAtReceive bool
	// Store is the key store the workers of service To keep for each
	// request's calls (a job's steps), shared by all its attempts (its
	// deliveries), and Crash the crashes of those workers: the delivery
	// model's stores and crash points (see KeyStore and Crashes). Either
	// needs To to make its calls in order.
	Store KeyStore
	Crash Crashes
}

// edges lists g's edges in the order a replicate holds them: the
// entries, then each service's calls, services in order. g must have passed
// Check.
func (g *Graph) edges() []fleetdata.Edge {
	idx := g.index()
	var es []fleetdata.Edge
	for k, e := range g.Entries {
		es = append(es, fleetdata.Edge{From: -1, Index: k, To: idx[e.To]})
	}
	for v, n := range g.Services {
		for i, c := range n.Calls {
			es = append(es, fleetdata.Edge{From: v, Index: i, To: idx[c.To]})
		}
	}
	return es
}

// depths is each service's depth: 1 for a service an entry sends to, else 1
// plus the least depth of a service that calls it (the shortest path from an
// entry). g must have passed Check.
func (g *Graph) depths() []int {
	idx := g.index()
	depth := make([]int, len(g.Services))
	var frontier []int
	for _, e := range g.Entries {
		if v := idx[e.To]; depth[v] == 0 {
			depth[v] = 1
			frontier = append(frontier, v)
		}
	}
	for len(frontier) > 0 {
		var next []int
		for _, v := range frontier {
			for _, c := range g.Services[v].Calls {
				if w := idx[c.To]; depth[w] == 0 {
					depth[w] = depth[v] + 1
					next = append(next, w)
				}
			}
		}
		frontier = next
	}
	return depth
}

// index maps each service's name to its index.
func (g *Graph) index() map[string]int {
	idx := make(map[string]int, len(g.Services))
	for v, n := range g.Services {
		idx[n.Name] = v
	}
	return idx
}

// Graph is c as a graph: one service named "server" with c's server and
// outage, and one entry sending c's load to it with c's client. Run runs
// every Config so, and its numbers are the graph's.
func (c Config) Graph() Graph {
	return Graph{Name: c.Name, Duration: c.Duration, Net: c.Net,
		Services:   []Node{{Name: "server", Server: c.Server, Outage: c.Outage}},
		Entries:    []Entry{{To: "server", Load: c.Load, Client: c.Client}},
		memoryless: c.memoryless}
}

// servicePath is the path of service v's settings: services[name].
func (g *Graph) servicePath(v int) string {
	return fmt.Sprintf("services[%s]", g.Services[v].Name)
}

// callPath is the path of service v's call i: services[name].calls[i].
func (g *Graph) callPath(v, i int) string {
	return fmt.Sprintf("%s.calls[%d]", g.servicePath(v), i)
}

// Check refuses a graph the engine cannot run, before any work, with a
// *schema.FieldError whose path names the setting: duration and net; entries[k].to,
// entries[k].load.rate, entries[k].client.attempts, entries[k].poison (a
// probability); services[name].server.kind,
// services[name].outage.to; services[name].calls[i].to and
// services[name].calls[i].client.timeout. It refuses no service or entry,
// more than 64 services, 16 entries, 256 calls in all
// or 16 calls of a service; a service without a name or with
// another's; a call or entry to an unknown service; a cycle of calls (naming
// it: a -> b -> a); a service no entry reaches; a chain of services longer
// than 8; and each entry, service and call's settings as Config.Check
// refuses them.
func (g *Graph) Check() error {
	dur := g.Duration.Seconds()
	if dur < 1 || dur > limits.FleetDuration {
		return pathtext.Errorf("duration", "%g s is not from 1 s to %d s", dur, limits.FleetDuration)
	}
	if v := g.Net.Seconds(); math.IsNaN(v) || v < 0 || v > limits.FleetSeconds {
		return pathtext.Errorf("net", "%g s is not from 0 to %d s", v, limits.FleetSeconds)
	}
	switch {
	case len(g.Services) == 0:
		return pathtext.Errorf("services", "no service; want 1 to %d", limits.GraphServices)
	case len(g.Services) > limits.GraphServices:
		return pathtext.Errorf("services", "%d services; at most %d", len(g.Services), limits.GraphServices)
	case len(g.Entries) == 0:
		return pathtext.Errorf("entries", "no entry: no load enters the graph; want 1 to %d", limits.GraphEntries)
	case len(g.Entries) > limits.GraphEntries:
		return pathtext.Errorf("entries", "%d entries; at most %d", len(g.Entries), limits.GraphEntries)
	}
	idx := make(map[string]int, len(g.Services))
	for v, n := range g.Services {
		if n.Name == "" {
			return pathtext.Errorf(fmt.Sprintf("services[%d].name", v), "a service needs a name")
		}
		if w, dup := idx[n.Name]; dup {
			return pathtext.Errorf(fmt.Sprintf("services[%d].name", v), "%q is the name of services[%d] too", n.Name, w)
		}
		idx[n.Name] = v
	}
	unknown := func(path, name string) error {
		names := make([]string, len(g.Services))
		for v, n := range g.Services {
			names[v] = n.Name
		}
		return pathtext.Errorf(path, "unknown service %q (the services are %s)", name, strings.Join(names, ", "))
	}
	for k, e := range g.Entries {
		if _, ok := idx[e.To]; !ok {
			return unknown(fmt.Sprintf("entries[%d].to", k), e.To)
		}
		for _, p := range decl.EntryParams[Entry]() { // poison, crash: an entry's numbers are probabilities
			if x, ok := p.Field(&e).(*float64); ok && !(*x >= 0 && *x <= 1) {
				return pathtext.Errorf(fmt.Sprintf("entries[%d].%s", k, p.Key), "%g is not a probability from 0 to 1", *x)
			}
		}
		if err := g.checkGuard(k, idx); err != nil {
			return err
		}
		if e.TimeoutAtReceive {
			switch {
			case g.Services[idx[e.To]].Server.Kind != QueueServer:
				return pathtext.Errorf(fmt.Sprintf("entries[%d].timeout_at_receive", k), "service %q is not a queue server: no worker receives the attempts", e.To)
			case e.Client.Hedges > 0:
				return pathtext.Errorf(fmt.Sprintf("entries[%d].timeout_at_receive", k), "the client sends hedges, whose timeouts run from their sends")
			}
		}
	}
	calls := 0
	for v, n := range g.Services {
		if len(n.Calls) > limits.GraphFanout {
			return pathtext.Errorf(g.servicePath(v)+".calls", "%d calls; at most %d a service", len(n.Calls), limits.GraphFanout)
		}
		calls += len(n.Calls)
		if calls > limits.GraphCalls {
			return pathtext.Errorf(g.servicePath(v)+".calls", "%d calls in all up to this service; at most %d in a graph", calls, limits.GraphCalls)
		}
		for i, c := range n.Calls {
			if _, ok := idx[c.To]; !ok {
				return unknown(g.callPath(v, i)+".to", c.To)
			}
		}
	}
	if err := g.checkCycles(idx); err != nil {
		return err
	}
	depth := g.depths()
	for v, d := range depth {
		if d == 0 {
			return pathtext.Errorf(g.servicePath(v), "no entry reaches it (entries go to %s)", g.entryTargets())
		}
	}
	if err := g.checkDepth(idx); err != nil {
		return err
	}
	return g.checkSettings(idx)
}

// entryTargets lists the services the entries send to.
func (g *Graph) entryTargets() string {
	var to []string
	for _, e := range g.Entries {
		to = append(to, e.To)
	}
	return strings.Join(to, ", ")
}

// checkCycles refuses a cycle of calls, naming it from the first service of
// it met in a depth-first walk in service order.
func (g *Graph) checkCycles(idx map[string]int) error {
	const (
		unseen = iota
		onPath
		finished
	)
	state := make([]uint8, len(g.Services))
	var path []int
	var walk func(v int) error
	walk = func(v int) error {
		state[v] = onPath
		path = append(path, v)
		for i, c := range g.Services[v].Calls {
			w := idx[c.To]
			switch state[w] {
			case onPath:
				start := 0
				for path[start] != w {
					start++
				}
				var names []string
				for _, u := range path[start:] {
					names = append(names, g.Services[u].Name)
				}
				names = append(names, g.Services[w].Name)
				return pathtext.Errorf(g.callPath(v, i)+".to", "a cycle of calls: %s", strings.Join(names, " -> "))
			case unseen:
				if err := walk(w); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[v] = finished
		return nil
	}
	for v := range g.Services {
		if state[v] == unseen {
			if err := walk(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDepth refuses a chain of services longer than limits.GraphDepth; the graph
// has no cycle.
func (g *Graph) checkDepth(idx map[string]int) error {
	longest := make([]int, len(g.Services)) // the longest chain from v down, v included; 0: not yet known
	var down func(v int) int
	down = func(v int) int {
		if longest[v] == 0 {
			l := 1
			for _, c := range g.Services[v].Calls {
				l = max(l, 1+down(idx[c.To]))
			}
			longest[v] = l
		}
		return longest[v]
	}
	for k, e := range g.Entries {
		if d := down(idx[e.To]); d > limits.GraphDepth {
			return pathtext.Errorf(fmt.Sprintf("entries[%d].to", k), "a request entering at %s goes through a chain of %d services; at most %d", e.To, d, limits.GraphDepth)
		}
	}
	return nil
}

// checkSettings checks each entry's, service's and call's settings as
// Config.Check does, their paths put under the entry's, service's or call's.
func (g *Graph) checkSettings(idx map[string]int) error {
	// Config.Check names a setting by its Config path; put it under the
	// part of the graph that holds it.
	under := func(err error, edge, server string) error {
		var fe *schema.FieldError
		if err == nil || !errors.As(err, &fe) {
			return err
		}
		switch {
		case strings.HasPrefix(fe.Field, "load.") || strings.HasPrefix(fe.Field, "client."):
			return fieldpath.Within(edge, err)
		case strings.HasPrefix(fe.Field, "server.") || strings.HasPrefix(fe.Field, "outage."):
			return fieldpath.Within(server, err)
		}
		return err
	}
	config := func(v int, load Shape, client Client) Config {
		n := &g.Services[v]
		return Config{Name: g.Name, Duration: g.Duration, Net: g.Net, Load: load, Server: n.Server, Outage: n.Outage, Client: client}
	}
	for k, e := range g.Entries {
		v := idx[e.To]
		c := config(v, e.Load, e.Client)
		c.memoryless = g.memoryless // only a Config's graph has one: one entry, one service
		if err := under(c.Check(), fmt.Sprintf("entries[%d]", k), g.servicePath(v)); err != nil {
			return err
		}
	}
	// A call's load is its caller's: any valid shape checks its client and
	// the service it calls.
	one := Shape{Kind: ConstantLoad, Rate: 1}
	for v, n := range g.Services {
		for i, c := range n.Calls {
			w := idx[c.To]
			if err := under(config(w, one, c.Client).Check(), g.callPath(v, i), g.servicePath(w)); err != nil {
				return err
			}
		}
	}
	return nil
}
