package fleet

// fifo is a first-in, first-out queue on a ring buffer that doubles when
// full: len(buf) is 0 or a power of two, and the items are
// buf[(head+i) & (len(buf)-1)] for i < n, in push order.
type fifo[T any] struct {
	buf     []T
	head, n int
}

func (q *fifo[T]) len() int { return q.n }

func (q *fifo[T]) push(v T) {
	if q.n == len(q.buf) {
		grown := make([]T, max(16, 2*len(q.buf)))
		for i := range q.n {
			grown[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = v
	q.n++
}

// reuse empties q into old's buffer, which old no longer uses.
func (q *fifo[T]) reuse(old *fifo[T]) { q.buf, q.head, q.n = old.buf, 0, 0 }

// front is the oldest item; the queue must not be empty.
func (q *fifo[T]) front() *T { return &q.buf[q.head] }

// at is item i, the oldest 0; i must be below len.
func (q *fifo[T]) at(i int) *T { return &q.buf[(q.head+i)&(len(q.buf)-1)] }

// back is the newest item; the queue must not be empty.
func (q *fifo[T]) back() *T { return &q.buf[(q.head+q.n-1)&(len(q.buf)-1)] }

// pop removes and returns the oldest item; the queue must not be empty.
func (q *fifo[T]) pop() T {
	v := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return v
}

// unpop puts back v, the item popped last, to pop first again.
func (q *fifo[T]) unpop(v T) {
	q.head = (q.head - 1) & (len(q.buf) - 1)
	q.buf[q.head] = v
	q.n++
}
