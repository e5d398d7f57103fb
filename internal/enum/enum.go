// Package enum holds the names of an enumeration's values, by which every
// enumeration of the public packages parses, prints and marshals as text;
// Names, Parse and Check read any such enumeration by those methods alone.
package enum

import (
	"encoding"
	"fmt"
	"strings"
)

// Enum is the names of an enumeration's values, value 0 first.
type Enum[T ~int] struct {
	What  string // names the enumeration in errors: "store"
	names []string
}

// New is the enumeration called what whose values 0, 1, ... are called names.
func New[T ~int](what string, names ...string) Enum[T] {
	return Enum[T]{What: what, names: names}
}

// Valid reports whether v is one of the values.
func (e Enum[T]) Valid(v T) bool { return v >= 0 && int(v) < len(e.names) }

// String is v's name, or "WHAT(v)" for a value that is not one.
func (e Enum[T]) String(v T) string {
	if !e.Valid(v) {
		return fmt.Sprintf("%s(%d)", e.What, int(v))
	}
	return e.names[v]
}

// Parse is the value called s; an unknown name is refused with those allowed.
func (e Enum[T]) Parse(s string) (T, error) {
	for i, n := range e.names {
		if n == s {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (want one of %s)", e.What, s, strings.Join(e.names, ", "))
}

// Check refuses a value that is not one, saying which are.
func (e Enum[T]) Check(v T) error {
	if !e.Valid(v) {
		return fmt.Errorf("%d is not a %s (want one of %s)", int(v), e.What, strings.Join(e.names, ", "))
	}
	return nil
}

// MarshalText is v's name; a value that is not one is refused.
func (e Enum[T]) MarshalText(v T) ([]byte, error) {
	if err := e.Check(v); err != nil {
		return nil, err
	}
	return []byte(e.names[v]), nil
}

// UnmarshalText sets *v to the value called text.
func (e Enum[T]) UnmarshalText(text []byte, v *T) error {
	x, err := e.Parse(string(text))
	if err != nil {
		return err
	}
	*v = x
	return nil
}

// Names are the names of T's values up to the first its MarshalText refuses.
func Names[T interface {
	~int
	encoding.TextMarshaler
}]() []string {
	var names []string
	for v := T(0); ; v++ {
		b, err := v.MarshalText()
		if err != nil {
			return names
		}
		names = append(names, string(b))
	}
}

// Parse is the value of T called s, read by T's UnmarshalText.
func Parse[T any, PT interface {
	*T
	encoding.TextUnmarshaler
}](s string) (T, error) {
	var v T
	err := PT(&v).UnmarshalText([]byte(s))
	return v, err
}

// Check is T's MarshalText's refusal of v.
func Check[T encoding.TextMarshaler](v T) error {
	_, err := v.MarshalText()
	return err
}

// Kind is what values a setting takes, so how files and flags read it.
type Kind int

const (
	Probability Kind = iota // a float64 from 0 to 1
	Duration                // a time.Duration from 0 to a year
	Whole                   // an int within the setting's bounds
	Latency                 // a provider.Latency
	OneOf                   // an Enum's value, written by its name
)
