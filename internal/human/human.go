// Package human formats what retrysim prints for people to read (durations as people write
// them, counts with thousands separators, counted nouns, memory, lists): the one place that
// style is decided; csv and json print numbers raw.
package human

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Duration is d without its zero units (24h, 1h30m, 250ms), which time.ParseDuration reads.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Seconds is a time in seconds as Duration writes it, to the nanosecond.
func Seconds(s float64) string { return Duration(time.Duration(math.Round(s * float64(time.Second)))) }

// Group is n with thousands separators: 464233 as "464,233".
func Group(n int64) string {
	return Digits(strconv.FormatInt(n, 10))
}

// Digits is s with thousands separators in the whole part of its first number ("5022.7" as
// "5,022.7"); s without a number is returned as it is.
func Digits(s string) string {
	start := strings.IndexFunc(s, isDigit)
	if start < 0 {
		return s
	}
	end := start
	for end < len(s) && isDigit(rune(s[end])) {
		end++
	}
	if start > 0 && s[start-1] == '.' { // a fraction such as ".5": no whole part
		return s
	}
	whole := s[start:end]
	var b strings.Builder
	b.WriteString(s[:start])
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	b.WriteString(s[end:])
	return b.String()
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// Count is n with thousands separators and noun, plural unless n is 1: "1,000 jobs".
func Count(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Group(n) + " " + Plural(noun)
}

// Plural is an English noun's regular plural (processes, deliveries, jobs).
func Plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case len(noun) > 1 && noun[len(noun)-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// Durations is s with every word that is a Go duration as Duration writes it.
func Durations(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		core := strings.TrimRight(w, ",;)")
		if core == "" || !isDigit(rune(core[0])) || !strings.ContainsAny(core, "hmsuµn") { // "0" parses too
			continue
		}
		if d, err := time.ParseDuration(core); err == nil {
			words[i] = Duration(d) + w[len(core):]
		}
	}
	return strings.Join(words, " ")
}

// Article is noun with "a" or, before a vowel's letter, "an".
func Article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// GiB writes b bytes in GiB, or MiB below one.
func GiB(b float64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%.0f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", b/(1<<30))
}

// And lists words as a sentence does: "a", "a and b", "a, b and c".
func And(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// Wrap breaks text into lines of at most width columns, each starting with indent.
func Wrap(text, indent string, width int) string {
	return Fill(strings.Fields(text), indent, indent, width)
}

// Fill puts words on lines of at most width columns (a longer word alone), the first line
// starting with first and the others with rest, each ending with a newline.
func Fill(words []string, first, rest string, width int) string {
	var b strings.Builder
	line, indent := first, first
	for _, word := range words {
		if len(line) > len(indent) && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			b.WriteString(line + "\n")
			line, indent = rest, rest
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	if len(line) > len(indent) {
		b.WriteString(line + "\n")
	}
	return b.String()
}
