package schema

import "fmt"

// PanicError is a panic in a strategy's or a fleet policy's code that stopped a run, which
// returns it (possibly wrapped) instead of crashing.
type PanicError struct {
	// Kind says what panicked: "strategy" or "policy".
	Kind string
	// Name is the strategy's or the policy's name.
	Name string
	// Where says where in the run: "job 12 at step 3" (a step of -1 is
	// before the strategy's first Enter or Call), `run "own", replicate 0`.
	Where string
	// Value is what the code panicked with.
	Value any
	// Stack is the panicking goroutine's stack, as runtime/debug.Stack prints it.
	Stack []byte
}

// Error is "KIND "NAME" panicked in WHERE: VALUE".
func (e *PanicError) Error() string {
	return fmt.Sprintf("%s %q panicked in %s: %v", e.Kind, e.Name, e.Where, e.Value)
}

// Unwrap returns the panic's value when it is an error, else nil.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
