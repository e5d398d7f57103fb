package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/schema"
)

// indep is an IndependentServer of base latency base failing with
// probability pFail.
func indep(base time.Duration, pFail float64) Server {
	return Server{Kind: IndependentServer, Base: base, PFail: pFail}
}

// tries is a client of n attempts, no backoff, a timeout of timeout.
func tries(n int, timeout time.Duration) Client {
	return Client{Clients: 1, Timeout: timeout, Attempts: n, Backoff: backoff.Schedule{Kind: backoff.None}}
}

// chain is a graph of services s0 -> s1 -> ... with servers[i] at depth
// i + 1, each edge's client trying attempts[i] times with a timeout of an
// hour (never reached), no network delay, rate requests a second for dur.
func chain(attempts []int, servers []Server, rate float64, dur time.Duration) Graph {
	g := Graph{Name: "chain", Duration: dur}
	name := func(i int) string { return "s" + string(rune('0'+i)) }
	for i, sv := range servers {
		n := Node{Name: name(i), Server: sv}
		if i+1 < len(servers) {
			n.Calls = []Call{{To: name(i + 1), Client: tries(attempts[i+1], time.Hour)}}
		}
		g.Services = append(g.Services, n)
	}
	g.Entries = []Entry{{To: name(0), Load: Shape{Kind: ConstantLoad, Rate: rate}, Client: tries(attempts[0], time.Hour)}}
	return g
}

// runGraph runs reps replicates of g, seed 1, failing t on an error.
func runGraph(t *testing.T, g Graph, reps int) []fleetdata.GraphReplicate {
	t.Helper()
	res, err := RunGraph(context.Background(), []Graph{g}, Options{Replicates: reps, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return res[0].replicates
}

// traceGraph runs g with requests entering at entry 0 at the given times
// only (g's own rate must be negligible).
func traceGraph(t *testing.T, g Graph, arrivals ...float64) fleetdata.GraphReplicate {
	t.Helper()
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	s := newGraphSim(&g, 1, nil)
	for _, at := range arrivals {
		s.pushArrival(at, 0, false)
	}
	if err := s.simulate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s.graphReplicate()
}

// The retry storm of the SRE book and the Builders' Library, exactly: with
// every call at the bottom failing, independent servers and timeouts never
// reached, a request entering the graph makes prod(a_i) calls at the
// bottom, and prod(a_1..a_i) at depth i, for every request: the counts
// over a run are N x those products, not approximately but exactly.
func TestGraphAmplificationExact(t *testing.T) {
	for _, tc := range []struct {
		name     string
		attempts []int
	}{
		{"sre 4 at 3 layers", []int{4, 4, 4}},       // 64
		{"aws 3 at 5 layers", []int{3, 3, 3, 3, 3}}, // 243
		{"mixed 2, 5, 1, 3", []int{2, 5, 1, 3}},     // 30
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := make([]Server, len(tc.attempts))
			for i := range servers {
				servers[i] = indep(time.Millisecond, 0)
			}
			servers[len(servers)-1].PFail = 1
			for i, rep := range runGraph(t, chain(tc.attempts, servers, 20, 20*time.Second), 2) {
				n := rep.Edges[0].Requests
				if n == 0 {
					t.Fatalf("replicate %d: no request", i)
				}
				prod := int64(1)
				for d, a := range tc.attempts {
					prod *= int64(a)
					if got := rep.Services[d].Calls; got != n*prod {
						t.Errorf("replicate %d: depth %d: %d calls for %d requests; want %d (x %d)", i, d+1, got, n, n*prod, prod)
					}
				}
				if s := rep.Edges[0].Succeeded; s != 0 {
					t.Errorf("replicate %d: %d requests succeeded; want none", i, s)
				}
			}
		})
	}
}

// truncGeom is the mean and variance of min(G, a), G the attempts up to and
// including the first success when each succeeds with probability 1 - q:
// the calls a request of a attempts makes at a service failing with
// probability q, independently.
func truncGeom(q float64, a int) (mean, variance float64) {
	var m2 float64
	for k := 1; k <= a; k++ {
		p := math.Pow(q, float64(k-1)) * (1 - q) // the k-th attempt is the first success
		if k == a {
			p = math.Pow(q, float64(a-1)) // the last attempt is made, whatever it gives
		}
		mean += float64(k) * p
		m2 += float64(k*k) * p
	}
	return mean, m2 - mean*mean
}

// With load-independent failure rates each layer is Part 5's independent
// model, composed: at the leaf an attempt succeeds with probability
// p = 1 - f, a request of a attempts with 1 - (1 - p)^a; a layer's attempt
// succeeds when its own work does (1 - f_i) and its call below does, so
// p_i = (1 - f_i) s_{i+1}, s_i = 1 - (1 - p_i)^{a_i}; a request makes
// min(G, a_i) calls, G geometric of p_i (truncGeom). The engine's counts
// are held to these by z-tests: per edge its successes (binomial), its
// calls (a sum of independent truncated geometrics), and the requests on
// each call (binomial in the caller's calls, with the caller's 1 - f): 8
// comparisons, each two-sided at 1e-4/8, so the family fails falsely at
// most once in 10,000 runs.
func TestGraphClosedForms(t *testing.T) {
	attempts := []int{3, 2, 4}
	f := []float64{0.2, 0.3, 0.5}
	servers := []Server{indep(time.Millisecond, f[0]), indep(time.Millisecond, f[1]), indep(time.Millisecond, f[2])}
	g := chain(attempts, servers, 400, 50*time.Second)
	rep := runGraph(t, g, 1)[0]
	const comparisons, alpha = 8, 1e-4
	zMax := distuv.UnitNormal.Quantile(1 - alpha/comparisons/2)
	check := func(what string, got, n, mean, variance float64) {
		t.Helper()
		if z := (got - n*mean) / math.Sqrt(n*variance); math.Abs(z) > zMax {
			t.Errorf("%s: %g; want %g (z = %.2f, |z| at most %.2f)", what, got, n*mean, z, zMax)
		}
	}
	// p[i]: an attempt at depth i+1 succeeds; s[i]: a request to it does.
	p, s := make([]float64, 3), make([]float64, 3)
	for i := 2; i >= 0; i-- {
		p[i] = 1 - f[i]
		if i < 2 {
			p[i] *= s[i+1]
		}
		s[i] = 1 - math.Pow(1-p[i], float64(attempts[i]))
	}
	for i := range 3 {
		e := rep.Edges[i]
		n := float64(e.Requests)
		check("edge "+string(rune('0'+i))+" successes", float64(e.Succeeded), n, s[i], s[i]*(1-s[i]))
		mean, variance := truncGeom(1-p[i], attempts[i])
		check("service "+string(rune('0'+i))+" calls", float64(rep.Services[i].Calls), n, mean, variance)
		if i > 0 { // each call whose own work succeeded makes one request below
			calls := float64(rep.Services[i-1].Calls)
			check("edge "+string(rune('0'+i))+" requests", n, calls, 1-f[i-1], f[i-1]*(1-f[i-1]))
		}
	}
}

