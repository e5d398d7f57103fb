package fleet

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/queue"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// storeCase is a store and crash setting the worker and delivery models
// are compared under.
type storeCase struct {
	store      delivery.Store
	ttl, lease time.Duration
	at         delivery.CrashPoint
	maxCrashes int
}

func (c storeCase) String() string {
	s := fmt.Sprintf("%s/%s", c.store, c.at)
	if c.ttl > 0 {
		s += fmt.Sprintf("/ttl=%s", c.ttl)
	}
	if c.maxCrashes > 0 {
		s += fmt.Sprintf("/max=%d", c.maxCrashes)
	}
	return s
}

// The comparison's job: two steps that never fail, taking 2 s and 3 s,
// under a visibility timeout of 10 s (a delivery that does not crash ends
// in 5 s, so deliveries overlap only through crashes and leases), 4
// deliveries at most, workers crashing with probability 0.3 at a crash
// point, and leases of 12 s (a delivery finds a dead holder's lease held
// once, then takes it over).
const (
	storeCrashP     = 0.3
	storeDeliveries = 4
	storeVisibility = 10 * time.Second
	storeLease      = 12 * time.Second
)

var storeSteps = []time.Duration{2 * time.Second, 3 * time.Second}

// storeCases are every store under a crash at every point, and the TTL
// and crash bound at work.
func storeCases() []storeCase {
	var cs []storeCase
	for _, st := range []delivery.Store{delivery.NoStore, delivery.After, delivery.Loose, delivery.Claim, delivery.Lease} {
		for _, at := range []delivery.CrashPoint{delivery.BeforeKey, delivery.AfterKey, delivery.AfterWork, delivery.BeforeAck} {
			cs = append(cs, storeCase{store: st, lease: storeLease, at: at})
		}
	}
	return append(cs,
		storeCase{store: delivery.Claim, ttl: 8 * time.Second, lease: storeLease, at: delivery.AfterKey},
		storeCase{store: delivery.After, ttl: 8 * time.Second, lease: storeLease, at: delivery.BeforeAck},
		storeCase{store: delivery.After, lease: storeLease, at: delivery.AfterWork, maxCrashes: 1})
}

// jobOutcomes are per-job outcomes, one slice a figure: failed (0 or 1),
// deliveries, lost (0 or 1: a job that did not fail with a step's work
// lost), and each step's duplicate effects.
type jobOutcomes [][]float64

var outcomeNames = []string{"failed", "deliveries", "lost", "step 0 duplicates", "step 1 duplicates"}

// deliveryReference runs n jobs of the comparison's job through the
// delivery model under c, retrying nothing in the worker (a step's call
// never fails): the reference the issue names.
func deliveryReference(c storeCase, n int) jobOutcomes {
	sc := provider.Scenario{Name: "two", Watched: []provider.Watch{{Step: 0}, {Step: 1}}}
	for i, d := range storeSteps {
		sc.Steps = append(sc.Steps, provider.Step{Name: fmt.Sprint("s", i), Latency: provider.Latency{Median: d}})
	}
	cfg := delivery.Defaults()
	cfg.Store, cfg.TTL, cfg.Lease, cfg.Visibility, cfg.MaxDeliveries = c.store, c.ttl, c.lease, storeVisibility, storeDeliveries
	cfg.CrashP, cfg.CrashAt, cfg.MaxCrashes = storeCrashP, c.at, c.maxCrashes
	if err := cfg.Check(); err != nil {
		panic(err)
	}
	stream := rng.NewStream(rng.PCGGenerator().New(99, 0))
	j := jobsim.New(sc, stream)
	x := queue.NewRunner(cfg, strategy.Retry{Scope: strategy.EachStep, Attempts: 1}, sc, j, stream, rng.NewStream(rng.PCGGenerator().New(99, 1)))
	defer x.Close()
	out := make(jobOutcomes, len(outcomeNames))
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	for range n {
		o := x.Run()
		out[0] = append(out[0], b(o.Failed))
		out[1] = append(out[1], float64(o.Deliveries))
		out[2] = append(out[2], b(o.Lost && !o.Failed)) // as the delivery model's rows count lost work
		for i := range storeSteps {
			out[3+i] = append(out[3+i], math.Max(0, float64(j.Done(i))-1))
		}
	}
	return out
}

