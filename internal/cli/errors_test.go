package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/retrysim/retrysim/schema"
)

// FlagError names the flag of a refused setting from its table: a path
// exactly, or the rest of a path after a PREFIX*, or any path for "*";
// it unwraps the library's error, and leaves alone one whose path the
// table has no flag of and any error that is no *schema.FieldError.
func TestFlagErrorTable(t *testing.T) {
	names := Names{"replicates": "-replicates", "search.*": "-search: %s"}
	for _, tc := range []struct {
		err   error
		names Names
		want  string
	}{
		{&schema.FieldError{Field: "replicates", Msg: "0 is not from 1 to 1000"}, names, "-replicates: 0 is not from 1 to 1000"},
		{&schema.FieldError{Field: "search.client.attempts", Msg: "0 is not from 1 to 10"}, names, "-search: client.attempts: 0 is not from 1 to 10"},
		{fmt.Errorf("run 2: %w", &schema.FieldError{Field: "replicates", Msg: "too many"}), names, "-replicates: too many"},
		{&schema.FieldError{Field: "duration", Msg: "too long"}, names, "duration: too long"},
		{&schema.FieldError{Field: "duration", Msg: "too long"}, Names{"*": "-heights (%s)"}, "-heights (duration): too long"},
		{errors.New("interrupted"), Names{"*": "-x"}, "interrupted"},
	} {
		if got := FlagError(tc.err, tc.names, nil).Error(); got != tc.want {
			t.Errorf("FlagError(%v, %v) = %q; want %q", tc.err, tc.names, got, tc.want)
		}
	}
	words := func(fe *schema.FieldError) string { return "in words: " + fe.Msg }
	if got, want := FlagError(&schema.FieldError{Field: "replicates", Msg: "0"}, names, words).Error(), "-replicates: in words: 0"; got != want {
		t.Errorf("FlagError with words = %q; want %q", got, want)
	}
}
