package main

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// flagLine is a flag's first line in -help: "  -name placeholder".
var flagLine = regexp.MustCompile(`(?m)^  -([a-z0-9-]+)(?: ([^\s]+))?`)

// probes are values a flag might take, one of each kind the commands use:
// what a flag accepts among them is the kind of its value.
var probes = []string{
	"0", "0.5", "1", "2", "16", "-1", "true", "false",
	"0s", "1s", "20ms:200ms", "before-key", "after-key", "after-work", "before-ack", "after-charge",
	"table", "json", "csv", "pcg", "auto", "claim", "lease", "0/2", "x.json", "",
}

// TestOneVocabulary checks that a flag name means one thing in every command
// that defines it: the same placeholder in -help (a sweep's list of values
// aside, which takes several of the same kind) and values of the same kinds
// accepted (bounds may differ). On the old race, -crash took a point where
// the table command takes a probability, -repeat a count for a probability,
// and -workers counted processes where it counts goroutines.
func TestOneVocabulary(t *testing.T) {
	placeholders := map[string]map[string]string{} // flag -> command -> placeholder
	for name := range commands {
		out, errOut, code := retrysim(t, name, "-help")
		if code != 0 {
			t.Errorf("retrysim %s -help: exit %d, %s", name, code, errOut)
			continue
		}
		_, flags, ok := strings.Cut(out, "\nFlags:\n") // the intro may quote flags too
		// version takes no flags, so it has no such section.
		if !ok && name != "version" {
			t.Errorf("retrysim %s -help has no Flags: section", name)
		}
		for _, m := range flagLine.FindAllStringSubmatch(flags, -1) {
			if placeholders[m[1]] == nil {
				placeholders[m[1]] = map[string]string{}
			}
			placeholders[m[1]][name] = m[2]
		}
	}
	shared := 0
	for flagName, byCommand := range placeholders {
		if len(byCommand) < 2 {
			continue
		}
		shared++
		cmds := make([]string, 0, len(byCommand))
		for c := range byCommand {
			cmds = append(cmds, c)
		}
		sort.Strings(cmds)
		first := cmds[0]
		kind := func(cmd string) []string {
			var ok []string
			for _, v := range probes {
				if _, _, code := retrysim(t, cmd, "-"+flagName+"="+v, "-help"); code == 0 {
					ok = append(ok, v)
				}
			}
			return ok
		}
		want := kind(first)
		for _, c := range cmds[1:] {
			if p, q := byCommand[first], byCommand[c]; p != q && p != "values" && q != "values" {
				t.Errorf("-%s is -%s %s in %s but -%s %s in %s", flagName, flagName, p, first, flagName, q, c)
			}
			if got := kind(c); !slices.Equal(got, want) {
				t.Errorf("-%s accepts %q in %s but %q in %s", flagName, got, c, want, first)
			}
		}
	}
	if shared < 5 {
		t.Errorf("found %d flags shared by two commands or more; want at least 5 (-seed, -format, -o, -lease, -ttl, ...)", shared)
	}
	// -help says what was renamed.
	out, _, _ := retrysim(t, "race", "-help")
	for _, rename := range []string{`-workers n +is  -procs n`, `-keys n +is  -jobs n`, `-repeat n +is  -rounds n`,
		`-crash point +is  -crash-at point`, `after-charge is after-work`, `-crash-p p +is  -crash p`} {
		if !regexp.MustCompile(rename).MatchString(out) {
			t.Errorf("race -help does not say %q", rename)
		}
	}
}