// storeFleet is the comparison's job as a worker fleet under c: jobs
// arriving 20 a second for 1000 s on workers enough for all, no network
// delay, each step a call to a dependency that takes its time whatever the
// load and never fails; the queue SQS-like (a job reappears when its
// visibility timeout, from its receive, runs out; 4 receives).
func storeFleet(c storeCase) Workers {
	w := Workers{Name: c.String(), Duration: 1000 * time.Second, Load: Shape{Kind: Constant, Rate: 20},
		Queue: tries(storeDeliveries, storeVisibility), WorkerCount: 100_000, QueueMax: limits.FleetQueue,
		EntrySettings: EntrySettings{RedeliverAtTimeout: true, TimeoutAtReceive: true,
			Store: KeyStore{Mode: c.store, TTL: c.ttl, Lease: c.lease}, Crash: Crashes{P: storeCrashP, At: c.at, Max: c.maxCrashes}}}
	for i, d := range storeSteps {
		name := fmt.Sprint("s", i)
		w.Steps = append(w.Steps, Step{To: name, Client: tries(1, time.Hour)})
		w.Dependencies = append(w.Dependencies, Node{Name: name, Server: Server{Kind: Independent, Base: d}})
	}
	return w
}

// meanVar is xs's mean and variance.
func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs)-1)
}

// With a store and crashes, a worker fleet's jobs do as the delivery
// model's do: each job's share failed (dead-lettered), deliveries, share
// with lost work and duplicate effects at each step agree with the
// delivery model's, run for the same job under the same store, crash
// point, TTL and crash bound, for every store and crash point. Jobs are
// independent in the fleet (workers for all, dependencies whose time does
// not grow with load), so the fleet's totals over its n jobs are sums of n
// independent copies of a job's outcome; each difference of means is held
// within 5.3 standard errors (a two-sided 1e-7 each, about 1e-5 over the
// 115 comparisons: the test's false-failure rate), the per-job variance
// taken from the delivery model's 20,000 jobs. A figure the reference
// gives no spread (deterministic, such as no lost work without a claim)
// must agree exactly.
func TestWorkersStoreMatchesDelivery(t *testing.T) {
	const n = 20_000
	for _, c := range storeCases() {
		t.Run(c.String(), func(t *testing.T) {
			ref := deliveryReference(c, n)
			rep := runWorkers(t, storeFleet(c), Options{Replicates: 1, Seed: 3}).replicates[0]
			q := &rep.Edges[0]
			jobs := float64(q.Requests)
			got := []float64{float64(q.Failed), float64(rep.Services[0].Calls), float64(q.Lost),
				float64(rep.Edges[1].JobDuplicates), float64(rep.Edges[2].JobDuplicates)}
			for k, name := range outcomeNames {
				m, v := meanVar(ref[k])
				g := got[k] / jobs
				if v == 0 {
					if g != m {
						t.Errorf("%s: %.4f a job in the worker fleet, %.4f in every job of the delivery model", name, g, m)
					}
					continue
				}
				se := math.Sqrt(v/n + v/jobs)
				if z := (g - m) / se; math.Abs(z) > 5.3 {
					t.Errorf("%s: %.4f a job in the worker fleet, %.4f in the delivery model (z = %.1f)", name, g, m, z)
				}
			}
		})
	}
}

