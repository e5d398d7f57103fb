package fleet

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/backoffkind"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/waits"
	"github.com/retrysim/retrysim/schema"
)

// netReach is the most times its mean a network delay can be: 53 ln 2.
const netReach = 36.74

// simFixed bounds a replicate's memory that does not grow with its load.
const simFixed = 64 << 10

// replicateCost bounds what one replicate of a run can reach: arrivals by
// a Poisson bound (arrivalBound), the rest exactly.
type replicateCost struct {
	Requests, Calls, Events float64
	InFlight                float64 // request slots held at once
	Bytes, Series           float64 // memory while it runs; the series alone

	life                 float64  // how long a request holds its slot, but in a queue
	longest              lifeTerm // life's largest term
	slots, queue, window float64  // bytes of the slots, the queue and the policy states
	windowPath           string   // the setting that sizes window
}

// lifeTerm is a part of a request's longest life: its setting's path, what
// it is, and its seconds.
type lifeTerm struct {
	path, what string
	secs       float64
}

// firstCallBytes are what a client's first call holds until it starts.
const firstCallBytes = 12

// firstCalls is how many first calls (FirstCall) clients clients make.
func (s Shape) firstCalls(clients int) float64 {
	if s.FirstCall {
		return float64(clients)
	}
	return 0
}

// arrivalBound bounds a Poisson count of mean mu, exceeded with probability
// below e^-72 (Bernstein's inequality).
func arrivalBound(mu float64) float64 { return mu + 12*math.Sqrt(mu) + 60 }

// inWindow bounds the arrivals at a rate up to lmax in any window of w
// seconds of a run of dur seconds.
func inWindow(lmax, w, dur float64) float64 {
	return arrivalBound(lmax * math.Min(2*w, dur))
}

// sliceBytes bounds the bytes of a slice grown by append to n items of size
// bytes, or made with room for 256.
func sliceBytes(n, size float64) float64 { return 2.25*math.Max(n, 256)*size + 8192 }

// fifoBytes bounds the bytes of a fifo that held up to n items of size bytes.
func fifoBytes(n, size float64) float64 {
	if n == 0 {
		return 0
	}
	return math.Max(16, 2*n) * size
}

// cost bounds what one replicate of c can reach; c must have passed Check.
// A request makes at most Attempts x (1 + Hedges) calls of at most 5 events
// each, an event a hedge's delay and one a retry's backoff.
func (c Config) cost() replicateCost {
	cl := c.Client
	lmax, dur := c.Load.max(), c.Duration.Seconds()
	attempts := float64(cl.Attempts)
	copies := attempts * float64(1+cl.Hedges)
	var e replicateCost
	firsts := c.Load.firstCalls(cl.Clients)
	e.Requests = arrivalBound(lmax*dur) + firsts
	e.Calls = e.Requests * copies
	stall := c.Outage.On() && c.Outage.Mode == Stall
	e.Events = e.Requests * requestEvents(&cl, stall)

	terms := []lifeTerm{
		{"client.timeout", fmt.Sprintf("%s x %d attempts", human.Duration(cl.Timeout), cl.Attempts), attempts * cl.Timeout.Seconds()},
		{"client.hedge_delay", fmt.Sprintf("%d hedges %s apart x %d attempts", cl.Hedges, human.Duration(cl.HedgeDelay), cl.Attempts),
			attempts * float64(cl.Hedges) * cl.HedgeDelay.Seconds()},
		{"client.backoff.cap", fmt.Sprintf("%d %s backoff waits", cl.Attempts-1, cl.Backoff.Kind), waits.Longest(cl.Backoff, cl.Attempts-1).Seconds()},
	}
	if backoffkind.Schedule(cl.Backoff.Kind.String()) { // a schedule reads no cap
		terms[2].path = "client.backoff.kind"
	}
	client := terms[0].secs + terms[1].secs + terms[2].secs
	terms = append(terms, lifeTerm{"net", fmt.Sprintf("a network delay of mean %s", human.Duration(c.Net)), netReach * c.Net.Seconds()})
	if stall {
		terms = append(terms, lifeTerm{"outage.to", fmt.Sprintf("a stall of %s", human.Duration(c.Outage.To-c.Outage.From)), (c.Outage.To - c.Outage.From).Seconds()})
	}
	switch c.Server.Kind {
	case LatencyServer:
		path := "server.slope"
		base, slope := c.Server.Base.Seconds(), c.Server.Slope.Seconds()
		if slope*e.Calls < base {
			path = "server.base"
		}
		terms = append(terms, lifeTerm{path, fmt.Sprintf("a latency of %s + %s a call in progress", human.Duration(c.Server.Base), human.Duration(c.Server.Slope)),
			base + slope*e.Calls})
	case RateLimitServer, IndependentServer:
		terms = append(terms, lifeTerm{"server.base", fmt.Sprintf("a latency of %s", human.Duration(c.Server.Base)), c.Server.Base.Seconds()})
	}
	for _, t := range terms {
		e.life += t.secs
		if t.secs > e.longest.secs { // the timeout, above 0, comes first
			e.longest = t
		}
	}
	e.life = e.life*(1+1e-9) + 1e-6 // the engine adds these times in floating point
	held := math.Min(e.Requests, inWindow(lmax, e.life, dur)+firsts)
	var queued, serving float64 // calls the queue server holds past life
	if c.Server.Kind == QueueServer {
		queued = math.Min(float64(c.Server.QueueMax), e.Calls)
		serving = math.Min(float64(c.Server.Workers), e.Calls)
	}
	e.InFlight = math.Min(e.Requests, held+queued+serving)
	pending := math.Min(e.Events, 1+held*(1+2*copies+attempts*float64(cl.Hedges))+serving)
	eventSize := float64(unsafe.Sizeof(event{}))
	e.slots = sliceBytes(e.InFlight, float64(unsafe.Sizeof(request{}))) + sliceBytes(e.InFlight, 4) +
		queueBytes(pending+pad) + fifoBytes(pending, eventSize)
	if cl.Keys == schema.FreshKeys { // each slot's key store, one key an attempt
		e.slots += sliceBytes(e.InFlight, float64(unsafe.Sizeof(attemptKeys{})))
	}
	e.queue = fifoBytes(queued, float64(unsafe.Sizeof(waiter{})))
	e.window, e.windowPath = windowBytes(c, e.Requests, copies, client)
	e.Series = math.Ceil(dur) * float64(unsafe.Sizeof(fleetdata.Second{}))
	e.Bytes = e.slots + e.queue + e.window + e.Series + simFixed + firsts*firstCallBytes
	return e
}

