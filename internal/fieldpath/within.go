// Package fieldpath puts a *schema.FieldError's field path under its
// parent's (a step's, the queue's, a strategy's, a graph's entry), or
// renames it.
package fieldpath

import (
	"errors"
	"strings"

	"github.com/retrysim/retrysim/schema"
)

// Within is err with its field path put under prefix ("lease" within
// "queue" is "queue.lease"); another error names prefix, nil stays nil.
func Within(prefix string, err error) error {
	if err == nil {
		return nil
	}
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return &schema.FieldError{Field: prefix, Msg: err.Error()}
	}
	return Renamed(fe, func(field string) string { return join(prefix, field) })
}

// Renamed is err with its *schema.FieldError's field paths renamed by
// field, a joint error's each; another error stays as it is.
func Renamed(err error, field func(string) string) error {
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	out := *fe
	out.Field = field(fe.Field)
	if fe.Fields != nil {
		out.Fields = make([]string, len(fe.Fields))
		for i, f := range fe.Fields {
			out.Fields[i] = field(f)
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
