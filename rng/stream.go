package rng

// bufferLen is how many draws a Stream asks its Source for at a time.
const bufferLen = 512

// Stream hands out a Source's draws one at a time from a buffer. Its methods are
// small enough to inline, which is what makes a draw cost about what the bare
// generator costs. A Stream is not safe for concurrent use.
type Stream struct {
	src  Source
	next int
	buf  [bufferLen]uint64
	// refills counts Fill calls, so Draws can tell how many draws were used.
	refills int64
}

// NewStream returns a stream reading from src.
func NewStream(src Source) *Stream {
	return &Stream{src: src, next: bufferLen}
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

// Below draws once and reports whether the draw is below the cut t (see Threshold).
func (s *Stream) Below(t uint64) bool {
	return s.Next() < t
}

func (s *Stream) refill() {
	s.src.Fill(s.buf[:])
	s.next = 0
	s.refills++
}

// Draws reports how many draws have been taken from the stream.
func (s *Stream) Draws() int64 {
	return s.refills*bufferLen - int64(bufferLen-s.next)
}