// requestEvents bounds the events of a request with client cl: an arrival,
// a send a retry's backoff, 4 a copy (5 when its service stalls) and one a
// hedge's delay.
func requestEvents(cl *Client, stall bool) float64 {
	attempts, perCopy, sends := float64(cl.Attempts), 4.0, 0.0
	if stall {
		perCopy++
	}
	if cl.Backoff.Kind != backoff.None {
		sends = attempts - 1
	}
	return 1 + sends + copies(cl)*perCopy + attempts*float64(cl.Hedges)
}

// unwindowedBytes bounds the struct of a policy state that keeps no window.
const unwindowedBytes = 48

// windowBytes bounds the bytes of the policy states with what their windows
// keep (added within a window and a client's life), and names the setting
// that sizes them.
func windowBytes(c Config, requests, copies, client float64) (float64, string) {
	p := c.Client.Policy
	states := float64(c.Client.Clients)
	if p.Shared || p.Kind == Unlimited && p.Own == nil {
		states = 1 // an own policy's states are counted as small ones, a client each
	}
	size, entry, perRequest, path := float64(unwindowedBytes), 16.0, copies, "client.clients"
	var window float64
	switch p.Kind {
	case GRPCAdaptive:
		size = float64(unsafe.Sizeof(grpcAdaptive{})) + 2*fifoBytes(lookbackBins+1, float64(unsafe.Sizeof(stamped{})))
	case FinagleBudget:
		size, window, path = float64(unsafe.Sizeof(finagleBudget{})), p.TTL.Seconds(), "client.policy.ttl"
	case SlidingBreaker:
		size, window, path = float64(unsafe.Sizeof(slidingBreaker{})), p.WindowTime.Seconds(), "client.policy.window_time"
	case SREThrottle:
		size, window, path = float64(unsafe.Sizeof(sreThrottle{})), p.SREWindow.Seconds(), "client.policy.sre_window"
		entry, perRequest = 8, copies+1
	}
	bytes := states * (16 + size + 16 + 2*16*entry)
	var entries float64
	switch {
	case p.Kind == SlidingBreaker && p.WindowTime == 0:
		entries, path = math.Min(requests*copies, states*float64(p.Window+1)), "client.policy.window"
	case window > 0:
		perState := inWindow(c.Load.max()/states, window+client, c.Duration.Seconds()) * perRequest
		entries = math.Min(requests*perRequest, states*perState)
	}
	return bytes + 2*entries*entry, path
}

// bounds is what every run and replicate of a Run can reach together.
type bounds struct {
	events, kept, running float64 // events in all, bytes kept to the end, bytes of the largest replicate running
	jobs                  int     // replicates in all
	worst                 Config  // the run of the largest replicate
	worstCost             replicateCost
}

