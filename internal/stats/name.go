package stats

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes is the longest name or label in bytes of UTF-8.
const MaxNameBytes = 200

// CheckName refuses a name or label an output could not print as written or read back: text
// CheckText refuses, or longer than MaxNameBytes.
func CheckName(s string) error {
	if err := CheckText(s); err != nil {
		return err
	}
	if len(s) > MaxNameBytes {
		return fmt.Errorf("%.40q... is %d bytes, more than the %d a name may be", s, len(s), MaxNameBytes)
	}
	return nil
}

// CheckText refuses text that is not valid UTF-8 or holds a control character, which would let a
// file's text forge lines of a table.
func CheckText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%q is not valid UTF-8", s)
	}
	if strings.IndexFunc(s, IsControl) >= 0 {
		return fmt.Errorf("%q holds a control character", s)
	}
	return nil
}

// IsControl reports whether r is a control character, a line or paragraph separator, or a
// bidirectional mark, embedding, override or isolate.
func IsControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
		r == '\u200e' || r == '\u200f' || r == '\u061c' ||
		'\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069'
}
