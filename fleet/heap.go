package fleet

import "math"

// event is one thing that happens at virtual time t. Events are plain values
// in the heap's slice, so scheduling one allocates nothing.
//
// An event is 16 bytes, so a node's four children share one cache line.
// Events at the same instant pop in an order fixed by the heap's history,
// which is the same on every run: determinism needs no sequence number.
type event struct {
	t       float64
	slot    int32 // the request, for the events that have one
	attempt uint8 // which of the request's attempts (rounds)
	copy    uint8 // which copy of the attempt: 0, or a hedge
	kind    uint8
	outcome uint8 // what a reply says
}

// eventHeap is a 4-ary min-heap of events by t. Four children a node
// halve the depth of a binary heap, and a pop spends its time reading them.
// The slice starts with pad unused events so that every node's four children
// begin at a multiple of four events, 64 bytes: on a backing array aligned to
// 64 bytes (as Go aligns every large allocation) a pop reads one cache line a
// level, not two. Node k's children are 4k-8 to 4k-5 and its parent k/4+2;
// the root is at pad. A pop moves the last event down past the first of
// each node's earliest children while that child is earlier: with the
// heap's history, this fixes the order of events of the same time, which
// the engine's outputs keep (TestEventHeapOrdersTiesAsBefore).
type eventHeap struct {
	a []event
}

const pad = 3

func (h *eventHeap) len() int { return max(len(h.a)-pad, 0) }

// min is the earliest event's time; the heap must not be empty.
func (h *eventHeap) min() float64 { return h.a[pad].t }

// push schedules e.
func (h *eventHeap) push(e event) {
	if len(h.a) == 0 {
		h.a = make([]event, pad, 256)
	}
	h.a = append(h.a, e)
	i := len(h.a) - 1
	for i > pad {
		p := i/4 + 2
		if e.t >= h.a[p].t {
			break
		}
		h.a[i] = h.a[p]
		i = p
	}
	h.a[i] = e
}

// pop removes and returns the earliest event; the heap must not be empty.
func (h *eventHeap) pop() event {
	top := h.a[pad]
	n := len(h.a) - 1
	last := h.a[n]
	h.a = h.a[:n]
	if n == pad {
		return top
	}
	i := pad
	for {
		c := 4*i - 8
		if c >= n {
			break
		}
		m := c
		if c+3 < n { // all four children: the common case, without bounds tests
			// The earlier of each pair, then of the two: the first of the
			// earliest children, as a scan finds it, without a branch. A
			// time is never negative, so its bits order as it does, and
			// below is all ones where x < y, else zero.
			k := h.a[c : c+4 : c+4]
			below := func(x, y uint64) uint64 { return uint64((int64(x) - int64(y)) >> 63) }
			t0, t1, t2, t3 := math.Float64bits(k[0].t), math.Float64bits(k[1].t), math.Float64bits(k[2].t), math.Float64bits(k[3].t)
			b01, b23 := below(t1, t0), below(t3, t2)
			i01, i23 := b01&1, 2+b23&1
			t01, t23 := t0^(t0^t1)&b01, t2^(t2^t3)&b23
			b := below(t23, t01)
			m += int(i01 ^ (i01^i23)&b)
		} else {
			for j := c + 1; j < n; j++ {
				if h.a[j].t < h.a[m].t {
					m = j
				}
			}
		}
		if h.a[m].t >= last.t {
			break
		}
		h.a[i] = h.a[m]
		i = m
	}
	h.a[i] = last
	return top
}
