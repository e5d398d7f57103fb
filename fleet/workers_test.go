package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/schema"
)

// oneStep is a fleet of count workers whose jobs, rate a second for dur,
// make one step: a call to dep, tried once, never timing out; the queue
// tries a job once, with no visibility expiry, and no network delay.
func oneStep(count int, rate float64, dur time.Duration, dep Server) Workers {
	return Workers{Name: "one-step", Duration: dur, Load: Shape{Kind: ConstantLoad, Rate: rate},
		Queue: tries(1, NoVisibility), WorkerCount: count, QueueMax: limits.FleetQueue,
		Steps:        []WorkerStep{{To: "dep", Client: tries(1, time.Hour)}},
		Dependencies: []Node{{Name: "dep", Server: dep}}}
}

// runWorkers runs w's graph with opt, failing the test on an error.
func runWorkers(t *testing.T, w Workers, opt Options) GraphResult {
	t.Helper()
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	res, err := RunGraph(context.Background(), []Graph{w.Graph()}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res[0]
}

// erlangC is the probability that a call to an M/M/c queue of c servers
// and offered load a = lambda/mu (a < c) waits, from Erlang's C formula:
// (a^c/c! x c/(c-a)) / (sum_{k<c} a^k/k! + a^c/c! x c/(c-a)).
func erlangC(c int, a float64) float64 {
	sum, term := 0.0, 1.0 // term: a^k/k!
	for k := range c {
		sum += term
		term *= a / float64(k+1)
	}
	top := term * float64(c) / (float64(c) - a)
	return top / (sum + top)
}

// Jobs of one step on W workers, the step's time exponential (a dependency
// with a worker for every call and exponential service), wait for a worker
// as an M/M/W queue does: mean wait C(W, a)/(W mu - lambda). The test
// compares the mean of 25 replicates' mean waits with it, within 4.4
// standard errors of that mean (the replicates' spread): a false failure
// about once in 10^5 runs by the central limit theorem, plus the warm-up's
// bias (an empty start, relaxed within tens of seconds of 3600), well
// under the band. The worker's own jobOverhead (1 us on a 1 s mean) moves
// the mean wait by about a millionth.
func TestWorkersErlangC(t *testing.T) {
	const (
		count  = 4
		mean   = 1.0 // the step's mean time, s
		lambda = 3.0 // jobs a second: load 0.75 a worker
		reps   = 25
	)
	dep := Server{Kind: QueueServer, Workers: 100_000, QueueMax: 0, Service: Service{Dist: ExponentialService, Median: time.Second}}
	res := runWorkers(t, oneStep(count, lambda, 3600*time.Second, dep), Options{Replicates: reps, Seed: 7, Workers: 2})
	want := erlangC(count, lambda*mean) / (count/mean - lambda)
	waits := make([]float64, reps)
	var sum float64
	for r, rep := range res.replicates {
		w := &rep.Services[0]
		if w.Entered == 0 {
			t.Fatal("no job entered")
		}
		waits[r] = w.Wait / float64(w.Entered)
		sum += waits[r]
	}
	m := sum / reps
	var ss float64
	for _, x := range waits {
		ss += (x - m) * (x - m)
	}
	se := math.Sqrt(ss / (reps - 1) / reps)
	if math.Abs(m-want) > 4.4*se {
		t.Errorf("mean wait %.4f s +- %.4f; Erlang C gives %.4f s", m, se, want)
	}
}

// Little's law holds for the workers' waiting line (the integral of jobs
// waiting equals the sum of their waits, no stall holding any) and for the
// calls in progress at the workers and at each dependency (the integral of
// calls in progress equals the sum of their sojourns), exactly but for
// rounding: both sides sum the same intervals.
func TestWorkersLittle(t *testing.T) {
	w := oneStep(3, 5, 300*time.Second, Server{Kind: LatencyServer, Base: 300 * time.Millisecond, Slope: 20 * time.Millisecond})
	w.Steps = append(w.Steps, WorkerStep{To: "db", Client: tries(3, 2*time.Second)})
	w.Dependencies = append(w.Dependencies, Node{Name: "db", Server: Server{Kind: QueueServer, Workers: 2, QueueMax: 5,
		Service: Service{Dist: ExponentialService, Median: 100 * time.Millisecond}, PFail: 0.2}})
	res := runWorkers(t, w, Options{Replicates: 3, Seed: 1, Workers: 1})
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for r, rep := range res.replicates {
		if s := rep.Services[0]; s.Wait == 0 || !near(s.Queued, s.Wait) {
			t.Errorf("replicate %d: the workers' queue integral %g, their waits %g (want equal, and some wait)", r, s.Queued, s.Wait)
		}
		for v, s := range rep.Services {
			if s.Entered == 0 || !near(s.Area, s.Sojourn) {
				t.Errorf("replicate %d, %s: area %g, sojourns %g over %d calls", r, res.Graph.Services[v].Name, s.Area, s.Sojourn, s.Entered)
			}
		}
		if db := rep.Services[2]; !near(db.Queued, db.Wait) {
			t.Errorf("replicate %d: db's queue integral %g, its waits %g", r, db.Queued, db.Wait)
		}
	}
}

// A backlog of B jobs, built while the workers are down (a stall from 0 to
// 30 s), drains at the workers' capacity W/D (deterministic steps of D)
// against arrivals lambda in B/(W/D - lambda) seconds. Drain counts whole
// seconds after the outage's end, so it lies in [T, T + 1) for the true
// time T; Poisson arrivals move T by about sqrt(lambda T)/(W/D - lambda),
// 0.02 s here. B is each replicate's peak backlog, reached as the workers
// come back; the peak age is the first job's as they do (the oldest job
// goes first, and the age at the front falls while the backlog drains).
func TestWorkersDrain(t *testing.T) {
	const (
		count  = 10
		step   = 0.01 // D, s: 1000 jobs a second at full speed
		lambda = 100.0
	)
	w := oneStep(count, lambda, 60*time.Second, Server{Kind: IndependentServer, Base: 10 * time.Millisecond})
	w.Down = Outage{From: 0, To: 30 * time.Second, Mode: Stall}
	res := runWorkers(t, w, Options{Replicates: 5, Seed: 3, Workers: 2})
	for r, rep := range res.replicates {
		s := rep.Services[0]
		if s.DrainVerdict != fleetdata.Recovered {
			t.Fatalf("replicate %d: %v", r, s.DrainVerdict)
		}
		b := float64(s.PeakBacklog)
		want := b / (count/step - lambda)
		if s.Drain < want-0.1 || s.Drain >= want+1.1 {
			t.Errorf("replicate %d: a backlog of %g drained in %g s; want %.3f s, to within its second", r, b, s.Drain, want)
		}
		if b < 2700 || b > 3300 { // Poisson(3000), 5.5 sd
			t.Errorf("replicate %d: peak backlog %g; want about 3000", r, b)
		}
		if s.PeakAge < 29.5 || s.PeakAge > 30 {
			t.Errorf("replicate %d: peak age %g s; want 30 s less the first arrival (within 0.5 s but once in e^50)", r, s.PeakAge)
		}
	}
	drained, secs := res.drain(0)
	if drained.Value != 1 || drained.Count() != 5 || secs.N != 5 {
		t.Errorf("drained %v, seconds %v; want all 5", drained, secs)
	}
}

// A visibility timeout shorter than a step's latency delivers every job
// twice: the second delivery runs the step again at the dependency
// (JobDuplicates, which the dependency's per-request Duplicates cannot see:
// each delivery's step is a request of its own), unless the job carries
// the same key on both, when the second delivery meets the first holding
// it and is refused (a conflict at the workers). Deterministic: a 1 s
// visibility, the step 1.5 s, 2 tries with no backoff, no network delay.
func TestWorkersVisibilityDuplicates(t *testing.T) {
	w := oneStep(1000, 20, 30*time.Second, Server{Kind: IndependentServer, Base: 1500 * time.Millisecond})
	w.Queue = tries(2, time.Second)
	for _, keys := range []schema.KeyMode{schema.NoKeys, schema.SameKey} {
		w.Queue.Keys = keys
		rep := runWorkers(t, w, Options{Replicates: 1, Seed: 5}).replicates[0]
		jobs := rep.Edges[0].Requests
		step := rep.Edges[1]
		deliveries, dups, conflicts := 2*jobs, jobs, int64(0)
		if keys == schema.SameKey {
			deliveries, dups, conflicts = jobs, 0, jobs
		}
		if jobs < 400 || step.JobEffects != deliveries || step.JobDuplicates != dups || rep.Services[0].Conflicts != conflicts ||
			rep.Services[1].Duplicates != 0 || rep.Edges[0].Failed != jobs {
			t.Errorf("keys %v: %d jobs, step effects %d, duplicates %d, conflicts %d, dependency's own duplicates %d, dead %d; want %d, %d, %d, 0, %d",
				keys, jobs, step.JobEffects, step.JobDuplicates, rep.Services[0].Conflicts, rep.Services[1].Duplicates, rep.Edges[0].Failed, deliveries, dups, conflicts, jobs)
		}
	}
}

// Poison jobs fail on every try, before any step: with every job poison and
// 3 tries, the workers take 3 deliveries a job and the dependency none;
// with a share p, the jobs that fail are p of them within 4.9 binomial
// standard deviations (false failure about 1 in 10^6).
func TestWorkersPoison(t *testing.T) {
	w := oneStep(50, 20, 60*time.Second, Server{Kind: IndependentServer, Base: 10 * time.Millisecond})
	w.Queue = tries(3, NoVisibility)
	w.Poison = 1
	rep := runWorkers(t, w, Options{Replicates: 1, Seed: 2}).replicates[0]
	jobs := rep.Edges[0].Requests
	if rep.Services[0].Calls != 3*jobs || rep.Services[1].Calls != 0 || rep.Edges[0].Failed != jobs {
		t.Errorf("all poison: %d jobs, %d deliveries, %d steps, %d dead; want %d, 0, %d", jobs, rep.Services[0].Calls, rep.Services[1].Calls, rep.Edges[0].Failed, 3*jobs, jobs)
	}
	w.Poison = 0.3
	rep = runWorkers(t, w, Options{Replicates: 1, Seed: 2}).replicates[0]
	n, dead := float64(rep.Edges[0].Requests), float64(rep.Edges[0].Failed)
	if sd := math.Sqrt(n * 0.3 * 0.7); math.Abs(dead-0.3*n) > 4.9*sd {
		t.Errorf("poison 0.3: %g of %g jobs dead", dead, n)
	}
}

// Retries scheduled: the series' Scheduled integrates the requests waiting
// out a backoff, so over a run whose backoffs all end within its duration
// it sums to the retries sent times the (constant) delay.
func TestWorkersScheduled(t *testing.T) {
	w := oneStep(50, 20, 60*time.Second, Server{Kind: IndependentServer, Base: 10 * time.Millisecond, PFail: 0.5})
	w.Queue = tries(4, NoVisibility)
	w.Queue.Backoff = backoff.Schedule{Kind: backoff.Constant, Base: 2 * time.Second}
	w.Load = Shape{Kind: SpikeLoad, Rate: 20, Peak: 0, From: 40 * time.Second, To: 60 * time.Second} // none after 40 s: every backoff ends in the run
	rep := runWorkers(t, w, Options{Replicates: 1, Seed: 4}).replicates[0]
	var sum float64
	for _, sec := range rep.Services[0].Series {
		sum += sec.Scheduled
	}
	retries := rep.Edges[0].Retries
	if retries < 100 || math.Abs(sum-2*float64(retries)) > 1e-6 {
		t.Errorf("scheduled integral %g; want 2 s x %d retries", sum, retries)
	}
}

// Workers.Check names each setting as Workers spells it.
func TestWorkersCheckPaths(t *testing.T) {
	base := oneStep(4, 10, time.Minute, Server{Kind: IndependentServer, Base: time.Millisecond})
	for _, tc := range []struct {
		name, want string
		edit       func(*Workers)
	}{
		{"no step", "steps", func(w *Workers) { w.Steps = nil }},
		{"poison", "poison", func(w *Workers) { w.Poison = 1.5 }},
		{"workers", "worker_count", func(w *Workers) { w.WorkerCount = 0 }},
		{"queue max", "queue_max", func(w *Workers) { w.QueueMax = -1 }},
		{"tries", "queue.attempts", func(w *Workers) { w.Queue.Attempts = -1 }},
		{"visibility", "queue.timeout", func(w *Workers) { w.Queue.Timeout = -time.Second }},
		{"rate", "load.rate", func(w *Workers) { w.Load.Rate = -1 }},
		{"step to", "steps[0].to", func(w *Workers) { w.Steps[0].To = "nope" }},
		{"step attempts", "steps[0].client.attempts", func(w *Workers) { w.Steps[0].Client.Attempts = -1 }},
		{"dependency", "dependencies[dep].server.p_fail", func(w *Workers) { w.Dependencies[0].Server.PFail = 2 }},
		{"dependency name", "dependencies[0].name", func(w *Workers) { w.Dependencies[0].Name = fleetdata.WorkersService }},
		{"down", "down.to", func(w *Workers) { w.Down = Outage{From: time.Second, To: 2 * limits.FleetSeconds * time.Second} }},
		{"store mode", "store", func(w *Workers) { w.Store.Mode = 9 }},
		{"ttl", "ttl", func(w *Workers) { w.Store.TTL = -time.Second }},
		{"lease", "lease", func(w *Workers) { w.Store = KeyStore{Mode: delivery.Lease} }},
		{"crash p", "crash", func(w *Workers) { w.Crash.P = 1.5 }},
		{"crash at", "crash_at", func(w *Workers) { w.Crash = Crashes{P: 0.1, At: 4} }},
		{"crash max", "max_crashes", func(w *Workers) { w.Crash = Crashes{P: 0.1, Max: limits.DeliveryCrashes + 1} }},
	} {
		w := base
		w.Steps = append([]WorkerStep(nil), base.Steps...)
		w.Dependencies = append([]Node(nil), base.Dependencies...)
		tc.edit(&w)
		var fe *schema.FieldError
		if err := w.Check(); !errors.As(err, &fe) || fe.Field != tc.want {
			t.Errorf("%s: %v; want a schema.FieldError at %s", tc.name, err, tc.want)
		}
	}
}

// RedeliverAtTimeout: a try that fails at once is tried again when its
// timeout would have passed, not at once: with every try failing at once
// (no network, a 1 ms step failing always), a 30 s visibility and 3 tries,
// each job's retries wait 30 s each, so the series' Scheduled sums to the
// retries x 30 s less the 1 ms and jobOverhead each try took.
func TestWorkersRedeliverAtTimeout(t *testing.T) {
	w := oneStep(50, 2, 90*time.Second, Server{Kind: IndependentServer, Base: time.Millisecond, PFail: 1})
	w.Queue = tries(3, 30*time.Second)
	w.Load = Shape{Kind: SpikeLoad, Rate: 2, Peak: 0, From: 5 * time.Second, To: 90 * time.Second} // every retry within the run
	g := w.Graph()
	g.Entries[0].RedeliverAtTimeout = true
	res, err := RunGraph(context.Background(), []Graph{g}, Options{Replicates: 1, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	rep := res[0].replicates[0]
	var sum float64
	for _, sec := range rep.Services[0].Series {
		sum += sec.Scheduled
	}
	retries := rep.Edges[0].Retries
	if want := float64(retries) * (30 - 0.001 - jobOverhead.Seconds()); retries < 10 || retries != 2*rep.Edges[0].Requests || math.Abs(sum-want) > 1e-6 {
		t.Errorf("%d jobs, %d retries, scheduled integral %g; want 2 a job, %g", rep.Edges[0].Requests, retries, sum, want)
	}
}

// queuedJobBytes is what Workers' doc says a job waiting for a worker
// costs.
const queuedJobBytes = 104

// A job waiting for a worker holds its request slot with its books (the job
// it serves, its serial and one word of edges seen, for a graph of up to 64
// edges), its place in the workers' queue and its visibility timeout's
// event, as Workers' doc says; a store adds a record a step.
func TestWorkersQueuedJobBytes(t *testing.T) {
	slot := unsafe.Sizeof(request{}) + 4 + 4 + 8 // up, serial, seen
	if got := slot + unsafe.Sizeof(waiter{}) + unsafe.Sizeof(event{}); got != queuedJobBytes {
		t.Errorf("a queued job holds %d bytes; Workers' doc says %d", got, queuedJobBytes)
	}
	if got := unsafe.Sizeof(keyRecord{}); got != storedStepBytes {
		t.Errorf("a step's record in a job's store holds %d bytes; Workers' doc says %d", got, storedStepBytes)
	}
	if got := unsafe.Sizeof(jobBook{}); got != 4 {
		t.Errorf("a slot's books under a store hold %d bytes; Workers' doc says 4", got)
	}
}

// storedStepBytes is what Workers' doc says a step's key record costs a
// job with a Store.
const storedStepBytes = 24

// With workers for every job, no visibility expiry and load-independent
// dependencies, a job's outcomes are the job model's closed forms. A
// delivery runs steps i = 1..3 in order, step i failing each try with
// probability f_i and tried a_i times, so it passes step i with probability
// p_i = 1 - f_i^a_i, reaches it with r_i = p_1...p_(i-1), and succeeds with
// s = p_1 p_2 p_3; the queue delivers a job up to A times until one
// succeeds. So a job completes with probability 1 - (1-s)^A, takes
// E[D] = (1 - (1-s)^A)/s deliveries, calls dependency i E[D] r_i
// (1 - f_i^a_i)/(1 - f_i) times, and does step i's effect again (a
// duplicate across deliveries) E[D] r_(i+1) - (1 - (1 - r_(i+1))^A) times:
// its effects, one a delivery that passes the step, less one unless every
// delivery failed at or before it. Each mean over n jobs is held within 5
// of its standard errors, each bounded by Popoviciu's inequality (a per-job
// count within [0, m] has a standard deviation at most m/2): a false
// failure below one in a million.
func TestWorkersJobModelClosedForms(t *testing.T) {
	f := []float64{0.3, 0.2, 0.4}
	a := []int{2, 1, 2}
	const deliveries = 3
	w := Workers{Name: "closed", Duration: 600 * time.Second, Load: Shape{Kind: ConstantLoad, Rate: 20},
		Queue: tries(deliveries, NoVisibility), WorkerCount: 100_000, QueueMax: limits.FleetQueue}
	for i := range f {
		name := "d" + string(rune('1'+i))
		w.Steps = append(w.Steps, WorkerStep{To: name, Client: tries(a[i], time.Hour)})
		w.Dependencies = append(w.Dependencies, Node{Name: name, Server: Server{Kind: IndependentServer, Base: time.Millisecond, PFail: f[i]}})
	}
	rep := runWorkers(t, w, Options{Replicates: 1, Seed: 11}).replicates[0]
	n := float64(rep.Edges[0].Requests)
	pass := func(i int) float64 { return 1 - math.Pow(f[i], float64(a[i])) }
	reach := []float64{1, pass(0), pass(0) * pass(1), pass(0) * pass(1) * pass(2)}
	s := reach[3]
	ed := (1 - math.Pow(1-s, deliveries)) / s
	check := func(what string, got, want, most float64) {
		t.Helper()
		if se := most / 2 / math.Sqrt(n); math.Abs(got/n-want) > 5*se {
			t.Errorf("%s: %.4f a job; the closed form says %.4f (5 standard errors: %.4f)", what, got/n, want, 5*se)
		}
	}
	check("completed", float64(rep.Edges[0].Succeeded), 1-math.Pow(1-s, deliveries), 1)
	check("deliveries", float64(rep.Services[0].Calls), ed, deliveries)
	for i := range f {
		calls := ed * reach[i] * (1 - math.Pow(f[i], float64(a[i]))) / (1 - f[i])
		check(w.Steps[i].To+" calls", float64(rep.Services[1+i].Calls), calls, float64(deliveries*a[i]))
		dups := ed*reach[i+1] - (1 - math.Pow(1-reach[i+1], deliveries))
		check(w.Steps[i].To+" duplicates", float64(rep.Edges[1+i].JobDuplicates), dups, deliveries-1)
	}
}

// Heartbeats: with the visibility timeout (1 s) shorter than the step
// (1.5 s), a worker that extends its lease while it holds the job keeps the
// job from reappearing: one delivery a job, no duplicate, no conflict, every
// job completed, none of its replies late; without heartbeats every job is
// delivered twice (TestWorkersVisibilityDuplicates). A job waiting in the
// queue for a worker is not leased: with one worker and 5 jobs a second,
// jobs time out while they wait.
func TestWorkersHeartbeat(t *testing.T) {
	w := oneStep(1000, 20, 30*time.Second, Server{Kind: IndependentServer, Base: 1500 * time.Millisecond})
	w.Queue = tries(2, time.Second)
	w.Heartbeat = true
	rep := runWorkers(t, w, Options{Replicates: 1, Seed: 5}).replicates[0]
	jobs := rep.Edges[0].Requests
	if jobs < 400 || rep.Services[0].Calls != jobs || rep.Edges[1].JobEffects != jobs || rep.Edges[1].JobDuplicates != 0 ||
		rep.Edges[0].Succeeded != jobs || rep.Edges[0].Late != 0 || rep.Edges[0].Timeouts != 0 {
		t.Errorf("%d jobs: %d deliveries, %d step effects, %d duplicates, %d completed, %d late, %d timeouts; want %d, %d, 0, %d, 0, 0",
			jobs, rep.Services[0].Calls, rep.Edges[1].JobEffects, rep.Edges[1].JobDuplicates, rep.Edges[0].Succeeded, rep.Edges[0].Late,
			rep.Edges[0].Timeouts, jobs, jobs, jobs)
	}
	w.WorkerCount, w.Load.Rate = 1, 5
	rep = runWorkers(t, w, Options{Replicates: 1, Seed: 5}).replicates[0]
	if rep.Edges[0].Timeouts == 0 {
		t.Error("one worker for 5 jobs a second of 1.5 s: no job timed out while it waited")
	}
}

// SQS's visibility timeout runs from a receive, worked by hand: one
// worker, three jobs arriving at 0, 1 and 2 s, each a step of 10 s, a 15 s
// visibility timeout, 2 receives, a receive reappearing when its timeout
// runs out, no network delay. From the receive (TimeoutAtReceive), the
// worker takes the jobs at 0, 10 and 20 s and each is done 10 s later,
// well within its 15 s: 3 completed, 3 deliveries, nothing late. From the
// send, B (sent at 1, due at 16, taken at 10, done at 20) and C (sent at
// 2, due at 17, still waiting) reappear at 16 and 17 while B's first
// receive runs and C's waits; the worker then does C's first (20 to 30,
// late), B's second (30 to 40, due at 31: B dead, its step done twice)
// and C's second (40 to 50, due at 32: C dead, done twice): 1 completed,
// 2 dead, 5 deliveries, 2 duplicates, 4 late.
func TestWorkersTimeoutAtReceive(t *testing.T) {
	for _, c := range []struct {
		atReceive bool
		want      []int64
	}{
		{true, []int64{3, 0, 3, 0, 0}},
		{false, []int64{1, 2, 5, 2, 4}},
	} {
		w := oneStep(1, 1e-9, time.Minute, Server{Kind: IndependentServer, Base: 10 * time.Second})
		w.Queue, w.RedeliverAtTimeout, w.TimeoutAtReceive = tries(2, 15*time.Second), true, c.atReceive
		g := w.Graph()
		rep := traceGraph(t, g, 0, 1, 2)
		q := &rep.Edges[0]
		if got := []int64{q.Succeeded, q.Failed, rep.Services[0].Calls, rep.Edges[1].JobDuplicates, q.Late}; fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("timeout at receive %v: completed, dead, deliveries, duplicates, late %v; want %v", c.atReceive, got, c.want)
		}
	}
}

// A timeout from a worker's receive needs a worker to receive: an entry to
// a service that is not a queue server, or a client sending hedges (whose
// timeouts run from their sends), is refused naming the setting.
func TestTimeoutAtReceiveRefused(t *testing.T) {
	w := oneStep(4, 1, time.Minute, Server{Kind: IndependentServer, Base: time.Millisecond})
	w.TimeoutAtReceive = true
	g := w.Graph()
	g.Services[0].Server = Server{Kind: IndependentServer, Base: time.Millisecond}
	hedged := w
	hedged.Queue.Hedges, hedged.Queue.HedgeDelay = 1, time.Second
	for _, c := range []struct {
		err  error
		want string
	}{
		{g.Check(), `entries[0].timeout_at_receive: service "workers" is not a queue server`},
		{hedged.Check(), "timeout_at_receive: the client sends hedges"},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), c.want) {
			t.Errorf("%v; want %s...", c.err, c.want)
		}
	}
}

