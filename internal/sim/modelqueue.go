package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
)

// modelKeys are the keys of setting s in a shard's model.queue: its name with _ for ., a time in
// _ns, a latency in _ns and _p99_ns.
func modelKeys(s decl.Setting[delivery.Config]) []string {
	key := strings.ReplaceAll(s.Name, ".", "_")
	switch s.Kind {
	case enum.Duration:
		return []string{key + "_ns"}
	case enum.Latency:
		return []string{key + "_ns", key + "_p99_ns"}
	}
	return []string{key}
}

// modelSettings are the queue's settings in model.queue's order: its own first, then its backoff's.
func modelSettings() []decl.Setting[delivery.Config] {
	ss := decl.Settings[delivery.Config]()
	slices.SortStableFunc(ss, func(a, b decl.Setting[delivery.Config]) int {
		inA, inB := strings.Contains(a.Key, "."), strings.Contains(b.Key, ".")
		switch {
		case inA == inB:
			return 0
		case inB:
			return -1
		}
		return 1
	})
	return ss
}

// modelQueue is q as a shard's model writes it.
func modelQueue(q delivery.Config) stats.Settings {
	m := stats.Settings{}
	for _, s := range modelSettings() {
		keys := modelKeys(s)
		var values []any
		switch v := s.Get(q).(type) {
		case time.Duration:
			values = []any{int64(v)}
		case provider.Latency:
			values = []any{int64(v.Median), int64(v.P99)}
		case int:
			values = []any{int64(v)}
		case float64:
			values = []any{v}
		case fmt.Stringer: // an enumeration
			values = []any{v.String()}
		default:
			panic(fmt.Sprintf("sim: the queue's setting %s is a %T, which a shard cannot write", s.Name, v))
		}
		for i, k := range keys {
			m = append(m, stats.Setting{Key: k, Value: values[i]})
		}
	}
	return m
}

// queueOf is the delivery model m holds, unchecked, refusing what is wrong as a *schema.FieldError
// under queue (queue.ttl_ns).
func queueOf(m stats.Settings) (delivery.Config, error) {
	var c delivery.Config
	read := map[string]bool{}
	for _, s := range modelSettings() {
		keys := modelKeys(s)
		values := make([]any, len(keys))
		for i, k := range keys {
			values[i] = m.Lookup(k)
			if values[i] == nil {
				return c, pathtext.Errorf("queue."+k, "missing; a shard's queue holds every setting of the delivery model")
			}
			read[k] = true
		}
		whole := func(i int) (int64, error) {
			n, ok := values[i].(int64)
			if !ok {
				return 0, pathtext.Errorf("queue."+keys[i], "%v is not a whole number", values[i])
			}
			return n, nil
		}
		switch s.Kind {
		case enum.Duration, enum.Latency:
			var ns [2]int64
			for i := range keys {
				var err error
				if ns[i], err = whole(i); err != nil {
					return c, err
				}
			}
			if s.Kind == enum.Duration {
				s.Set(&c, time.Duration(ns[0]))
			} else {
				s.Set(&c, provider.Latency{Median: time.Duration(ns[0]), P99: time.Duration(ns[1])})
			}
		case enum.Whole:
			n, err := whole(0)
			if err != nil {
				return c, err
			}
			if int64(int(n)) != n {
				return c, pathtext.Errorf("queue."+keys[0], "%d is beyond an int", n)
			}
			s.Set(&c, int(n))
		case enum.Probability:
			switch x := values[0].(type) {
			case int64:
				s.Set(&c, float64(x))
			case float64:
				s.Set(&c, x)
			default:
				text, _ := json.Marshal(x) // as the file has it: "0.25", true, null
				return c, pathtext.Errorf("queue."+keys[0], "%s is not a number", text)
			}
		case enum.OneOf:
			name, ok := values[0].(string)
			if !ok {
				return c, pathtext.Errorf("queue."+keys[0], "%v is not a name", values[0])
			}
			if err := s.SetText(&c, name); err != nil {
				return c, pathtext.Errorf("queue."+keys[0], "%v", err)
			}
		default:
			panic(fmt.Sprintf("sim: the queue's setting %s is of a kind a shard cannot read", s.Name))
		}
	}
	for _, x := range m {
		if !read[x.Key] {
			return c, pathtext.Errorf("queue."+x.Key, "no setting of the delivery model is written under this key")
		}
	}
	return c, nil
}
