package fleet

import (
	"math"
	"math/bits"
	"slices"
	"unsafe"
)

// event is one thing that happens at virtual time t. Events are plain values
// in the queue's pool, so scheduling one allocates nothing once warm.
type event struct {
	t       float64
	slot    int32 // the request, for the events that have one
	attempt uint8 // which of the request's attempts (rounds)
	copy    uint8 // which copy of the attempt: 0, or a hedge
	kind    uint8
	outcome uint8 // what a reply says
}

// eventQueue pops the events not in a timeout FIFO in the order of their
// times, events of the same time in push order; bucket widths change the
// speed, never the order.
//
// It is a calendar queue (Brown 1988): wheelSize buckets of width 1/inv
// from base, lists in push order of nodes in one pool; bot, the loaded
// buckets' events sorted stably; far, the events past the wheel, from which
// a spent wheel restarts, sized for bucketEvents pops a bucket. An event
// goes to bucket floor((t-base)*inv), so bot's events come before every
// bucket's, and a bucket's before the next's and far's.
type eventQueue struct {
	bot  []event // the events of the loaded buckets, sorted, from head
	head int
	n    int // events pending

	base, inv float64 // the wheel's start and 1/w
	cur       int     // the next bucket to load
	first     [wheelSize]int32
	last      [wheelSize]int32
	full      [wheelSize / 64]uint64 // the non-empty buckets

	far, farLast int32 // events past the wheel
	pool         []event
	next         []int32 // each node's successor in its list, or the next free node
	free         int32   // the first free node

	pops   int // since the wheel started at popsAt: the pop rate
	popsAt float64
}

const (
	wheelSize    = 1024
	bucketEvents = 4
	none         = -1
	wheelBytes   = 8*wheelSize + wheelSize/8
)

// queueBytes bounds an eventQueue's bytes with at most n events pending at
// any time: pool and next grow from below n, bot from below 4n/3.
func queueBytes(n float64) float64 {
	size := float64(unsafe.Sizeof(event{}))
	return grownBytes(n, size) + grownBytes(n, 4) + grownBytes(4*n/3, size) + wheelBytes
}

// grownBytes bounds the bytes of a slice of items of size bytes that append
// grew one at a time from a capacity of at most c (or 256).
func grownBytes(c, size float64) float64 { return size*math.Max(512, 1.25*c+192) + 8192 }

// pad is the slack, in events, the memory bounds give queueBytes.
const pad = 3

func (q *eventQueue) len() int { return q.n }

// min is the earliest event's time; the queue must not be empty.
func (q *eventQueue) min() float64 {
	if q.head == len(q.bot) {
		q.load()
	}
	return q.bot[q.head].t
}

// take removes and returns the earliest event once min has loaded it.
func (q *eventQueue) take() event {
	e := q.bot[q.head]
	q.head++
	q.n--
	q.pops++
	return e
}

// unpop puts back e, the event popped last, to pop first again.
func (q *eventQueue) unpop(e event) {
	q.n++
	q.pops--
	if q.head > 0 {
		q.head--
		q.bot[q.head] = e
		return
	}
	q.bot = append(q.bot, event{})
	copy(q.bot[1:], q.bot)
	q.bot[0] = e
}

// push schedules e.
func (q *eventQueue) push(e event) {
	if q.pool == nil { // no event pending either
		q.start(make([]event, 0, 256), make([]int32, 0, 256))
	}
	q.n++
	x := (e.t - q.base) * q.inv
	switch {
	case x < float64(q.cur): // in a loaded bucket: into bot, after the events of the same time
		if len(q.bot) == cap(q.bot) && 4*q.head >= len(q.bot) { // drop the spent events rather than grow
			q.bot, q.head = q.bot[:copy(q.bot, q.bot[q.head:])], 0
		}
		q.bot = insertSorted(q.bot, q.head, e)
	default:
		q.place(q.node(e), x)
	}
}

// insertSorted appends e to bot, sorted by time from from, and moves it
// before the later events: after those of its time.
func insertSorted(bot []event, from int, e event) []event {
	bot = append(bot, e)
	i := len(bot) - 1
	for i > from && bot[i-1].t > e.t {
		bot[i] = bot[i-1]
		i--
	}
	bot[i] = e
	return bot
}

