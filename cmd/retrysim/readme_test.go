package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMETranscripts runs every "$ go run ./cmd/retrysim ..." example in
// the README that shows its output, so the documentation cannot drift.
func TestREADMETranscripts(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	found := 0
	for i := 0; i < len(lines); i++ {
		cmd, ok := strings.CutPrefix(lines[i], "    $ go run ./cmd/retrysim")
		if !ok {
			continue
		}
		var want []string
		for i++; i < len(lines) && strings.HasPrefix(lines[i], "    "); i++ {
			want = append(want, strings.TrimPrefix(lines[i], "    "))
		}
		if len(want) == 0 {
			continue
		}
		found++
		args := strings.Fields(cmd)
		out, errOut, _ := retrysim(t, args...)
		if got := strings.TrimRight(out+errOut, "\n"); got != strings.Join(want, "\n") {
			t.Errorf("README: retrysim%s prints\n%s\nwant (README)\n%s", cmd, got, strings.Join(want, "\n"))
		}
	}
	if found < 3 {
		t.Errorf("found %d README transcripts; want at least 3", found)
	}
}
