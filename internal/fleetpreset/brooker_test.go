package fleetpreset

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"gonum.org/v1/gonum/stat/distuv"
)

// Brooker's retry simulation is retry_sim in github.com/mbrooker/simulator_example:
// retry_sim.py and client.py at commit fa8981e (2022-08-11), retry_strategy.py
// at 7e5a117 (the same day, unchanged since). The tests below quote it.

// brookerListedRates is the failure-rate list of his run_sims and
// run_sims_clients, in his order: "for failure_rate in [0.0, 0.0001, 0.0002,
// 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.0325, 0.05, 0.75, 0.1, 0.2, 0.3,
// 0.4, 0.5]:". 0.75 is his, not 0.075.
var brookerListedRates = []float64{0.0, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.0325, 0.05, 0.75, 0.1, 0.2, 0.3, 0.4, 0.5}

// The brooker-* retry presets run his 17 failure rates, each once, in
// ascending order.
func TestBrookerFailureRates(t *testing.T) {
	want := slices.Sorted(slices.Values(brookerListedRates))
	if !slices.Equal(brookerFailureRates[:], want) {
		t.Errorf("brookerFailureRates = %v; want Brooker's list in ascending order, %v", brookerFailureRates, want)
	}
}

// His adaptive client has no cap on its retries: AdaptiveRetryStrategy's
// should_retry is "if self.bucket > 1.0: self.bucket -= 1.0; return True",
// and nothing counts tries. A request whose client's bucket is full (5, and
// "self.bucket = min(self.bucket + self.bucket_fill_rate, self.bucket_size)"
// at its start keeps it at 5) makes 4 retries when every call fails (5 to 1),
// and it is the bucket that stops it. The runs are exact: the replicates with
// a single request are checked, whatever the seed.
func TestBrookerAdaptiveUncapped(t *testing.T) {
	for _, p := range []Preset[fleet.Config]{brookerRetries, brookerClients} {
		for _, cfg := range p.Runs(p.Duration) {
			if cfg.Name != "adaptive_10pct" || cfg.Server.PFail != 0 {
				continue
			}
			cfg.Server.PFail = 1
			cfg.Load.Rate = 0.1        // one request in 10 s, on average
			cfg.Load.FirstCall = false // no first call a client: a replicate may have a single request
			lone := 0
			for i, r := range run(t, cfg, 40) {
				if r.Requests != 1 {
					continue
				}
				lone++
				if r.Retries != 4 || r.Denied != 1 || r.Failed != 1 {
					t.Errorf("%s, %d clients, replicate %d: a lone request made %d retries, %d refused by the policy, %d failed; want 4, 1, 1",
						p.Name, cfg.Client.Clients, i, r.Retries, r.Denied, r.Failed)
				}
			}
			if lone == 0 {
				t.Fatalf("%s, %d clients: no replicate with a lone request", p.Name, cfg.Client.Clients)
			}
		}
	}
}

// brookerTotals are one run's totals: requests, successes and server calls.
type brookerTotals struct{ requests, succeeded, calls float64 }

// brookerReply is an attempt's reply reaching its client at t.
type brookerReply struct {
	t   float64
	req int
}

type brookerReplies []brookerReply

