package retrysim

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A preset reads from its caller exactly PresetRun's fields, each by its
// setting's name (generator for Generator, as FieldError names it, not the
// command's -rng): a PresetRun field added without a name here, or a name
// without a field, fails.
func TestPresetReads(t *testing.T) {
	flags := map[string]string{"Jobs": "jobs", "Attempts": "attempts", "Seed": "seed", "Generator": "generator", "Engine": "engine", "Workers": "workers"}
	var want []string
	for f := range reflect.TypeFor[PresetRun]().Fields() {
		name, ok := flags[f.Name]
		if !ok {
			t.Errorf("PresetRun.%s has no setting name here", f.Name)
		}
		want = append(want, name)
	}
	for _, p := range Presets() {
		if got := p.Reads(); !slices.Equal(got, want) {
			t.Errorf("%s.Reads() = %v; want %v", p.Name, got, want)
		}
	}
}

// Expectations are refused for a run of the delivery model only, as a
// FieldError naming expect, whether the run is about to start or merged.
func TestCheckExpect(t *testing.T) {
	for _, tt := range []struct{ expect, delivery, refused bool }{
		{false, false, false}, {true, false, false}, {false, true, false}, {true, true, true},
	} {
		err := CheckExpect(tt.expect, tt.delivery)
		var fe *FieldError
		if (err != nil) != tt.refused || err != nil && (!errors.As(err, &fe) || fe.Field != "expect" || !strings.Contains(fe.Msg, "delivery model")) {
			t.Errorf("CheckExpect(%v, %v) = %v; refused %v", tt.expect, tt.delivery, err, tt.refused)
		}
	}
}