// boundsOf adds up the runs' costs.
func boundsOf(cfgs []Config, opt Options) bounds {
	opt = opt.withDefaults()
	b := bounds{jobs: len(cfgs) * opt.Replicates}
	reps := float64(opt.Replicates)
	for _, c := range cfgs {
		c.Client = c.Client.withDefaults()
		e := c.cost()
		b.events += reps * e.Events
		b.kept += reps*(e.Series+float64(unsafe.Sizeof(fleetdata.Replicate{}))) + math.Ceil(c.Duration.Seconds())*float64(unsafe.Sizeof(fleetdata.Point{}))
		if r := e.Bytes - e.Series; r > b.running {
			b.running, b.worst, b.worstCost = r, c, e
		}
	}
	return b
}

// atOnce is how many replicates Run runs at once: opt.Workers, fewer when
// that many would hold more than limits.FleetBytes.
func (b bounds) atOnce(opt Options) int {
	n := max(1, min(opt.Workers, b.jobs))
	if b.running > 0 {
		if fit := int((limits.FleetBytes - b.kept) / b.running); fit < n {
			n = max(1, fit)
		}
	}
	return n
}

// checkCosts refuses runs (each passed Check) whose bounds pass
// limits.FleetEvents or limits.FleetBytes, with a *schema.FieldError naming
// the setting to change (duration or replicates for a preset's runs).
func checkCosts(cfgs []Config, opt Options) error {
	b := boundsOf(cfgs, opt)
	events, kept, running, worst, wc := b.events, b.kept, b.running, b.worst, b.worstCost
	atOnce := float64(b.atOnce(opt))
	preset := len(cfgs) > 1
	c := cfgs[0]
	runs := plural(opt.Replicates, "replicate")
	if preset {
		runs = plural(len(cfgs), "run") + " x " + runs
	}
	if events > limits.FleetEvents {
		cl := c.Client
		what := pathtext.Textf("%s of up to %.3g requests", runs, c.cost().Requests)
		path := "duration"
		switch {
		case !preset && cl.Attempts*(1+cl.Hedges) >= 16:
			path = "client.attempts"
			if 1+cl.Hedges > cl.Attempts {
				path = "client.hedges"
			}
			what = pathtext.Textf("up to %d attempts x %d copies (1 + %s) a request, %s", cl.Attempts, 1+cl.Hedges, pathtext.Path("client.hedges"), what)
		case opt.Replicates > 1:
			path = "replicates"
		}
		return pathtext.Errorf(path, "%s can take up to %.3g events; at most %.0e (about 40 CPU minutes)", what, events, float64(limits.FleetEvents))
	}
	total := atOnce*running + kept
	if total <= limits.FleetBytes {
		return nil
	}
	limit := fmt.Sprintf("about %s in all; at most %s", human.GiB(total), human.GiB(limits.FleetBytes))
	if kept >= atOnce*running {
		path := "replicates"
		if opt.Replicates == 1 {
			path = "duration"
		}
		return &schema.FieldError{Field: path, Msg: fmt.Sprintf("%s of %s keep %s of series until they are averaged, %s", runs, human.Duration(c.Duration), human.GiB(kept), limit)}
	}
	w := worst.Client
	switch {
	case preset:
		return &schema.FieldError{Field: "duration", Msg: fmt.Sprintf("a run of %s needs up to %s a replicate, %g at once, %s", human.Duration(worst.Duration), human.GiB(running), atOnce, limit)}
	case wc.queue >= wc.slots && wc.queue >= wc.window:
		return &schema.FieldError{Field: "server.queue_max", Msg: fmt.Sprintf("%d waiting calls need up to %s a replicate, %g at once, %s", worst.Server.QueueMax, human.GiB(wc.queue), atOnce, limit)}
	case wc.window >= wc.slots:
		return pathtext.Errorf(wc.windowPath, "the %s policy's states (%s, %s %s) need up to %s a replicate, %g at once, %s",
			w.Policy.Kind, plural(w.Clients, "client"), pathtext.Path("client.policy.shared"), scopes.name(w.Policy.Shared), human.GiB(wc.window), atOnce, limit)
	}
	return &schema.FieldError{Field: wc.longest.path, Msg: fmt.Sprintf("%s at up to %g requests a second keeps up to %.3g requests in flight, %s a replicate, %g at once, %s",
		wc.longest.what, worst.Load.max(), wc.InFlight, human.GiB(wc.slots), atOnce, limit)}
}

// plural is n things, with an s unless n is 1.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