// place appends node i to the list of bucket x (floor((t-base)*inv), at
// least cur), or of far past the wheel.
func (q *eventQueue) place(i int32, x float64) {
	if x < wheelSize {
		k := int(x)
		q.first[k], q.last[k] = q.link(i, q.first[k], q.last[k])
		q.full[uint(k)/64] |= 1 << (uint(k) % 64) // k >= 0: shifts, not signed division
		return
	}
	q.far, q.farLast = q.link(i, q.far, q.farLast)
}

// start readies an empty queue on pool and next: every push goes to far
// until the first pop, a millisecond a bucket until a rate is known.
func (q *eventQueue) start(pool []event, next []int32) {
	q.pool, q.next, q.free = pool, next, none
	q.far, q.farLast = none, none
	q.base, q.inv, q.cur = math.Inf(-1), 1000, wheelSize
	for k := range q.first {
		q.first[k], q.last[k] = none, none
	}
}

// reuse readies q with the memory of old, which is not used after.
func (q *eventQueue) reuse(old *eventQueue) {
	q.start(old.pool[:0], old.next[:0])
	q.bot = old.bot[:0]
}

// node is a node of the pool holding e, linked to none.
func (q *eventQueue) node(e event) int32 {
	i := q.free
	if i != none {
		q.free = q.next[i]
		q.pool[i], q.next[i] = e, none
		return i
	}
	q.pool, q.next = append(q.pool, e), append(q.next, none)
	return int32(len(q.pool) - 1)
}

// load refills spent bot with the next non-empty bucket, sorted, or a new
// wheel's; the queue must not be empty.
func (q *eventQueue) load() {
	q.bot, q.head = q.bot[:0], 0
	k := q.nextFull()
	if k < 0 {
		q.rewheel()
		k = q.nextFull()
	}
	q.full[uint(k)/64] &^= 1 << (uint(k) % 64)
	q.cur = k + 1
	bot, pool, next, free := q.bot, q.pool, q.next, q.free
	for i := q.first[k]; i != none; {
		bot = append(bot, pool[i])
		nx := next[i]
		next[i], free = free, i
		i = nx
	}
	q.bot, q.free = bot, free
	q.first[k], q.last[k] = none, none
	if len(bot) > 32 {
		slices.SortStableFunc(bot, func(a, b event) int {
			switch {
			case a.t < b.t:
				return -1
			case a.t > b.t:
				return 1
			}
			return 0 // times are never NaN
		})
		return
	}
	for j := 1; j < len(bot); j++ { // stable: an event of the same time stays after
		insertSorted(bot[:j], 0, bot[j])
	}
}

// nextFull is the first non-empty bucket from cur, or -1.
func (q *eventQueue) nextFull() int {
	for w := q.cur / 64; w < len(q.full); w++ {
		m := q.full[w]
		if w == q.cur/64 {
			m &^= 1<<(q.cur%64) - 1
		}
		if m != 0 {
			return w*64 + bits.TrailingZeros64(m)
		}
	}
	return -1
}

// rewheel starts a new wheel at far's earliest event and moves far's events
// in it to their buckets, in push order.
func (q *eventQueue) rewheel() {
	lo := q.pool[q.far].t
	for i := q.far; i != none; i = q.next[i] {
		lo = min(lo, q.pool[i].t)
	}
	if q.pops >= 64 && lo > q.popsAt {
		q.inv = min(float64(q.pops)/(bucketEvents*(lo-q.popsAt)), 1e9)
	}
	q.base, q.cur, q.pops, q.popsAt = lo, 0, 0, lo
	i := q.far
	q.far, q.farLast = none, none
	for i != none {
		nx := q.next[i]
		q.next[i] = none
		q.place(i, (q.pool[i].t-q.base)*q.inv)
		i = nx
	}
}

// link appends node i to the list from first to last, returning its ends.
func (q *eventQueue) link(i, first, last int32) (int32, int32) {
	if last == none {
		return i, i
	}
	q.next[last] = i
	return first, i
}

// each calls f with every pending event, in no particular order.
func (q *eventQueue) each(f func(e *event)) {
	for i := q.head; i < len(q.bot); i++ {
		f(&q.bot[i])
	}
	for k := range q.first {
		for i := q.first[k]; i != none; i = q.next[i] {
			f(&q.pool[i])
		}
	}
	for i := q.far; i != none; i = q.next[i] {
		f(&q.pool[i])
	}
}

// clone is a copy of the queue that shares no memory with it.
func (q *eventQueue) clone() eventQueue {
	c := *q
	c.bot = append([]event(nil), q.bot...)
	c.pool = append([]event(nil), q.pool...)
	c.next = append([]int32(nil), q.next...)
	return c
}
