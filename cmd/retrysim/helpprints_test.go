package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every help text prints: each command's -help, help TOPIC (scenario's in both formats)
// and every committed doc and golden hold no Go format error ("%!W(int=
// 10000)", "%!d(MISSING)"), which a "95%" in a text given to Sprintf makes.
func TestEveryHelpPrints(t *testing.T) {
	runs := [][]string{{"-help"}}
	for _, c := range commandList {
		runs = append(runs, []string{c.name, "-help"})
	}
	for name := range helpTopics {
		runs = append(runs, []string{"help", name})
	}
	runs = append(runs, []string{"help", "scenario", "-format", "markdown"})
	for _, args := range runs {
		out, errOut, code := retrysim(t, args...)
		if code != 0 || out == "" {
			t.Errorf("retrysim %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		if i := strings.Index(out, "%!"); i >= 0 {
			t.Errorf("retrysim %s prints a format error: %q", strings.Join(args, " "), out[max(0, i-40):min(len(out), i+40)])
		}
	}
	files, _ := filepath.Glob("../../docs/*.md")
	more, _ := filepath.Glob("testdata/*")
	files = append(append(files, "../../README.md"), more...)
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // a directory
		}
		if i := strings.Index(string(b), "%!"); i >= 0 {
			t.Errorf("%s holds a format error: %q", path, b[max(0, i-40):min(len(b), i+40)])
		}
	}
}

// The limits fleet-map's -help states are the ones it enforces: one value
// more than an axis may hold, one replicate more, and a grid past the cells
// are refused, each refusal naming the bound the help names.
func TestFleetMapHelpLimits(t *testing.T) {
	help, _, _ := retrysim(t, "fleet-map", "-help")
	m := regexp.MustCompile(`each axis 1 to (\d+) values, at most (\d+) cells,\s+-replicates 1 to (\d+)`).FindStringSubmatch(help)
	if m == nil {
		t.Fatalf("fleet-map -help states no limits of its axes, cells and replicates:\n%s", help)
	}
	axis, _ := strconv.Atoi(m[1])
	cells, _ := strconv.Atoi(m[2])
	list := func(n int, unit string) string { // 1, 2, ... n, each with unit
		v := make([]string, n)
		for i := range v {
			v[i] = strconv.Itoa(i+1) + unit
		}
		return strings.Join(v, ",")
	}
	if 3*axis*axis <= cells {
		t.Fatalf("%d cells hold three full axes of %d values; the test needs a grid past the bound", cells, axis)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-lengths", list(axis+1, "s")}, "-lengths: " + strconv.Itoa(axis+1) + " values; want 1 to " + m[1]},
		{[]string{"-replicates", strconv.Itoa(atoi(t, m[3]) + 1)}, "1 to " + m[3]},
		{[]string{"-lengths", list(axis, "s"), "-heights", list(axis, ""), "-rates", "0.5,0.6,0.7"}, "at most " + m[2]},
	} {
		_, errOut, code := retrysim(t, append([]string{"fleet-map"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("fleet-map %.60s...: exit %d, %q; want exit 2 and %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The top-level usage lists every command of the one list, and a command
// asked for -preset without a name lists its presets.
func TestUsageListsEveryCommand(t *testing.T) {
	help, _, _ := retrysim(t, "-help")
	usage, _, _ := strings.Cut(help, "\n\nThe model")
	for name := range commands {
		use := "retrysim " + name
		if name == "table" {
			use = "retrysim [table]"
		}
		if !regexp.MustCompile(`(?m)^(Usage: | {7})` + regexp.QuoteMeta(use) + `( |$)`).MatchString(usage) {
			t.Errorf("retrysim -help does not list %q:\n%s", use, usage)
		}
	}
	for _, tt := range []struct{ command, want string }{
		{"table", "-preset needs a name, one of sqlite-check\n"},
		{"fleet", "-preset needs a name, one of brooker-collapse, brooker-retries, brooker-clients, "},
		{"graph", "-preset needs a name, one of sre-three-layers, aws-five-deep, retry-one-layer, mesh-default-retries\n"},
		{"workers", "-preset needs a name, one of sidekiq-outage, sqs-visibility, backlog-drain, "},
	} {
		_, errOut, code := retrysim(t, tt.command, "-preset")
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("retrysim %s -preset: exit %d, %q; want exit 2 and %q", tt.command, code, errOut, tt.want)
		}
	}
}

// help scenario says who reads the graph section: retrysim workers
// -scenario reads it too (its first entry the job queue), in the section's
// words and in each of its keys' readers.
func TestScenarioHelpNamesWorkers(t *testing.T) {
	out, _, _ := retrysim(t, "help", "scenario", "-format", "markdown")
	_, graph, _ := strings.Cut(out, "The graph section")
	intro, _, _ := strings.Cut(graph, "|")
	if !strings.Contains(intro, "retrysim workers -scenario") {
		t.Errorf("help scenario's graph section does not say that retrysim workers -scenario reads it:\n%.400s", intro)
	}
	if !strings.Contains(graph, "| `graph.entries[].load.rate` |") || !strings.Contains(graph, "retrysim workers") {
		t.Errorf("help scenario does not name retrysim workers among the graph keys' readers")
	}
}

// help TOPIC -o names its flag once dashed in an error (it said --o).
func TestHelpTopicOutputErrorNamesTheFlag(t *testing.T) {
	for name := range helpTopics {
		_, errOut, code := retrysim(t, "help", name, "-o", filepath.Join(t.TempDir(), "no", "x.md"))
		if code != 2 || !strings.HasPrefix(errOut, "retrysim: -o: directory ") {
			t.Errorf("help %s -o into a missing directory: exit %d, %q; want 2 and retrysim: -o: directory ...", name, code, errOut)
		}
	}
}
