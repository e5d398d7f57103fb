package scenario

import (
	"encoding"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/retrysim/retrysim/fleet"
)

// Fleet is what a scenario file's fleet section sets for retrysim fleet: the
// client policy, its scope and parameters, and hedging. Its keys are the
// settings' short names (fleet.Param.Key) with _ for - (policy,
// policy_scope, hedges, hedge_delay, and each parameter the policy reads:
// bucket_rate, cb_open, ...); a time is a duration such as 10s. What it
// leaves out keeps its default.
type Fleet struct {
	Policy     fleet.PolicyConfig
	Hedges     int
	HedgeDelay time.Duration
	// Set names the settings the section gives by their fleet.Param.Key
	// (budget-ratio), with the line of each, so that a command can refuse
	// a setting given twice.
	Set map[string]int
	// file names the file, for Apply's errors.
	file string
	// other holds the client settings the section gives beyond the policy
	// and hedges (a fleet.Param a file may set that none of the fields
	// above holds).
	other fleet.Client
}

// Apply sets each setting the section gives (Set) in the client, leaving
// the others as they are, so that a setting the file does not give keeps
// the client's value; and it refuses a policy the client would never ask:
// with cl.Attempts 1 and no hedges only a policy that guards first calls is
// asked, as fleet.Config.Unread says of client.policy.kind.
func (f *Fleet) Apply(cl *fleet.Client) error {
	src := fleet.Config{Client: f.other}
	src.Client.Policy, src.Client.Hedges, src.Client.HedgeDelay = f.Policy, f.Hedges, f.HedgeDelay
	dst := fleet.Config{Client: *cl}
	for name := range f.Set { // each names its own field: the order does not matter
		p, _ := fleet.LookupKey(name) // fleetSection read only settings
		switch d := p.Field(&dst).(type) {
		case *float64:
			*d = *p.Field(&src).(*float64)
		case *int:
			*d = *p.Field(&src).(*int)
		case *time.Duration:
			*d = *p.Field(&src).(*time.Duration)
		case encoding.TextUnmarshaler: // a name: what src writes, dst reads
			text, _ := p.Field(&src).(encoding.TextMarshaler).MarshalText()
			d.UnmarshalText(text)
		}
	}
	*cl = dst.Client
	if k := cl.Policy.Kind; k != fleet.Unlimited && cl.Attempts == 1 && cl.Hedges == 0 && !k.GuardsFirst() {
		return fmt.Errorf("%s:%d sets policy %s, which with client.attempts 1 and no hedges is never asked", f.file, f.Set["policy"], k)
	}
	return nil
}

// DefaultHedgeDelay is the hedge delay when neither a flag nor a file sets
// one.
const DefaultHedgeDelay = fleet.DefaultHedgeDelay

