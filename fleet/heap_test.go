package fleet

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// The queue pops events in the order of their times and, of events of the
// same time, in the order they were pushed, whatever the times' scales:
// over random pushes (at or after the last pop's time, as the engine
// schedules them: ties at one instant, times a microsecond or a day ahead,
// bursts at one time), pops and unpops, each pop is the event (told apart
// by slot) that a list kept sorted by time, then push order, gives.
func TestEventQueuePopsByTimeThenPushOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 40 {
		var q eventQueue
		var want []event // sorted by t, then push order
		var slot int32
		now := 0.0
		scale := math.Pow(10, float64(r.IntN(9)-6))
		for step := range 20000 {
			switch op := r.IntN(10); {
			case op < 4 && q.len() > 0:
				got := q.pop()
				if got != want[0] {
					t.Fatalf("round %d step %d: pop = %+v; want %+v", round, step, got, want[0])
				}
				now = got.t
				if r.IntN(8) == 0 { // put back, as a watcher stopping the run does
					q.unpop(got)
					continue
				}
				want = want[1:]
			default:
				var at float64
				switch r.IntN(6) {
				case 0:
					at = now // at once
				case 1:
					at = now + float64(r.IntN(4))*scale // on a grid: ties
				case 2:
					at = now + 86400*r.Float64() // far ahead
				default:
					at = now + scale*r.ExpFloat64()
				}
				e := event{t: at, slot: slot}
				slot++
				q.push(e)
				i, _ := slices.BinarySearchFunc(want, e, func(x, y event) int {
					if x.t <= y.t { // after every event of the same time
						return -1
					}
					return 1
				})
				want = slices.Insert(want, i, e)
			}
			if q.len() != len(want) {
				t.Fatalf("round %d step %d: len = %d; want %d", round, step, q.len(), len(want))
			}
		}
	}
}

// The queue holds at most queueBytes(n) with n events pending at its worst:
// n events at one time, pushed before the first pop (the pool grows to n),
// all loaded into bot at once, then many pops each followed by a push into
// the loaded bucket (bot's spent events under it), then pushes to far while
// bot empties. The old bound, 2.25 x 16 bytes an
// event and 8 KiB, is below what the queue holds for n from 1,000 on.
func TestEventQueueBytesBound(t *testing.T) {
	for _, n := range []int{1, 10, 100, 255, 256, 257, 1000, 5000, 20000, 100000} {
		var q eventQueue
		most := 0 // the most bytes the queue held
		check := func(stage string) {
			most = max(most, q.bytes())
			if q.len() > n {
				t.Fatalf("n %d %s: %d events pending", n, stage, q.len())
			}
			if float64(q.bytes()) > queueBytes(float64(n)) {
				t.Fatalf("n %d %s: the queue holds %d bytes; bound %.0f", n, stage, q.bytes(), queueBytes(float64(n)))
			}
		}
		for i := range n {
			q.push(event{t: 1, slot: int32(i)})
			check("pushes")
		}
		q.pop() // loads all n into bot
		check("load")
		for i := range 10 * n {
			q.push(event{t: 1, slot: int32(i)})
			check("pushes into bot")
			q.pop()
		}
		for i := range n / 2 {
			q.push(event{t: 2 + float64(i), slot: int32(i)})
			check("pushes to far")
			q.pop()
		}
		if old := 2.25*16*math.Max(float64(n+pad), 256) + 8192; n >= 1000 && float64(most) <= old {
			t.Errorf("n %d: the queue held %d bytes, within the old bound %.0f", n, most, old)
		}
	}
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *eventQueue) pop() event {
	if q.head == len(q.bot) {
		q.load()
	}
	return q.take()
}

// bytes is the memory the queue holds: its slices at their capacities and
// its wheel.
func (q *eventQueue) bytes() int {
	return int(unsafe.Sizeof(event{}))*(cap(q.bot)+cap(q.pool)) + 4*cap(q.next) + wheelBytes
}
