package fleetdata

import "context"

// MarkovState is what a Memoryless run shows of its state between events:
// the calls in the server (on a worker or queued, abandoned ones included)
// and the requests waiting out a backoff (the orbit).
type MarkovState struct {
	InServer, Orbit int
}

// Tracer runs one replicate of a Memoryless configuration step by step: it
// shows each span of virtual time between events with the state that holds
// over it, can stop between two spans and resume, and can split into copies
// that go on with streams of their own (for multilevel splitting).
type Tracer interface {
	// Run goes on with the replicate, telling f the state over each span
	// [from, to) between events, in order (to is +Inf once the run is
	// over), until f returns true or the run ends; a resumed run goes on
	// from the span after the one it stopped in. It reports whether f
	// stopped it; once ctx is done it returns ctx's error within a few
	// thousand events.
	Run(ctx context.Context, f func(from, to float64, st MarkovState) bool) (stopped bool, err error)
	// Split is a copy of the replicate as it stands that goes on drawing
	// from streams seeded by seed, apart from the original's: the events
	// already scheduled stay as they were drawn, so the span it stopped in
	// ends as the original's does, and it goes on from the next.
	Split(seed uint64) Tracer
	// Events is how many events the replicate has processed.
	Events() int64
}
