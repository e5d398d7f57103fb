package fleet

import (
	"math"
	"testing"

	"github.com/retrysim/retrysim/internal/rng"
)

// mmcEvent is an event of the bare M/M/c: a value in the heap's slice.
type mmcEvent struct {
	t    float64
	slot int32
	kind uint8 // mmcArrival, mmcDone or mmcTimeout
}

const (
	mmcArrival = iota
	mmcDone
	mmcTimeout
)

// mmcHeap is a plain binary min-heap of events by t.
type mmcHeap []mmcEvent

func (h *mmcHeap) push(e mmcEvent) {
	a := append(*h, e)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].t <= e.t {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = e
	*h = a
}

func (h *mmcHeap) pop() mmcEvent {
	a := *h
	top, n := a[0], len(a)-1
	last := a[n]
	a = a[:n]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && a[c+1].t < a[c].t {
			c++
		}
		if a[c].t >= last.t {
			break
		}
		a[i] = a[c]
		i = c
	}
	if n > 0 {
		a[i] = last
	}
	*h = a
	return top
}

// mmcWork is the floor the engine is held against: a bare discrete-event
// M/M/c with c = 1,000 servers, 900 arrivals a second and exponential
// service of mean 1 s, each request with a 5 s timeout event that stays in
// the binary heap when the request is served first and pops stale (lazy
// cancellation), about 5,400 events pending. It runs until it has popped
// n events and returns the requests that timed out, so that the work is
// not dead.
func mmcWork(n int64) int64 {
	const c, rate, service, timeout = 1000, 900.0, 1.0, 5.0
	s := rng.NewStream(rng.PCGGenerator().New(1, 0))
	exp := func(mean float64) float64 { return -mean * math.Log(s.Open()) }
	type request struct {
		refs          uint8
		served, ended bool
	}
	var (
		h       mmcHeap
		reqs    []request
		free    []int32
		waiting fifo[int32]
		busy    int
		late    int64
	)
	serve := func(t float64, slot int32) {
		busy++
		reqs[slot].served = true
		reqs[slot].refs++
		h.push(mmcEvent{t: t + exp(service), slot: slot, kind: mmcDone})
	}
	release := func(slot int32) {
		if reqs[slot].refs--; reqs[slot].refs == 0 {
			free = append(free, slot)
		}
	}
	h.push(mmcEvent{t: exp(1 / rate), kind: mmcArrival})
	for range n {
		e := h.pop()
		switch e.kind {
		case mmcArrival:
			h.push(mmcEvent{t: e.t + exp(1/rate), kind: mmcArrival})
			var slot int32
			if k := len(free); k > 0 {
				slot, free = free[k-1], free[:k-1]
			} else {
				slot = int32(len(reqs))
				reqs = append(reqs, request{})
			}
			reqs[slot] = request{refs: 1}
			h.push(mmcEvent{t: e.t + timeout, slot: slot, kind: mmcTimeout})
			if busy < c {
				serve(e.t, slot)
			} else {
				reqs[slot].refs++
				waiting.push(slot)
			}
		case mmcDone:
			busy--
			reqs[e.slot].ended = true
			release(e.slot)
			for waiting.len() > 0 && busy < c {
				w := waiting.pop()
				release(w)
				if !reqs[w].ended {
					serve(e.t, w)
				}
			}
		case mmcTimeout:
			if r := &reqs[e.slot]; !r.ended { // not stale: the request gives up
				r.ended = true
				late++
			}
			release(e.slot)
		}
	}
	return late
}

// mmcRate is the bare M/M/c's events a CPU second over 5,000,000 events,
// which the engine's benchmarks time before and after their own runs and
// take the mean of.
func mmcRate() float64 {
	const n = 5_000_000
	cpu0 := cpuTime()
	mmcWork(n)
	return n / (cpuTime() - cpu0)
}

// BenchmarkBareMMc runs the bare M/M/c (mmcWork) and reports its events a
// CPU second: the floor the engine's benchmarks report their ratio to.
func BenchmarkBareMMc(b *testing.B) {
	const n = 10_000_000
	cpu0 := cpuTime()
	for b.Loop() {
		mmcWork(n)
	}
	b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-cpu0), "events/cpu-s")
}
