// Package scenarioref writes the reference of a scenario file's keys
// (retrysim help scenario, docs/scenario.md) from their declarations, in
// the command's words. It does not read scenario files.
package scenarioref

import (
	"encoding"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/scenario"
	"github.com/retrysim/retrysim/provider"
)

// Key is one key of the reference, resolved through its declaration.
type Key struct {
	scenario.Key
	Section string
}

// The reference's sections, in order, and what each says first.
var referenceSections = []struct{ name, intro string }{
	{"The job", "A file that describes a job (table, sweep, -shard) has steps and watched."},
	{"Its steps", "Each item of steps is a mapping; a step's attempts, keys and backoff are its own policy over the run's."},
	{"The queue", "A queue section, even empty, or a step that takes time or waits its own backoff, runs the delivery model; each key left out keeps its default, and a flag for the same setting overrides it."},
	{"The fleet section", "Only retrysim fleet -scenario reads it, from a file that describes no job; its keys are the fleet command's flags (written with _ or -), documented as in retrysim fleet -help, and a key a policy does not read is refused."},
	{"The graph section", "Only retrysim graph -scenario and retrysim workers -scenario read it (workers: its first entry is the job queue, and the service that entry sends to, a queue server, the workers), from a file that describes no job and has no fleet section. The keys of its load, server, outage and client mappings are retrysim fleet's flags for the same settings (written with _ or -), the section's name dropped from the front (outage_mode is mode, -server is the server's kind); a key its service or call does not read is refused (a budget's ratio under no budget; parallel in a service without calls; deadlines in a graph without calls; server.pushback in a service that neither refuses calls for overload, as a queue or a rate limit, nor makes calls whose \"do not retry\" it could forward; client.honour_pushback in a call to a service that never answers \"do not retry\"), as is a cycle of calls, a call to an unknown service, a service no entry reaches, or a graph past its limits (retrysim graph -help), each at its line."},
}

const referenceIntro = "A scenario file is YAML: one document, one mapping. An unknown key, a key given " +
	"twice, a key with no value, or a value out of bounds is refused with an error that names the file, " +
	"the line and the key. A name is at most 200 bytes of text with no control character. Every duration " +
	"is written as 250ms, 2s or 24h."

// Keys are every key of scenario.Keys with its type, default, bounds and
// meaning, from the declaration that documents it.
func Keys() []Key {
	settings := map[string]jobapi.SettingDef{}
	for _, s := range jobapi.Settings() {
		settings[s.Name] = s
	}
	var refs []Key
	for _, k := range scenario.Keys() {
		r := Key{Key: k}
		r.Doc = flagval.FlagWords(k.Doc)      // the settings it names, as flags
		r.Section = referenceSections[0].name // the job's, but for a key of the later sections
		for i, prefix := range []string{"steps", "queue", "fleet", "graph"} {
			if strings.HasPrefix(k.Path, prefix) {
				r.Section = referenceSections[i+1].name
			}
		}
		if s, ok := settings[k.Setting]; ok {
			r.Doc = fileWords(flagval.FlagWords(s.Usage), "queue.")
			r.Type, r.Bounds = scenario.TypeOf(s.Default, s.Min, s.Max)
			r.Default = plainValue(s.Default)
		} else if p, ok := decl.LookupKey[fleet.Config](k.Setting); ok && r.Section == referenceSections[4].name {
			if k.Doc == "" { // else the graph's own meaning for the setting
				r.Doc = strings.ReplaceAll(scenario.GraphWords(p.Usage), "`", "")
			}
			r.Type, r.Bounds, r.Default = paramType(p)
		} else if ok {
			r.Doc = fileWords(p.Usage.Words(FleetFlag), "fleet.")
			r.Type, r.Bounds, r.Default = paramType(p)
		}
		refs = append(refs, r)
	}
	return refs
}

