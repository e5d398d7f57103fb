package fleetdata

import "context"

// MarkovState is what a Memoryless run shows of its state between events: the calls in
// the server and the requests waiting out a backoff (the orbit).
type MarkovState struct {
	InServer, Orbit int
}

// Tracer runs one replicate of a Memoryless configuration span by span between events,
// can stop and resume, and can split into copies on streams of their own.
type Tracer interface {
	// Run goes on with the replicate, telling f the state over each span [from, to) (to +Inf
	// at the end) until f returns true or the run ends, and reports whether f stopped it; once
	// ctx is done it returns ctx's error within a few thousand events.
	Run(ctx context.Context, f func(from, to float64, st MarkovState) bool) (stopped bool, err error)
	// Split is a copy of the replicate drawing from streams seeded by seed from now on.
	Split(seed uint64) Tracer
	// Events is how many events the replicate has processed.
	Events() int64
}
