package fleet

// attemptKeys is a request's key store under FreshKeys: bit a of busy says
// a copy of attempt a holds its key in the server, bit a of done that its
// work is done and its reply stored.
type attemptKeys struct {
	busy, done attemptSet
}

// attemptSet is a set of attempt numbers below 128.
type attemptSet [2]uint64

func (s *attemptSet) has(a uint8) bool { return s[a>>6]&(1<<(a&63)) != 0 }
func (s *attemptSet) add(a uint8)      { s[a>>6] |= 1 << (a & 63) }
func (s *attemptSet) remove(a uint8)   { s[a>>6] &^= 1 << (a & 63) }

// freeKey is a copy of attempt leaving its service with its key.
func (s *sim) freeKey(slot int32, attempt uint8) {
	s.reqs[slot].keyBusy = false
	if s.fresh != nil {
		s.fresh[slot].busy.remove(attempt)
	}
}

// storeKey is a copy of attempt's work done: its key's reply is stored.
func (s *sim) storeKey(slot int32, attempt uint8, e *edgeSim) {
	s.reqs[slot].keyDone = e.sameKey
	if e.freshKeys {
		s.fresh[slot].done.add(attempt)
	}
}
