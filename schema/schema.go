// Package schema is the vocabulary the simulator's models share: the error
// that names a setting by its field path (steps[charge].p_fail, queue.lease);
// the names of an enumeration (a store mode, a backoff policy), which parse,
// print, marshal as text and say which values are valid; the key mode of an
// attempt; the estimate every result carries, with its interval and how it
// was found; and a mergeable histogram of durations.
//
// Library errors name settings by these paths, never by a command's flags;
// the command maps a path to its flag.
package schema

import (
	"errors"
	"fmt"
	"strings"
)

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
	// text is Msg with the settings it names kept as Paths, when Errorf
	// made it.
	text Text
}

// Error is "FIELD: MSG".
func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Errorf is a *FieldError for field with a formatted message, whose Path
// arguments Words names as a reader calls them.
func Errorf(field, format string, args ...any) error {
	t := Textf(format, args...)
	return &FieldError{Field: field, Msg: t.String(), text: t}
}

// Words is the message with each setting it names (a Path argument of
// Errorf) named by name: a command's flag, a file's key. A message not made
// by Errorf, or changed since, is Msg as it is.
func (e *FieldError) Words(name func(path string) string) string {
	if e.text.String() != e.Msg {
		return e.Msg
	}
	return e.text.Words(name)
}

// Path is a setting named in a message by its path (client.attempts,
// queue.lease): it prints as the path, and Text.Words names it otherwise.
type Path string

// Text is a message that names settings: a format and its arguments, each
// setting among them a Path, so that a reader names them in its own words
// from the settings' declarations instead of finding them in the text.
type Text struct {
	format string
	args   []any
}

// Textf is the message format with args.
func Textf(format string, args ...any) Text { return Text{format, args} }

// String is the message with each setting named by its path.
func (t Text) String() string {
	if t.format == "" {
		return ""
	}
	return fmt.Sprintf(t.format, t.args...)
}

// Words is the message with each setting named by name(path).
func (t Text) Words(name func(path string) string) string {
	if t.format == "" {
		return ""
	}
	args := make([]any, len(t.args))
	for i, a := range t.args {
		switch x := a.(type) {
		case Path:
			a = name(string(x))
		case Text: // a message within the message
			a = x.Words(name)
		}
		args[i] = a
	}
	return fmt.Sprintf(t.format, args...)
}

// Within is err with its field path put under prefix: a *FieldError for
// "lease" within "queue" names "queue.lease", one for "[2].p_fail" within
// "steps" names "steps[2].p_fail". Any other error becomes a *FieldError
// naming prefix; nil stays nil.
func Within(prefix string, err error) error {
	if err == nil {
		return nil
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		return &FieldError{Field: prefix, Msg: err.Error()}
	}
	out := *fe
	out.Field = join(prefix, fe.Field)
	if fe.Fields != nil {
		out.Fields = make([]string, len(fe.Fields))
		for i, f := range fe.Fields {
			out.Fields[i] = join(prefix, f)
		}
		out.Field = strings.Join(out.Fields, " x ")
	}
	return &out
}

// join is the path of field within prefix.
func join(prefix, field string) string {
	if prefix == "" || strings.HasPrefix(field, "[") {
		return prefix + field
	}
	return prefix + "." + field
}
