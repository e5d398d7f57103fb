package retrysim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/report"
	"github.com/retrysim/retrysim/strategy"
)

// A step's setting is one field and one declaration, in
// decl.StepSettings (see TestNewSettingOfEachKind), and what reads a
// step's settings sees the new one with nothing else written:
// Settings lists it with its help and default, the command declares its
// flag from it, the flag's value reaches every step through Override, -set
// sweeps it for one step (ParseSet); a shard file's model.steps writes it
// under its key, merge reads it back, refusing a file without it and a
// shard of the run at another value, or one whose file gives a step
// another value, as another run's; and a scenario file's run echoes it in
// each step of its json's step_params and in its csv's step columns; a
// scenario file's step reads it under its key, refusing a value out of its
// bounds with the line and the path, and the reference of a scenario
// file's keys (scenario.Keys, which retrysim help scenario prints) lists
// it with its meaning. The new setting here is a step's p_error, a
// probability.
func TestAddedStepSetting(t *testing.T) {
	const name, usage = "p_error", "`probability` that a call errs before doing anything"
	i := slices.IndexFunc(decl.StepSettings(), func(s decl.StepSetting) bool { return s.Name == name })
	if i < 0 {
		t.Fatalf("StepSettings() does not declare %s", name)
	}
	added := decl.StepSettings()[i]

	i = slices.IndexFunc(jobapi.Settings(), func(s jobapi.SettingDef) bool { return s.Name == name })
	if i < 0 {
		t.Fatalf("Settings() does not list %s", name)
	}
	if def := jobapi.Settings()[i]; def.Usage != usage || def.Default != 0.0 || def.Delivery {
		t.Errorf("Settings()[%s] = %+v; want its usage, the sign-up's default 0, read by both models", name, def)
	}

	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flagval.RegisterSettings(fs)
	if f := fs.Lookup("p-error"); f == nil || f.Usage != usage || f.DefValue != "0" {
		t.Fatalf("flag -p-error = %+v; want it declared with its usage, at 0", f)
	}
	if err := fs.Parse([]string{"-p-error", "0.25"}); err != nil {
		t.Fatal(err)
	}
	sc, _, err := retrysim.Override(retrysim.DefaultScenario(), nil, flagval.GivenSettings(fs, false)...)
	if err != nil || sc.Steps[0].PError != 0.25 || sc.Steps[9].PError != 0.25 || sc.Steps[0].PFail != 0.01 {
		t.Fatalf("-p-error 0.25 through Override = %+v, %v; want every step's p_error 0.25, its p_fail 0.01", sc.Steps, err)
	}

	const set = "steps[save the user]." + name
	p, values, err := retrysim.ParseSet(set+"=0.1,0.2", retrysim.DefaultScenario(), nil)
	if err != nil || p.Name != set || !slices.Equal(values, []float64{0.1, 0.2}) {
		t.Errorf("ParseSet(%s=0.1,0.2) = %v, %v, %v; want the parameter and 0.1, 0.2", set, p.Name, values, err)
	}

	checkStepShard(t)
	checkStepEcho(t)
	checkStepFile(t, added.File.Doc)
}

// checkStepFile reads a scenario file whose second step gives p_error and
// checks that the step's p_error is the value given and the first step's
// untouched, that p_error 2 is refused with its line and path, and that
// scenario.Keys lists steps[].p_error, a probability its meaning doc
// describes, after the step's other keys and before the queue section.
func checkStepFile(t *testing.T, doc string) {
	const file = "watched: a\nsteps:\n  - name: a\n  - name: b\n    p_error: 0.25\n"
	l, err := scenario.Parse("s.yaml", []byte(file))
	if err != nil || len(l.Scenario.Steps) != 2 || l.Scenario.Steps[0].PError != 0 || l.Scenario.Steps[1].PError != 0.25 {
		t.Fatalf("Parse of a step with p_error: 0.25 = %+v, %v; want the second step's p_error 0.25, the first's 0", l.Scenario.Steps, err)
	}
	const refused = "s.yaml:5: steps[1].p_error: 2 is not a probability in [0, 1]"
	if _, err := scenario.Parse("s.yaml", []byte(strings.Replace(file, "0.25", "2", 1))); err == nil || err.Error() != refused {
		t.Errorf("Parse of a step with p_error: 2 = %v; want %s", err, refused)
	}
	keys := scenario.Keys()
	i := slices.IndexFunc(keys, func(k scenario.Key) bool { return k.Path == "steps[].p_error" })
	want := scenario.Key{Path: "steps[].p_error", Type: "probability", Default: "0", Bounds: "0 to 1", ReadBy: scenario.ReadByJob, Example: "0.01", Doc: doc}
	if i < 0 || keys[i] != want || keys[i-1].Path != "steps[].backoff.cap" || keys[i+1].Path != "queue" {
		t.Errorf("scenario.Keys() = %+v; want %+v after steps[].backoff.cap, before queue", keys, want)
	}
}