func (h brookerReplies) Len() int           { return len(h) }
func (h brookerReplies) Less(i, j int) bool { return h[i].t < h[j].t }
func (h brookerReplies) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *brookerReplies) Push(x any)        { *h = append(*h, x.(brookerReply)) }
func (h *brookerReplies) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// brookerReference simulates one run of his retry model from his code, not
// from this package: clients independent of each other (the server ignores
// load), each starting as sim_loop starts it ("q = [(net_rtt(),
// client.gen_load, None) for client in clients]") and gen_load goes on: a
// call at once, then "t + random.expovariate(self.rate)" to the next, so a
// first request at an exponential time of mean 0.01 s and Poisson arrivals
// at rate/clients after it, each started before seconds (his last
// gen_load, the one event past max_t that sets drain, may start one request
// more in the whole run, which this leaves out), each
// attempt answered after two network delays exponential with mean 0.01 s
// ("random.expovariate(1 / 0.01)" each way) and failing with probability f.
// adaptive is AdaptiveRetryFactory(0.1, 5), one bucket a client (new_call
// "return self"): full at 5, "min(self.bucket + self.bucket_fill_rate,
// self.bucket_size)" at each request's start, a retry while "self.bucket >
// 1.0", costing 1. Otherwise CircuitBreakerRetryFactory(NRetriesFactory(3),
// 0.1), one count a client: "calls += 1.0" at each request's start,
// "failures += 1.0" at each failed attempt, no retry if "failures / calls >
// max_rate", else up to 3 retries a request.
func brookerReference(r *rand.Rand, clients int, rate, f, seconds float64, adaptive bool) brookerTotals {
	var tot brookerTotals
	each := rate / float64(clients)
	rtt := func() float64 { return 0.01*r.ExpFloat64() + 0.01*r.ExpFloat64() }
	for range clients {
		var starts []float64
		for t := 0.01 * r.ExpFloat64(); t < seconds; t += r.ExpFloat64() / each {
			starts = append(starts, t)
		}
		bucket, calls, failures := 5.0, 0.0, 0.0
		retries := make([]int, len(starts))
		var h brookerReplies
		for next := 0; next < len(starts) || h.Len() > 0; {
			if next < len(starts) && (h.Len() == 0 || starts[next] < h[0].t) {
				bucket = math.Min(bucket+0.1, 5)
				calls++
				tot.requests++
				tot.calls++
				heap.Push(&h, brookerReply{starts[next] + rtt(), next})
				next++
				continue
			}
			e := heap.Pop(&h).(brookerReply)
			if r.Float64() >= f {
				tot.succeeded++
				continue
			}
			again := false
			if adaptive {
				if bucket > 1 {
					bucket--
					again = true
				}
			} else if failures++; failures/calls <= 0.1 {
				retries[e.req]++
				again = retries[e.req] <= 3
			}
			if again {
				tot.calls++
				heap.Push(&h, brookerReply{e.t + rtt(), e.req})
			}
		}
	}
	return tot
}

// bernsteinBound is the half-width at false-failure rate alpha of a sum of
// n independent terms of variance v each, each within m of its mean.
func bernsteinBound(n, v, m, alpha float64) float64 {
	l := math.Log(2 / alpha)
	return l*m/3 + math.Sqrt(l*m/3*l*m/3+2*l*n*v)
}

// welch says whether two samples of a figure, the engine's replicates xs and
// the reference's ys, have means within Welch's t bound at false-failure rate
// alpha; the standard error is floored at a figure's step between two counts
// (1/n for n requests), so samples that never vary do not divide by zero.
func welch(xs, ys []float64, step, alpha float64) (diff, bound float64, ok bool) {
	mx, vx := meanVar(xs)
	my, vy := meanVar(ys)
	a, b := vx/float64(len(xs)), vy/float64(len(ys))
	se2 := a + b
	df := float64(len(xs) + len(ys) - 2)
	if se2 > 0 {
		df = se2 * se2 / (a*a/float64(len(xs)-1) + b*b/float64(len(ys)-1))
	}
	bound = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1-alpha/2) * math.Sqrt(se2+step*step)
	return mx - my, bound, math.Abs(mx-my) <= bound
}

