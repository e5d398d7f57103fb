package provider

// Key is the idempotency key a caller sends with a call, per job; NoKey sends none.
type Key uint64

// NoKey is the absence of a key.
const NoKey Key = 0

// StepKey is the key of "this step of this job", the same on every call of the step in
// every delivery (what schema.SameKey sends); fresh keys count up from above it.
const StepKey Key = 1
