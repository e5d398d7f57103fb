package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helpEntry is one flag as -help lists it: "  -name arg" and its usage.
type helpEntry struct{ name, arg, usage string }

// helpEntries parses the flag list of a -help text, which follows "Flags:".
func helpEntries(help string) []helpEntry {
	var out []helpEntry
	_, flags, _ := strings.Cut(help, "\nFlags:\n")
	for _, line := range strings.Split(flags, "\n") {
		switch {
		case strings.HasPrefix(line, "  -"):
			name, arg, _ := strings.Cut(strings.TrimPrefix(line, "  -"), " ")
			out = append(out, helpEntry{name: name, arg: arg})
		case strings.HasPrefix(line, "    \t") && len(out) > 0:
			out[len(out)-1].usage += strings.TrimPrefix(line, "    \t")
		}
	}
	return out
}

var defaultRE = regexp.MustCompile(`\(default ([^)]*)\)$`)

// Every command's -help names each default once, has no leftover placeholder
// such as "(policy)" after the prose that should have named it, never makes
// an argument's name one of its values (-engine auto), states the range of
// -jobs and -workers, and lists the exit statuses.
func TestHelpText(t *testing.T) {
	var names []string
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		help, errOut, code := retrysim(t, name, "-help")
		if code != 0 || errOut != "" {
			t.Fatalf("retrysim %s -help: exit %d, stderr %q", name, code, errOut)
		}
		entries := helpEntries(help)
		if len(entries) == 0 && name != "version" { // version takes no flags
			t.Fatalf("retrysim %s -help lists no flags:\n%s", name, help)
		}
		for _, e := range entries {
			where := "retrysim " + name + " -" + e.name
			if n := strings.Count(e.usage, "default"); n > 1 {
				t.Errorf("%s: %q says default %d times", where, e.usage, n)
			}
			if e.arg != "" && strings.Contains(e.usage, "("+e.arg+")") {
				t.Errorf("%s: %q keeps the placeholder (%s)", where, e.usage, e.arg)
			}
			if m := defaultRE.FindStringSubmatch(e.usage); m != nil && e.arg != "" && m[1] == e.arg {
				t.Errorf("%s %s: the argument is named after its default value", where, e.arg)
			}
			if (e.name == "jobs" || e.name == "workers") && !regexp.MustCompile(`\b1 to \d`).MatchString(e.usage) {
				t.Errorf("%s: %q does not state its range", where, e.usage)
			}
		}
		if !strings.Contains(help, "Exit status: 0 ") || !strings.Contains(help, ", 2 for bad usage") {
			t.Errorf("retrysim %s -help does not list the exit statuses:\n%s", name, help)
		}
	}
	// help COMMAND is COMMAND -help.
	for _, name := range append([]string{""}, names...) {
		args := []string{"help"}
		flagArgs := []string{"-help"}
		if name != "" {
			args = append(args, name)
			flagArgs = append([]string{name}, flagArgs...)
		}
		got, _, code := retrysim(t, args...)
		want, _, _ := retrysim(t, flagArgs...)
		if code != 0 || got != want {
			t.Errorf("retrysim %s: exit %d, and not the same text as retrysim %s", strings.Join(args, " "), code, strings.Join(flagArgs, " "))
		}
	}
}