// Two deliveries of one job race on its store, worked by hand: a job of
// one step, a call taking 50 s, under SQS's 30 s visibility timeout (a
// receive reappears when it runs out) and 3 receives, no network delay.
// Every job runs the same timeline, so each count is the jobs times:
//
//   - no store: receives at 0, 30 and 60 s each call (work done at 50, 80
//     and 110 s: two duplicates); each reply comes after its receive's
//     timeout (late, 3), and the third timeout, at 90 s, dead-letters the
//     job whose work was done three times;
//   - claim: the second receive, at 30 s, finds the key and acks: the job
//     completes at 30 s, 20 s before its work is done; one effect;
//   - lease of 40 s: the second receive finds the lease held (held, 1) and
//     leaves the job; the first's work commits at 50 s; the third receive,
//     at 60 s, finds it done and acks: 3 receives, one effect;
//   - lease of 20 s: the second receive takes the lapsed lease over at 30
//     s, the third takes it from the second at 60 s; the first's and
//     second's work, at 50 and 80 s, roll back (2), the third's commits at
//     110 s, after its receive's timeout dead-lettered the job at 90 s.
func TestWorkersStoreRace(t *testing.T) {
	for _, c := range []struct {
		name                                                   string
		store                                                  KeyStore
		completed, dead, effects, dups, late, held, rolledBack int64
	}{
		{"none", KeyStore{}, 0, 1, 3, 2, 3, 0, 0},
		{"claim", KeyStore{Mode: delivery.Claim}, 1, 0, 1, 0, 1, 0, 0},
		{"lease 40s", KeyStore{Mode: delivery.Lease, Lease: 40 * time.Second}, 1, 0, 1, 0, 1, 1, 0},
		{"lease 20s", KeyStore{Mode: delivery.Lease, Lease: 20 * time.Second}, 0, 1, 1, 0, 1, 0, 2},
	} {
		w := oneStep(100_000, 1, 100*time.Second, Server{Kind: Independent, Base: 50 * time.Second})
		w.Queue, w.RedeliverAtTimeout, w.Store = tries(3, 30*time.Second), true, c.store
		rep := runWorkers(t, w, Options{Replicates: 1, Seed: 2}).replicates[0]
		q, st := &rep.Edges[0], &rep.Edges[1]
		n := q.Requests
		deliveries := int64(3)
		if c.name == "claim" {
			deliveries = 2
		}
		got := []int64{q.Succeeded, q.Failed, rep.Services[0].Calls, st.JobEffects, st.JobDuplicates, q.Late, q.Held, q.RolledBack, q.Lost}
		want := []int64{c.completed * n, c.dead * n, deliveries * n, c.effects * n, c.dups * n, c.late * n, c.held * n, c.rolledBack * n, 0}
		if n < 50 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s, %d jobs: completed, dead, deliveries, effects, duplicates, late, held, rolled back, lost %v; want %v", c.name, n, got, want)
		}
	}
}

// A store or crashes guard the steps of the workers an entry sends to: an
// entry to a service with no calls, or with its calls in parallel, is
// refused, naming the entry's store or crash setting.
func TestGraphGuardNeedsSteps(t *testing.T) {
	leaf := Graph{Name: "leaf", Duration: time.Minute, Services: []Node{{Name: "db", Server: indep(time.Millisecond, 0)}},
		Entries: []Entry{{To: "db", Load: Shape{Kind: Constant, Rate: 1}, Client: tries(1, time.Second), EntrySettings: EntrySettings{Store: KeyStore{Mode: delivery.Claim}}}}}
	fan := storeFleet(storeCase{store: delivery.NoStore, at: delivery.AfterWork}).Graph()
	fan.Services[0].Parallel = true
	for _, c := range []struct {
		g    Graph
		want string
	}{
		{leaf, `entries[0].store: service "db" makes no calls`},
		{fan, `entries[0].crash: service "workers" makes its calls in parallel`},
	} {
		if err := c.g.Check(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v; want %s...", c.g.Name, err, c.want)
		}
	}
}

// Under Lease a step's work commits only with its done status, once: a
// job never loses a step's work and never does it twice, however its
// steps' calls time out and retry. Two steps, each tried 3 times with a
// 300 ms timeout at a dependency of exponential service (mean 200 ms), so
// first tries often time out and finish after their retry; the late work
// of a call the job has moved past, or of a try after the step's work
// committed, rolls back. Found by a review: the late work of step 0's
// first try committed step 1's lease, and step 1's work was lost.
func TestWorkersLeaseCommitsOnce(t *testing.T) {
	w := Workers{Name: "lease", Duration: 200 * time.Second, Load: Shape{Kind: Constant, Rate: 20},
		Queue: tries(4, 10*time.Second), WorkerCount: 1000, QueueMax: limits.FleetQueue,
		EntrySettings: EntrySettings{RedeliverAtTimeout: true, TimeoutAtReceive: true, Store: KeyStore{Mode: delivery.Lease, Lease: 5 * time.Second}}}
	for _, name := range []string{"s0", "s1"} {
		w.Steps = append(w.Steps, Step{To: name, Client: tries(3, 300*time.Millisecond)})
		w.Dependencies = append(w.Dependencies, Node{Name: name, Server: Server{Kind: Queue, Workers: 50, QueueMax: limits.FleetQueue,
			Service: Service{Dist: Exponential, Median: 200 * time.Millisecond}}})
	}
	for seed := uint64(1); seed <= 3; seed++ {
		rep := runWorkers(t, w, Options{Replicates: 1, Seed: seed}).replicates[0]
		q := &rep.Edges[0]
		if q.Lost != 0 || rep.Edges[1].JobDuplicates != 0 || rep.Edges[2].JobDuplicates != 0 || q.RolledBack < 100 {
			t.Errorf("seed %d, %d jobs: %d lost, %d and %d duplicates, %d rolled back; want 0, 0, 0, and many rolled back",
				seed, q.Requests, q.Lost, rep.Edges[1].JobDuplicates, rep.Edges[2].JobDuplicates, q.RolledBack)
		}
	}
}