// Little's law holds at every service of a graph, each its own system:
// the time average of its calls in progress (Area/End) equals its
// admissions a second times their mean sojourn, a call being in progress
// from its admission until the service answers it, its own calls
// included; and every request on every edge ends, a success or a failure.
func TestGraphLittlesLaw(t *testing.T) {
	q := Server{Kind: QueueServer, Workers: 4, QueueMax: 20, Service: Service{Dist: ExponentialService, Median: 20 * time.Millisecond}, PFail: 0.05}
	lat := Server{Kind: LatencyServer, Base: 50 * time.Millisecond, Slope: 2 * time.Millisecond}
	g := Graph{Name: "little", Duration: 30 * time.Second, Net: 5 * time.Millisecond, Deadlines: true,
		Services: []Node{
			{Name: "api", Server: q, Parallel: true, Calls: []Call{{To: "auth", Client: tries(2, 300*time.Millisecond)}, {To: "db", Client: tries(3, 200*time.Millisecond)}}},
			{Name: "auth", Server: lat, Calls: []Call{{To: "db", Client: tries(2, 100*time.Millisecond)}}},
			{Name: "db", Server: Server{Kind: RateLimitServer, Base: 10 * time.Millisecond, Limit: 300, Burst: 20, PFail: 0.1}},
		},
		Entries: []Entry{{To: "api", Load: Shape{Kind: SpikeLoad, Rate: 60, Peak: 150, From: 10 * time.Second, To: 15 * time.Second}, Client: tries(3, time.Second)}}}
	for i, rep := range runGraph(t, g, 2) {
		for v, sv := range rep.Services {
			L := sv.Area / rep.End
			lambdaW := float64(sv.Entered) / rep.End * (sv.Sojourn / float64(sv.Entered))
			if math.Abs(L-lambdaW) > 1e-9*L || L == 0 {
				t.Errorf("replicate %d, %s: L = %g; λW = %g", i, g.Services[v].Name, L, lambdaW)
			}
		}
		for k, e := range rep.Edges {
			if e.Succeeded+e.Failed != e.Requests {
				t.Errorf("replicate %d, edge %d: %d succeeded + %d failed; want %d requests", i, k, e.Succeeded, e.Failed, e.Requests)
			}
		}
	}
}

// Deadline propagation, worked by hand. One request enters api (timeout
// 1 s, one attempt) at t = 0; api's work takes no time and it calls db
// (timeout 10 s, 4 attempts, no backoff); db fails every call after 0.4 s;
// no network delay. With Deadlines, db's attempts may not pass api's
// deadline, 1 s: attempts at 0 and 0.4 fail at 0.4 and 0.8; the third, at
// 0.8, would fail at 1.2 but its timeout is cut to 1 (not 10.8): it times
// out at 1, and the fourth cannot go, api's caller's time being up
// (expired). db saw 3 calls; api answers at 1, too late (its caller's
// timeout is at 1): a late reply, a timeout at the entry. Without
// Deadlines db gets all 4 calls, ending at 1.6, and the call times out
// never.
func TestGraphDeadlines(t *testing.T) {
	g := Graph{Name: "deadline", Duration: 10 * time.Second,
		Services: []Node{
			{Name: "api", Server: indep(0, 0), Calls: []Call{{To: "db", Client: tries(4, 10*time.Second)}}},
			{Name: "db", Server: indep(400*time.Millisecond, 1)},
		},
		Entries: []Entry{{To: "api", Load: Shape{Kind: ConstantLoad, Rate: 1e-9}, Client: tries(1, time.Second)}}}
	for _, tc := range []struct {
		deadlines                                  bool
		dbCalls, callTimeouts, expired, callErrors int64
		entryLate                                  int64
	}{
		{true, 3, 1, 1, 2, 1},
		{false, 4, 0, 0, 4, 1},
	} {
		g.Deadlines = tc.deadlines
		rep := traceGraph(t, g, 0)
		call, entry := rep.Edges[1], rep.Edges[0]
		if rep.Services[1].Calls != tc.dbCalls || call.Timeouts != tc.callTimeouts || call.Expired != tc.expired || call.Errors != tc.callErrors || call.Failed != 1 {
			t.Errorf("deadlines %v: db %d calls; the call %d timeouts, %d expired, %d errors, %d failed; want %d, %d, %d, %d, 1",
				tc.deadlines, rep.Services[1].Calls, call.Timeouts, call.Expired, call.Errors, call.Failed, tc.dbCalls, tc.callTimeouts, tc.expired, tc.callErrors)
		}
		if entry.Timeouts != 1 || entry.Failed != 1 || entry.Late != tc.entryLate {
			t.Errorf("deadlines %v: entry %d timeouts, %d failed, %d late; want 1, 1, %d", tc.deadlines, entry.Timeouts, entry.Failed, entry.Late, tc.entryLate)
		}
		// api holds the call until db's request ends: 1 s with the
		// deadline, 1.6 s without.
		want := 1.0
		if !tc.deadlines {
			want = 1.6
		}
		if got := rep.Services[0].Sojourn; math.Abs(got-want) > 1e-9 {
			t.Errorf("deadlines %v: api held the call %g s; want %g", tc.deadlines, got, want)
		}
	}
}

