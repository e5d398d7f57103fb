package fleet

import (
	"context"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/jobqueue"
	"github.com/retrysim/retrysim/internal/rng"
)

// BenchmarkBrookerCollapse runs the brooker-collapse preset, 10 replicates of
// its four runs, on one goroutine, and reports its speed as events a second
// (on one core), with the ratio of its cost an event to the cost of one bare
// push and pop of the same event queue (the share of the time the model
// itself, not the event queue, takes) and its events a CPU second over the
// bare M/M/c's (mmcWork) in the same process (x-mmc).
func BenchmarkBrookerCollapse(b *testing.B) {
	cfgs := collapseRuns(80 * time.Second)
	var events int64
	b.ReportAllocs()
	mmc := mmcRate()
	cpu0 := cpuTime()
	for b.Loop() {
		events = 0
		res, err := Run(context.Background(), cfgs, Options{Replicates: 10, Seed: 1, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			for _, rep := range r.replicates {
				events += rep.Events
			}
		}
	}
	b.StopTimer()
	// CPU seconds as well as wall seconds: on a machine shared with other
	// work the wall clock counts their time too.
	cpuPerEvent := (cpuTime() - cpu0) / float64(b.N) / float64(events)
	mmc = (mmc + mmcRate()) / 2
	perEvent := b.Elapsed().Seconds() / float64(b.N) / float64(events)
	// The bare queue, timed here rather than by a nested testing.Benchmark
	// (which deadlocks inside a benchmark), on the same event count.
	cpu1 := cpuTime()
	heapWork(events)
	heapCPU := (cpuTime() - cpu1) / float64(events)
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(1/perEvent, "events/s")
	b.ReportMetric(1/cpuPerEvent, "events/cpu-s")
	b.ReportMetric(heapCPU*1e9, "heap-cpu-ns/push+pop")
	b.ReportMetric(cpuPerEvent/heapCPU, "event/heap-op")
	b.ReportMetric(1/cpuPerEvent/mmc, "x-mmc")
}

// cpuTime is the process's user and system CPU time, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// heapWork is the bare event queue under the simulation's pattern, n times:
// a hold model keeping 2,000 events (the preset's queue holds hundreds to a
// few thousand), each pop followed by a push an exponential time later.
func heapWork(n int64) {
	s := rng.NewStream(rng.PCGGenerator().New(1, 0))
	var h eventQueue
	for range 2000 {
		h.push(event{t: -math.Log(s.Open())})
	}
	for range n {
		e := h.pop()
		e.t += -math.Log(s.Open())
		h.push(e)
	}
}

// BenchmarkGraphThreeLayers runs a three-layer graph, 10 replicates of a
// minute at 40 requests a second on one goroutine: api (Brooker's latency
// server) calls svc (a queue of 8 workers) which calls db (independent,
// failing 20% of calls), each layer trying 3 times with a timeout that
// fits the layers below; and reports its speed as events a CPU second.
func BenchmarkGraphThreeLayers(b *testing.B) {
	benchRunGraph(b, benchGraph(), 1)
}

// benchRunGraph runs 10 replicates of g on workers goroutines per
// iteration and reports the events, events a CPU second, wall seconds a
// run and its events a CPU second over the bare M/M/c's in the same process
// (x-mmc).
func benchRunGraph(b *testing.B, g Graph, workers int) {
	var events int64
	b.ReportAllocs()
	mmc := mmcRate()
	cpu0 := cpuTime()
	for b.Loop() {
		events = 0
		res, err := RunGraph(context.Background(), []Graph{g}, Options{Replicates: 10, Seed: 1, Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		for _, rep := range res[0].replicates {
			events += rep.Events
		}
	}
	b.StopTimer()
	cpu := (cpuTime() - cpu0) / float64(b.N)
	mmc = (mmc + mmcRate()) / 2
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(float64(events)/cpu, "events/cpu-s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "wall-s/op")
	b.ReportMetric(float64(events)/cpu/mmc, "x-mmc")
}

// benchGraph is BenchmarkGraphThreeLayers's graph.
func benchGraph() Graph {
	client := func(timeout time.Duration) Client {
		return Client{Clients: 1, Timeout: timeout, Attempts: 3, Backoff: backoff.Policy{Kind: backoff.None}}
	}
	return Graph{Name: "three layers", Duration: time.Minute, Net: 5 * time.Millisecond,
		Services: []Node{
			{Name: "api", Server: Server{Kind: Latency, Base: 20 * time.Millisecond, Slope: time.Millisecond},
				Calls: []Call{{To: "svc", Client: client(time.Second)}}},
			{Name: "svc", Server: Server{Kind: Queue, Workers: 8, QueueMax: 100, Service: Service{Dist: Lognormal, Median: 10 * time.Millisecond, Sigma: 0.5}},
				Calls: []Call{{To: "db", Client: client(200 * time.Millisecond)}}},
			{Name: "db", Server: Server{Kind: Independent, Base: 5 * time.Millisecond, PFail: 0.2}},
		},
		Entries: []Entry{{To: "api", Load: Shape{Kind: Constant, Rate: 40}, Client: client(3 * time.Second)}}}
}

// BenchmarkWorkersOutage runs issue 24's speed case: an hour of 50 jobs a
// second of ten steps on 100 workers (at most 10,000 jobs waiting), each
// step a call to a database (5 ms, a 1 s timeout) that fails every call
// for 30 minutes (sidekiq-outage's window), on an SQS queue as sqs-visibility's (a 30 s
// visibility timeout, a failed receive reappearing when it runs out, the
// dead-letter queue after 5 receives), 10 replicates on 2 goroutines (the
// issue's two cores). It reports events a CPU second and the wall seconds a
// run of the 10 replicates takes. Its visibility timeout runs from the
// enqueue: Sidekiq's queue, with no visibility timeout, and SQS's with the
// timeout from a worker's receive (TimeoutAtReceive) are refused at this
// size by RunGraph's memory bound, which counts every try's calls of every
// job for the whole run when no timeout bounds a job's life.
func BenchmarkWorkersOutage(b *testing.B) {
	q := queueClient(jobqueue.SQS(), sqsMaxReceive)
	q.Backoff = backoff.Policy{Kind: backoff.None}
	w := outageFleet("bench", time.Hour, q)
	w.Load.Rate, w.WorkerCount, w.QueueMax, w.RedeliverAtTimeout = 50, 100, 10_000, true
	step := stepClient()
	step.Timeout = time.Second // the steps' timeouts bound a job's life in RunGraph's memory bound
	w.Steps = nil
	for range 10 {
		w.Steps = append(w.Steps, Step{To: "db", Client: step})
	}
	benchRunGraph(b, w.Graph(), 2)
}
