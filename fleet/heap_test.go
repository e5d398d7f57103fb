package fleet

import (
	"math/rand/v2"
	"testing"
)

// refHeap is the event heap's rule written plainly: a 4-ary min-heap by t
// whose root is at pad, node k's children 4k-8 to 4k-5, a pop moving the
// last event down from the root past each node's first earliest child while
// that child is earlier than it.
type refHeap []event

func (h *refHeap) push(e event) {
	if len(*h) == 0 {
		*h = make(refHeap, pad)
	}
	*h = append(*h, e)
	a := *h
	for i := len(a) - 1; i > pad && a[i].t < a[i/4+2].t; i = i/4 + 2 {
		a[i], a[i/4+2] = a[i/4+2], a[i]
	}
}

func (h *refHeap) pop() event {
	a := *h
	top, last := a[pad], a[len(a)-1]
	a = a[:len(a)-1]
	*h = a
	if len(a) == pad {
		return top
	}
	i := pad
	for {
		m := -1
		for c := 4*i - 8; c < 4*i-4 && c < len(a); c++ {
			if m < 0 || a[c].t < a[m].t {
				m = c
			}
		}
		if m < 0 || a[m].t >= last.t {
			break
		}
		a[i] = a[m]
		i = m
	}
	a[i] = last
	return top
}

// The heap pops events of the same time in the order the plain 4-ary heap
// does, which the engine's outputs keep: over random pushes and pops on
// times drawn from a few values (most events tie), each pop is the same
// event (told apart by slot) as the reference's.
func TestEventHeapOrdersTiesAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var h eventHeap
		var ref refHeap
		var slot int32
		times := 1 + r.IntN(8)
		for step := range 5000 {
			if h.len() > 0 && r.IntN(2) == 0 {
				got, want := h.pop(), ref.pop()
				if got != want {
					t.Fatalf("round %d step %d: pop = %+v; the reference pops %+v", round, step, got, want)
				}
				continue
			}
			e := event{t: float64(r.IntN(times)) / 4, slot: slot}
			slot++
			h.push(e)
			ref.push(e)
		}
	}
}
