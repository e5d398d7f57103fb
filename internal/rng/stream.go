package rng

import (
	"math"
	"math/rand/v2"
)

// bufferLen is how many draws a Stream holds at a time.
const bufferLen = 512

// Stream hands out a Source's draws one at a time from a buffer, its methods small enough
// to inline. Not safe for concurrent use.
type Stream struct {
	src  Source
	next int
	buf  [bufferLen]uint64
	// made counts the draws the source has produced.
	made int64
}

// NewStream returns a stream reading from src.
func NewStream(src Source) *Stream {
	s := new(Stream)
	s.Reset(src)
	return s
}

// Reset makes s read from src from its first draw on, reusing the buffer.
func (s *Stream) Reset(src Source) {
	*s = Stream{src: src, next: bufferLen}
}

// Next returns the next draw.
func (s *Stream) Next() uint64 {
	if s.next == bufferLen {
		s.refill()
	}
	u := s.buf[s.next]
	s.next++
	return u
}

// Uint64 is Next, making a Stream a math/rand/v2 Source.
func (s *Stream) Uint64() uint64 { return s.Next() }

// StreamOf is src as a Stream: src itself when it is one, else a Stream reading it ahead.
func StreamOf(src rand.Source) *Stream {
	if s, ok := src.(*Stream); ok {
		return s
	}
	return NewStream(randSource{src})
}

// randSource fills a Stream's buffer from a math/rand/v2 Source.
type randSource struct{ src rand.Source }

// Fill overwrites dst with src's next len(dst) values.
func (r randSource) Fill(dst []uint64) {
	for i := range dst {
		dst[i] = r.src.Uint64()
	}
}

// refill moves the draws not yet taken to the front of the buffer and fills the rest.
func (s *Stream) refill() {
	kept := copy(s.buf[:], s.buf[s.next:])
	s.src.Fill(s.buf[kept:])
	s.made += int64(bufferLen - kept)
	s.next = 0
}

// Draws reports how many draws have been taken from the stream.
func (s *Stream) Draws() int64 {
	return s.made - int64(bufferLen-s.next)
}

// Peek returns the next k draws (k at most 512) without taking them.
func (s *Stream) Peek(k int) []uint64 {
	if s.next+k > bufferLen {
		s.refill()
	}
	return s.buf[s.next : s.next+k]
}

// Skip takes k draws that Peek returned.
func (s *Stream) Skip(k int) { s.next += k }

// Unread puts vals in front of the draws not yet taken; draws pushed off the buffer's end
// are dropped, which leaves every remaining draw a fresh uniform.
func (s *Stream) Unread(vals []uint64) { copy(s.front(len(vals)), vals) }

// UnreadEvent is Unread of k-1 draws of MaxUint64 (no event) and then a 0 (an event),
// written in place.
func (s *Stream) UnreadEvent(k int) {
	f := s.front(k)
	for i := range f[:k-1] {
		f[i] = math.MaxUint64
	}
	f[k-1] = 0
}

// front makes room for k draws in front of those not yet taken, as Unread does, and
// returns it.
func (s *Stream) front(k int) []uint64 {
	if k > s.next {
		shift := k - s.next
		copy(s.buf[k:], s.buf[s.next:bufferLen-shift])
		s.next = k
	}
	s.next -= k
	return s.buf[s.next : s.next+k]
}

// Open returns a draw as a float in (0, 1], for logarithms.
func (s *Stream) Open() float64 {
	return float64(s.Next()>>11+1) / (1 << 53)
}

// Float64 returns a draw as a float in [0, 1).
func (s *Stream) Float64() float64 {
	return float64(s.Next()>>11) / (1 << 53)
}
