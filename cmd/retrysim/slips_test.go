package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Small slips a reader notices: a graph's calls count their tries in the
// right number ("1 try"), the README installs the commands the way that
// works from a clone (the module is not published, so @latest fails), and
// docs/workers.md does not say the workers' own work is always 1 µs, when a
// scenario file's server.service sets it.
func TestSmallSlips(t *testing.T) {
	out, errOut, code := retrysim(t, "graph", "-preset", "retry-one-layer", "-format", "html", "-duration", "5s", "-replicates", "1")
	if code != 0 {
		t.Fatalf("graph -preset retry-one-layer: exit %d, %s", code, errOut)
	}
	if strings.Contains(out, " 1 tries") || !strings.Contains(out, " 1 try;") {
		t.Errorf("graph -preset retry-one-layer -format html counts a call's one try as \"1 tries\", or not at all")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^ {4}(go install .*)$`).FindAllStringSubmatch(string(readme), -1) {
		if m[1] != "go install ./cmd/..." {
			t.Errorf("README.md installs with %q; want go install ./cmd/..., which works from a clone", m[1])
		}
	}
	workers, err := os.ReadFile("../../docs/workers.md")
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(strings.Fields(string(workers)), " "); strings.Contains(w, "whose own work is 1 µs (`fleet.JobOverhead`) and") ||
		!strings.Contains(w, "`server.service`") {
		t.Errorf("docs/workers.md says the workers' own work is 1 µs without naming a file's server.service")
	}
}
