package fieldpath_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/schema"
)

// Within puts a field path under its parent, through wrapping, and makes
// any other error the parent's.
func TestWithin(t *testing.T) {
	for _, tt := range []struct {
		prefix string
		err    error
		want   string
	}{
		{"queue", &schema.FieldError{Field: "lease", Msg: "bad"}, "queue.lease"},
		{"queue", &schema.FieldError{Field: "backoff.cap", Msg: "bad"}, "queue.backoff.cap"},
		{"steps", &schema.FieldError{Field: "[2].p_fail", Msg: "bad"}, "steps[2].p_fail"},
		{"scenario", fmt.Errorf("wrapped: %w", &schema.FieldError{Field: "steps[0].latency", Msg: "bad"}), "scenario.steps[0].latency"},
		{"scenario", errors.New("bad"), "scenario"},
	} {
		var fe *schema.FieldError
		if err := fieldpath.Within(tt.prefix, tt.err); !errors.As(err, &fe) || fe.Field != tt.want || fe.Msg != "bad" {
			t.Errorf("Within(%q, %v) = %v; want a FieldError for %s: bad", tt.prefix, tt.err, err, tt.want)
		}
	}
	if fieldpath.Within("queue", nil) != nil {
		t.Error("Within(queue, nil) is not nil")
	}
	joint := &schema.FieldError{Field: "a x b", Fields: []string{"a", "b"}, Msg: "bad"}
	var fe *schema.FieldError
	if err := fieldpath.Within("queue", joint); !errors.As(err, &fe) || fe.Field != "queue.a x queue.b" || len(fe.Fields) != 2 || fe.Fields[0] != "queue.a" || fe.Fields[1] != "queue.b" || joint.Fields[0] != "a" {
		t.Errorf("Within(queue, a x b) = %+v; want each field under queue, the input unchanged", fe)
	}
}

// Errorf keeps the settings its message names as Paths: Msg and Error name
// them by path, Words as a reader does, a Text within the message included;
// Within keeps them, and a message changed since is Msg as it is.
func TestFieldErrorWords(t *testing.T) {
	flag := func(p string) string { return "-" + strings.ReplaceAll(p, ".", "-") }
	inner := pathtext.Textf("1 + %s", pathtext.Path("client.hedges"))
	err := pathtext.Errorf("lease", "%d attempts (%s) with %s %s", 3, inner, pathtext.Path("queue.store"), "lease")
	var fe *schema.FieldError
	if !errors.As(fieldpath.Within("queue", err), &fe) {
		t.Fatalf("Within(queue, %v) is no *FieldError", err)
	}
	if want := "queue.lease: 3 attempts (1 + client.hedges) with queue.store lease"; fe.Error() != want {
		t.Errorf("Error() = %q; want %q", fe.Error(), want)
	}
	if got, want := pathtext.FieldWords(fe, flag), "3 attempts (1 + -client-hedges) with -queue-store lease"; got != want {
		t.Errorf("Words(flag) = %q; want %q", got, want)
	}
	fe.Msg = "changed queue.store"
	if got := pathtext.FieldWords(fe, flag); got != fe.Msg {
		t.Errorf("Words(flag) of a changed message = %q; want Msg, %q", got, fe.Msg)
	}
	if got := pathtext.FieldWords(&schema.FieldError{Field: "a", Msg: "b queue.store"}, flag); got != "b queue.store" {
		t.Errorf("Words of a FieldError Errorf did not make = %q; want its Msg", got)
	}
}
