package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/stats"
)

// TestResetZeroesEveryCounter fills every field of a Counters, found by
// reflection (so a counter added later is filled too), and holds reset to
// what it stands for, stats.Counters{Jobs: n}; and, from zero, it leaves the
// empty histograms as they are.
func TestResetZeroesEveryCounter(t *testing.T) {
	var c stats.Counters
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Array:
			for k := range f.Len() {
				f.Index(k).SetInt(int64(k + 1))
			}
		case reflect.Struct:
			if f.Type() == reflect.TypeFor[stats.Wide]() {
				f.Set(reflect.ValueOf(stats.Wide{Hi: 1, Lo: 2}))
				continue
			}
			h, ok := f.Addr().Interface().(interface{ Add(time.Duration) })
			if !ok {
				t.Fatalf("field %s of type %s: this test does not know how to fill it", v.Type().Field(i).Name, f.Type())
			}
			h.Add(time.Second)
		default:
			t.Fatalf("field %s of kind %s: this test does not know how to fill it", v.Type().Field(i).Name, f.Kind())
		}
		if f.IsZero() {
			t.Fatalf("field %s is still zero", v.Type().Field(i).Name)
		}
	}
	reset(&c, 7)
	if want := (stats.Counters{Jobs: 7}); c != want {
		for i := range v.NumField() {
			if !v.Field(i).Equal(reflect.ValueOf(want).Field(i)) {
				t.Errorf("after reset(c, 7), %s = %v; want %v", v.Type().Field(i).Name, v.Field(i), reflect.ValueOf(want).Field(i))
			}
		}
	}
	reset(&c, 0)
	if c != (stats.Counters{}) {
		t.Errorf("reset of zero counters to 0 jobs: %+v; want zero", c.Jobs)
	}
}