// "Do not retry", honoured and ignored, worked by hand. db is a rate limit
// of 0 a second with a bucket of 1 (so it takes the first call of the run
// and refuses every other at once) whose refusals say "do not retry"; api
// (no work, Pushback set or not) calls db with 3 attempts; the entry tries
// api twice. Request 1 at t = 0 takes db's token: 1 call each. Request 2 at
// t = 10 meets refusals only:
//
//	api->db honours, api forwards, entry honours: db 1, api 1
//	api->db honours, api forwards, entry ignores:  db 2, api 2 (the entry retries)
//	api->db honours, api does not forward:         db 2, api 2 (api answers an error)
//	api->db ignores:                               db 6, api 2 (3 refusals an api call)
func TestGraphPushback(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		callHonours, forwards, honour bool
		db, api, pushedBack           int64
	}{
		{"honoured at every layer", true, true, true, 1 + 1, 1 + 1, 2},
		{"entry ignores", true, true, false, 1 + 2, 1 + 2, 2},
		{"api does not forward", true, false, true, 1 + 2, 1 + 2, 2},
		{"ignored", false, true, true, 1 + 6, 1 + 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			callClient := tries(3, time.Minute)
			callClient.HonourPushback = tc.callHonours
			entryClient := tries(2, time.Minute)
			entryClient.HonourPushback = tc.honour
			g := Graph{Name: "pushback", Duration: 20 * time.Second,
				Services: []Node{
					{Name: "api", Server: Server{Kind: IndependentServer, Pushback: tc.forwards}, Calls: []Call{{To: "db", Client: callClient}}},
					{Name: "db", Server: Server{Kind: RateLimitServer, Limit: 0, Burst: 1, Pushback: true}},
				},
				Entries: []Entry{{To: "api", Load: Shape{Kind: ConstantLoad, Rate: 1e-9}, Client: entryClient}}}
			rep := traceGraph(t, g, 0, 10)
			var pushed int64
			for _, e := range rep.Edges {
				pushed += e.PushedBack
			}
			if rep.Services[1].Calls != tc.db || rep.Services[0].Calls != tc.api || pushed != tc.pushedBack {
				t.Errorf("db %d calls, api %d, %d pushed back; want %d, %d, %d", rep.Services[1].Calls, rep.Services[0].Calls, pushed, tc.db, tc.api, tc.pushedBack)
			}
			if e := rep.Edges[0]; e.Succeeded != 1 || e.Failed != 1 {
				t.Errorf("entry: %d succeeded, %d failed; want 1 and 1", e.Succeeded, e.Failed)
			}
		})
	}
}

// A fan-out's latency is its slowest call's, a sequence's the sum: api
// (no work) calls services of 0.1, 0.3 and 0.2 s, no network delay. In
// order, one request takes 0.6 s; in parallel 0.3 s: api's sojourn
// exactly, and the entry's median within the histogram's error.
func TestGraphParallelCalls(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		g := Graph{Name: "fanout", Duration: 10 * time.Second,
			Services: []Node{
				{Name: "api", Server: indep(0, 0), Parallel: parallel, Calls: []Call{
					{To: "a", Client: tries(1, time.Minute)}, {To: "b", Client: tries(1, time.Minute)}, {To: "c", Client: tries(1, time.Minute)}}},
				{Name: "a", Server: indep(100*time.Millisecond, 0)},
				{Name: "b", Server: indep(300*time.Millisecond, 0)},
				{Name: "c", Server: indep(200*time.Millisecond, 0)},
			},
			Entries: []Entry{{To: "api", Load: Shape{Kind: ConstantLoad, Rate: 1e-9}, Client: tries(1, time.Minute)}}}
		rep := traceGraph(t, g, 1)
		want := 0.6
		if parallel {
			want = 0.3
		}
		if got := rep.Services[0].Sojourn; math.Abs(got-want) > 1e-9 {
			t.Errorf("parallel %v: api held the request %g s; want %g", parallel, got, want)
		}
		if got := rep.Edges[0].P50; math.Abs(got-want) > hist.QuantileError*want {
			t.Errorf("parallel %v: the entry's median %g s; want %g within %.2g%%", parallel, got, want, 100*hist.QuantileError)
		}
		if rep.Edges[0].Succeeded != 1 {
			t.Errorf("parallel %v: %d successes; want 1", parallel, rep.Edges[0].Succeeded)
		}
	}
}

