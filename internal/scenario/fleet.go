package scenario

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/schema"
)

// Fleet is a scenario file's fleet section: any setting of
// decl.Params[fleet.Config] under its Key with _ for -, checked over
// fleet.DefaultConfig with each key at its line.
type Fleet struct {
	// Set is the line of each setting the section gives, by Key (as the
	// fleet command names its flags).
	Set    map[string]int
	file   string
	given  []decl.Param[fleet.Config] // the settings the section gives, in file order
	config fleet.Config               // fleet.DefaultConfig with each setting the section gives
}

// Apply sets each setting the section gives in c, keeping the others (a
// flag's), and refuses at its line a setting c then does not read.
func (f *Fleet) Apply(c *fleet.Config) error {
	src := f.config
	for _, p := range f.given {
		if d, ok := p.Field(c).(encoding.TextUnmarshaler); ok { // a name: what src writes, d reads
			text, _ := p.Field(&src).(encoding.TextMarshaler).MarshalText()
			d.UnmarshalText(text)
			continue
		}
		reflect.ValueOf(p.Field(c)).Elem().Set(reflect.ValueOf(p.Field(&src)).Elem())
	}
	cl := c.Client
	if k := cl.Policy.Kind; k != fleet.Unlimited && cl.Attempts == 1 && cl.Hedges == 0 && !k.GuardsFirst() {
		return &applyError{f.file, f.Set["policy"], pathtext.Textf("sets policy %s, which with %s 1 and no hedges is never asked", k, pathtext.Path("client.attempts"))}
	}
	unread := decl.UnreadWhy[fleet.Config](*c)
	for _, p := range f.given {
		if why, ok := unread[p.Path]; ok {
			return &Error{File: f.file, Line: f.Set[p.Key], Field: "fleet." + strings.ReplaceAll(p.Key, "-", "_"), Msg: why.Words(fleetKey)}
		}
	}
	return nil
}

// applyError is Apply's refusal of a key that the command's flags leave
// unread, naming those by path.
type applyError struct {
	file string
	line int
	text pathtext.Text
}

func (e *applyError) Error() string { return fmt.Sprintf("%s:%d %s", e.file, e.line, e.text) }

// Words is Error with each setting it names by path named by name.
func (e *applyError) Words(name func(path string) string) string {
	return fmt.Sprintf("%s:%d %s", e.file, e.line, e.text.Words(name))
}

// fleetSection reads the fleet mapping n of the file called name, each
// value checked as its flag checks it, then the whole over the defaults.
func fleetSection(name string, n *yaml.Node) (*Fleet, error) {
	if n.Kind != yaml.MappingNode {
		return nil, &Error{File: name, Line: n.Line, Field: "fleet", Msg: "want a mapping of fleet settings"}
	}
	f := &Fleet{Set: map[string]int{}, file: name, config: fleet.DefaultConfig()}
	fail := func(k *yaml.Node, msg string) error {
		return &Error{File: name, Line: k.Line, Field: "fleet." + k.Value, Msg: msg}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p, ok := decl.LookupKey[fleet.Config](strings.ReplaceAll(k.Value, "_", "-"))
		if !ok {
			return nil, fail(k, "unknown key (want a setting of retrysim fleet, named as its flag with _ for -: server, capacity, rate, policy, hedges, cb_window, ...)")
		}
		f.given = append(f.given, p)
		f.Set[p.Key] = k.Line
		if msg := setParam(p, &f.config, v); msg != "" {
			return nil, fail(k, msg)
		}
	}
	checked := f.config
	checked.Outage.From, checked.Outage.To = 0, checked.Duration
	unread := decl.UnreadWhy[fleet.Config](checked)
	for i, p := range f.given {
		if why, ok := unread[p.Path]; ok {
			return nil, fail(n.Content[2*i], why.Words(fleetKey))
		}
	}
	if err := checked.Check(); err != nil {
		fe, ok := err.(*schema.FieldError)
		if i := slices.IndexFunc(f.given, func(p decl.Param[fleet.Config]) bool { return ok && p.Path == fe.Field }); i >= 0 {
			return nil, fail(n.Content[2*i], pathtext.FieldWords(fe, fleetKey))
		}
	}
	return f, nil
}

// setParam sets p in c to v, checked as p's flag checks its own; it returns
// what is wrong, "" when nothing is.
func setParam(p decl.Param[fleet.Config], c *fleet.Config, v *yaml.Node) string {
	switch d := p.Field(c).(type) {
	case *float64:
		var x float64
		if v.Kind != yaml.ScalarNode || v.Decode(&x) != nil || math.IsNaN(x) {
			return fmt.Sprintf("%q is not a number", v.Value)
		}
		lo, hi := p.Lo, p.Hi
		if p.Probability {
			lo, hi = 0, 1
		}
		if x < lo || x > hi {
			return fmt.Sprintf("%g is not from %g to %g", x, lo, hi)
		}
		*d = x
	case *int:
		var w whole
		if err := v.Decode(&w); err != nil {
			return err.(*fieldError).msg
		}
		if w.v < int(p.Lo) || w.v > int(p.Hi) {
			return fmt.Sprintf("%q is not a whole number from %g to %g", v.Value, p.Lo, p.Hi)
		}
		*d = w.v
	case *time.Duration:
		t, msg := readDuration(v)
		if msg != "" {
			return msg
		}
		*d = t
	case encoding.TextUnmarshaler:
		var s string
		if v.Kind != yaml.ScalarNode || v.Decode(&s) != nil {
			return fmt.Sprintf("%q is not text", v.Value)
		}
		if err := d.UnmarshalText([]byte(s)); err != nil {
			return err.Error()
		}
	default:
		panic(fmt.Sprintf("scenario: the fleet setting %s is a %T, which a file cannot give", p.Path, d))
	}
	return ""
}

// fleetKey names the fleet setting at path as the fleet section's key
// (grpc_max_tokens for client.policy.max_tokens), or as it is.
func fleetKey(path string) string {
	if p, ok := decl.LookupParam[fleet.Config](path); ok {
		return strings.ReplaceAll(p.Key, "-", "_")
	}
	return path
}
