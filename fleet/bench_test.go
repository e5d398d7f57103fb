package fleet

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/retrysim/retrysim/rng"
)

// BenchmarkBrookerCollapse runs the brooker-collapse preset, 10 replicates of
// its four runs, on one goroutine, and reports its speed as events a second
// (on one core), with the ratio of its cost an event to the cost of one bare
// push and pop of the same 4-ary heap: the share of the time the model
// itself, not the event queue, takes.
func BenchmarkBrookerCollapse(b *testing.B) {
	cfgs := BrookerCollapse.Runs(BrookerCollapse.Duration)
	var events int64
	b.ReportAllocs()
	for b.Loop() {
		events = 0
		res, err := Run(context.Background(), cfgs, Options{Replicates: 10, Seed: 1, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			for _, rep := range r.Replicates {
				events += rep.Events
			}
		}
	}
	perEvent := b.Elapsed().Seconds() / float64(b.N) / float64(events)
	// The bare queue, timed here rather than by a nested testing.Benchmark
	// (which deadlocks inside a benchmark), on the same event count.
	b.StopTimer()
	start := time.Now()
	heapWork(events)
	heapNs := float64(time.Since(start).Nanoseconds()) / float64(events)
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(1/perEvent, "events/s")
	b.ReportMetric(perEvent*1e9, "ns/event")
	b.ReportMetric(heapNs, "heap-ns/push+pop")
	b.ReportMetric(perEvent*1e9/heapNs, "event/heap-op")
}

// heapWork is the bare event queue under the simulation's pattern, n times:
// a hold model keeping 2,000 events (the preset's heap holds hundreds to a
// few thousand), each pop followed by a push an exponential time later.
func heapWork(n int64) {
	s := rng.NewStream(rng.PCGGenerator.New(1, 0))
	var h eventHeap
	for range 2000 {
		h.push(event{t: -math.Log(s.Open())})
	}
	for range n {
		e := h.pop()
		e.t += -math.Log(s.Open())
		h.push(e)
	}
}