// A one-edge graph is the fleet model's run: RunGraph on Config.Graph gives
// what Run gives for the same config and seed, field for field (the edge's
// client counts with the service's server counts), for configurations
// that draw in every way the engine can (hedges, keys, a random policy, a
// queue, a stall, backoff with jitter, several clients).
func TestGraphOneEdgeIsRun(t *testing.T) {
	cfgs := append(collapseRuns(40*time.Second), littleConfigs()...)
	sre := DefaultConfig()
	sre.Name, sre.Duration = "sre", 30*time.Second
	sre.Client.Policy.Kind, sre.Client.Clients, sre.Client.Hedges = SREThrottle, 7, 2
	sre.Client.Keys = schema.SameKey
	sre.Client.Backoff.Kind = backoff.FullJitter
	sre.Outage = Outage{From: 5 * time.Second, To: 10 * time.Second, Mode: Stall}
	cfgs = append(cfgs, sre)
	opt := Options{Replicates: 2, Seed: 7, Workers: 2}
	want, err := Run(context.Background(), cfgs, opt)
	if err != nil {
		t.Fatal(err)
	}
	graphs := make([]Graph, len(cfgs))
	for i, c := range cfgs {
		graphs[i] = c.Graph()
	}
	got, err := RunGraph(context.Background(), graphs, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cfgs {
		for r, w := range want[i].replicates {
			g := got[i].replicates[r]
			e, v := g.Edges[0], g.Services[0]
			if !reflect.DeepEqual(v.Counts, w.Counts) {
				t.Errorf("%s replicate %d: counts\n%+v; want\n%+v", cfgs[i].Name, r, v.Counts, w.Counts)
			}
			merged := e.Counts
			merged.Calls, merged.Conflicts, merged.Rejected, merged.Stored = w.Calls, w.Conflicts, w.Rejected, w.Stored
			merged.Effects, merged.Duplicates, merged.Duplicated, merged.PeakInProgress = w.Effects, w.Duplicates, w.Duplicated, w.PeakInProgress
			if !reflect.DeepEqual(merged, w.Counts) {
				t.Errorf("%s replicate %d: the edge's client counts\n%+v; want\n%+v", cfgs[i].Name, r, e.Counts, w.Counts)
			}
			same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
			if !same(e.P50, w.P50) || !same(e.P95, w.P95) || !same(e.P99, w.P99) || !same(v.P99, w.P99) ||
				v.Area != w.Area || v.Sojourn != w.Sojourn || v.Entered != w.Entered || v.Wait != w.Wait ||
				g.End != w.End || g.Events != w.Events || !reflect.DeepEqual(v.Series, w.Series) {
				t.Errorf("%s replicate %d: quantiles, Little's terms, end, events or series differ", cfgs[i].Name, r)
			}
		}
	}
}

// Counts.add adds every field: a field added to Counts and forgotten there
// would be lost from every service's figures.
func TestCountsAddEveryField(t *testing.T) {
	var a, b fleetdata.Counts
	v := reflect.ValueOf(&b).Elem()
	for i := range v.NumField() {
		v.Field(i).SetInt(int64(i + 1))
	}
	a.Add(&b)
	a.Add(&b)
	w := reflect.ValueOf(a)
	for i := range w.NumField() {
		if got := w.Field(i).Int(); got != 2*int64(i+1) {
			t.Errorf("%s: %d; want %d", w.Type().Field(i).Name, got, 2*(i+1))
		}
	}
}

// Graph.Check refuses bad graphs before any work, naming the setting by
// its path.
func TestGraphCheck(t *testing.T) {
	good := func() Graph {
		return Graph{Name: "g", Duration: 10 * time.Second,
			Services: []Node{
				{Name: "a", Server: indep(0, 0), Calls: []Call{{To: "b", Client: tries(2, time.Second)}}},
				{Name: "b", Server: indep(0, 0), Calls: []Call{{To: "c", Client: tries(2, time.Second)}}},
				{Name: "c", Server: indep(0, 0)},
			},
			Entries: []Entry{{To: "a", Load: Shape{Kind: ConstantLoad, Rate: 10}, Client: tries(2, time.Second)}}}
	}
	if g := good(); g.Check() != nil {
		t.Fatalf("the good graph: %v", g.Check())
	}
	deep := func(n int) Graph {
		g := Graph{Name: "deep", Duration: 10 * time.Second}
		for i := range n {
			node := Node{Name: string(rune('a' + i)), Server: indep(0, 0)}
			if i+1 < n {
				node.Calls = []Call{{To: string(rune('a' + i + 1)), Client: tries(1, time.Second)}}
			}
			g.Services = append(g.Services, node)
		}
		g.Entries = []Entry{{To: "a", Load: Shape{Kind: ConstantLoad, Rate: 1}, Client: tries(1, time.Second)}}
		return g
	}
	for _, tc := range []struct {
		name        string
		edit        func(g *Graph)
		field, want string
	}{
		{"cycle", func(g *Graph) { g.Services[2].Calls = []Call{{To: "a", Client: tries(1, time.Second)}} },
			"services[c].calls[0].to", "a cycle of calls: a -> b -> c -> a"},
		{"self call", func(g *Graph) {
			g.Services[1].Calls = append(g.Services[1].Calls, Call{To: "b", Client: tries(1, time.Second)})
		},
			"services[b].calls[1].to", "a cycle of calls: b -> b"},
		{"unknown call", func(g *Graph) { g.Services[1].Calls[0].To = "x" }, "services[b].calls[0].to", `unknown service "x" (the services are a, b, c)`},
		{"unknown entry", func(g *Graph) { g.Entries[0].To = "x" }, "entries[0].to", `unknown service "x"`},
		{"unreachable", func(g *Graph) { g.Services = append(g.Services, Node{Name: "d", Server: indep(0, 0)}) }, "services[d]", "no entry reaches it (entries go to a)"},
		{"duplicate", func(g *Graph) { g.Services[2].Name = "a" }, "services[2].name", `"a" is the name of services[0] too`},
		{"no entry", func(g *Graph) { g.Entries = nil }, "entries", "no entry"},
		{"too many services", func(g *Graph) {
			for i := range limits.GraphServices {
				g.Services = append(g.Services, Node{Name: "x" + string(rune('A'+i)), Server: indep(0, 0)})
			}
		}, "services", "67 services; at most 64"},
		{"fan-out", func(g *Graph) {
			for range limits.GraphFanout {
				g.Services[0].Calls = append(g.Services[0].Calls, Call{To: "c", Client: tries(1, time.Second)})
			}
		}, "services[a].calls", "17 calls; at most 16 a service"},
		{"too many calls", func(g *Graph) { // a calls b and 15 others, each of which calls c 16 times: 257 calls
			for i := range 15 {
				n := Node{Name: "m" + string(rune('A'+i)), Server: indep(0, 0)}
				for range limits.GraphFanout {
					n.Calls = append(n.Calls, Call{To: "c", Client: tries(1, time.Second)})
				}
				g.Services = append(g.Services, n)
				g.Services[0].Calls = append(g.Services[0].Calls, Call{To: n.Name, Client: tries(1, time.Second)})
			}
		}, "services[mO].calls", "257 calls in all up to this service; at most 256"},
		{"too deep", func(g *Graph) { *g = deep(limits.GraphDepth + 1) }, "entries[0].to", "a chain of 9 services; at most 8"},
		{"a call's setting", func(g *Graph) { g.Services[1].Calls[0].Client.Attempts = -1 }, "services[b].calls[0].client.attempts", "-1 is not from 1 to 100"},
		{"an entry's load", func(g *Graph) { g.Entries[0].Load.Rate = -1 }, "entries[0].load.rate", "-1 is not a rate"},
		{"a service's server", func(g *Graph) { g.Services[2].Server.PFail = 2 }, "services[c].server.p_fail", "2 is not a probability"},
		{"a service's outage", func(g *Graph) { g.Services[2].Outage = Outage{From: -time.Second, To: time.Second} }, "services[c].outage.from", "is not from 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := good()
			tc.edit(&g)
			err := g.Check()
			var fe *schema.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Msg, tc.want) {
				t.Errorf("Check = %v; want %s: ...%s...", err, tc.field, tc.want)
			}
			// RunGraph refuses it before any work, with the same error.
			if _, rerr := RunGraph(context.Background(), []Graph{g}, Options{Replicates: 1}); err == nil || rerr == nil || rerr.Error() != err.Error() {
				t.Errorf("RunGraph = %v; want %v", rerr, err)
			}
		})
	}
	if g := deep(limits.GraphDepth); g.Check() != nil {
		t.Errorf("a chain of %d: %v", limits.GraphDepth, g.Check())
	}
}

