// Package schema is the vocabulary the simulator's models share: the error
// that names a setting by its field path (steps[charge].p_fail, queue.lease);
// the key mode of an attempt; the estimate every result carries, with its interval and how it
// was found.
//
// Library errors name settings by these paths, never by a command's flags;
// the command maps a path to its flag.
package schema

import "github.com/retrysim/retrysim/internal/pathtext"

// FieldError is a setting that cannot be run. Field is its path, the name a
// scenario file gives it: a top-level setting ("jobs", "engine"), a step's
// field ("steps[charge the card].p_fail", "steps[2].latency") or the
// queue's ("queue.lease", "queue.backoff.cap"). Fields, when settings are
// refused together (a sweep's grid too large), names each of them, and
// Field joins them with " x ": a step's name may itself hold " x ". Use
// errors.As to find it.
type FieldError struct {
	Field  string
	Fields []string
	Msg    string
	// text is Msg with the settings it names kept as Paths, when
	// pathtext.Errorf made it.
	text pathtext.Text
}

// Error is "FIELD: MSG".
func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// init gives package text the way to make a *FieldError whose message
// keeps its Text, and to read it back (pathtext.Errorf, pathtext.FieldWords).
func init() {
	pathtext.SetFieldError(func(field string, t pathtext.Text) error {
		return &FieldError{Field: field, Msg: t.String(), text: t}
	}, func(err error) (string, pathtext.Text) {
		fe := err.(*FieldError)
		return fe.Msg, fe.text
	})
}