// checkStepEcho runs a scenario file's steps with every step's p_error at
// 0.25, and checks that the report's json echoes it in each step's
// step_params, after the settings given over every step and before the
// step's own flag, reads it back, and that its csv has a column for it.
func checkStepEcho(t *testing.T) {
	sc, _, err := retrysim.Override(retrysim.DefaultScenario(), nil, retrysim.Setting{Name: "p_error", Value: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	e := retrysim.Experiment{Scenario: sc, Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}, Jobs: 100}
	*jobapi.ScenarioFile(&e) = "s.yaml"
	rep, err := retrysim.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	const first = `{"name":"save the user","p_fail":0.01,"lost_reply":0,"latency":"fixed 0s","p_error":0.25,"keys":false}`
	var compact bytes.Buffer
	if err := json.Compact(&compact, out); err != nil || !strings.Contains(compact.String(), `"step_params":[`+first) {
		t.Errorf("the report's json = %s (%v); want its first step echoed as %s", compact.String(), err, first)
	}
	var back retrysim.Report
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if again, err := json.Marshal(back); err != nil || !bytes.Equal(again, out) {
		t.Errorf("the report read back from its json is written as %s, %v; want %s", again, err, out)
	}
	r, err := report.NewReport(rep, report.Options{Format: report.CSV})
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := r.Report(&csv); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(csv.String(), "\n")
	if !strings.Contains(header, ",step_1_latency,step_1_p_error,step_1_keys,") {
		t.Errorf("the csv's header = %s; want step_1_p_error after step_1_latency", header)
	}
}

// checkStepShard runs the delivery model with every step's p_error at
// 0.25 in two shards, and checks that the shard files carry it in each
// step of their model and that merge reads it back.
func checkStepShard(t *testing.T) {
	dir := t.TempDir()
	shard := func(file string, pError float64, index int) string {
		sc, _, err := retrysim.Override(retrysim.DefaultScenario(), nil, retrysim.Setting{Name: "p_error", Value: pError})
		if err != nil {
			t.Fatal(err)
		}
		q := delivery.Defaults()
		e := retrysim.Experiment{Scenario: sc, Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}, Jobs: 200, Delivery: &q}
		sh, err := e.Shard(context.Background(), index, 2)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := retrysim.WriteShard(&b, sh); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := shard("a.json", 0.25, 0), shard("b.json", 0.25, 1)
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Model struct{ Steps []map[string]any }
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Model.Steps) != 10 || file.Model.Steps[9]["p_error"] != 0.25 {
		t.Fatalf("the shard file's model.steps = %v; want each step's p_error 0.25", file.Model.Steps)
	}
	if _, err := retrysim.MergeFiles(a, b); err != nil {
		t.Fatalf("MergeFiles(a, b) = %v", err)
	}

	without := filepath.Join(dir, "without.json")
	if err := os.WriteFile(without, bytes.Replace(data, []byte(`"p_error": 0.25`), []byte(`"p_err": 0.25`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := retrysim.MergeFiles(without, b); err == nil || !strings.Contains(err.Error(), "model.steps[0].p_error: missing") {
		t.Errorf("MergeFiles of a shard without model.steps[0].p_error = %v; want it refused as missing", err)
	}
	other := shard("other.json", 0.5, 1)
	edited := filepath.Join(dir, "edited.json")
	bData, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, bytes.Replace(bData, []byte(`"p_error": 0.25`), []byte(`"p_error": 0.5`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	const differ = "are shards of different runs: their models (scenario steps, watched steps or queue) differ: model.steps[0].p_error is 0.25 in one and 0.5 in the other"
	if _, err := retrysim.MergeFiles(a, edited); err == nil || !strings.Contains(err.Error(), differ) {
		t.Errorf("MergeFiles of a shard whose first step's p_error is 0.5 = %v; want %s", err, differ)
	}
	if _, err := retrysim.MergeFiles(a, other); err == nil || !strings.Contains(err.Error(), "different runs") {
		t.Errorf("MergeFiles of shards at p_error 0.25 and 0.5 = %v; want them refused as shards of different runs", err)
	}
}
