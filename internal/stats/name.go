package stats

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes is the longest name or label (CheckName) in bytes of UTF-8:
// room for a sentence, short enough to head a column.
const MaxNameBytes = 200

// CheckName refuses a name or label that an output could not print as
// written or read back: text CheckText refuses, or longer than
// MaxNameBytes. Every name a user gives (a scenario's name and noun, a
// step's name, a watched step's label, a strategy's label) is held to it by
// the scenario reader, the flags, shards and merge alike.
func CheckName(s string) error {
	if err := CheckText(s); err != nil {
		return err
	}
	if len(s) > MaxNameBytes {
		return fmt.Errorf("%.40q... is %d bytes, more than the %d a name may be", s, len(s), MaxNameBytes)
	}
	return nil
}

// CheckText refuses text that is not valid UTF-8 or holds a rune that
// would move the terminal's cursor, break a line or reorder what follows
// (IsControl), which would let a file's text forge lines of the table it
// is printed in, and which json would not write back as it read it.
func CheckText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%q is not valid UTF-8", s)
	}
	if strings.IndexFunc(s, IsControl) >= 0 {
		return fmt.Errorf("%q holds a control character", s)
	}
	return nil
}

// IsControl reports whether r is a control character (C0, DEL or C1), a
// line or paragraph separator (U+2028, U+2029), or a bidirectional mark,
// embedding, override or isolate (U+200E, U+200F, U+061C, U+202A to U+202E,
// U+2066 to U+2069), which reorders the text around it on screen.
func IsControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
		r == '\u200e' || r == '\u200f' || r == '\u061c' ||
		'\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069'
}
