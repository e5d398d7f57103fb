package fleet

import (
	"fmt"
	"runtime/debug"

	"github.com/retrysim/retrysim/schema"
)

// PolicyFactory is a Go program's own Policy, run when PolicyConfig.Own
// points to it. New is called from several goroutines at once: its policies
// must share no state a call changes. A panic ends the run with a
// *schema.PanicError.
type PolicyFactory struct {
	Name        string        // the policy's name in errors and settings
	New         func() Policy // a fresh policy state
	AskedAtSend bool          // ask Retry when a retry goes out, not when decided
	Random      bool          // draw the u that Start and Retry get
}

// policyPanic is a panic in a user's policy, with its stack.
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
