package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/scenario"
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
	for _, r := range scenarioReference() {
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

// The default the reference gives a key of a step or of the queue is the
// one the reader takes: a file that gives the key its default loads as the
// file that leaves it out. Defaults that are words (none: required, the
// run's -attempts) are not values and are skipped.
func TestScenarioHelpDefaultsAreTheReaders(t *testing.T) {
	base := "watched: a\nsteps:\n  - {name: a}\nqueue: {}\n"
	without, err := scenario.Parse("f.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range scenarioReference() {
		step, isStep := strings.CutPrefix(r.Path, "steps[].")
		queue, isQueue := strings.CutPrefix(r.Path, "queue.")
		if !isStep && !isQueue || strings.Contains(r.Default, " ") && !strings.HasPrefix(r.Default, "{") || strings.HasPrefix(r.Path, "steps[].backoff") {
			continue
		}
		var text string
		switch {
		case isStep && !strings.Contains(step, "."):
			text = strings.Replace(base, "{name: a}", "{name: a, "+step+": "+r.Default+"}", 1)
		case isStep: // latency.median
			parent, child, _ := strings.Cut(step, ".")
			text = strings.Replace(base, "{name: a}", "{name: a, "+parent+": {"+child+": "+r.Default+"}}", 1)
		case !strings.Contains(queue, "."):
			text = strings.Replace(base, "queue: {}", "queue: {"+queue+": "+r.Default+"}", 1)
		default:
			parent, child, _ := strings.Cut(queue, ".")
			text = strings.Replace(base, "queue: {}", "queue: {"+parent+": {"+child+": "+r.Default+"}}", 1)
		}
		with, err := scenario.Parse("f.yaml", []byte(text))
		if err != nil {
			t.Errorf("%s: default %s: %v", r.Path, r.Default, err)
			continue
		}
		checked++
		if !reflect.DeepEqual(with.Scenario, without.Scenario) || !reflect.DeepEqual(with.Queue, without.Queue) {
			t.Errorf("%s: a file that gives the default %s loads as %+v %+v; want %+v %+v, as without it",
				r.Path, r.Default, with.Scenario, with.Queue, without.Scenario, without.Queue)
		}
	}
	if checked < 15 {
		t.Errorf("checked %d defaults; want at least 15", checked)
	}
}
