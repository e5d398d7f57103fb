package fleetpreset

import (
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/fleet"
)

// Preset is a named set of runs of a kind (R: fleet.Config, Graph or Workers).
type Preset[R any] struct {
	Name, Source string
	// About names or counts the runs, for the kind's command's help.
	About string
	// Runs builds the runs for a duration.
	Runs func(duration time.Duration) []R
	// Duration and Replicates are the runs' defaults, the source's.
	Duration   time.Duration
	Replicates int
	// Totals (fleet runs only) prints each run's totals over a grid of failure rates, not
	// its summary and series; ByClients says the grid also varies the client count.
	Totals, ByClients bool
	// Spikes (fleet runs only) plots recovery and duplicates against the spike's height.
	Spikes bool
}

// presetClient is a graph preset's client: one client, tries in all, a timeout.
func presetClient(tries int, timeout time.Duration) fleet.Client {
	c := fleet.DefaultConfig().Client
	c.Attempts, c.Timeout = tries, timeout
	return c
}

// independentServer is a server that takes base whatever its load, failing with pFail.
func independentServer(base time.Duration, pFail float64) fleet.Server {
	s := fleet.DefaultConfig().Server
	s.Kind, s.Base, s.PFail = fleet.IndependentServer, base, pFail
	return s
}

// chainGraph is a graph whose services call each other in a line, rate requests a second
// entering at names[0] and names[i] calling names[i+1] with clients[i+1]: the last has
// last's server and outage, the others are 1 ms and sound.
func chainGraph(name string, d time.Duration, rate float64, names []string, clients []fleet.Client, last fleet.Node) fleet.Graph {
	g := fleet.Graph{Name: name, Duration: d, Net: time.Millisecond,
		Entries: []fleet.Entry{{To: names[0], Load: fleet.Shape{Kind: fleet.ConstantLoad, Rate: rate}, Client: clients[0]}}}
	for i, n := range names {
		node := fleet.Node{Name: n, Server: independentServer(time.Millisecond, 0)}
		if i+1 < len(names) {
			node.Calls = []fleet.Call{{To: names[i+1], Client: clients[i+1]}}
		} else {
			node.Server, node.Outage = last.Server, last.Outage
		}
		g.Services = append(g.Services, node)
	}
	return g
}

// failing is a last service of a chainGraph failing every call.
var failing = fleet.Node{Server: independentServer(time.Millisecond, 1)}

// sreBudget is the SRE book's per-client retry budget of ratio, as Finagle's RetryBudget
// over the last 10 s with no reserve.
func sreBudget(c fleet.Client, ratio float64) fleet.Client {
	c.Policy.Kind, c.Policy.BudgetRatio, c.Policy.MinRate, c.Policy.TTL = fleet.FinagleBudget, ratio, 0, 10*time.Second
	return c
}

// sreSource cites the SRE book's chapters sre-three-layers follows.
const sreSource = "B. Beyer, C. Jones, J. Petoff, N. R. Murphy (eds.), Site Reliability Engineering, O'Reilly 2016: " +
	"ch. 22 \"Addressing Cascading Failures\" (retries at the JavaScript, frontend and backend layers, 4 attempts each, " +
	"on a database that fails them all: 4^3 = 64 attempts on the database for one user action) and ch. 21 \"Handling " +
	"Overload\" (a per-client retry budget: retry only while retries are under 10% of requests)"

// sreThreeLayers is the SRE book's three-layer stack, as its About says.
var sreThreeLayers = Preset[fleet.Graph]{
	Name:   "sre-three-layers",
	Source: sreSource,
	About: "Runs 4_attempts_each (JavaScript -> frontend -> backend -> database, 4 attempts at each of the 3 callers, the database " +
		"failing every call: 4, 16 and 64 calls a request) and budget_10pct (the same, each client retrying only while its retries are " +
		"under 10% of its requests: Finagle's budget, no reserve), 10 requests a second, network 1 ms each way",
	Duration:   time.Minute,
	Replicates: 10,
	Runs: func(d time.Duration) []fleet.Graph {
		names := []string{"frontend", "backend", "database"}
		four := presetClient(4, 10*time.Second)
		budget := sreBudget(four, 0.1)
		return []fleet.Graph{
			chainGraph("4_attempts_each", d, 10, names, []fleet.Client{four, four, four}, failing),
			chainGraph("budget_10pct", d, 10, names, []fleet.Client{budget, budget, budget}, failing),
		}
	},
}

// awsSource cites the Builders' Library article aws-five-deep follows.
const awsSource = "M. Brooker, \"Timeouts, retries, and backoff with jitter\", Amazon Builders' Library, 2019: retrying at " +
	"every layer of a deep stack multiplies the load on the lowest: 3 tries at each of 5 layers is 3^5 = 243 calls at the bottom " +
	"for one at the top; retry at a single point in the stack instead"

// awsFiveDeep is the Builders' Library's five-deep stack, as its About says.
var awsFiveDeep = Preset[fleet.Graph]{
	Name:   "aws-five-deep",
	Source: awsSource,
	About: "Runs 3_tries_each (layer1 -> ... -> layer5, 3 tries at each of the 5 callers, layer5 failing every call: 3, 9, 27, 81 and " +
		"243 calls a request) and top_only (3 tries at the entry, 1 below: 3 calls a request at every layer), 10 requests a second, " +
		"network 1 ms each way",
	Duration:   30 * time.Second,
	Replicates: 10,
	Runs: func(d time.Duration) []fleet.Graph {
		names := []string{"layer1", "layer2", "layer3", "layer4", "layer5"}
		three, one := presetClient(3, 10*time.Second), presetClient(1, 10*time.Second)
		return []fleet.Graph{
			chainGraph("3_tries_each", d, 10, names, []fleet.Client{three, three, three, three, three}, failing),
			chainGraph("top_only", d, 10, names, []fleet.Client{three, one, one, one, one}, failing),
		}
	},
}