// The cost bound counts amplification: 10 attempts at each of 5 layers is
// 10^5 calls at the bottom for each of about 10^5 requests, 10^10 calls:
// refused before any work, naming an edge's attempts; with 2 attempts a
// layer (32 calls a request) the same load is accepted.
func TestGraphCostAmplification(t *testing.T) {
	servers := []Server{indep(0, 0), indep(0, 0), indep(0, 0), indep(0, 0), indep(0, 1)}
	g := chain([]int{10, 10, 10, 10, 10}, servers, 1000, 100*time.Second)
	_, err := RunGraph(context.Background(), []Graph{g}, Options{Replicates: 1})
	var fe *schema.FieldError
	if !errors.As(err, &fe) || fe.Field != "entries[0].client.attempts" || !strings.Contains(fe.Msg, "multiplied along each path of calls") {
		t.Errorf("RunGraph = %v; want entries[0].client.attempts: ... multiplied along each path of calls ...", err)
	}
	c := g.cost()
	if bottom := c.Calls[4]; bottom < 1e10 || bottom > 1.04e10 {
		t.Errorf("the bottom's calls bound %g; want 10^5 x (10^5 requests and their Poisson margin)", bottom)
	}
	g = chain([]int{2, 2, 2, 2, 2}, servers, 1000, 100*time.Second)
	if _, err := graphBounds([]Graph{g}, Options{Replicates: 1}); err != nil {
		t.Errorf("2 attempts a layer: %v", err)
	}
}

// RunGraph looks at its context inside every replicate, turns a panic of a
// call's own policy into an error, and gives the same numbers whatever the
// workers.
func TestGraphRunContextPanicWorkers(t *testing.T) {
	g := chain([]int{3, 3, 3}, []Server{indep(time.Millisecond, 0.1), indep(time.Millisecond, 0.1), indep(time.Millisecond, 0.3)}, 50, 20*time.Second)
	opt := Options{Replicates: 4, Seed: 3, Workers: 1}
	one, err := RunGraph(context.Background(), []Graph{g}, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Workers = 3
	three, err := RunGraph(context.Background(), []Graph{g}, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Printed, not DeepEqual: a replicate without an outage has a NaN Drain,
	// which equals nothing; %v prints every float exactly.
	if fmt.Sprintf("%v", one) != fmt.Sprintf("%v", three) {
		t.Errorf("1 worker and 3 workers give different numbers")
	}

	long := g
	long.Duration = limits.FleetDuration * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := RunGraph(ctx, []Graph{long}, Options{Replicates: 1, Workers: 1, Progress: func(int64, int64) { cancel() }})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("RunGraph cancelled = %v, %v; want nothing and context.Canceled", res, err)
	}

	bad := g
	bad.Services = append([]Node(nil), g.Services...)
	bad.Services[1].Calls = []Call{{To: "s2", Client: tries(3, time.Hour)}}
	bad.Services[1].Calls[0].Client.Policy.Own = &PolicyFactory{Name: "boom", New: func() Policy { return retryPanics{} }}
	_, err = RunGraph(context.Background(), []Graph{bad}, Options{Replicates: 2, Workers: 2})
	if err == nil || !strings.Contains(err.Error(), `policy "boom" panicked in run "chain"`) {
		t.Errorf("a panicking policy: %v; want policy \"boom\" panicked in run \"chain\"", err)
	}
}

// retryPanics is a policy that panics when asked for a retry.
type retryPanics struct{ quiet }

func (retryPanics) Retry(float64, bool, float64) (bool, float64) { panic("no retries here") }

// randomGraph is a small graph drawn from u: up to 5 services in layers,
// each of any server kind, calls in order or in parallel, clients with
// hedges, keys, backoff and policies, outages, deadlines and pushback, and
// the first entry's workers keeping a store and crashing.
func randomGraph(u *rand.Rand) Graph {
	kinds := []Server{
		{Kind: LatencyServer, Base: 20 * time.Millisecond, Slope: 2 * time.Millisecond},
		{Kind: QueueServer, Workers: 2, QueueMax: 3, Service: Service{Dist: LognormalService, Median: 20 * time.Millisecond, Sigma: 0.5}},
		{Kind: RateLimitServer, Base: 5 * time.Millisecond, Limit: 30, Burst: 5},
		{Kind: IndependentServer, Base: 10 * time.Millisecond},
	}
	client := func() Client {
		c := tries(1+u.IntN(3), time.Duration(50+u.IntN(400))*time.Millisecond)
		c.Clients = 1 + u.IntN(3)
		c.Hedges = u.IntN(2)
		c.HedgeDelay = 30 * time.Millisecond
		c.Keys = schema.KeyMode(u.IntN(3))
		c.HonourPushback = u.IntN(2) == 0
		c.Policy = DefaultPolicy()
		c.Policy.Kind = []PolicyKind{Unlimited, FinagleBudget, SREThrottle, SlidingBreaker}[u.IntN(4)]
		if u.IntN(2) == 0 {
			c.Backoff = backoff.Schedule{Kind: backoff.FullJitter, Base: 10 * time.Millisecond, Cap: time.Second}
		}
		return c
	}
	n := 2 + u.IntN(4)
	g := Graph{Name: "random", Duration: 10 * time.Second, Net: time.Duration(u.IntN(3)) * time.Millisecond, Deadlines: u.IntN(2) == 0}
	for i := range n {
		sv := kinds[u.IntN(len(kinds))]
		sv.PFail = []float64{0, 0.1, 0.5}[u.IntN(3)]
		sv.Pushback = u.IntN(2) == 0
		node := Node{Name: string(rune('a' + i)), Server: sv, Parallel: u.IntN(2) == 0}
		if u.IntN(3) == 0 {
			node.Outage = Outage{From: 3 * time.Second, To: 5 * time.Second, Mode: OutageMode(u.IntN(2))}
		}
		for j := i + 1; j < n; j++ { // calls go down only: no cycle
			if j == i+1 || u.IntN(3) == 0 {
				node.Calls = append(node.Calls, Call{To: string(rune('a' + j)), Client: client()})
			}
		}
		g.Services = append(g.Services, node)
	}
	g.Entries = []Entry{{To: "a", Load: Shape{Kind: ConstantLoad, Rate: 20 + 30*u.Float64()}, Client: client()}}
	if !g.Services[0].Parallel && u.IntN(2) == 0 { // a's workers keep a store and crash
		g.Entries[0].Store = KeyStore{Mode: delivery.Store(u.IntN(5)), TTL: time.Duration(u.IntN(3)) * 100 * time.Millisecond,
			Lease: time.Duration(1+u.IntN(300)) * time.Millisecond}
		g.Entries[0].Crash = Crashes{P: []float64{0, 0.1, 0.5}[u.IntN(3)], At: delivery.CrashPoint(u.IntN(4)), Max: u.IntN(3)}
		g.Entries[0].RedeliverAtTimeout, g.Entries[0].Heartbeat = u.IntN(2) == 0, u.IntN(2) == 0
		g.Entries[0].TimeoutAtReceive = g.Services[0].Server.Kind == QueueServer && g.Entries[0].Client.Hedges == 0 && u.IntN(2) == 0
	}
	if u.IntN(2) == 0 {
		g.Entries = append(g.Entries, Entry{To: "b", Load: Shape{Kind: SpikeLoad, Rate: 5, Peak: 60, From: 2 * time.Second, To: 4 * time.Second}, Client: client()})
	}
	return g
}

// Random graphs (hedges, keys, policies, outages, deadlines, pushback,
// fan-out) keep the engine's books: every request on every edge ends a
// success or a failure, Little's law holds at every service, what the run
// reached stays within Graph.Cost's bounds (each edge's requests, each
// service's calls, the events, the slots and the bytes held), and at the
// end every request slot and every job is free again (no reference is
// lost or counted twice).
func TestGraphRandomBooks(t *testing.T) {
	u := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		g := randomGraph(u)
		if err := g.Check(); err != nil {
			t.Fatalf("graph %d: %v", i, err)
		}
		s := newGraphSim(&g, uint64(i), nil)
		if err := s.simulate(context.Background()); err != nil {
			t.Fatal(err)
		}
		rep := s.graphReplicate()
		for k, e := range rep.Edges {
			if e.Succeeded+e.Failed != e.Requests {
				t.Errorf("graph %d, edge %d: %d succeeded + %d failed; want %d requests", i, k, e.Succeeded, e.Failed, e.Requests)
			}
		}
		for v, sv := range rep.Services {
			if sv.Entered == 0 {
				continue
			}
			if math.Abs(sv.Area-sv.Sojourn) > 1e-9*sv.Area {
				t.Errorf("graph %d, service %d: area %g; sojourn %g", i, v, sv.Area, sv.Sojourn)
			}
		}
		cost := g.cost()
		for v, sv := range rep.Services {
			if float64(sv.Calls) > cost.Calls[v] {
				t.Errorf("graph %d, service %d: %d calls; bound %g", i, v, sv.Calls, cost.Calls[v])
			}
		}
		for k, e := range rep.Edges {
			if float64(e.Requests) > cost.Requests[k] {
				t.Errorf("graph %d, edge %d: %d requests; bound %g", i, k, e.Requests, cost.Requests[k])
			}
		}
		if float64(rep.Events) > cost.Events || float64(len(s.reqs)) > cost.InFlight || footprint(s) > cost.Bytes {
			t.Errorf("graph %d: %d events, %d slots, %g bytes; bounds %g, %g, %g", i, rep.Events, len(s.reqs), footprint(s), cost.Events, cost.InFlight, cost.Bytes)
		}
		if len(s.free) != len(s.reqs) || len(s.freeJobs) != len(s.jobs) {
			t.Errorf("graph %d: %d of %d slots and %d of %d jobs free at the end; want all", i, len(s.free), len(s.reqs), len(s.freeJobs), len(s.jobs))
		}
	}
}

