package jobcmd

import (
	"testing"

	"github.com/retrysim/retrysim/internal/presets"
)

// A preset lets through its own flag, the settings it reads and the output
// flags, and refuses any other naming all it reads.
func TestPresetRefusesFlags(t *testing.T) {
	p, err := presets.LookupPreset("sqlite-check")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"preset", "jobs", "attempts", "seed", "rng", "engine", "workers", "format", "o"} {
		if r := presetRefuses(p)(f); r != "" {
			t.Errorf("%s refused: %s", f, r)
		}
	}
	want := "-preset sqlite-check runs its own fixed cases and reads only -jobs, -attempts, -seed, -rng, -engine, -workers, -format, -o, -width"
	for _, f := range []string{"p-fail", "ci", "strategies", "scenario", "shard"} {
		if r := presetRefuses(p)(f); r != want {
			t.Errorf("%s: %q; want %q", f, r, want)
		}
	}
}
