package fleet

// event is one thing that happens at virtual time t. Events are plain values
// in the heap's slice, so scheduling one allocates nothing.
type event struct {
	t float64
	// seq breaks ties in t in the order the events were scheduled, so two
	// events at the same instant happen first come, first served.
	seq     uint64
	slot    int32 // the request, for the events that have one
	attempt uint8 // which of the request's attempts
	kind    uint8
	outcome uint8 // what a reply says
}

func (e *event) before(o *event) bool {
	return e.t < o.t || (e.t == o.t && e.seq < o.seq)
}

// eventHeap is a 4-ary min-heap of events by (t, seq). Four children a node
// halve the depth of a binary heap and keep a node's children in one or two
// cache lines, which is what a pop spends its time on.
type eventHeap struct {
	a   []event
	seq uint64
}

func (h *eventHeap) len() int { return len(h.a) }

// push schedules e, stamping its tie-breaking sequence number.
func (h *eventHeap) push(e event) {
	e.seq = h.seq
	h.seq++
	h.a = append(h.a, e)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h.a[p]) {
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
			if h.a[j].before(&h.a[m]) {
				m = j
			}
		}
		if !h.a[m].before(&last) {
			break
		}
		h.a[i] = h.a[m]
		i = m
	}
	h.a[i] = last
	return top
}
