package sim

import (
	"fmt"
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

// stepOf is the step ms holds, unchecked, refusing a key of the wrong type, unknown or missing as a
// *schema.FieldError under path (steps[1].p_fail).
func stepOf(ms stats.ModelStep, path string) (provider.Step, error) {
	st := provider.Step{Name: ms.Name}
	read := map[string]bool{}
	lookup := func(key string) (any, error) {
		read[key] = true
		if v := ms.Lookup(key); v != nil {
			return v, nil
		}
		return nil, pathtext.Errorf(path+"."+key, "missing; a shard's step holds every setting of a step but the run's policy")
	}
	whole := func(key string) (int64, error) {
		v, err := lookup(key)
		if err != nil {
			return 0, err
		}
		n, ok := v.(int64)
		if !ok {
			return 0, pathtext.Errorf(path+"."+key, "%v is not a whole number", v)
		}
		return n, nil
	}
	for _, s := range decl.StepSettings() {
		key := s.ShardKey
		var v any
		switch s.Get(provider.Step{}).(type) {
		case float64:
			x, err := lookup(key)
			if err != nil {
				return st, err
			}
			switch x := x.(type) {
			case int64:
				v = float64(x)
			case float64:
				v = x
			default:
				return st, pathtext.Errorf(path+"."+key, "%v is not a number", x)
			}
		case bool:
			x, err := lookup(key)
			if err != nil {
				return st, err
			}
			b, ok := x.(bool)
			if !ok {
				return st, pathtext.Errorf(path+"."+key, "%v is not true or false", x)
			}
			v = b
		case provider.Latency:
			median, err := whole(key + "_ns")
			if err != nil {
				return st, err
			}
			p99, err := whole(key + "_p99_ns")
			if err != nil {
				return st, err
			}
			v = provider.Latency{Median: time.Duration(median), P99: time.Duration(p99)}
		case int:
			if ms.Lookup(key) == nil {
				continue // the run's
			}
			n, err := whole(key)
			if err != nil {
				return st, err
			}
			if int64(int(n)) != n {
				return st, pathtext.Errorf(path+"."+key, "%d is beyond an int", n)
			}
			v = int(n)
		case *schema.KeyMode:
			if ms.Lookup(key) == nil {
				continue // the run's
			}
			read[key] = true
			name, ok := ms.Lookup(key).(string)
			if !ok {
				return st, pathtext.Errorf(path+"."+key, "%v is not a name", ms.Lookup(key))
			}
			k, err := enum.Parse[schema.KeyMode](name)
			if err != nil {
				return st, pathtext.Errorf(path+"."+key, "%v", err)
			}
			v = &k
		case *backoff.Schedule:
			if ms.Lookup(key) == nil {
				continue // the run's
			}
			read[key] = true
			b, err := backoffOf(ms.Lookup(key), path+"."+key)
			if err != nil {
				return st, err
			}
			v = b
		default:
			panic(fmt.Sprintf("sim: the step's setting %s is of a type a shard cannot read", key))
		}
		s.Set(&st, v)
	}
	for _, x := range ms.Settings {
		if !read[x.Key] {
			return st, pathtext.Errorf(path+"."+x.Key, "no setting of a step is written under this key")
		}
	}
	return st, nil
}

// backoffOf is the backoff a step's model holds under path: policy, base_ns and cap_ns only.
func backoffOf(v any, path string) (*backoff.Schedule, error) {
	m, ok := v.(stats.Settings)
	if !ok {
		return nil, pathtext.Errorf(path, "%v is not an object of policy, base_ns and cap_ns", v)
	}
	var b backoff.Schedule
	for _, x := range m {
		switch x.Key {
		case "policy":
			name, ok := x.Value.(string)
			if !ok {
				return nil, pathtext.Errorf(path+".policy", "%v is not a name", x.Value)
			}
			kind, err := enum.Parse[backoff.Kind](name)
			if err != nil {
				return nil, pathtext.Errorf(path+".policy", "%v", err)
			}
			b.Kind = kind
		case "base_ns", "cap_ns":
			n, ok := x.Value.(int64)
			if !ok {
				return nil, pathtext.Errorf(path+"."+x.Key, "%v is not a whole number", x.Value)
			}
			*map[string]*time.Duration{"base_ns": &b.Base, "cap_ns": &b.Cap}[x.Key] = time.Duration(n)
		default:
			return nil, pathtext.Errorf(path+"."+x.Key, "a backoff has no such key (want policy, base_ns, cap_ns)")
		}
	}
	for _, key := range []string{"policy", "base_ns", "cap_ns"} {
		if m.Lookup(key) == nil {
			return nil, pathtext.Errorf(path+"."+key, "missing; a step's backoff holds its policy, base_ns and cap_ns")
		}
	}
	return &b, nil
}