// A Config's graph keeps its Memoryless mode, and Graph.Check refuses it
// as Config.Check does: RunGraph cannot run a Markovian graph whose law is
// not the chain's. Before, Graph.Check did not look at it.
func TestGraphCheckMemoryless(t *testing.T) {
	c := memorylessConfig()
	if g := c.Graph(); g.Check() != nil {
		t.Fatalf("a good Memoryless config's graph: %v", g.Check())
	}
	c.Net = time.Millisecond
	g := c.Graph()
	var fe *schema.FieldError
	if err := g.Check(); !errors.As(err, &fe) || fe.Field != "memoryless" {
		t.Errorf("Check = %v; want memoryless: needs net 0", err)
	}
}

// FuzzGraph builds a graph's shape from data (up to 6 services, calls
// between any two, in order or in parallel, one or two entries, deadlines)
// and checks that Graph.Check either refuses it with a *schema.FieldError or
// passes a graph that RunGraph runs without a panic, every request ending.
func FuzzGraph(f *testing.F) {
	f.Add([]byte{3, 0, 0x01, 0x0a, 0x13})
	f.Add([]byte{2, 1, 0x08, 0x01}) // a cycle
	f.Add([]byte{5, 0, 0xff, 0x80}) // unreachable services
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 64 {
			return
		}
		n := 1 + int(data[0])%6
		name := func(b byte) string { return string(rune('a' + int(b)%n)) }
		g := Graph{Name: "fuzz", Duration: 2 * time.Second, Deadlines: data[1]&0x80 != 0}
		for i := range n {
			g.Services = append(g.Services, Node{Name: name(byte(i)), Server: indep(10*time.Millisecond, 0.3), Parallel: i%2 == 1})
		}
		g.Entries = []Entry{{To: name(data[1]), Load: Shape{Kind: ConstantLoad, Rate: 5}, Client: tries(2, 200*time.Millisecond)}}
		if data[1]&0x40 != 0 {
			g.Entries = append(g.Entries, Entry{To: name(data[1] >> 3), Load: Shape{Kind: ConstantLoad, Rate: 5}, Client: tries(1, time.Second)})
		}
		for _, b := range data[2:] {
			from := int(b) % n
			g.Services[from].Calls = append(g.Services[from].Calls, Call{To: name(b >> 3), Client: tries(1+int(b>>6), 100*time.Millisecond)})
		}
		if err := g.Check(); err != nil {
			var fe *schema.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Check = %v; want a *schema.FieldError", err)
			}
			return
		}
		res, err := RunGraph(context.Background(), []Graph{g}, Options{Replicates: 1, Workers: 1})
		if err != nil {
			var fe *schema.FieldError
			if !errors.As(err, &fe) { // only the cost bound may refuse a graph Check passed
				t.Fatalf("RunGraph = %v", err)
			}
			return
		}
		for k, e := range res[0].replicates[0].Edges {
			if e.Succeeded+e.Failed != e.Requests {
				t.Errorf("edge %d: %d succeeded + %d failed; want %d", k, e.Succeeded, e.Failed, e.Requests)
			}
		}
	})
}

