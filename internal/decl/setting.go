package decl

import (
	"encoding"
	"fmt"

	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/schema"
)

// Setting is one setting of a model's configuration C (a delivery.Config),
// declared once in its package's table; its default is its value in the
// package's default C.
type Setting[C any] struct {
	Name string // as Override names it after "queue.": ttl, backoff (the policy)
	Key  string // in a scenario file's section and errors: backoff.policy
	// Doc says what it means, its argument's name in backquotes, naming
	// other settings by their full paths (queue.store).
	Doc      string
	Kind     enum.Kind
	Min, Max int    // bound a whole number
	Example  string // as YAML

	get          func(c C) any
	set          func(c *C, v any) bool
	setText      func(c *C, text string) error // for an enum.OneOf
	bounds, rule func(c C) error               // rule: what its own meaning refuses
}

// Get is the setting's value in c, of the field's own type.
func (s Setting[C]) Get(c C) any { return s.get(c) }

// Set sets the setting in c to v, reporting false (changing nothing) for a
// value of another type.
func (s Setting[C]) Set(c *C, v any) bool { return s.set(c, v) }

// SetText sets a setting of kind enum.OneOf in c from its value's name.
func (s Setting[C]) SetText(c *C, text string) error {
	if s.setText == nil {
		return fmt.Errorf("%s is not set by a name", s.Name)
	}
	return s.setText(c, text)
}

// Check refuses the setting's value in c as a *schema.FieldError naming its Key.
func (s Setting[C]) Check(c C) error {
	for _, check := range []func(C) error{s.bounds, s.rule} {
		if check == nil {
			continue
		}
		if err := check(c); err != nil {
			return &schema.FieldError{Field: s.Key, Msg: err.Error()}
		}
	}
	return nil
}

// New is the setting of kind k whose field where returns, bounded by check.
func New[C, T any](name, key string, k enum.Kind, where func(*C) *T, check func(T) error) Setting[C] {
	return Setting[C]{
		Name: name, Key: key, Kind: k,
		get: func(c C) any { return *where(&c) },
		set: func(c *C, v any) bool {
			x, ok := v.(T)
			if ok {
				*where(c) = x
			}
			return ok
		},
		bounds: func(c C) error { return check(*where(&c)) },
	}
}

// Whole is the setting of a whole number from lo to hi whose field where
// returns.
func Whole[C any](name, key string, lo, hi int, where func(*C) *int) Setting[C] {
	s := New(name, key, enum.Whole, where, func(n int) error {
		if n < lo || n > hi {
			return fmt.Errorf("%d is not a whole number from %d to %d", n, lo, hi)
		}
		return nil
	})
	s.Min, s.Max = lo, hi
	return s
}

// OneOf is the setting of an enumeration's value whose field where
// returns, set by its name too.
func OneOf[C any, T encoding.TextMarshaler, PT interface {
	*T
	encoding.TextUnmarshaler
}](name, key string, where func(*C) *T) Setting[C] {
	s := New(name, key, enum.OneOf, where, enum.Check[T])
	s.setText = func(c *C, text string) error { return PT(where(c)).UnmarshalText([]byte(text)) }
	return s
}

// With is s with its doc and example, and rule if not nil.
func (s Setting[C]) With(doc, example string, rule func(C) error) Setting[C] {
	s.Doc, s.Example, s.rule = doc, example, rule
	return s
}

// Settings lists the settings of C in their table's order, a fresh slice.
func Settings[C any]() []Setting[C] { return Table[Setting[C]]() }