// fleetSection reads the fleet mapping n, checked by the validators the
// flags go through; name labels errors.
func fleetSection(name string, n *yaml.Node) (*Fleet, error) {
	if n.Kind != yaml.MappingNode {
		return nil, &Error{File: name, Line: n.Line, Field: "fleet", Msg: "want a mapping of policy settings"}
	}
	f := &Fleet{Policy: fleet.DefaultPolicy(), HedgeDelay: DefaultHedgeDelay, Set: map[string]int{}, file: name}
	fail := func(k *yaml.Node, msg string) error {
		return &Error{File: name, Line: k.Line, Field: "fleet." + k.Value, Msg: msg}
	}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 { // checkKeys has refused duplicates
		k, v := n.Content[i], n.Content[i+1]
		flag := strings.ReplaceAll(k.Value, "_", "-")
		keys[flag] = k
		f.Set[flag] = k.Line
		if p, ok := fleet.LookupKey(flag); !ok || !p.File {
			return nil, fail(k, "unknown key (want policy, policy_scope, hedges, hedge_delay or a policy parameter such as cb_window)")
		}
		switch {
		case flag == "policy" || flag == "policy-scope":
			var s string
			if v.Kind != yaml.ScalarNode || v.Decode(&s) != nil {
				return nil, fail(k, fmt.Sprintf("%q is not text", v.Value))
			}
			var err error
			if flag == "policy" {
				f.Policy.Kind, err = fleet.ParsePolicy(s)
			} else {
				f.Policy.Shared, err = fleet.ParseScope(s)
			}
			if err != nil {
				return nil, fail(k, err.Error())
			}
		case flag == "hedges":
			var h whole
			if err := v.Decode(&h); err != nil {
				return nil, fail(k, err.(*fieldError).msg)
			}
			if h.v < 0 || h.v > fleet.MaxHedges {
				return nil, fail(k, fmt.Sprintf("%q is not a whole number from 0 to %d", v.Value, fleet.MaxHedges))
			}
			f.Hedges = h.v
		case flag == "hedge-delay" || fleet.ParamSeconds(keyPath(flag)):
			var d duration
			if err := v.Decode(&d); err != nil {
				msg := fmt.Sprintf("%q is not a duration such as 250ms or 2s", v.Value)
				if fe, ok := err.(*fieldError); ok {
					msg = fe.msg
				}
				return nil, fail(k, msg)
			}
			if flag == "hedge-delay" {
				f.HedgeDelay = d.v
			} else if !slices.Contains(fleet.PolicyParams(), keyPath(flag)) {
				if msg := f.setOther(flag, d.v.Seconds()); msg != "" {
					return nil, fail(k, msg)
				}
			} else if err := f.Policy.SetParam(keyPath(flag), d.v.Seconds()); err != nil {
				return nil, fail(k, err.Error())
			}
		case !slices.Contains(fleet.PolicyParams(), keyPath(flag)): // another client setting
			var x float64
			if v.Kind != yaml.ScalarNode || v.Decode(&x) != nil || math.IsNaN(x) {
				return nil, fail(k, fmt.Sprintf("%q is not a number", v.Value))
			}
			if msg := f.setOther(flag, x); msg != "" {
				return nil, fail(k, msg)
			}
		default: // a policy parameter
			var x float64
			if v.Kind != yaml.ScalarNode || v.Decode(&x) != nil || math.IsNaN(x) {
				return nil, fail(k, fmt.Sprintf("%q is not a number", v.Value))
			}
			if err := f.Policy.SetParam(keyPath(flag), x); err != nil {
				return nil, fail(k, fileWords(err.(*fleet.FieldError).Msg))
			}
		}
	}
	// Every key is read by what the section sets up, as every flag is:
	// Config.Unread says, for a client that retries (Apply refuses a
	// policy a client with one attempt never asks).
	c := fleet.DefaultConfig()
	c.Client.Attempts, c.Client.Policy, c.Client.Hedges, c.Client.HedgeDelay = 2, f.Policy, f.Hedges, f.HedgeDelay
	unread := c.Unread()
	for i := 0; i < len(n.Content); i += 2 {
		k := n.Content[i]
		if why := unread[keyPath(strings.ReplaceAll(k.Value, "_", "-"))]; why != "" {
			return nil, fail(k, fileWords(why))
		}
	}
	if err := f.Policy.Check(); err != nil {
		fe := err.(*fleet.FieldError)
		p, _ := fleet.LookupParam(fe.Field)
		k := keys[p.Key]
		if k == nil { // a default that the kind refuses cannot happen, but say where
			return nil, &Error{File: name, Line: n.Line, Field: "fleet", Msg: fileWords(err.Error())}
		}
		return nil, fail(k, fileWords(fe.Msg))
	}
	if f.Hedges > 0 && (f.HedgeDelay <= 0 || f.HedgeDelay > fleet.MaxSeconds*time.Second) {
		k := keys["hedge-delay"]
		if k == nil {
			k = keys["hedges"]
		}
		return nil, fail(k, fmt.Sprintf("a hedge delay of %v is not above 0 and at most %d s", f.HedgeDelay, fleet.MaxSeconds))
	}
	return f, nil
}

// setOther sets the client setting whose key is key, one the fields Policy,
// Hedges and HedgeDelay do not hold, to x (seconds for a time) within its
// bounds; it returns what is wrong, "" when nothing is.
func (f *Fleet) setOther(key string, x float64) string {
	p, _ := fleet.LookupKey(key)
	c := fleet.Config{Client: f.other}
	lo, hi := p.Lo, p.Hi
	if p.Probability {
		lo, hi = 0, 1
	}
	switch d := p.Field(&c).(type) {
	case *float64:
		if x < lo || x > hi {
			return fmt.Sprintf("%g is not from %g to %g", x, lo, hi)
		}
		*d = x
	case *int:
		if x != math.Trunc(x) || x < lo || x > hi {
			return fmt.Sprintf("%g is not a whole number from %g to %g", x, lo, hi)
		}
		*d = int(x)
	case *time.Duration:
		*d = time.Duration(math.Round(x * float64(time.Second)))
	default:
		return fmt.Sprintf("%g is not one of its names", x)
	}
	f.other = c.Client
	return ""
}

// keyPath is the path of the fleet setting whose key is key.
func keyPath(key string) string {
	p, _ := fleet.LookupKey(key)
	return p.Path
}

// fileWords is a fleet error's message with each setting it names by path
// named as the fleet section's key (grpc_max_tokens for
// client.policy.max_tokens).
func fileWords(msg string) string {
	return fleet.ReplacePaths(msg, func(p fleet.Param) string { return strings.ReplaceAll(p.Key, "-", "_") })
}
