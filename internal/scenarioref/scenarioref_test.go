package scenarioref

import (
	"reflect"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/scenario"
)

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
	for _, r := range Keys() {
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