// Every run of brooker-retries and brooker-clients against his model. The
// runs must be his (rates, clients, load, in his order of policies), and:
// no_retries and 4_tries meet the closed forms of A independent tries,
// success 1 - f^A and calls (1 - f^A)/(1 - f) a request, within Bernstein's
// bound on the totals of the engine's replicates; adaptive_10pct and
// breaker_10pct meet brookerReference, replicate against replicate, within
// Welch's bound on success and calls a request; every run's requests are a
// first call a client and the Poisson arrivals. Every adaptive_10pct request
// that failed was refused by its bucket (limits.FleetAttempts never binds).
// Comparisons: brooker-retries 17 rates x 4 clients x 3 figures = 204,
// brooker-clients 3 x 17 x 2 x 3 = 306; each at 1e-5 (Welch's under the
// normality of a replicate's ratios of some thousands of requests), about
// 0.5% for the family.
func TestBrookerRunsAgainstReference(t *testing.T) {
	const alpha = 1e-5
	for _, tc := range []struct {
		p         Preset[fleet.Config]
		clients   []int // his n_clients
		rate      float64
		names     []string
		reps, ref int // replicates of the engine and of the reference
	}{
		// run_sims: "n_clients = 100", "rate_per_client = 10.0".
		{brookerRetries, []int{100}, 100 * 10.0, []string{"no_retries", "4_tries", "adaptive_10pct", "breaker_10pct"}, 6, 10},
		// run_sims_clients: "for n_clients in [10, 100, 1000]", "rate = 100.0".
		{brookerClients, []int{10, 100, 1000}, 100.0, []string{"adaptive_10pct", "breaker_10pct"}, 16, 16},
	} {
		cfgs := tc.p.Runs(tc.p.Duration)
		if want := len(tc.clients) * len(brookerListedRates) * len(tc.names); len(cfgs) != want {
			t.Fatalf("%s: %d runs; want %d", tc.p.Name, len(cfgs), want)
		}
		res, err := fleet.Run(context.Background(), cfgs, fleet.Options{Replicates: tc.reps, Seed: 3, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(22, 2))
		for i, res := range res {
			c := res.Config
			clients := tc.clients[i/(len(cfgs)/len(tc.clients))]
			f := brookerFailureRates[i/len(tc.names)%len(brookerFailureRates)]
			name := tc.names[i%len(tc.names)]
			if c.Name != name || c.Client.Clients != clients || c.Server != (fleet.Server{Kind: fleet.IndependentServer, PFail: f}) ||
				c.Load != (fleet.Shape{Kind: fleet.ConstantLoad, Rate: tc.rate, FirstCall: true}) || c.Net != 10*time.Millisecond || c.Duration != 10*time.Second || c.Client.Timeout != time.Minute {
				t.Fatalf("%s run %d: %+v; want %s, %d clients, f = %g, %g a second, net 10 ms, 10 s", tc.p.Name, i, c, name, clients, f, tc.rate)
			}
			what := fmt.Sprintf("%s %s, %d clients, f = %g", tc.p.Name, name, clients, f)
			var n, s, calls float64
			xs, xc := make([]float64, len(fleetrun.Fleet().Replicates(res))), make([]float64, len(fleetrun.Fleet().Replicates(res)))
			var failed, denied int64
			for k, rep := range fleetrun.Fleet().Replicates(res) {
				n, s, calls = n+float64(rep.Requests), s+float64(rep.Succeeded), calls+float64(rep.Calls)
				xs[k], xc[k] = float64(rep.Succeeded)/float64(rep.Requests), float64(rep.Calls)/float64(rep.Requests)
				failed, denied = failed+rep.Failed, denied+rep.Denied
			}
			// His clients each start with a call (at 10 ms on average, so
			// before the end but with probability e^-1000) and then
			// Poisson arrivals at rate/clients for about 10 s: the
			// requests are clients + Poisson(10 x rate) a replicate, to
			// z = 4.42 (1e-5 two-sided) of the Poisson's sd.
			if want, sd := float64(len(xs))*(float64(clients)+10*tc.rate), math.Sqrt(float64(len(xs))*10*tc.rate); math.Abs(n-want) > 4.42*sd+1 {
				t.Errorf("%s: %g requests in %d replicates; want %g (a first call a client and %g a second) within %.1f", what, n, len(xs), want, tc.rate, 4.42*sd+1)
			}
			if name == "adaptive_10pct" && failed != denied {
				t.Errorf("%s: %d requests failed, %d refused by the bucket; want every failure refused", what, failed, denied)
			}
			if a := map[string]int{"no_retries": 1, "4_tries": 4}[name]; a > 0 {
				ps := 1 - math.Pow(f, float64(a))
				if tol := bernsteinBound(n, ps*(1-ps), 1, alpha); math.Abs(s-n*ps) > tol {
					t.Errorf("%s: %g of %g succeeded; want %.1f within %.1f", what, s, n, n*ps, tol)
				}
				var mean, sq float64 // calls K = min(Geometric(1 - f), A): E K, E K^2
				for k := 1; k <= a; k++ {
					mean += math.Pow(f, float64(k-1))
					sq += float64(2*k-1) * math.Pow(f, float64(k-1))
				}
				if tol := bernsteinBound(n, sq-mean*mean, float64(a-1), alpha); math.Abs(calls-n*mean) > tol {
					t.Errorf("%s: %g calls for %g requests; want %.1f within %.1f", what, calls, n, n*mean, tol)
				}
				continue
			}
			ys, yc := make([]float64, tc.ref), make([]float64, tc.ref)
			for k := range ys {
				tot := brookerReference(r, clients, tc.rate, f, 10, name == "adaptive_10pct")
				ys[k], yc[k] = tot.succeeded/tot.requests, tot.calls/tot.requests
			}
			step := 1 / (n / float64(len(xs)))
			if d, b, ok := welch(xs, ys, step, alpha); !ok {
				t.Errorf("%s: success %.5f, reference %.5f: %+.5f, bound %.5f", what, d+mean(ys), mean(ys), d, b)
			}
			if d, b, ok := welch(xc, yc, step, alpha); !ok {
				t.Errorf("%s: calls a request %.5f, reference %.5f: %+.5f, bound %.5f", what, d+mean(yc), mean(yc), d, b)
			}
		}
	}
}

func mean(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	return m / float64(len(xs))
}

// Event kinds of collapseReference.
const (
	colNew     = iota // a new request
	colArrive         // an attempt reaches the server
	colDone           // the server finishes a call
	colReply          // a reply reaches the client
	colTimeout        // an attempt's timeout
)

// collapseEvent is an event of collapseReference: kind at t, for try try of
// request req.
type collapseEvent struct {
	t              float64
	kind, req, try int
}

type collapseEvents []collapseEvent

func (h collapseEvents) Len() int           { return len(h) }
func (h collapseEvents) Less(i, j int) bool { return h[i].t < h[j].t }
func (h collapseEvents) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *collapseEvents) Push(x any)        { *h = append(*h, x.(collapseEvent)) }
func (h *collapseEvents) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// collapseReference simulates one run of his simple collapse model from his
// code, simple_collapse_sim/sim.py at simulator_example commit bbfe394, not
// from this package: "network_delay = 0.1" each way ("random.expovariate(
// 1.0/network_delay)"), "max_request_t = 3.0", a server taking
// "base_server_time + self.concurrency * server_concurrency_slope" (1.0,
// 0.01, the arriving call counted); a client with "self.retries_left = 3"
// that retries on a timeout of its current try and ignores late replies;
// with backoff, "self.backoff_time = 10.0", doubled before each retry, which
// waits "random.random() * self.backoff_time". The load is his generators':
// a request at t draws the next after an exponential gap at the rate at t,
// "self.base_rate - self.slope * abs(t - self.peak_t)" (80, 1.6, 25) while
// positive, or 40 with 80 for "spike_start" 20 <= t <= 25, from t = 0.01
// until 80 s; each request is followed to its end.
func collapseReference(r *rand.Rand, spike, backoff bool) brookerTotals {
	const net, timeout, base, slope, end = 0.1, 3.0, 1.0, 0.01, 80.0
	rate := func(t float64) float64 {
		if !spike {
			return 80 - 1.6*math.Abs(t-25)
		}
		if t < 20 || t > 25 {
			return 40
		}
		return 80
	}
	type request struct {
		try, left int
		wait      float64
	}
	var (
		reqs []request
		h    collapseEvents
		tot  brookerTotals
		n    int // calls in progress
	)
	send := func(t float64, i int, wait float64) {
		tot.calls++
		heap.Push(&h, collapseEvent{t + timeout + wait, colTimeout, i, reqs[i].try})
		heap.Push(&h, collapseEvent{t + net*r.ExpFloat64() + wait, colArrive, i, reqs[i].try})
	}
	heap.Push(&h, collapseEvent{t: 0.01, kind: colNew})
	for h.Len() > 0 {
		e := heap.Pop(&h).(collapseEvent)
		switch e.kind {
		case colNew:
			reqs = append(reqs, request{left: 3, wait: 10})
			tot.requests++
			send(e.t, len(reqs)-1, 0)
			if l := rate(e.t); l > 0 {
				if next := e.t + r.ExpFloat64()/l; next < end {
					heap.Push(&h, collapseEvent{t: next, kind: colNew})
				}
			}
		case colArrive:
			n++
			heap.Push(&h, collapseEvent{e.t + base + slope*float64(n), colDone, e.req, e.try})
		case colDone:
			n--
			heap.Push(&h, collapseEvent{e.t + net*r.ExpFloat64(), colReply, e.req, e.try})
		case colReply:
			if q := &reqs[e.req]; q.try == e.try {
				tot.succeeded++
				q.try++
			}
		case colTimeout:
			q := &reqs[e.req]
			if q.try != e.try {
				continue
			}
			q.left--
			q.try++
			if q.left > 0 {
				wait := 0.0
				if backoff {
					q.wait *= 2
					wait = r.Float64() * q.wait
				}
				send(e.t, e.req, wait)
			}
		}
	}
	return tot
}

