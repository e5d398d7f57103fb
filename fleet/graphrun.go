package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/waits"
	"github.com/retrysim/retrysim/schema"
)

// GraphResult is a graph's run and its replicates, in replicate order.
type GraphResult struct {
	Graph      Graph
	replicates []fleetdata.GraphReplicate
}

// entered is the requests that entered the graph in replicate r.
func entered(r *fleetdata.GraphReplicate, g *Graph) int64 {
	var n int64
	for k := range g.Entries {
		n += r.Edges[k].Requests
	}
	return n
}

// RunGraph simulates every graph Replicates times, as Run does
// configurations, after Graph.Check, Options.Check and a check of the cost.
func RunGraph(ctx context.Context, graphs []Graph, opt Options) ([]GraphResult, error) {
	opt = opt.withDefaults()
	graphs = slices.Clone(graphs)
	for i := range graphs {
		graphs[i] = graphs[i].withDefaults()
	}
	if len(graphs) == 0 {
		return nil, errors.New("no graph to run")
	}
	for i := range graphs {
		if err := graphs[i].Check(); err != nil {
			return nil, err
		}
	}
	if err := opt.Check(graphs[0].Duration.Seconds()); err != nil {
		return nil, err
	}
	b, err := graphBounds(graphs, opt)
	if err != nil {
		return nil, err
	}
	out := make([]GraphResult, len(graphs))
	for i, g := range graphs {
		out[i] = GraphResult{Graph: g, replicates: make([]fleetdata.GraphReplicate, opt.Replicates)}
	}
	err = runReplicates(ctx, graphs, opt, b, func(run, r int, s *sim) {
		out[run].replicates[r] = s.graphReplicate()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// graphCost bounds what one replicate of a graph can reach, as
// replicateCost does a configuration's: a call's requests are at most the
// calls that reach its caller, each making attempts x (1 + hedges) calls.
type graphCost struct {
	Requests, Calls []float64 // by edge (Graph.edges order) and by service
	Events          float64
	InFlight        float64 // request slots held at once (inFlight)
	Bytes, Series   float64 // memory while it runs; the series alone
	worst           int     // the edge of the most copies a request
}

// cost bounds what one replicate of g can reach, counting a request's
// events as Config.cost does; g must have passed Check.
func (g *Graph) cost() graphCost {
	edges := g.edges()
	dur := g.Duration.Seconds()
	c := graphCost{Requests: make([]float64, len(edges)), Calls: make([]float64, len(g.Services))}
	client := func(i int) *Client { return g.client(edges[i]) }
	first := make([]int, len(g.Services)) // the index of each service's first call edge
	n := len(g.Entries)
	for v := range g.Services {
		first[v] = n
		n += len(g.Services[v].Calls)
	}
	order := g.topological() // callers first: a service's calls are known before its calls' requests
	for k, e := range g.Entries {
		c.Requests[k] = arrivalBound(e.Load.max()*dur) + e.Load.firstCalls(e.Client.Clients)
		c.Bytes += e.Load.firstCalls(e.Client.Clients) * firstCallBytes
		c.Calls[edges[k].To] += c.Requests[k] * copies(&e.Client)
	}
	for _, v := range order {
		for i := range g.Services[v].Calls {
			ei := first[v] + i
			c.Requests[ei] = c.Calls[v]
			c.Calls[edges[ei].To] += c.Requests[ei] * copies(client(ei))
		}
	}
	var requests, held float64 // held: the events a slot can have pending
	for i, e := range edges {
		cl := client(i)
		o := g.Services[e.To].Outage
		c.Events += c.Requests[i] * requestEvents(cl, o.On() && o.Mode == Stall)
		requests += c.Requests[i]
		if copies(cl) > copies(client(c.worst)) {
			c.worst = i
		}
		held = math.Max(held, 1+2*copies(cl)+float64(cl.Attempts*cl.Hedges))
	}
	c.InFlight = g.inFlight(edges, first, order, c.Calls)
	c.InFlight = math.Min(c.InFlight, requests)
	var queued float64 // calls waiting in queues
	for v := range g.Services {
		if sv := g.Services[v].Server; sv.Kind == QueueServer {
			queued += math.Min(float64(sv.QueueMax), c.Calls[v])
		}
	}
	pending := math.Min(c.Events, 1+c.InFlight*held)
	eventSize := float64(unsafe.Sizeof(event{}))
	c.Series = math.Ceil(dur) * float64(len(g.Services)) * float64(unsafe.Sizeof(fleetdata.Second{})+16) // and CallSeries, HeldSeries
	c.Bytes += simFixed + float64(len(edges))*float64(unsafe.Sizeof(edgeSim{}))*1.125 + float64(len(g.Services))*float64(unsafe.Sizeof(svcSim{}))*1.125 +
		sliceBytes(c.InFlight, float64(unsafe.Sizeof(request{}))) + 2*sliceBytes(c.InFlight, 4) + sliceBytes(c.InFlight, float64(unsafe.Sizeof(job{}))) +
		queueBytes(pending+pad) + float64(g.timeouts())*fifoBytes(pending, eventSize) +
		fifoBytes(queued, float64(unsafe.Sizeof(waiter{}))) + c.Series
	if len(edges) > len(g.Entries) { // a service makes calls: each slot's serial and edges seen (sim.rootSlot)
		c.Bytes += sliceBytes(c.InFlight, 4+8*float64((len(edges)+63)/64))
	}
	if slices.ContainsFunc(g.Entries, func(e Entry) bool { return e.Heartbeat }) { // each slot's lease (sim.leased)
		c.Bytes += sliceBytes(c.InFlight, 2)
	}
	if w := g.keysWidth(); w > 0 { // each slot's store and books (KeyStore, Crashes)
		c.Bytes += sliceBytes(c.InFlight, float64(w)*float64(unsafe.Sizeof(keyRecord{}))) + sliceBytes(c.InFlight, float64(unsafe.Sizeof(jobBook{})))
	}
	for v, n := range g.Services { // the arrival times of the calls a stall holds
		if n.Outage.On() && n.Outage.Mode == Stall {
			c.Bytes += fifoBytes(c.Calls[v], 8)
		}
	}
	if slices.ContainsFunc(edges, func(e fleetdata.Edge) bool { return g.client(e).Keys == schema.FreshKeys }) { // each slot's key store, one key an attempt
		c.Bytes += sliceBytes(c.InFlight, float64(unsafe.Sizeof(attemptKeys{})))
	}
	for i := range edges { // the policy states, with what windowed ones keep
		cl := client(i)
		e, _ := windowBytes(Config{Duration: g.Duration, Load: Shape{Kind: ConstantLoad, Rate: c.Requests[i] / dur}, Client: *cl}, c.Requests[i], copies(cl), math.Inf(1))
		c.Bytes += e
	}
	return c
}

// timeouts is how many timeout FIFOs (sim.tq) a replicate of g keeps.
func (g *Graph) timeouts() int {
	seen := map[time.Duration]bool{}
	for _, e := range g.edges() {
		seen[g.client(e).Timeout] = true
	}
	return len(seen)
}

// inFlight bounds the request slots a replicate holds at once: over the
// entries, the arrivals in any window of a request's life (life plus the
// calls below it, one after another) times the requests below each, plus
// the calls a queue server holds with theirs.
func (g *Graph) inFlight(edges []fleetdata.Edge, first, order []int, calls []float64) float64 {
	net := netReach * g.Net.Seconds()
	life := make([]float64, len(edges))
	below := make([]float64, len(g.Services)) // requests a call taken in by the service can make below it
	job := make([]float64, len(g.Services))   // how long a service's calls can take
	for i := len(order) - 1; i >= 0; i-- {    // callees first
		v := order[i]
		for c := range g.Services[v].Calls {
			ei := first[v] + c
			job[v] += life[ei]
			below[v] += 1 + copies(g.client(edges[ei]))*below[edges[ei].To]
		}
		for k, e := range edges { // the edges into v, now that its calls are known
			if e.To == v {
				life[k] = g.life(g.client(e), v, calls[v]) + net + job[v]
			}
		}
	}
	var slots float64
	dur := g.Duration.Seconds()
	for k, e := range g.Entries {
		if e.TimeoutAtReceive { // no timeout bounds the wait in the queue
			life[k] = math.Inf(1)
		}
		tree := 1 + copies(&e.Client)*below[edges[k].To]
		slots += (inWindow(e.Load.max(), life[k]*(1+1e-9)+1e-6, dur) + e.Load.firstCalls(e.Client.Clients)) * tree
	}
	for v, n := range g.Services {
		if n.Server.Kind == QueueServer { // only calls on a worker have requests below
			slots += math.Min(float64(n.Server.QueueMax+n.Server.Workers), calls[v]) + math.Min(float64(n.Server.Workers), calls[v])*below[v]
		}
	}
	return slots
}

// life bounds how long a request with client cl to service v waits on its
// client and on v's server (but a queue's), given the calls v can get.
func (g *Graph) life(cl *Client, v int, calls float64) float64 {
	a := float64(cl.Attempts)
	t := a*cl.Timeout.Seconds() + a*float64(cl.Hedges)*cl.HedgeDelay.Seconds() + waits.Longest(cl.Backoff, cl.Attempts-1).Seconds()
	n := g.Services[v]
	if n.Outage.On() && n.Outage.Mode == Stall {
		t += (n.Outage.To - n.Outage.From).Seconds()
	}
	switch n.Server.Kind {
	case LatencyServer:
		t += n.Server.Base.Seconds() + n.Server.Slope.Seconds()*calls
	case RateLimitServer, IndependentServer:
		t += n.Server.Base.Seconds()
	}
	return t
}

// client is the client of edge e.
func (g *Graph) client(e fleetdata.Edge) *Client {
	if e.From < 0 {
		return &g.Entries[e.Index].Client
	}
	return &g.Services[e.From].Calls[e.Index].Client
}

// copies is attempts x (1 + hedges): the most calls a request makes.
func copies(cl *Client) float64 { return float64(cl.Attempts) * float64(1+cl.Hedges) }

// topological is g's services in an order where a service comes before
// every service it calls; g has no cycle.
func (g *Graph) topological() []int {
	idx := g.index()
	in := make([]int, len(g.Services))
	for _, n := range g.Services {
		for _, c := range n.Calls {
			in[idx[c.To]]++
		}
	}
	var order []int
	for v := range g.Services {
		if in[v] == 0 {
			order = append(order, v)
		}
	}
	for i := 0; i < len(order); i++ {
		for _, c := range g.Services[order[i]].Calls {
			w := idx[c.To]
			if in[w]--; in[w] == 0 {
				order = append(order, w)
			}
		}
	}
	return order
}

// graphBounds adds up the graphs' costs (each passed Check), refusing
// those past limits.FleetEvents or limits.FleetBytes with a
// *schema.FieldError naming the setting to change.
func graphBounds(graphs []Graph, opt Options) (bounds, error) {
	opt = opt.withDefaults()
	b := bounds{jobs: len(graphs) * opt.Replicates}
	reps := float64(opt.Replicates)
	var worst graphCost
	wg, worstSlots := 0, 0.0
	graphs = slices.Clone(graphs)
	for i := range graphs {
		graphs[i] = graphs[i].withDefaults()
		c := graphs[i].cost()
		b.events += reps * c.Events
		b.kept += reps*(c.Series+float64(unsafe.Sizeof(fleetdata.GraphReplicate{}))) + math.Ceil(graphs[i].Duration.Seconds())*float64(len(graphs[i].Services))*float64(unsafe.Sizeof(fleetdata.GraphPoint{}))
		if r := c.Bytes - c.Series; r > b.running {
			b.running, worstSlots = r, c.InFlight
		}
		if c.Events > worst.Events {
			worst, wg = c, i
		}
	}
	runs := plural(opt.Replicates, "replicate")
	if len(graphs) > 1 {
		runs = plural(len(graphs), "run") + " x " + runs
	}
	if b.events > limits.FleetEvents {
		g := &graphs[wg]
		e := g.edges()[worst.worst]
		cl, path := g.client(e), fmt.Sprintf("entries[%d]", e.Index)
		if e.From >= 0 {
			path = g.callPath(e.From, e.Index)
		}
		var calls float64
		for _, n := range worst.Calls {
			calls += n
		}
		what := fmt.Sprintf("%s of up to %.3g calls in all (attempts x (1 + hedges) multiplied along each path of calls)", runs, calls)
		switch {
		case copies(cl) > 1:
			path += ".client.attempts"
			if 1+cl.Hedges > cl.Attempts {
				path = strings.TrimSuffix(path, "attempts") + "hedges"
			}
		case opt.Replicates > 1:
			path = "replicates"
		default:
			path = "duration"
		}
		return b, &schema.FieldError{Field: path, Msg: fmt.Sprintf("%s can take up to %.3g events; at most %.0e (about 40 CPU minutes)", what, b.events, float64(limits.FleetEvents))}
	}
	if total := float64(b.atOnce(opt))*b.running + b.kept; total > limits.FleetBytes {
		path := "replicates"
		if opt.Replicates == 1 {
			path = "duration"
		}
		return b, &schema.FieldError{Field: path, Msg: fmt.Sprintf("%s can hold up to %.3g requests in flight a replicate (each request entering with every call below it), about %s in all; at most %s",
			runs, worstSlots, human.GiB(total), human.GiB(limits.FleetBytes))}
	}
	return b, nil
}

// outageWindow is the earliest start and latest end of g's outages, in
// seconds; ok is false with none.
func (g *Graph) outageWindow() (from, to float64, ok bool) {
	from, to = math.Inf(1), math.Inf(-1)
	for _, n := range g.Services {
		if n.Outage.On() {
			from, to, ok = math.Min(from, n.Outage.From.Seconds()), math.Max(to, n.Outage.To.Seconds()), true
		}
	}
	return from, to, ok
}

// drain is the seconds from the end of g's outages to the first whole
// second whose requests waiting (Backlog plus Scheduled, a second's
// average) are back at their highest level before the first outage (at
// least 1), with its verdict (docs/workers.md): NaN unless Recovered.
func (g *Graph) drain(series []fleetdata.Second) (float64, fleetdata.Verdict) {
	from, to, ok := g.outageWindow()
	if !ok {
		return math.NaN(), fleetdata.NoTrigger
	}
	dur := g.Duration.Seconds()
	mean := func(t int) float64 { return (series[t].Backlog + series[t].Scheduled) / math.Min(1, dur-float64(t)) }
	level := 1.0
	for t := 0; t+1 <= int(from) && t < len(series); t++ {
		level = math.Max(level, mean(t))
	}
	first := int(math.Ceil(to))
	if first >= len(series) {
		return math.NaN(), fleetdata.TooShort
	}
	for t := first; t < len(series); t++ {
		if mean(t) <= level {
			return float64(t) - to, fleetdata.Recovered
		}
	}
	return math.NaN(), fleetdata.Down
}

// drain sums up service v's drain over r's replicates: the share of those
// judged that drained, and their mean drain time, cut at 0.
func (r GraphResult) drain(v int) (drained, seconds schema.Estimate) {
	return recoveredShare(r.replicates, func(p *fleetdata.GraphReplicate) fleetdata.Verdict { return p.Services[v].DrainVerdict }),
		nonNegative(column(r.replicates, func(p *fleetdata.GraphReplicate) float64 { return p.Services[v].Drain }))
}
