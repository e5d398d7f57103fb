package fleet

// event is one thing that happens at virtual time t. Events are plain values
// in the heap's slice, so scheduling one allocates nothing.
//
// An event is 16 bytes, so a node's four children share one cache line.
// Events at the same instant pop in an order fixed by the heap's history,
// which is the same on every run: determinism needs no sequence number.
type event struct {
	t       float64
	slot    int32 // the request, for the events that have one
	attempt uint8 // which of the request's attempts
	kind    uint8
	outcome uint8 // what a reply says
}

// eventHeap is a 4-ary min-heap of events by t. Four children a node
// halve the depth of a binary heap and keep a node's children in one or two
// cache lines, which is what a pop spends its time on.
type eventHeap struct {
	a []event
}

func (h *eventHeap) len() int { return len(h.a) }

// push schedules e.
func (h *eventHeap) push(e event) {
	h.a = append(h.a, e)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 4
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
	top := h.a[0]
	n := len(h.a) - 1
	last := h.a[n]
	h.a = h.a[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < c+4 && j < n; j++ {
			if h.a[j].t < h.a[m].t {
				m = j
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
