package main

import (
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/internal/scenarioref"
)

// retrysim help scenario lists every key scenario.Keys lists, and no other,
// each with a type, a default, bounds, a reader and a meaning.
func TestScenarioHelpListsEveryKey(t *testing.T) {
	out, errOut, code := retrysim(t, "help", "scenario")
	if code != 0 || errOut != "" {
		t.Fatalf("retrysim help scenario: exit %d, stderr %q", code, errOut)
	}
	want := map[string]bool{}
	for _, k := range scenario.Keys() {
		want[k.Path] = true
	}
	got := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if key, ok := strings.CutPrefix(line, "  "); ok && !strings.HasPrefix(key, " ") {
			got[key] = true
			if !want[key] {
				t.Errorf("retrysim help scenario lists %q, which scenario.Keys does not", key)
			}
		}
		if len(line) > 80 {
			t.Errorf("retrysim help scenario: a line of %d columns, more than 80: %q", len(line), line)
		}
	}
	for key := range want {
		if !got[key] {
			t.Errorf("retrysim help scenario does not list %s", key)
		}
	}
	for _, r := range scenarioref.Keys() {
		if r.Type == "" || r.Default == "" || r.Bounds == "" || r.ReadBy == "" || r.Doc == "" {
			t.Errorf("%s: type %q, default %q, bounds %q, read by %q, meaning %q; want each said", r.Path, r.Type, r.Default, r.Bounds, r.ReadBy, r.Doc)
		}
	}
	md, _, code := retrysim(t, "help", "scenario", "-format", "markdown")
	for key := range want {
		if code != 0 || !strings.Contains(md, "| `"+key+"` |") {
			t.Errorf("retrysim help scenario -format markdown: exit %d, no row for %s", code, key)
		}
	}
	if help, _, _ := retrysim(t, "help"); !strings.Contains(help, "retrysim help scenario") {
		t.Errorf("retrysim help does not list the scenario topic:\n%s", help)
	}
}