// A job the workers take and fail at once (their outage in fail mode)
// was received: under TimeoutAtReceive its visibility timeout runs from
// then, so with 3 receives 30 s apart a job arriving at 10 s, the workers
// failing every job until 100 s, is dead-lettered at 70 s (received at
// 10, 40 and 70), not at once.
func TestWorkersTimeoutAtReceiveFailing(t *testing.T) {
	w := oneStep(4, 1e-9, 2*time.Minute, Server{Kind: IndependentServer, Base: time.Millisecond})
	w.Queue, w.RedeliverAtTimeout, w.TimeoutAtReceive = tries(3, 30*time.Second), true, true
	w.Down = Outage{From: 0, To: 100 * time.Second, Mode: Fail}
	rep := traceGraph(t, w.Graph(), 10)
	series := rep.Services[0].Series
	if rep.Edges[0].Failed != 1 || rep.Services[0].Calls != 3 || series[70].Failures != 1 {
		t.Errorf("dead %d, deliveries %d, dead-lettered at 70 s %d; want 1, 3, 1", rep.Edges[0].Failed, rep.Services[0].Calls, series[70].Failures)
	}
}

// Jobs still queued when arrivals stop, worked by hand: one worker, jobs
// of one 10 s step arriving at 0, 1, 2 and 3 s of a 5 s run: at 5 s the
// first is on the worker and 3 wait. With every try failing at once
// (1 ms) and the queue's retry 100 s later, jobs arriving at 0 and 1 s
// both wait out the retry at 5 s: 2 scheduled, none waiting.
func TestWorkersQueuedAtEnd(t *testing.T) {
	w := oneStep(1, 1e-9, 5*time.Second, Server{Kind: IndependentServer, Base: 10 * time.Second})
	rep := traceGraph(t, w.Graph(), 0, 1, 2, 3)
	if s := rep.Services[0]; s.WaitingAtEnd != 3 || s.ScheduledAtEnd != 0 {
		t.Errorf("waiting %d, scheduled %d at the end; want 3, 0", s.WaitingAtEnd, s.ScheduledAtEnd)
	}
	w = oneStep(1, 1e-9, 5*time.Second, Server{Kind: IndependentServer, Base: time.Millisecond, PFail: 1})
	w.Queue = tries(2, time.Hour)
	w.Queue.Backoff = backoff.Schedule{Kind: backoff.Constant, Base: 100 * time.Second}
	rep = traceGraph(t, w.Graph(), 0, 1)
	if s := rep.Services[0]; s.WaitingAtEnd != 0 || s.ScheduledAtEnd != 2 {
		t.Errorf("waiting %d, scheduled %d at the end; want 0, 2", s.WaitingAtEnd, s.ScheduledAtEnd)
	}
	// A job whose try timed out in the queue waits out its retry, and its
	// stale try, still queued, is not a second job: one worker on a 10 s
	// step, tries timing out after 2 s, a retry 100 s later; at 5 s both
	// jobs wait out their retry, the second's first try still queued.
	w = oneStep(1, 1e-9, 5*time.Second, Server{Kind: IndependentServer, Base: 10 * time.Second})
	w.Queue = tries(2, 2*time.Second)
	w.Queue.Backoff = backoff.Schedule{Kind: backoff.Constant, Base: 100 * time.Second}
	rep = traceGraph(t, w.Graph(), 0, 1)
	if s := rep.Services[0]; s.WaitingAtEnd != 0 || s.ScheduledAtEnd != 2 {
		t.Errorf("stale try queued: waiting %d, scheduled %d at the end; want 0, 2", s.WaitingAtEnd, s.ScheduledAtEnd)
	}
}