// FuzzRandomGraphBooks runs TestGraphRandomBooks's checks on the random
// graph of any seed.
func FuzzRandomGraphBooks(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		g := randomGraph(rand.New(rand.NewPCG(a, b)))
		if err := g.Check(); err != nil {
			t.Fatal(err)
		}
		s := newGraphSim(&g, a^b, nil)
		if err := s.simulate(context.Background()); err != nil {
			t.Fatal(err)
		}
		rep := s.graphReplicate()
		for k, e := range rep.Edges {
			if e.Succeeded+e.Failed != e.Requests {
				t.Errorf("edge %d: %d succeeded + %d failed; want %d requests", k, e.Succeeded, e.Failed, e.Requests)
			}
		}
		if len(s.free) != len(s.reqs) || len(s.freeJobs) != len(s.jobs) {
			t.Errorf("%d of %d slots and %d of %d jobs free at the end; want all", len(s.free), len(s.reqs), len(s.freeJobs), len(s.jobs))
		}
	})
}

// Deadlines follow the attempt a service works for, not the request's
// latest. One request enters api (2 attempts, timeout 1 s, no backoff) at
// t = 0; api's work takes 1.5 s and it then calls db. Attempt 1 times out
// at 1 and attempt 2 goes out at once (deadline 2). At 1.5 api's work for
// attempt 1 ends: its caller gave it up at 1, so its call to db is not
// made (expired); at 2.5 api's work for attempt 2 ends, after its
// deadline, 2: expired too. db sees no call; the api -> db edge has 2
// expired calls and no request sent; api answers neither attempt in time
// (2 late replies, 2 timeouts at the entry).
func TestGraphDeadlineOfStaleAttempt(t *testing.T) {
	g := Graph{Name: "stale", Duration: 10 * time.Second, Deadlines: true,
		Services: []Node{
			{Name: "api", Server: indep(1500*time.Millisecond, 0), Calls: []Call{{To: "db", Client: tries(1, 10*time.Second)}}},
			{Name: "db", Server: indep(10*time.Millisecond, 0)},
		},
		Entries: []Entry{{To: "api", Load: Shape{Kind: ConstantLoad, Rate: 1e-9}, Client: tries(2, time.Second)}}}
	rep := traceGraph(t, g, 0)
	call, entry := rep.Edges[1], rep.Edges[0]
	if rep.Services[1].Calls != 0 || call.Expired != 2 || call.Requests != 0 || call.Failed != 0 {
		t.Errorf("db %d calls; api -> db %d expired, %d requests, %d failed; want 0, 2, 0, 0",
			rep.Services[1].Calls, call.Expired, call.Requests, call.Failed)
	}
	if entry.Requests != 1 || entry.Timeouts != 2 || entry.Late != 2 || entry.Failed != 1 {
		t.Errorf("entry %d requests, %d timeouts, %d late, %d failed; want 1, 2, 2, 1", entry.Requests, entry.Timeouts, entry.Late, entry.Failed)
	}
}

// A call whose caller's deadline has passed before it starts is not a
// request on its edge: Requests counts the calls made. api (independent,
// 2 s of work) calls db for an entry's request of timeout 1 s: with
// Deadlines the call expires unsent (no request, no start in db's
// series); without, it is made and succeeds.
func TestGraphExpiredNotSent(t *testing.T) {
	g := Graph{Name: "expired", Duration: 10 * time.Second,
		Services: []Node{
			{Name: "api", Server: indep(2*time.Second, 0), Calls: []Call{{To: "db", Client: tries(3, 10*time.Second)}}},
			{Name: "db", Server: indep(10*time.Millisecond, 0)},
		},
		Entries: []Entry{{To: "api", Load: Shape{Kind: ConstantLoad, Rate: 1e-9}, Client: tries(1, time.Second)}}}
	for _, tc := range []struct {
		deadlines                           bool
		requests, expired, succeeded, calls int64
	}{
		{true, 0, 1, 0, 0},
		{false, 1, 0, 1, 1},
	} {
		g.Deadlines = tc.deadlines
		rep := traceGraph(t, g, 0)
		call := rep.Edges[1]
		if call.Requests != tc.requests || call.Expired != tc.expired || call.Succeeded != tc.succeeded || call.Failed != 0 || rep.Services[1].Calls != tc.calls {
			t.Errorf("deadlines %v: api -> db %d requests, %d expired, %d succeeded, %d failed, db %d calls; want %d, %d, %d, 0, %d",
				tc.deadlines, call.Requests, call.Expired, call.Succeeded, call.Failed, rep.Services[1].Calls, tc.requests, tc.expired, tc.succeeded, tc.calls)
		}
		if got := rep.Services[1].Series[2].Starts; got != tc.requests {
			t.Errorf("deadlines %v: db's series starts %d at t = 2; want %d", tc.deadlines, got, tc.requests)
		}
	}
}

