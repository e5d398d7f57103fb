package sim

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// modelStep is st as a shard's model writes it: its name, then its decl.StepSettings by key, a
// latency as _ns and _p99_ns, the step's own policy left out where it keeps the run's.
func modelStep(st provider.Step) stats.ModelStep {
	ms := stats.ModelStep{Name: st.Name, Settings: stats.Settings{}}
	put := func(key string, v any) { ms.Settings = append(ms.Settings, stats.Setting{Key: key, Value: v}) }
	for _, s := range decl.StepSettings() {
		switch v := s.Get(st).(type) {
		case float64, bool:
			put(s.ShardKey, v)
		case provider.Latency:
			put(s.ShardKey+"_ns", int64(v.Median))
			put(s.ShardKey+"_p99_ns", int64(v.P99))
		case int:
			if v != 0 {
				put(s.ShardKey, int64(v))
			}
		case *schema.KeyMode:
			if v != nil {
				put(s.ShardKey, v.String())
			}
		case *backoff.Schedule:
			if v != nil {
				put(s.ShardKey, stats.Settings{{Key: "policy", Value: v.Kind.String()},
					{Key: "base_ns", Value: int64(v.Base)}, {Key: "cap_ns", Value: int64(v.Cap)}})
			}
		default:
			panic(fmt.Sprintf("sim: the step's setting %s is a %T, which a shard cannot write", s.ShardKey, v))
		}
	}
	return ms
}

// reader reads the settings a shard's model holds under path (steps[1], queue), refusing a key
// missing (saying why it must be there) or of the wrong type (quoting a non-number with nonNumber)
// as a *schema.FieldError under path, and notes the keys it read.
type reader struct {
	m         stats.Settings
	path      string
	missing   string
	nonNumber func(v any) string
	read      map[string]bool
}

// get is the value under key.
func (r *reader) get(key string) (any, error) {
	r.read[key] = true
	if v := r.m.Lookup(key); v != nil {
		return v, nil
	}
	return nil, pathtext.Errorf(r.path+"."+key, "%s", r.missing)
}

// typed is the value under key as a T, refused as not a what.
func typed[T any](r *reader, key, what string) (T, error) {
	v, err := r.get(key)
	x, ok := v.(T)
	if err == nil && !ok {
		err = pathtext.Errorf(r.path+"."+key, "%v is not a %s", v, what)
	}
	return x, err
}

// whole is the whole number under key.
func (r *reader) whole(key string) (int64, error) { return typed[int64](r, key, "whole number") }

// int is the whole number under key, refused beyond an int.
func (r *reader) int(key string) (int, error) {
	n, err := r.whole(key)
	if err == nil && int64(int(n)) != n {
		err = pathtext.Errorf(r.path+"."+key, "%d is beyond an int", n)
	}
	return int(n), err
}

// number is the number under key.
func (r *reader) number(key string) (float64, error) {
	v, err := r.get(key)
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	if err == nil {
		err = pathtext.Errorf(r.path+"."+key, "%s is not a number", r.nonNumber(v))
	}
	return 0, err
}

// latency is the latency under key: key_ns and key_p99_ns.
func (r *reader) latency(key string) (provider.Latency, error) {
	median, err := r.whole(key + "_ns")
	p99, err99 := r.whole(key + "_p99_ns")
	return provider.Latency{Median: time.Duration(median), P99: time.Duration(p99)}, cmp.Or(err, err99)
}

// name is the name under key.
func (r *reader) name(key string) (string, error) { return typed[string](r, key, "name") }

// unread refuses a key no setting of what is written under.
func (r *reader) unread(what string) error {
	for _, x := range r.m {
		if !r.read[x.Key] {
			return pathtext.Errorf(r.path+"."+x.Key, "no setting of %s is written under this key", what)
		}
	}
	return nil
}

// stepOf is the step ms holds, unchecked, refusing a key of the wrong type, unknown or missing as a
// *schema.FieldError under path (steps[1].p_fail).
func stepOf(ms stats.ModelStep, path string) (provider.Step, error) {
	st := provider.Step{Name: ms.Name}
	r := &reader{m: ms.Settings, path: path, read: map[string]bool{},
		missing: "missing; a shard's step holds every setting of a step but the run's policy", nonNumber: func(v any) string { return fmt.Sprint(v) }}
	for _, s := range decl.StepSettings() {
		key := s.ShardKey
		var v any
		var err error
		switch s.Get(provider.Step{}).(type) {
		case float64:
			v, err = r.number(key)
		case bool:
			v, err = r.get(key)
			if _, ok := v.(bool); err == nil && !ok {
				err = pathtext.Errorf(r.path+"."+key, "%v is not true or false", v)
			}
		case provider.Latency:
			v, err = r.latency(key)
		case int:
			if ms.Lookup(key) == nil {
				continue // the run's
			}
			v, err = r.int(key)
		case *schema.KeyMode:
			if ms.Lookup(key) == nil {
				continue // the run's
			}
			var name string
			if name, err = r.name(key); err == nil {
				var k schema.KeyMode
				if k, err = enum.Parse[schema.KeyMode](name); err != nil {
					err = pathtext.Errorf(r.path+"."+key, "%v", err)
				}
				v = &k
			}
		case *backoff.Schedule:
			if ms.Lookup(key) == nil {
				continue // the run's
			}
			r.read[key] = true
			v, err = backoffOf(ms.Lookup(key), path+"."+key)
		default:
			panic(fmt.Sprintf("sim: the step's setting %s is of a type a shard cannot read", key))
		}
		if err != nil {
			return st, err
		}
		s.Set(&st, v)
	}
	return st, r.unread("a step")
}

// backoffOf is the backoff a step's model holds under path: policy, base_ns and cap_ns only.
func backoffOf(v any, path string) (*backoff.Schedule, error) {
	m, ok := v.(stats.Settings)
	if !ok {
		return nil, pathtext.Errorf(path, "%v is not an object of policy, base_ns and cap_ns", v)
	}
	for _, x := range m {
		if !slices.Contains([]string{"policy", "base_ns", "cap_ns"}, x.Key) {
			return nil, pathtext.Errorf(path+"."+x.Key, "a backoff has no such key (want policy, base_ns, cap_ns)")
		}
	}
	r := &reader{m: m, path: path, read: map[string]bool{}, missing: "missing; a step's backoff holds its policy, base_ns and cap_ns"}
	name, err := r.name("policy")
	base, errBase := r.whole("base_ns")
	capNs, errCap := r.whole("cap_ns")
	if err := cmp.Or(err, errBase, errCap); err != nil {
		return nil, err
	}
	kind, err := enum.Parse[backoff.Kind](name)
	if err != nil {
		return nil, pathtext.Errorf(path+".policy", "%v", err)
	}
	return &backoff.Schedule{Kind: kind, Base: time.Duration(base), Cap: time.Duration(capNs)}, nil
}
