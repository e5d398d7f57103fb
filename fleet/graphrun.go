package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/internal/waits"
	"github.com/retrysim/retrysim/schema"
)

// GraphResult is a graph's run and its replicates, in replicate order.
type GraphResult struct {
	Graph      Graph
	replicates []fleetdata.GraphReplicate
}

// entered is the requests that entered the graph in replicate r: the
// entries' requests.
func entered(r *fleetdata.GraphReplicate, g *Graph) int64 {
	var n int64
	for k := range g.Entries {
		n += r.Edges[k].Requests
	}
	return n
}

// amplification is the calls that reached service v in replicate r
// (attempts and hedges, refused ones included) per request that entered
// the graph; NaN with no request.
func amplification(r *fleetdata.GraphReplicate, g *Graph, v int) float64 {
	n := entered(r, g)
	if n == 0 {
		return math.NaN()
	}
	return float64(r.Services[v].Calls) / float64(n)
}

// RunGraph simulates every graph Replicates times, as Run does
// configurations, after checking the graphs (Graph.Check), the options and
// the runs' cost; a panic in a program's own policy becomes its error.
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
	if opt.Workers == 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	out := make([]GraphResult, len(graphs))
	for i, g := range graphs {
		out[i] = GraphResult{Graph: g, replicates: make([]fleetdata.GraphReplicate, opt.Replicates)}
	}
	err = runReplicates(ctx, graphs, opt, b.atOnce(opt), func(run, r int, s *sim) {
		out[run].replicates[r] = s.graphReplicate()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// graphCost bounds what one replicate of a graph can reach, as Cost does a
// configuration's, with the amplification of its calls: an entry's
// requests are a Poisson bound of its arrivals (arrivalBound), a call's
// requests at most the calls that reach its caller, and the calls that
// reach a service at most the requests sent to it times their attempts x
// (1 + hedges); so a request entering the graph makes at most the product
// of attempts x (1 + hedges) along each path of calls, summed over paths.
type graphCost struct {
	// Requests and Calls bound each edge's requests and each service's
	// calls, in Graph.Edges and Graph.Services order; Events bounds the
	// replicate's events.
	Requests, Calls []float64
	Events          float64
	// InFlight bounds the request slots the replicate holds at once (see
	// Graph.Cost).
	InFlight float64
	// Bytes bounds the replicate's memory while it runs, Series the series
	// alone, kept until the run's replicates are averaged.
	Bytes, Series float64
	// worst is the edge whose copies (attempts x (1 + hedges)) are the
	// most, the one to name when the events pass limits.FleetEvents.
	worst int
}

// cost bounds what one replicate of g can reach; g must have passed Check.
// Each request on an edge takes at most the events Config.cost counts for
// a request: an arrival or start, a send a retry's backoff, 4 a copy (5
// when its service stalls) and one a hedge's delay. The slots in flight
// are bounded as Config.cost bounds them, a request's tree at a time: see
// inFlight.
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
	// Services in an order where every caller comes before its callees:
	// the calls that reach a service are known before its calls' requests.
	order := g.topological()
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
	var requests float64
	for i, e := range edges {
		cl := client(i)
		attempts := float64(cl.Attempts)
		perCopy := 4.0
		if o := g.Services[e.To].Outage; o.On() && o.Mode == Stall {
			perCopy++
		}
		sends := 0.0
		if cl.Backoff.Kind != backoff.None {
			sends = attempts - 1
		}
		c.Events += c.Requests[i] * (1 + sends + copies(cl)*perCopy + attempts*float64(cl.Hedges))
		requests += c.Requests[i]
		if copies(cl) > copies(client(c.worst)) {
			c.worst = i
		}
	}
	c.InFlight = g.inFlight(edges, first, order, c.Calls)
	c.InFlight = math.Min(c.InFlight, requests)
	var queued, held float64 // calls waiting in queues; events a slot can have pending
	for v := range g.Services {
		if sv := g.Services[v].Server; sv.Kind == QueueServer {
			queued += math.Min(float64(sv.QueueMax), c.Calls[v])
		}
	}
	for i := range edges {
		cl := client(i)
		held = math.Max(held, 1+2*copies(cl)+float64(cl.Attempts*cl.Hedges))
	}
	// A request held has at most a backoff's send pending, a timeout and
	// an event on its way through a service a copy, and a hedge's; a slot
	// has its place in free and up, and may hold a job.
	pending := math.Min(c.Events, 1+c.InFlight*held)
	eventSize := float64(unsafe.Sizeof(event{}))
	c.Series = math.Ceil(dur) * float64(len(g.Services)) * float64(unsafe.Sizeof(fleetdata.Second{})+16) // and CallSeries, HeldSeries
	c.Bytes += simFixed + float64(len(edges))*float64(unsafe.Sizeof(edgeSim{}))*1.125 + float64(len(g.Services))*float64(unsafe.Sizeof(svcSim{}))*1.125 +
		sliceBytes(c.InFlight, float64(unsafe.Sizeof(request{}))) + 2*sliceBytes(c.InFlight, 4) + sliceBytes(c.InFlight, float64(unsafe.Sizeof(job{}))) +
		queueBytes(pending+pad) + float64(g.timeouts())*fifoBytes(pending, eventSize) +
		fifoBytes(queued, float64(unsafe.Sizeof(waiter{}))) + c.Series
	if g.calls() > 0 { // each slot's serial and edges seen (sim.rootSlot)
		c.Bytes += sliceBytes(c.InFlight, 4+8*float64((len(edges)+63)/64))
	}
	for _, e := range g.Entries {
		if e.Heartbeat { // each slot's lease (sim.leased)
			c.Bytes += sliceBytes(c.InFlight, 2)
			break
		}
	}
	if w := g.keysWidth(); w > 0 { // each slot's store and books (KeyStore, Crashes)
		c.Bytes += sliceBytes(c.InFlight, float64(w)*float64(unsafe.Sizeof(keyRecord{}))) + sliceBytes(c.InFlight, float64(unsafe.Sizeof(jobBook{})))
	}
	for v, n := range g.Services { // the arrival times of the calls a stall holds
		if n.Outage.On() && n.Outage.Mode == Stall {
			c.Bytes += fifoBytes(c.Calls[v], 8)
		}
	}
	for i := range edges {
		if client(i).Keys == schema.FreshKeys { // each slot's key store, one key an attempt
			c.Bytes += sliceBytes(c.InFlight, float64(unsafe.Sizeof(attemptKeys{})))
			break
		}
	}
	// The policy states, a client each (or one) on every edge, with what
	// windowed ones keep: at most an entry a copy of every request the edge
	// sends in the run.
	for i := range edges {
		cl := client(i)
		e, _ := windowBytes(Config{Duration: g.Duration, Load: Shape{Kind: ConstantLoad, Rate: c.Requests[i] / dur}, Client: *cl}, c.Requests[i], copies(cl), math.Inf(1))
		c.Bytes += e
	}
	return c
}

// timeouts is how many timeout FIFOs a replicate of g keeps: one for each
// distinct Client.Timeout of its edges (sim.tq).
func (g *Graph) timeouts() int {
	seen := map[time.Duration]bool{}
	for _, e := range g.Entries {
		seen[e.Client.Timeout] = true
	}
	for _, n := range g.Services {
		for _, c := range n.Calls {
			seen[c.Client.Timeout] = true
		}
	}
	return len(seen)
}

// inFlight bounds the request slots a replicate holds at once. A request
// on edge e holds its slot at most life(e): its client's timeouts, hedge
// delays and longest backoffs, a network delay, a stall, its service's time
// (Base + Slope x every call it can get for a latency server; 0 for a
// queue, whose calls are counted apart), and the calls the service then
// makes, one after another at worst, each for its own life. A request
// entering at entry k, with every request below it (tree(k): a call's
// request makes attempts x (1 + hedges) calls, each of which makes the
// service's calls), is so gone life(k) after it arrived, but for calls held
// by a queue server: at most its workers' and its queue's calls, those on a
// worker each with the requests below it (a call waiting in the queue has
// made none yet). So the slots are at most, over the entries, the
// arrivals in any window of life(k) (inWindow) times tree(k), plus the
// queues' calls with their trees.
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
		if e.TimeoutAtReceive {
			// A try's timeout starts when a worker takes it: its wait in
			// the queue, which no timeout bounds, adds to the request's
			// life, so every arrival of the run may be alive at once.
			life[k] = math.Inf(1)
		}
		tree := 1 + copies(&e.Client)*below[edges[k].To]
		slots += (inWindow(e.Load.max(), life[k]*(1+1e-9)+1e-6, dur) + e.Load.firstCalls(e.Client.Clients)) * tree
	}
	for v, n := range g.Services {
		if n.Server.Kind == QueueServer { // a call waiting in the queue has made no call yet: only those on a worker have requests below
			slots += math.Min(float64(n.Server.QueueMax+n.Server.Workers), calls[v]) + math.Min(float64(n.Server.Workers), calls[v])*below[v]
		}
	}
	return slots
}

