// Package pathtext holds messages that name settings by their paths, so
// that a reader (a command's flags, a file's keys) names them in its words.
package pathtext

import "fmt"

// Path is a setting named in a message by its path (queue.lease).
type Path string

// Text is a message whose format arguments name each setting as a Path.
type Text struct {
	format string
	args   []any
}

// Textf is the message format with args.
func Textf(format string, args ...any) Text { return Text{format, args} }

// String is the message with each setting named by its path.
func (t Text) String() string { return t.Words(func(path string) string { return path }) }

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

// newFieldError and fieldErrorText are package schema's, which imports this one.
var (
	newFieldError  func(field string, t Text) error
	fieldErrorText func(err error) (msg string, t Text)
)

// SetFieldError stores schema's maker and reader of a *schema.FieldError
// that keeps its Text; schema calls it from its init.
func SetFieldError(make func(field string, t Text) error, read func(err error) (msg string, t Text)) {
	newFieldError, fieldErrorText = make, read
}

// Errorf is a *schema.FieldError for field with a formatted message.
func Errorf(field, format string, args ...any) error {
	return newFieldError(field, Textf(format, args...))
}

// FieldWords is the message of fe, a *schema.FieldError, with each Path
// named by name; a message not made by Errorf, or changed since, as it is.
func FieldWords(fe error, name func(path string) string) string {
	msg, t := fieldErrorText(fe)
	if t.String() != msg {
		return msg
	}
	return t.Words(name)
}
