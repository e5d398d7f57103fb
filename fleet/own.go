package fleet

import (
	"fmt"
	"runtime/debug"

	"github.com/retrysim/retrysim/schema"
)

// PolicyFactory is a Go program's own Policy, run in place of a built-in
// kind when PolicyConfig.Own points to it.
//
// When it is asked: New at the start of every replicate, once per client,
// or once for the fleet when PolicyConfig.Shared; Start as each request
// arrives; Retry after an attempt fails, when the retry is decided (after
// the attempt's outcome, before its backoff) or, with AskedAtSend, when the
// retry would go out after its backoff, and before each hedge; Sent,
// Answered, Success, Failure and Cancel as the Policy interface says. A
// refused retry ends the request (a denial); a refused Start fails it
// before any call (a local rejection).
//
// Concurrency: a replicate runs on one goroutine, and only that goroutine
// calls New and the policies New returned for it, never two calls at once.
// Replicates run on up to Options.Workers goroutines at once, so New may be
// called from several goroutines at once, and the policies it returns must
// not share state a call changes: the run's numbers then do not depend on
// the workers. A policy must not read a clock or a random source of its
// own: with Random, Start and Retry get a uniform draw u in [0, 1) from the
// replicate's stream (0 without it).
//
// A panic in New or in a policy's method ends Run with a
// *schema.PanicError naming the policy, the run and the replicate, with the
// stack; the other replicates stop.
type PolicyFactory struct {
	// Name names the policy in errors and in a report's settings.
	Name string
	// New makes a fresh policy state.
	New func() Policy
	// AskedAtSend asks Retry when a retry would go out, after its backoff,
	// rather than when it is decided (as the sliding breaker, the SRE
	// throttle and gRPC's adaptive throttle are asked).
	AskedAtSend bool
	// Random draws the u that Start and Retry get.
	Random bool
}

// policyPanic is a panic in a user's policy, carried up to the replicate
// with the stack it panicked on.
type policyPanic struct {
	name  string
	v     any
	stack []byte
}

// ownPolicy is a user's policy whose panics become policyPanic.
type ownPolicy struct {
	p    Policy
	name string
}

// catch turns a panic in the policy into a policyPanic; deferred.
func (o ownPolicy) catch() {
	if v := recover(); v != nil {
		panic(policyPanic{o.name, v, debug.Stack()})
	}
}

func (o ownPolicy) Start(now, u float64) bool { defer o.catch(); return o.p.Start(now, u) }
func (o ownPolicy) Retry(now float64, timeout bool, u float64) (bool, float64) {
	defer o.catch()
	return o.p.Retry(now, timeout, u)
}
func (o ownPolicy) Sent(now float64, retry bool)        { defer o.catch(); o.p.Sent(now, retry) }
func (o ownPolicy) Answered(now float64, overload bool) { defer o.catch(); o.p.Answered(now, overload) }
func (o ownPolicy) Success(now float64, retry bool, cost float64) {
	defer o.catch()
	o.p.Success(now, retry, cost)
}
func (o ownPolicy) Failure(now float64, retry, timeout bool) {
	defer o.catch()
	o.p.Failure(now, retry, timeout)
}
func (o ownPolicy) Cancel(now float64, retry bool) { defer o.catch(); o.p.Cancel(now, retry) }

// make is a fresh state of the user's policy, its panics caught.
func (f *PolicyFactory) make() Policy {
	o := ownPolicy{name: f.Name}
	defer o.catch()
	o.p = f.New()
	if o.p == nil {
		panic("New returned nil")
	}
	return o
}

// policyError is the error of a replicate whose policy panicked.
func policyError(pp policyPanic, run string, replicate int) error {
	return &schema.PanicError{Kind: "policy", Name: pp.name, Where: fmt.Sprintf("run %q, replicate %d", run, replicate), Value: pp.v, Stack: pp.stack}
}