// Orphaned counts a Parallel service's calls that finish after a sibling
// failed, and nothing else. api calls a (fails at 0.1 s) and b (succeeds
// at 2 s) in parallel: b's request finishes after api answered, orphaned.
// In the sequential order a, b, b is never called; and a call still out
// when api's caller gives up (b, sequential after a succeeding) is not
// orphaned: api has not answered.
func TestGraphOrphaned(t *testing.T) {
	for _, tc := range []struct {
		name         string
		parallel     bool
		aFail        float64
		bCalls, orph int64
	}{
		{"parallel, a fails", true, 1, 1, 1},
		{"sequential, a fails", false, 1, 0, 0},
		{"sequential, caller gives up", false, 0, 1, 0},
	} {
		g := Graph{Name: "orphan", Duration: 10 * time.Second,
			Services: []Node{
				{Name: "api", Server: indep(0, 0), Parallel: tc.parallel, Calls: []Call{
					{To: "a", Client: tries(1, 10*time.Second)}, {To: "b", Client: tries(1, 10*time.Second)}}},
				{Name: "a", Server: indep(100*time.Millisecond, tc.aFail)},
				{Name: "b", Server: indep(2*time.Second, 0)},
			},
			Entries: []Entry{{To: "api", Load: Shape{Kind: ConstantLoad, Rate: 1e-9}, Client: tries(1, time.Second)}}}
		rep := traceGraph(t, g, 0)
		if rep.Services[2].Calls != tc.bCalls || rep.Edges[2].Orphaned != tc.orph || rep.Edges[1].Orphaned != 0 {
			t.Errorf("%s: b %d calls, orphaned %d (a's %d); want %d, %d (0)", tc.name, rep.Services[2].Calls, rep.Edges[2].Orphaned, rep.Edges[1].Orphaned, tc.bCalls, tc.orph)
		}
	}
}

// PushedBack counts an honoured "do not retry" on the last attempt too:
// a 1-attempt client refused by a rate limiter with no tokens left (burst
// 1, refilled never) after the first request.
func TestGraphPushedBackLastAttempt(t *testing.T) {
	cl := tries(1, time.Minute)
	cl.HonourPushback = true
	g := Graph{Name: "pushback", Duration: 20 * time.Second,
		Services: []Node{{Name: "db", Server: Server{Kind: RateLimitServer, Limit: 0, Burst: 1, Pushback: true}}},
		Entries:  []Entry{{To: "db", Load: Shape{Kind: ConstantLoad, Rate: 1e-9}, Client: cl}}}
	rep := traceGraph(t, g, 0, 10)
	if e := rep.Edges[0]; e.Succeeded != 1 || e.Failed != 1 || e.PushedBack != 1 || rep.Services[0].Rejected != 1 {
		t.Errorf("%d succeeded, %d failed, %d pushed back, %d rejected; want 1, 1, 1, 1", e.Succeeded, e.Failed, e.PushedBack, rep.Services[0].Rejected)
	}
}

// An entry's row sums Rejected and Duplicates over every service, as it
// does Calls. One request enters api (2 attempts, timeout 1 s); api works
// 1.5 s, then calls db, a rate limiter of one token never refilled. The
// entry's attempt 1 times out at 1 and attempt 2 goes out: api does the
// work twice (1 duplicate at api); its first call to db takes the token,
// its second is refused (1 rejected at db).
func TestGraphRowsEndToEndSums(t *testing.T) {
	g := Graph{Name: "sums", Duration: 10 * time.Second,
		Services: []Node{
			{Name: "api", Server: indep(1500*time.Millisecond, 0), Calls: []Call{{To: "db", Client: tries(1, 10*time.Second)}}},
			{Name: "db", Server: Server{Kind: RateLimitServer, Limit: 0, Burst: 1}},
		},
		Entries: []Entry{{To: "api", Load: Shape{Kind: ConstantLoad, Rate: 1e-9}, Client: tries(2, time.Second)}}}
	rep := traceGraph(t, g, 0)
	rows := GraphResult{Graph: g, replicates: []fleetdata.GraphReplicate{rep}}.rows()
	want := []struct {
		service              string
		calls, rej, dup, tos float64
	}{
		{fleetdata.EndToEnd + ": api", 4, 1, 1, 2},
		{"api", 2, 0, 1, 2},
		{"db", 2, 1, 0, 0},
	}
	for i, w := range want {
		r := rows[i]
		if r.Service != w.service || r.Calls.Value != w.calls || r.Rejected.Value != w.rej || r.Duplicates.Value != w.dup || r.Timeouts.Value != w.tos {
			t.Errorf("row %d: %s: %v calls, %v rejected, %v duplicates, %v timeouts; want %s: %v, %v, %v, %v", i, r.Service,
				r.Calls.Value, r.Rejected.Value, r.Duplicates.Value, r.Timeouts.Value, w.service, w.calls, w.rej, w.dup, w.tos)
		}
	}
}

// A service's per-second calls count every call that reached it, hedges
// and refusals included, where Starts + RetriesSent count requests and
// retries. Requests at 0.5 and 1.5 to db (1 attempt, a hedge after
// 100 ms), an independent server of 1 s: 2 calls in second 0 and 2 in
// second 1, while 1 request starts in each. Then a rate limiter of two
// tokens, never refilled, refuses the second request's attempt at once,
// which fails it before its hedge goes: 1 call in second 1, a refused one.
func TestGraphCallSeries(t *testing.T) {
	cl := tries(1, time.Minute)
	cl.Hedges, cl.HedgeDelay = 1, 100*time.Millisecond
	for _, tc := range []struct {
		sv    Server
		calls []int64
	}{
		{indep(time.Second, 0), []int64{2, 2, 0}},
		{Server{Kind: RateLimitServer, Limit: 0, Burst: 2, Base: time.Second}, []int64{2, 1, 0}},
	} {
		sv := tc.sv
		g := Graph{Name: "calls", Duration: 3 * time.Second,
			Services: []Node{{Name: "db", Server: sv}},
			Entries:  []Entry{{To: "db", Load: Shape{Kind: ConstantLoad, Rate: 1e-9}, Client: cl}}}
		rep := traceGraph(t, g, 0.5, 1.5)
		db := rep.Services[0]
		if got := db.CallSeries; !slices.Equal(got, tc.calls) || db.Calls != tc.calls[0]+tc.calls[1] {
			t.Errorf("%v: calls a second %v, %d in all; want %v", sv.Kind, got, db.Calls, tc.calls)
		}
		if got := []int64{db.Series[0].Starts, db.Series[1].Starts}; !slices.Equal(got, []int64{1, 1}) {
			t.Errorf("%v: starts %v; want [1 1]", sv.Kind, got)
		}
		pts := GraphResult{Graph: g, replicates: []fleetdata.GraphReplicate{rep, rep}}.series()
		if len(pts) != 3 || pts[0].Calls != float64(tc.calls[0]) || pts[1].Calls != float64(tc.calls[1]) || pts[2].Calls != 0 {
			t.Errorf("%v: points %+v; want calls %v", sv.Kind, pts, tc.calls)
		}
	}
}