// life is how long a request with client cl to service v can wait on its
// client and its copies' time in v's server (but a queue's), stalls
// included, given the calls v can get.
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

// copies is the most calls a request on an edge with client cl makes:
// attempts x (1 + hedges).
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

// checkGraphCosts refuses graphs (each passed Check) whose bounds over every
// graph and replicate (Graph.Cost) pass MaxEvents events or MaxBytes bytes
// held at once, with a *FieldError naming the setting to change: the
// attempts of the edge whose attempts x (1 + hedges) are the most, when a
// request makes more than one call on it, else duration or replicates.
func checkGraphCosts(graphs []Graph, opt Options) error {
	_, err := graphBounds(graphs, opt)
	return err
}

// graphBounds adds up the graphs' costs, and refuses them as
// CheckGraphCost does.
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

// outageWindow is when g's outages begin (the earliest From of a service's
// outage) and end (the latest To), in seconds; ok is false when no service
// has one.
func (g *Graph) outageWindow() (from, to float64, ok bool) {
	from, to = math.Inf(1), math.Inf(-1)
	for _, n := range g.Services {
		if n.Outage.On() {
			from, to, ok = math.Min(from, n.Outage.From.Seconds()), math.Max(to, n.Outage.To.Seconds()), true
		}
	}
	return from, to, ok
}