// A heartbeat extends the lease of the copy a worker holds, not of any copy
// of the job: a job whose first copy fails while its hedge, taken by a
// second worker, still runs keeps the hedge's lease. Two workers, a job at
// 0 s of two steps (1 s, then 10 s), a 3 s visibility timeout, a hedge
// 0.5 s after the first copy; the second step's dependency fails every
// call from 0.9 to 1.2 s. The first copy reaches it at 1 s and fails; the
// hedge, taken at 0.5 s, reaches it at 1.5 s and is done at 11.5 s, its
// timeout (3.5 s, then every 3 s) put off while it runs: 2 deliveries, the
// job completed, the first step done by both copies (the hedge's own
// duplicate), the second once. Before, the first copy's leaving cleared
// the hedge's lease: at 3.5 s the job was delivered again, and again (4
// deliveries, 3 and 2 duplicates, the job dead).
func TestWorkersHeartbeatOfItsCopy(t *testing.T) {
	w := Workers{Name: "beat", Duration: 30 * time.Second, Load: Shape{Kind: ConstantLoad, Rate: 1e-9},
		Queue: tries(2, 3*time.Second), EntrySettings: EntrySettings{Heartbeat: true}, WorkerCount: 2, QueueMax: limits.FleetQueue,
		Steps: []WorkerStep{{To: "a", Client: tries(1, time.Hour)}, {To: "b", Client: tries(1, time.Hour)}},
		Dependencies: []Node{{Name: "a", Server: Server{Kind: IndependentServer, Base: time.Second}},
			{Name: "b", Server: Server{Kind: IndependentServer, Base: 10 * time.Second},
				Outage: Outage{From: 900 * time.Millisecond, To: 1200 * time.Millisecond, Mode: Fail}}}}
	w.Queue.Hedges, w.Queue.HedgeDelay = 1, 500*time.Millisecond
	rep := traceGraph(t, w.Graph(), 0)
	q := &rep.Edges[0]
	if got := []int64{rep.Services[0].Calls, q.Succeeded, rep.Edges[1].JobDuplicates, rep.Edges[2].JobDuplicates}; fmt.Sprint(got) != "[2 1 1 0]" {
		t.Errorf("deliveries, completed, step duplicates %v; want [2 1 1 0]", got)
	}
}