// Work that outlives its job is seen before lost work is counted: under
// claim, a step of 40 s whose call times out at 1 s fails the first
// delivery, and the second, at once, finds the key and completes; the
// first's call goes on and does the work at 40 s. The job is not counted
// as lost: its work was done, once.
func TestWorkersLateWorkNotLost(t *testing.T) {
	w := oneStep(4, 1e-9, time.Minute, Server{Kind: Independent, Base: 40 * time.Second})
	w.Steps[0].Client = tries(1, time.Second)
	w.Queue, w.Store = tries(3, 30*time.Second), KeyStore{Mode: delivery.Claim}
	rep := traceGraph(t, w.Graph(), 0)
	if q := rep.Edges[0]; q.Succeeded != 1 || q.Lost != 0 || rep.Edges[1].JobEffects != 1 {
		t.Errorf("completed %d, lost %d, step effects %d; want 1, 0, 1", q.Succeeded, q.Lost, rep.Edges[1].JobEffects)
	}
}

// The crash point between a step's key and its call is passed before each
// try of the call, as the delivery model passes it before each call of a
// step it retries. One step, tried up to 3 times, each try failing with
// probability f = 0.5; a worker dies at the point with probability c =
// 0.2; the queue redelivers a dead or failed delivery (up to 100). A
// delivery succeeds with probability p = (1-c)(1-f)(1 + q + q^2), q =
// (1-c)f, and dies with probability c(1 + q + q^2): a job takes 1/p =
// 1.6026 deliveries (1/0.7 = 1.4286 if the point were passed once a step),
// dies 0.3120/p = 0.5 times, and calls the dependency 1/(1-f) = 2 times.
// Each mean over about 10,000 jobs within 5 standard errors (a
// deliveries' count is geometric, variance (1-p)/p^2; the others' variance
// bounded by E[D^2]).
func TestWorkersCrashBeforeEachTry(t *testing.T) {
	const c, f = 0.2, 0.5
	w := oneStep(100_000, 20, 500*time.Second, Server{Kind: Independent, Base: 10 * time.Millisecond, PFail: f})
	w.Steps[0].Client = tries(3, time.Hour)
	w.Queue, w.RedeliverAtTimeout = tries(100, time.Second), true
	w.Crash = Crashes{P: c, At: delivery.AfterKey}
	rep := runWorkers(t, w, Options{Replicates: 1, Seed: 8}).replicates[0]
	n := float64(rep.Edges[0].Requests)
	q := (1 - c) * f
	p := (1 - c) * (1 - f) * (1 + q + q*q)
	d2 := (1-p)/(p*p) + 1/(p*p) // E[D^2]
	for _, m := range []struct {
		what            string
		got, want, vari float64
	}{
		{"deliveries", float64(rep.Services[0].Calls), 1 / p, (1 - p) / (p * p)},
		{"crashes", float64(rep.Edges[0].Crashes), c * (1 + q + q*q) / p, d2},
		{"calls", float64(rep.Services[1].Calls), 1 / (1 - f), 9 * d2},
	} {
		if se := math.Sqrt(m.vari / n); math.Abs(m.got/n-m.want) > 5*se {
			t.Errorf("%s: %.4f a job; want %.4f (5 standard errors %.4f)", m.what, m.got/n, m.want, 5*se)
		}
	}
	if rep.Edges[0].Succeeded != rep.Edges[0].Requests {
		t.Errorf("%d of %d jobs completed; want all", rep.Edges[0].Succeeded, rep.Edges[0].Requests)
	}
}
