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

// modelSettings are the queue's settings in model.queue's order: its own first, then its backoff's
// (a key with one dot, backoff.base).
func modelSettings() []decl.Setting[delivery.Config] {
	ss := decl.Settings[delivery.Config]()
	slices.SortStableFunc(ss, func(a, b decl.Setting[delivery.Config]) int {
		return strings.Count(a.Key, ".") - strings.Count(b.Key, ".")
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
	r := &reader{m: m, path: "queue", read: map[string]bool{},
		missing: "missing; a shard's queue holds every setting of the delivery model",
		nonNumber: func(v any) string {
			text, _ := json.Marshal(v) // as the file has it: "0.25", true, null
			return string(text)
		}}
	for _, s := range modelSettings() {
		keys := modelKeys(s)
		for _, k := range keys { // each there before any is read
			if _, err := r.get(k); err != nil {
				return c, err
			}
		}
		var v any
		var err error
		switch s.Kind {
		case enum.Duration:
			var ns int64
			ns, err = r.whole(keys[0])
			v = time.Duration(ns)
		case enum.Latency:
			v, err = r.latency(strings.TrimSuffix(keys[0], "_ns"))
		case enum.Whole:
			v, err = r.int(keys[0])
		case enum.Probability:
			v, err = r.number(keys[0])
		case enum.OneOf:
			var name string
			if name, err = r.name(keys[0]); err == nil {
				if err := s.SetText(&c, name); err != nil {
					return c, pathtext.Errorf("queue."+keys[0], "%v", err)
				}
				continue
			}
		default:
			panic(fmt.Sprintf("sim: the queue's setting %s is of a kind a shard cannot read", s.Name))
		}
		if err != nil {
			return c, err
		}
		s.Set(&c, v)
	}
	return c, r.unread("the delivery model")
}
