package presets

import (
	"reflect"
	"slices"
	"testing"
)

// A preset reads from its caller exactly PresetRun's fields, each by its
// setting's name (generator for Generator, as schema.FieldError names it, not the
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
