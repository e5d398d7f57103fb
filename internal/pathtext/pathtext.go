// Package pathtext holds messages that name settings by their paths (Text, with
// each setting a Path argument), so that a reader (a command's flags, a
// scenario file's keys) names them in its own words, and Errorf, the
// *schema.FieldError whose message is one.
package pathtext

import "fmt"

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

// newFieldError and fieldErrorText are package schema's, which SetFieldError
// stores: schema imports this package for a *FieldError's Text, so this one
// cannot import schema.
var (
	newFieldError  func(field string, t Text) error
	fieldErrorText func(err error) (msg string, t Text)
)

// SetFieldError stores schema's constructor of a *schema.FieldError whose
// message keeps its Text, and its reader of a *schema.FieldError's message
// and Text; package schema calls it from its init.
func SetFieldError(make func(field string, t Text) error, read func(err error) (msg string, t Text)) {
	newFieldError, fieldErrorText = make, read
}

// Errorf is a *schema.FieldError for field with a formatted message, whose
// Path arguments FieldWords names as a reader calls them.
func Errorf(field, format string, args ...any) error {
	return newFieldError(field, Textf(format, args...))
}

// FieldWords is the message of fe, a *schema.FieldError, with each setting
// it names (a Path argument of Errorf) named by name: a command's flag, a
// file's key. A message not made by Errorf, or changed since, is its Msg as
// it is.
func FieldWords(fe error, name func(path string) string) string {
	msg, t := fieldErrorText(fe)
	if t.String() != msg {
		return msg
	}
	return t.Words(name)
}