// The series' redeliveries are the tries after a job's first: over a run
// whose tries all go out within its duration (no arrivals in its last
// 20 s), the per-second redeliveries summed over the run are the row's
// deliveries less its jobs (each delivered once at its arrival), exactly
// (two replicates: every mean is a whole number of halves). Two ways to a
// second try: a dependency failing 30% of steps, 4 tries 2 s apart; a
// step of 1.5 s outlasting a 1 s visibility timeout, 2 tries (every job
// delivered twice).
func TestWorkersRedeliveries(t *testing.T) {
	failing := oneStep(50, 20, 60*time.Second, Server{Kind: IndependentServer, Base: 10 * time.Millisecond, PFail: 0.3})
	failing.Queue = tries(4, NoVisibility)
	failing.Queue.Backoff = backoff.Schedule{Kind: backoff.Constant, Base: 2 * time.Second}
	slow := oneStep(1000, 20, 60*time.Second, Server{Kind: IndependentServer, Base: 1500 * time.Millisecond})
	slow.Queue = tries(2, time.Second)
	for _, c := range []struct {
		name string
		w    Workers
	}{{"failing step", failing}, {"visibility timeout", slow}} {
		t.Run(c.name, func(t *testing.T) {
			c.w.Load = Shape{Kind: SpikeLoad, Rate: 20, Peak: 0, From: 40 * time.Second, To: 60 * time.Second}
			res := runWorkers(t, c.w, Options{Replicates: 2, Seed: 6, Workers: 2})
			row := res.workersRows()[0]
			sum := 0.0
			for _, p := range res.workersSeries() {
				sum += p.Redeliveries
			}
			if want := row.Deliveries.Value - row.Jobs.Value; sum != want || sum < 100 {
				t.Errorf("redeliveries summed over the run %g; want deliveries %g less jobs %g = %g (at least 100)",
					sum, row.Deliveries.Value, row.Jobs.Value, want)
			}
		})
	}
}
