package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newFields are the fields of the new settings, one of each kind, each
// inserted where a developer would write it: in its struct's declaration.
var newFields = []struct{ file, after, field string }{
	{"delivery/delivery.go", "type Config struct {\n", "\tRedeliveryAfter time.Duration\n"}, // a queue key
	{"provider/scenario.go", "type Step struct {\n", "\tPError float64\n"},                  // a step key
	{"fleet/fleet.go", "type Client struct {\n", "\tSpare int\n"},                           // a fleet client key
	{"fleet/graph.go", "type EntrySettings struct {\n", "\tNack float64\n"},                 // a graph entry key
}

// newFiles are the files added to the library, from testdata/newsetting:
// each kind's new declaration (a package's own init appending to its
// table, as one more line of it would), and the tests that find each new
// setting in every layer.
var newFiles = map[string]string{
	"delivery.go":     "delivery/zz_newsetting.go",
	"step.go":         "internal/decl/zz_newsetting.go",
	"fleet.go":        "fleet/zz_newsetting.go",
	"queue_test.go":   "zz_newsetting_queue_test.go",
	"step_test.go":    "zz_newsetting_step_test.go",
	"cmdstep_test.go": "cmd/retrysim/zz_newsetting_step_test.go",
	"cmd_test.go":     "cmd/retrysim/zz_newsetting_test.go",
}

// A new setting of each kind is one field and one declaration: with those
// added to the library's source and nothing else (a build overlay of the
// module, which leaves the files on disk as they are), the tests named
// TestAdded find each in every layer: the flag where its kind has flags,
// the scenario file's key, -help, help scenario, the json echo, Go's
// Override or Set, and the refusal of a value out of its bounds naming its
// path. No production code holds a hook for this: what a test adds is
// source, as a developer's change would be.
func TestNewSettingOfEachKind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module with the new settings (a minute)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	replace := map[string]string{}
	for _, f := range newFields {
		src, err := os.ReadFile(filepath.Join(root, f.file))
		if err != nil {
			t.Fatal(err)
		}
		at := strings.Index(string(src), f.after)
		if at < 0 {
			t.Fatalf("%s has no %q to add the field after", f.file, f.after)
		}
		at += len(f.after)
		patched := filepath.Join(dir, strings.ReplaceAll(f.file, "/", "_"))
		if err := os.WriteFile(patched, []byte(string(src[:at])+f.field+string(src[at:])), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, f.file)] = patched
	}
	for from, to := range newFiles {
		replace[filepath.Join(root, to)] = filepath.Join(root, "cmd/retrysim/testdata/newsetting", from)
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-overlay", ov, "-count", "1", "-run", "^TestAdded", ".", "./cmd/retrysim")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tests of the new settings failed: %v\n%s", err, out)
	}
	for _, pkg := range []string{"ok  \tgithub.com/retrysim/retrysim\t", "ok  \tgithub.com/retrysim/retrysim/cmd/retrysim\t"} {
		if !strings.Contains(string(out), pkg) || strings.Contains(string(out), "no tests to run") {
			t.Errorf("go test of the new settings ran no test in %s:\n%s", strings.TrimSpace(pkg[4:]), out)
		}
	}
}
