package fleet

import (
	"errors"
	"fmt"
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
// other, each call with its own client, and load entering at one or more
// (docs/graph.md, From Go).
type Graph struct {
	Name      string        // labels the run in outputs
	Duration  time.Duration // as Config's
	Net       time.Duration // as Config's
	Services  []Node        // names unique
	Entries   []Entry       // where load enters: at least one
	Deadlines bool          // propagate deadlines, as gRPC does

	memoryless fleetdata.Memoryless // a Config's graph's only (Config.Graph)
}

// Node is a service: a server, its outage, and the calls it makes for each
// request after its own work, in order or, with Parallel, all at once.
type Node struct {
	Name     string
	Server   Server
	Outage   Outage
	Calls    []Call
	Parallel bool
}

// Call is an edge: a service calling service To with a client.
type Call struct {
	To     string
	Client Client
}

// Entry is load entering the graph: requests arriving with Load's shape and
// sent to service To by Client. A job queue is an entry (see Workers).
type Entry struct {
	To     string
	Load   Shape
	Client Client
	EntrySettings
}

// EntrySettings are an entry's settings besides its service, load and
// client, mostly a job queue's (docs/workers.md, From Go).
type EntrySettings struct {
	Poison             float64  // the share of requests that always fail
	RedeliverAtTimeout bool     // retry a failed attempt at its timeout
	Heartbeat          bool     // extend the timeout while a worker holds it
	TimeoutAtReceive   bool     // start the timeout when a worker takes it
	Store              KeyStore // the workers' key store
	Crash              Crashes  // the workers' crashes
}

// edges lists g's edges as a replicate holds them: the entries, then each
// service's calls; g must have passed Check.
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

// depths is each service's shortest path from an entry, 1 for an entry's
// service; g must have passed Check.
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

// Graph is c as the graph Run runs: one entry and one service, "server".
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

// Check refuses a graph the engine cannot run with a *schema.FieldError
// naming the setting by its path (services[db].calls[1].to); its duration
// and net are checked with each entry's and call's settings (checkSettings).
func (g *Graph) Check() error {
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
	for k, e := range g.Entries {
		if _, ok := idx[e.To]; !ok {
			return pathtext.Errorf(fmt.Sprintf("entries[%d].to", k), "unknown service %q (the services are %s)", e.To, g.serviceNames())
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
				return pathtext.Errorf(g.callPath(v, i)+".to", "unknown service %q (the services are %s)", c.To, g.serviceNames())
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

// serviceNames lists the services' names, in order.
func (g *Graph) serviceNames() string {
	names := make([]string, len(g.Services))
	for v, n := range g.Services {
		names[v] = n.Name
	}
	return strings.Join(names, ", ")
}

// entryTargets lists the services the entries send to.
func (g *Graph) entryTargets() string {
	var to []string
	for _, e := range g.Entries {
		to = append(to, e.To)
	}
	return strings.Join(to, ", ")
}

// checkCycles refuses a cycle of calls, found by a depth-first walk.
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

// checkDepth refuses a chain of services longer than limits.GraphDepth.
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
