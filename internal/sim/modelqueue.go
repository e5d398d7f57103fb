package sim

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/stats"
)

// modelKeys are the keys under which a shard file's model.queue writes
// setting s (stats.ModelQueue's json tags): its name with _ for ., a time
// in whole nanoseconds (_ns), a latency as its median and its p99
// (_ns, _p99_ns), an enumeration by its value's name.
func modelKeys(s delivery.Setting) []string {
	key := strings.ReplaceAll(s.Name, ".", "_")
	switch s.Kind {
	case schema.Duration:
		return []string{key + "_ns"}
	case schema.Latency:
		return []string{key + "_ns", key + "_p99_ns"}
	}
	return []string{key}
}

// modelFields are the fields of q that hold setting s, by modelKeys; a
// setting that stats.ModelQueue has no field for is a program error,
// which TestModelQueueHoldsEverySetting reports.
func modelFields(q *stats.ModelQueue, s delivery.Setting) []reflect.Value {
	v := reflect.ValueOf(q).Elem()
	var fields []reflect.Value
	for _, key := range modelKeys(s) {
		i := 0
		for i < v.NumField() && strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0] != key {
			i++
		}
		if i == v.NumField() {
			panic(fmt.Sprintf("sim: stats.ModelQueue has no field %q for the queue's setting %s", key, s.Name))
		}
		fields = append(fields, v.Field(i))
	}
	return fields
}

// modelQueue is q as a shard's model writes it: each setting of
// delivery.Settings in its fields (modelKeys).
func modelQueue(q delivery.Config) *stats.ModelQueue {
	m := &stats.ModelQueue{}
	for _, s := range delivery.Settings() {
		f := modelFields(m, s)
		switch v := s.Get(q).(type) {
		case time.Duration:
			f[0].SetInt(int64(v))
		case provider.Latency:
			f[0].SetInt(int64(v.Median))
			f[1].SetInt(int64(v.P99))
		case int:
			f[0].SetInt(int64(v))
		case float64:
			f[0].SetFloat(v)
		case fmt.Stringer: // an enumeration
			f[0].SetString(v.String())
		}
	}
	return m
}

// queueOf is the delivery model m holds, unchecked; a name that is no
// enumeration's value is refused as a *schema.FieldError naming the
// setting under queue (queue.store).
func queueOf(m *stats.ModelQueue) (delivery.Config, error) {
	var c delivery.Config
	for _, s := range delivery.Settings() {
		f := modelFields(m, s)
		switch s.Kind {
		case schema.Duration:
			s.Set(&c, time.Duration(f[0].Int()))
		case schema.Latency:
			s.Set(&c, provider.Latency{Median: time.Duration(f[0].Int()), P99: time.Duration(f[1].Int())})
		case schema.Whole:
			s.Set(&c, int(f[0].Int()))
		case schema.Probability:
			s.Set(&c, f[0].Float())
		case schema.OneOf:
			if err := s.SetText(&c, f[0].String()); err != nil {
				return c, schema.Errorf("queue."+s.Name, "%v", err)
			}
		}
	}
	return c, nil
}