// paramType is a fleet parameter's type, bounds and default (from
// fleet.DefaultConfig).
func paramType(p decl.Param[fleet.Config]) (typ, bounds, def string) {
	c := fleet.DefaultConfig()
	switch v := p.Field(&c).(type) {
	case *float64:
		if p.Probability {
			return "probability", "0 to 1", plainValue(*v)
		}
		return "number", number(p.Lo) + " to " + number(p.Hi), plainValue(*v)
	case *time.Duration:
		return "duration", "up to " + plainValue(limits.FleetSeconds*time.Second) + ", less where the meaning says", plainValue(*v)
	case *int:
		return "whole number", number(p.Lo) + " to " + number(p.Hi), plainValue(*v)
	case *bool:
		return "true or false", "true or false", plainValue(*v)
	case encoding.TextMarshaler:
		text, _ := v.MarshalText()
		return "name", "one of the names in the meaning", string(text)
	}
	return "", "", ""
}

// number writes x in full: 1000000, not 1e+06.
func number(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// plainValue writes a default as a file writes it: durations as 24h, not
// 24h0m0s, and a fixed latency as its duration.
func plainValue(v any) string {
	switch v := v.(type) {
	case time.Duration:
		return human.Duration(v)
	case provider.Latency:
		if !rng.LognormalDrawn(v.Median, v.P99) {
			return plainValue(v.Median)
		}
		return fmt.Sprintf("{median: %s, p99: %s}", plainValue(v.Median), plainValue(v.P99))
	}
	return fmt.Sprint(v)
}

// flagRE is a flag named in a usage text.
var flagRE = regexp.MustCompile("-[a-z][a-z0-9-]*")

// fileWords turns a flag's usage into a file key's: no backquotes, and a
// flag that is a key of the section prefix names (queue.) named as the key.
func fileWords(usage, prefix string) string {
	keys := map[string]bool{}
	for _, k := range scenario.Keys() {
		if rest, ok := strings.CutPrefix(k.Path, prefix); ok {
			keys[rest] = true
		}
	}
	usage = strings.ReplaceAll(usage, "`", "")
	return flagRE.ReplaceAllStringFunc(usage, func(f string) string {
		if key := strings.ReplaceAll(f[1:], "-", "_"); keys[key] {
			return key
		}
		return f
	})
}

// WriteText writes the reference of refs for a terminal, wrapped at 80 columns.
func WriteText(w io.Writer, refs []Key) error {
	var b strings.Builder
	b.WriteString("Scenario files: every key\n\n")
	b.WriteString(human.Wrap(referenceIntro, "", 80))
	for _, s := range referenceSections {
		fmt.Fprintf(&b, "\n%s\n\n", s.name)
		b.WriteString(human.Wrap(s.intro, "", 80))
		for _, r := range refs {
			if r.Section != s.name {
				continue
			}
			fmt.Fprintf(&b, "\n  %s\n", r.Path)
			b.WriteString(human.Wrap(fmt.Sprintf("%s; default %s; read by the %s.", typeAndBounds(r), r.Default, r.ReadBy), "      ", 80))
			b.WriteString(human.Wrap(sentence(r.Doc), "      ", 80))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the reference of refs as docs/scenario.md.
func WriteMarkdown(w io.Writer, refs []Key) error {
	var b strings.Builder
	b.WriteString("# Scenario files: every key\n\n<!-- Generated by: go run ./cmd/retrysim help scenario -format markdown -o docs/scenario.md -->\n\n")
	b.WriteString(referenceIntro + "\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, s := range referenceSections {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n| key | type | default | bounds | read by | meaning |\n| --- | --- | --- | --- | --- | --- |\n", s.name, s.intro)
		for _, r := range refs {
			if r.Section == s.name {
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", r.Path, cell(r.Type), cell(r.Default), cell(r.Bounds), r.ReadBy, cell(sentence(r.Doc)))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// typeAndBounds is r's type, and its bounds when they say more.
func typeAndBounds(r Key) string {
	if r.Bounds == r.Type {
		return r.Type
	}
	return r.Type + ", " + r.Bounds
}

// sentence is s with a capital letter and a full stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	if first, _, _ := strings.Cut(s, " "); !strings.ContainsAny(first, ":,") { // not a policy's name: token-bucket: ...
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// FleetFlag is the flag of the fleet setting at path (-budget-ratio for
// client.policy.budget_ratio), or the path as it is.
func FleetFlag(path string) string {
	if p, ok := decl.LookupParam[fleet.Config](path); ok {
		return "-" + p.Key
	}
	return path
}
