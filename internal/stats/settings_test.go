package stats_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/retrysim/retrysim/internal/stats"
)

// Settings write as one object in their own order, and read back in the
// file's order: a whole number as an int64, any other number as a float64,
// a text as a string, a boolean as a bool, an object as Settings; anything
// else, and a key given twice, is refused.
func TestSettingsJSON(t *testing.T) {
	s := stats.Settings{{Key: "z", Value: int64(3)}, {Key: "a", Value: 0.25}, {Key: "m", Value: "claim"}, {Key: "big", Value: int64(1) << 62}, {Key: "f", Value: 1e21},
		{Key: "t", Value: true}, {Key: "o", Value: stats.Settings{{Key: "p", Value: "constant"}, {Key: "n", Value: int64(-1)}}}}
	const want = `{"z":3,"a":0.25,"m":"claim","big":4611686018427387904,"f":1e+21,"t":true,"o":{"p":"constant","n":-1}}`
	got, err := json.Marshal(s)
	if err != nil || string(got) != want {
		t.Fatalf("json.Marshal = %s, %v; want %s", got, err, want)
	}
	var back stats.Settings
	if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("json.Unmarshal(%s) = %+v, %v; want %+v", got, back, err, s)
	}
	if back.Lookup("m") != "claim" || back.Lookup("nothing") != nil {
		t.Errorf("Lookup(m), Lookup(nothing) = %v, %v; want claim, nil", back.Lookup("m"), back.Lookup("nothing"))
	}
	for _, bad := range []string{`{"a":null}`, `{"a":{"b":null}}`, `{"a":{"b":1,"b":1}}`, `{"a":[1]}`, `{"a":1,"a":2}`, `{"a":1e400}`, `[]`, `"a"`} {
		if err := json.Unmarshal([]byte(bad), new(stats.Settings)); err == nil {
			t.Errorf("json.Unmarshal(%s) succeeded", bad)
		}
	}
	for _, v := range []any{3, nil, []int{1}, map[string]any{}} {
		if _, err := json.Marshal(stats.Settings{{Key: "a", Value: v}}); err == nil {
			t.Errorf("json.Marshal of a %T value succeeded", v)
		}
	}
}
