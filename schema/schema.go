// Package schema is the vocabulary the simulator's models share: the error that names a
// setting by its field path (steps[charge].p_fail, queue.lease), never by a flag; the key
// mode of an attempt; and the estimate every result carries.
package schema

import "github.com/retrysim/retrysim/internal/pathtext"

// FieldError is a setting that cannot be run. Field is its path as a scenario file names
// it ("jobs", "steps[2].latency", "queue.backoff.cap"); Fields, when settings are refused
// together, names each, and Field joins them with " x ". Use errors.As to find it.
type FieldError struct {
	Field  string
	Fields []string
	Msg    string
	// text is Msg with the settings it names kept as Paths (pathtext.Errorf).
	text pathtext.Text
}

// Error is "FIELD: MSG".
func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// init hands package pathtext the way to make and read a *FieldError's Text.
func init() {
	pathtext.SetFieldError(func(field string, t pathtext.Text) error {
		return &FieldError{Field: field, Msg: t.String(), text: t}
	}, func(err error) (string, pathtext.Text) {
		fe := err.(*FieldError)
		return fe.Msg, fe.text
	})
}
