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
			if out[len(out)-1].usage != "" {
				out[len(out)-1].usage += " "
			}
			out[len(out)-1].usage += strings.TrimPrefix(line, "    \t")
		}
	}
	return out
}

// unwrapHelp is a -help text with each flag's usage on one line, as -help
// printed it before it wrapped usages to the width of the screen, so that a
// test finds a phrase wherever the lines break.
func unwrapHelp(help string) string {
	var out []string
	for _, line := range strings.Split(help, "\n") {
		if last := len(out) - 1; last >= 0 && strings.HasPrefix(line, "    \t") && strings.HasPrefix(out[last], "    \t") {
			out[last] += " " + strings.TrimPrefix(line, "    \t")
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
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

// The library's help texts name settings by path (queue.store, "the setting
// latency", client.policy.window); every command's -help names them as its
// flags (FlagWords, cli.FleetWords). Only -set, whose argument is a path, may
// show one.
func TestHelpNamesFlagsNotPaths(t *testing.T) {
	paths := regexp.MustCompile(`(^|[^\w.\[\]-])(queue\.|client\.|server\.|load\.|outage\.|p_fail\b|lost_reply\b|the setting )`)
	for name := range commands {
		help, _, _ := retrysim(t, name, "-help")
		for _, e := range helpEntries(help) {
			if e.name != "set" && paths.MatchString(e.usage) {
				t.Errorf("retrysim %s -%s names a setting by its path: %q", name, e.name, e.usage)
			}
		}
	}
	usage := func(command, flag string) string {
		help, _, _ := retrysim(t, command, "-help")
		for _, e := range helpEntries(help) {
			if e.name == flag {
				return e.usage
			}
		}
		t.Fatalf("retrysim %s -help has no -%s", command, flag)
		return ""
	}
	for _, tt := range []struct{ command, flag, want string }{
		{"table", "lease", "(more than 0; -store lease only)"},
		{"table", "repeat-delay", "after the first; needs -repeat"},
		{"table", "crash", "dies at -crash-at, each time"},
		{"table", "crash-at", "or before-ack; needs -crash"},
		{"sweep", "max-crashes", "(0: no bound); needs -crash"},
		{"fleet", "policy", "breaker: -cb-failure-rate, -cb-window, -cb-window-time, -cb-min-calls, -cb-open, -cb-half-open)"},
	} {
		if got := usage(tt.command, tt.flag); !strings.Contains(got, tt.want) {
			t.Errorf("retrysim %s -%s: %q; want it to say %q", tt.command, tt.flag, got, tt.want)
		}
	}
}

// Every file of help/ is some -help's text, every fmt verb in it filled:
// a file no command reads, or a verb left as %!d(MISSING) or %!(EXTRA ...),
// fails by name.
func TestHelpFilesShown(t *testing.T) {
	var helps []string
	for _, args := range [][]string{{"-help"}, {"sweep", "fleet", "-help"}, {"help", "glossary", "-help"}, {"help", "scenario", "-help"}} {
		out, _, _ := retrysim(t, args...)
		helps = append(helps, out)
	}
	for name := range commands {
		out, _, _ := retrysim(t, name, "-help")
		helps = append(helps, out)
	}
	all := strings.Join(helps, "\n")
	if strings.Contains(all, "%!") {
		t.Errorf("a -help holds a fmt verb with no value (%%!): %q", all[strings.Index(all, "%!"):][:60])
	}
	files, err := helpFiles.ReadDir("help")
	if err != nil || len(files) == 0 {
		t.Fatalf("help/: %v, %d files; want the commands' help texts", err, len(files))
	}
	for _, f := range files {
		first, _, _ := strings.Cut(helpText(strings.TrimSuffix(f.Name(), ".txt")), "%")
		if first, _, _ = strings.Cut(first, "\n"); !strings.Contains(all, first) {
			t.Errorf("help/%s: no -help shows its first line %q", f.Name(), first)
		}
	}
}

// TestMergeHelpNamesEveryShardKind: merge's -help names every kind of run
// whose shards it merges (it had listed the six of an older round, without
// incident, tune and the sweeps of a kind).
func TestMergeHelpNamesEveryShardKind(t *testing.T) {
	out, _, code := retrysim(t, "merge", "-help")
	if code != 0 {
		t.Fatalf("merge -help: exit %d", code)
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(out, func(r rune) bool { return r == ' ' || r == '\n' || r == ',' || r == '(' || r == ')' }) {
		words[w] = true
	}
	for kind := range shardKinds {
		for _, w := range strings.Fields(kind) {
			if !words[w] {
				t.Errorf("merge -help does not name %q (of the shard kind %q)", w, kind)
			}
		}
	}
}