// drain is how long after g's outages end (OutageWindow) a service whose
// per-second series is series first has the requests waiting for it back
// at their level before them, with its verdict. The requests waiting are
// those in its backlog (Second.Backlog: for a worker) and those waiting
// out a backoff to call it again (Second.Scheduled: a job waiting out a
// retry), each second's time average; the level before is their highest
// one-second average over a whole second before the first outage begins,
// but at least one request (the tolerance: a queue one call deep on
// average is drained). Drain is s minus the outages' end, for the first
// whole second s from then on whose average is at most that level, at a
// second's resolution, and the verdict Recovered: the first return, so an
// excursion of a stable queue later in the run, which Poisson arrivals
// make now and then at any load, is not counted as draining. It is NaN
// with Down when no second from the outages' end on is back (it never
// drained in the run's duration), TooShort when no second of the series
// starts after the outages end, NoTrigger with no outage.
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
// judged (with an outage and a second after it) that drained, with its
// Wilson interval (its Count those that drained), and the mean drain time
// over those that drained with its Student t interval cut at 0 (NaN when
// none did).
func (r GraphResult) drain(v int) (drained, seconds schema.Estimate) {
	judged, ok := 0, 0
	xs := make([]float64, len(r.replicates))
	for i := range r.replicates {
		s := &r.replicates[i].Services[v]
		xs[i] = s.Drain
		switch s.DrainVerdict {
		case fleetdata.Recovered:
			ok++
			judged++
		case fleetdata.Down:
			judged++
		}
	}
	return stats.Share(ok, judged), nonNegative(estimate(xs))
}
