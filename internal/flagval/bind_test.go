package flagval

import (
	"fmt"
	"testing"
	"time"
)

// Each Var writes an accepted value into its field, prints the field, and
// refuses what the value type it parses through refuses, with the same
// words, leaving the field as it was.
func TestVarsWriteTheirField(t *testing.T) {
	var (
		n     = 3
		x     = 0.5
		d     = time.Second
		secs  = 1.5
		shape = "a"
	)
	parse := func(s string) (string, error) {
		if s != "a" && s != "b" {
			return "", fmt.Errorf("unknown %q (want a or b)", s)
		}
		return s, nil
	}
	for _, tc := range []struct {
		name          string
		set, good     string
		after, before string // String after good, and the field as String before
		bad, badErr   string
	}{
		{"int", "7", "7", "7", "3", "101", "want a whole number from 1 to 100"},
		{"float", "0.25", "0.25", "0.25", "0.5", "2", "want a number from 0 to 1"},
		{"duration", "250ms", "250ms", "250ms", "1s", "-1s", "-1s is negative"},
		{"seconds", "2m", "2m", "2m0s", "1.5s", "soon", "want a duration from 0 to 8760h, such as 250ms, 2s or 24h"},
		{"name", "b", "b", "b", "a", "c", `unknown "c" (want a or b)`},
	} {
		v := map[string]interface {
			String() string
			Set(string) error
		}{
			"int": IntVar(&n, 1, 100), "float": FloatVar(&x, 0, 1), "duration": DurationVar(&d),
			"seconds": SecondsVar(&secs), "name": NameVar(&shape, parse, func(s string) string { return s }),
		}[tc.name]
		if got := v.String(); got != tc.before {
			t.Errorf("%s: String() = %q; want %q", tc.name, got, tc.before)
		}
		if err := v.Set(tc.bad); err == nil || err.Error() != tc.badErr || v.String() != tc.before {
			t.Errorf("%s: Set(%q) = %v, leaving %s; want %q, leaving %s", tc.name, tc.bad, err, v, tc.badErr, tc.before)
		}
		if err := v.Set(tc.good); err != nil || v.String() != tc.after {
			t.Errorf("%s: Set(%q) = %v, then String() = %q; want nil, %q", tc.name, tc.good, err, v, tc.after)
		}
	}
	if n != 7 || x != 0.25 || d != 250*time.Millisecond || secs != 120 || shape != "b" {
		t.Errorf("fields %d, %g, %v, %g, %q; want 7, 0.25, 250ms, 120, b", n, x, d, secs, shape)
	}
}
