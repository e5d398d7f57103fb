package stats_test

import (
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/stats"
)

// CheckName takes printable UTF-8 up to 200 bytes, whatever the script or
// punctuation (markdown and html escape what they must), and refuses each
// kind of character that moves the cursor, breaks a line or reorders text.
func TestCheckName(t *testing.T) {
	for _, ok := range []string{
		"", "send the welcome email", "a | b", "<script>alert(1)</script>", `back\slash`, "café ☕",
		"👩‍👩‍👧 (a ZWJ sequence)", "עברית", strings.Repeat("é", 100), strings.Repeat("x", 200), "\u00a0no-break space",
	} {
		if err := stats.CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v; want nil", ok, err)
		}
	}
	for _, tt := range []struct{ name, s, want string }{
		{"tab", "a\tb", `"a\tb" holds a control character`},
		{"newline", "a\nb", `"a\nb" holds a control character`},
		{"carriage return", "a\rb", `"a\rb" holds a control character`},
		{"ESC", "a\x1b[2Jb", `"a\x1b[2Jb" holds a control character`},
		{"NUL", "a\x00", `"a\x00" holds a control character`},
		{"DEL", "a\x7f", `"a\x7f" holds a control character`},
		{"C1 CSI", "a\u009bb", `"a\u009bb" holds a control character`},
		{"line separator", "a\u2028b", `"a\u2028b" holds a control character`},
		{"paragraph separator", "a\u2029b", `"a\u2029b" holds a control character`},
		{"right-to-left override", "a\u202eb", `"a\u202eb" holds a control character`},
		{"first strong isolate", "a\u2068b", `"a\u2068b" holds a control character`},
		{"left-to-right mark", "a\u200eb", `"a\u200eb" holds a control character`},
		{"right-to-left mark", "a\u200fb", `"a\u200fb" holds a control character`},
		{"arabic letter mark", "a\u061cb", `"a\u061cb" holds a control character`},
		{"not UTF-8", "a\xffb", `"a\xffb" is not valid UTF-8`},
		{"201 bytes", strings.Repeat("x", 201), `"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... is 201 bytes, more than the 200 a name may be`},
		{"201 bytes, multi-byte", "x" + strings.Repeat("é", 100), `"x` + strings.Repeat("é", 39) + `"... is 201 bytes, more than the 200 a name may be`},
	} {
		if err := stats.CheckName(tt.s); err == nil || err.Error() != tt.want {
			t.Errorf("%s: CheckName = %v; want %s", tt.name, err, tt.want)
		}
	}
}