// oneLayerSource cites the advice retry-one-layer compares.
const oneLayerSource = "the advice of M. Brooker, \"Timeouts, retries, and backoff with jitter\" (Amazon Builders' Library, " +
	"2019: retry at a single point in the stack) and of Site Reliability Engineering (O'Reilly 2016, ch. 22: retry at one " +
	"layer; ch. 21: a per-client retry budget of 10%); a server's \"do not retry\" as Envoy's x-envoy-overloaded and gRPC's " +
	"server pushback (gRFC A6) send it"

// retryOneLayer compares where to retry in app -> api -> svc -> db through a stall of db.
var retryOneLayer = Preset[fleet.Graph]{
	Name:   "retry-one-layer",
	Source: oneLayerSource,
	About: "app -> api -> svc -> db, db a queue (8 workers, 16 waiting, 10 ms exponential) that stalls from 20 s to 25 s, then " +
		"takes every held call at once; 50 requests a second, timeouts 30, 20 and 10 s from the top. Runs every_layer (3 tries " +
		"at each caller), top_only, bottom_only, budgets (3 tries each, retries under 10% of requests) and pushback (3 tries " +
		"each; db's refusals say \"do not retry\", api and svc forward it, every client honours it)",
	Duration:   time.Minute,
	Replicates: 10,
	Runs: func(d time.Duration) []fleet.Graph {
		names := []string{"api", "svc", "db"}
		timeouts := []time.Duration{30 * time.Second, 20 * time.Second, 10 * time.Second}
		tries := func(n ...int) []fleet.Client {
			cs := make([]fleet.Client, len(n))
			for i, a := range n {
				cs[i] = presetClient(a, timeouts[i])
			}
			return cs
		}
		db := fleet.Node{Server: fleet.DefaultConfig().Server, Outage: fleet.Outage{From: 20 * time.Second, To: 25 * time.Second, Mode: fleet.Stall}}
		db.Server.Kind, db.Server.Workers, db.Server.QueueMax = fleet.QueueServer, 8, 16
		db.Server.Service = fleet.Service{Dist: fleet.ExponentialService, Median: 10 * time.Millisecond}
		run := func(name string, clients []fleet.Client, pushback bool) fleet.Graph {
			g := chainGraph(name, d, 50, names, clients, db)
			for i := range g.Services {
				g.Services[i].Server.Pushback = pushback
			}
			return g
		}
		budgets := tries(3, 3, 3)
		honour := tries(3, 3, 3)
		for i := range budgets {
			budgets[i] = sreBudget(budgets[i], 0.1)
			honour[i].HonourPushback = true
		}
		return []fleet.Graph{
			run("every_layer", tries(3, 3, 3), false),
			run("top_only", tries(3, 1, 1), false),
			run("bottom_only", tries(1, 1, 3), false),
			run("budgets", budgets, false),
			run("pushback", honour, true),
		}
	},
}

// istioSource cites the mesh's default retry policy.
const istioSource = "Istio 1.30.3's default retry policy (pilot/pkg/networking/core/route/retry/retry.go: num_retries 2, " +
	"retry_on connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes, no per-try timeout; a " +
	"VirtualService's retries.attempts 0 turns it off), with Envoy's default retry back-off (fully jittered, base 25 ms, " +
	"at most 10 times the base)"

// meshRetries is Istio's default retries stacked on svc's own, as its About says.
var meshRetries = Preset[fleet.Graph]{
	Name:   "mesh-default-retries",
	Source: istioSource,
	About: "app -> app-proxy -> svc -> svc-proxy -> db, each sidecar proxy retrying as Istio's default (3 tries, jitter 25 ms " +
		"up to 250 ms), svc's own client 3 tries, db failing every call from 20 s to 30 s; 20 requests a second. Runs " +
		"mesh_and_app (27 calls a request at db in the outage), mesh_off (retries.attempts 0: 3) and app_off (svc's client 1 try: 9)",
	Duration:   time.Minute,
	Replicates: 10,
	Runs: func(d time.Duration) []fleet.Graph {
		names := []string{"app-proxy", "svc", "svc-proxy", "db"}
		app := presetClient(1, 30*time.Second)
		proxy := presetClient(3, 30*time.Second)
		proxy.Backoff = backoff.Schedule{Kind: backoff.FullJitter, Base: 25 * time.Millisecond, Cap: 250 * time.Millisecond}
		noProxy := presetClient(1, 30*time.Second)
		svc := presetClient(3, 30*time.Second)
		one := presetClient(1, 30*time.Second)
		db := fleet.Node{Server: independentServer(time.Millisecond, 0), Outage: fleet.Outage{From: 20 * time.Second, To: 30 * time.Second, Mode: fleet.Fail}}
		return []fleet.Graph{
			chainGraph("mesh_and_app", d, 20, names, []fleet.Client{app, proxy, svc, proxy}, db),
			chainGraph("mesh_off", d, 20, names, []fleet.Client{app, noProxy, svc, noProxy}, db),
			chainGraph("app_off", d, 20, names, []fleet.Client{app, proxy, one, proxy}, db),
		}
	},
}

// GraphPresets lists the graph command's presets, in its help's order.
func GraphPresets() []Preset[fleet.Graph] {
	return []Preset[fleet.Graph]{sreThreeLayers, awsFiveDeep, retryOneLayer, meshRetries}
}

// LookupGraphPreset returns the graph preset called name.
func LookupGraphPreset(name string) (Preset[fleet.Graph], error) {
	return lookupPreset(GraphPresets(), name, "want one of")
}