// Every run of brooker-collapse against collapseReference: success and
// calls a request, 30 replicates of each, within Welch's bound at 1e-3 a
// comparison (4 runs x 2 figures: under 0.8% for the family). The bound
// assumes a replicate mean near normal, which spike_no_backoff, a run that
// either recovers or stays collapsed, meets only roughly over 30 replicates.
func TestBrookerCollapseAgainstReference(t *testing.T) {
	const reps, alpha = 30, 1e-3
	cfgs := brookerCollapse.Runs(brookerCollapse.Duration)
	res, err := fleet.Run(context.Background(), cfgs, fleet.Options{Replicates: reps, Seed: 5, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(80, 3))
	for i, name := range []string{"ramp_no_backoff", "ramp_backoff_and_jitter", "spike_no_backoff", "spike_backoff_and_jitter"} {
		if res[i].Config.Name != name {
			t.Fatalf("run %d is %s; want %s", i, res[i].Config.Name, name)
		}
		xs, xc := make([]float64, reps), make([]float64, reps)
		var n float64
		for k, rep := range fleetrun.Fleet().Replicates(res[i]) {
			n += float64(rep.Requests)
			xs[k], xc[k] = float64(rep.Succeeded)/float64(rep.Requests), float64(rep.Calls)/float64(rep.Requests)
		}
		ys, yc := make([]float64, reps), make([]float64, reps)
		for k := range ys {
			tot := collapseReference(r, i >= 2, i%2 == 1)
			ys[k], yc[k] = tot.succeeded/tot.requests, tot.calls/tot.requests
		}
		step := 1 / (n / reps)
		if d, b, ok := welch(xs, ys, step, alpha); !ok {
			t.Errorf("%s: success %.4f, reference %.4f: %+.4f, bound %.4f", name, d+mean(ys), mean(ys), d, b)
		}
		if d, b, ok := welch(xc, yc, step, alpha); !ok {
			t.Errorf("%s: calls a request %.4f, reference %.4f: %+.4f, bound %.4f", name, d+mean(yc), mean(yc), d, b)
		}
	}
}
