package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A setting of a step, one field and one declaration in
// decl.StepSettings (see TestNewSettingOfEachKind), is read from a
// scenario file's step and listed by help scenario with nothing else
// written: here a step's p_error. A file
// giving it runs, echoing it in the step's step_params; one giving it 2 is
// refused with its file, line and path; the reference lists it, a
// probability, with its meaning, after the step's other keys.
func TestAddedStepSettingInScenarioFile(t *testing.T) {
	help, _, code := retrysim(t, "help", "scenario", "-format", "markdown")
	const row = "| `steps[].backoff.cap` |"
	const want = "| `steps[].p_error` | probability | 0 | 0 to 1 | job and delivery models | Probability that a call errs before doing anything. |\n"
	at := strings.Index(help, row)
	if code != 0 || at < 0 || !strings.Contains(help[at:], "\n"+want) || strings.Index(help[at:], "\n"+want) != strings.Index(help[at:], "\n") {
		t.Errorf("help scenario -format markdown (exit %d) has no row %q right after steps[].backoff.cap's:\n%s", code, want, help)
	}

	file := filepath.Join(t.TempDir(), "s.yaml")
	write := func(v string) {
		if err := os.WriteFile(file, []byte("watched: a\nsteps:\n  - name: a\n  - name: b\n    p_error: "+v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("0.25")
	out, errOut, code := retrysim(t, "table", "-scenario", file, "-jobs", "100", "-format", "json")
	const b = `"name": "b",
      "p_fail": 0,
      "lost_reply": 0,
      "latency": "fixed 0s",
      "p_error": 0.25,
      "keys": false`
	if code != 0 || !strings.Contains(out, `"p_error": 0,`) || !strings.Contains(out, b) {
		t.Errorf("table -scenario with p_error: 0.25: exit %d, %s; want step a's step_params to echo p_error 0, step b's:\n%s\ngot:\n%s", code, errOut, b, out)
	}
	write("2")
	_, errOut, code = retrysim(t, "table", "-scenario", file, "-jobs", "100")
	if want := file + ":5: steps[1].p_error: 2 is not a probability in [0, 1]"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("table -scenario with p_error: 2: exit %d, %s; want exit 2 and %s", code, errOut, want)
	}
}
