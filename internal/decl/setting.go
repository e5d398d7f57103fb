package decl

import (
	"encoding"
	"fmt"

	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/schema"
)

// Setting is one setting of a model's configuration C (the delivery model's
// queue, a delivery.Config), declared once in its package's table: its name,
// its key in a scenario file, what it means, what values it takes, an
// example, and its field in a C. Override, a sweep's axes, the command's
// flags and help, the scenario file's section and its reference, and C's
// Check are all read from it; its default is its value in the package's
// default C.
type Setting[C any] struct {
	// Name is the setting's path under its section, as Override and a
	// sweep name it after "queue.": ttl, backoff.base, backoff (the
	// backoff's policy).
	Name string
	// Key is its path in a scenario file's section, a dot for a nested
	// mapping: ttl, backoff.base, backoff.policy. Check's
	// *schema.FieldError names it.
	Key string
	// Doc says what it means, its argument's name in backquotes, as package
	// flag reads a flag's help; it names other settings by their full
	// paths, as Override takes them (queue.store), which a command's help
	// turns into its flags' names.
	Doc string
	// Kind is what values it takes.
	Kind enum.Kind
	// Min and Max bound a whole number (Kind enum.Whole).
	Min, Max int
	// Example is a value a scenario file may give it, as YAML.
	Example string

	// get is the setting's field in c, of its own type; set sets the field
	// in c to v, of its own type, reporting false for a value of another
	// type; setText sets it from its name (a enum.OneOf).
	get     func(c C) any
	set     func(c *C, v any) bool
	setText func(c *C, text string) error
	// bounds refuses the field's value in c where its kind bounds it; rule,
	// if not nil, refuses what the setting's own meaning does.
	bounds, rule func(c C) error
}

// Get is the setting's value in c, of the field's own type: a float64 for
// a probability, an int for a whole number, a time.Duration, a
// provider.Latency, or the enumeration's type (delivery.Store,
// backoff.Kind, delivery.CrashPoint).
func (s Setting[C]) Get(c C) any { return s.get(c) }

// Set sets the setting in c to v, of the field's own type (Get); it reports
// false, and changes nothing, for a value of another type.
func (s Setting[C]) Set(c *C, v any) bool { return s.set(c, v) }

// SetText sets a setting of kind enum.OneOf in c from its value's name,
// as a scenario file writes it; an unknown name is refused with the names
// allowed.
func (s Setting[C]) SetText(c *C, text string) error {
	if s.setText == nil {
		return fmt.Errorf("%s is not set by a name", s.Name)
	}
	return s.setText(c, text)
}

// Check refuses the setting's value in c that C's Check refuses, as a
// *schema.FieldError naming its Key.
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

// OneOf is the setting of a value of an enumeration whose field where
// returns, set by its name too: T's MarshalText refuses a value that is not
// one, and its UnmarshalText reads a name.
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

// Settings declares every setting of C once, in the order its package's
// table lists them (Register). The result is a fresh slice.
func Settings[C any]() []Setting[C] { return Table[Setting[C]]() }
