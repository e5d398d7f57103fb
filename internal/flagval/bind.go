package flagval

import (
	"encoding"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/provider"
)

// fieldVar is a flag.Value writing into *p, a field of a configuration,
// what parse reads; a refused value leaves it as it was.
type fieldVar[T any] struct {
	p     *T
	parse func(string) (T, error)
	text  func(T) string
}

func (v fieldVar[T]) String() string {
	if v.p == nil {
		return ""
	}
	return v.text(*v.p)
}

func (v fieldVar[T]) Set(s string) error {
	x, err := v.parse(s)
	if err == nil {
		*v.p = x
	}
	return err
}

func (v fieldVar[T]) Get() any { return *v.p }

// NameVar is one of a fixed list of names, as parse reads and text writes
// them, writing into *p.
func NameVar[T any](p *T, parse func(string) (T, error), text func(T) string) flag.Value {
	return fieldVar[T]{p, parse, text}
}

// IntVar is Bounded writing into *p.
func IntVar(p *int, lo, hi int) flag.Value {
	return fieldVar[int]{p, func(s string) (int, error) {
		b := Bounded{Lo: lo, Hi: hi}
		err := b.Set(s)
		return b.V, err
	}, strconv.Itoa}
}

// FloatVar is a number from lo to hi writing into *p.
func FloatVar(p *float64, lo, hi float64) flag.Value {
	return fieldVar[float64]{p, func(s string) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v >= lo && v <= hi) {
			return 0, fmt.Errorf("want a number from %g to %g", lo, hi)
		}
		return v, nil
	}, func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }}
}

// DurationVar is a duration from 0 to limits.MaxDuration, as scenario
// files check theirs, writing into *p.
func DurationVar(p *time.Duration) flag.Value {
	return fieldVar[time.Duration]{p, func(s string) (time.Duration, error) {
		v, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return 0, fmt.Errorf("want a duration from 0 to 8760h, such as 250ms, 2s or 24h")
		}
		return v, limits.Duration(v)
	}, human.Duration}
}

// ListVar is a comma-separated list of names parse reads, written into *p
// in the order given; one name refused, or given twice, refuses the list.
func ListVar[T any](p *[]T, parse func(string) (T, error), text func(T) string) flag.Value {
	join := func(xs []T) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = text(x)
		}
		return strings.Join(s, ",")
	}
	return fieldVar[[]T]{p, func(s string) ([]T, error) {
		var out []T
		for name := range strings.SplitSeq(s, ",") {
			x, err := parse(name)
			if err != nil {
				return nil, err
			}
			if slices.ContainsFunc(out, func(y T) bool { return text(y) == text(x) }) {
				return nil, fmt.Errorf("%q is listed twice", text(x))
			}
			out = append(out, x)
		}
		return out, nil
	}, join}
}

// NotHere is another command's flag, or a flag's old name ("renamed: " and
// what replaced it), refused with the text; -help leaves it out.
type NotHere string

func (n NotHere) String() string   { return "" }
func (n NotHere) Set(string) error { return errors.New(string(n)) }
func (n NotHere) IsBoolFlag() bool { return true }

// Given is the set of flags the command line set.
func Given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// ParamVar is the flag of the fleet setting p, writing into c: the Var its
// field's kind asks for (a Probability's own refusal for a probability).
func ParamVar(p decl.Param[fleet.Config], c *fleet.Config) flag.Value {
	switch f := p.Field(c).(type) {
	case *float64:
		if p.Probability {
			return (*Probability)(f)
		}
		return FloatVar(f, p.Lo, p.Hi)
	case *int:
		return IntVar(f, int(p.Lo), int(p.Hi))
	case *time.Duration:
		return DurationVar(f)
	case text:
		return textVar{f}
	}
	panic(fmt.Sprintf("fleet setting %s: a field of kind %T", p.Path, p.Field(c)))
}

// text is a setting written and read as text, such as a name.
type text interface {
	encoding.TextMarshaler
	encoding.TextUnmarshaler
}

type textVar struct{ t text }

func (v textVar) String() string {
	if v.t == nil {
		return ""
	}
	b, _ := v.t.MarshalText()
	return string(b)
}

func (v textVar) Set(s string) error { return v.t.UnmarshalText([]byte(s)) }

// SettingVar is the flag of the library's setting s at its default, whose
// Get is the value api.Override takes.
func SettingVar(s jobapi.SettingDef) flag.Value {
	switch v := s.Default.(type) {
	case float64:
		if s.Name == "queue.crash" {
			return &CrashProbability{P: Probability(v)}
		}
		return (*Probability)(&v)
	case int:
		return &Bounded{V: v, Lo: s.Min, Hi: s.Max}
	case time.Duration:
		return DurationVar(&v)
	case provider.Latency:
		return LatencyVar(&v)
	case backoff.Kind:
		return NameVar(&v, enum.Parse[backoff.Kind], backoff.Kind.String)
	case delivery.Store:
		return NameVar(&v, enum.Parse[delivery.Store], delivery.Store.String)
	case delivery.CrashPoint:
		return NameVar(&v, parseCrashPoint, delivery.CrashPoint.String)
	}
	panic(fmt.Sprintf("setting %s: a value of type %T", s.Name, s.Default))
}
