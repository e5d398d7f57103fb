package scenario

import (
	"cmp"
	"encoding"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
)

// Key is one key a scenario file takes, as retrysim help scenario describes it.
type Key struct {
	Path string // watched, steps[].p_fail, queue.backoff.base; [] marks a list's item
	// Setting names the declaration that documents the key (queue.ttl,
	// budget-ratio); "" when Key documents it itself.
	Setting string
	// Type, Default, Bounds and Doc describe a key no declaration documents;
	// a graph key's Doc, if set, replaces its setting's meaning.
	Type, Default, Bounds, Doc string
	ReadBy                     string
	Example                    string // a value the reader accepts, as YAML
}

// Who reads a key.
const (
	ReadByJob      = "job and delivery models"
	ReadByDelivery = "delivery model"
	ReadByFleet    = "fleet model (retrysim fleet)"
	ReadByGraph    = "graph model (retrysim graph, retrysim workers)"
)

var durationBounds = fmt.Sprintf("0 to %dh", int(limits.MaxDuration.Hours()))

// jobKeyDocs are the keys of a job up to a step's name, in the order of a file.
var jobKeyDocs = []Key{
	{Path: "name", Type: "text", Default: "custom", Bounds: "a name", ReadBy: ReadByJob, Example: "checkout",
		Doc: "the scenario's name, in every output's title"},
	{Path: "noun", Type: "text", Default: "jobs", Bounds: "a name", ReadBy: ReadByJob, Example: "checkouts",
		Doc: "what one job is called in the outputs (sign-ups, checkouts)"},
	{Path: "watched", Type: "a step's name, {step: NAME, label: TEXT}, or a list of them", Default: "none: required", Bounds: "steps of this file, each once", ReadBy: ReadByJob, Example: "a",
		Doc: "the steps whose side effect done twice is counted, each in its own column"},
	{Path: "watched[].step", Type: "text", Default: "none: required", Bounds: "a step's name", ReadBy: ReadByJob, Example: "a",
		Doc: "the watched step"},
	{Path: "watched[].label", Type: "text", Default: `Jobs with 2+ "NAME", NAME the step's`, Bounds: "a name", ReadBy: ReadByJob, Example: "Users with 2+ emails",
		Doc: "the watched step's column heading"},
	{Path: "watched_label", Type: "text", Default: `Jobs with 2+ "NAME", NAME the step's`, Bounds: "a name; only with a single watched step", ReadBy: ReadByJob, Example: "Users with 2+ emails",
		Doc: "the column heading of the single watched step"},
	{Path: "steps", Type: "a list of steps", Default: "none: required", Bounds: fmt.Sprintf("1 to %d steps", stats.MaxSteps), ReadBy: ReadByJob, Example: "[{name: a}]",
		Doc: "the job's steps, run in order; the job stops at the first step still failing after its attempts"},
	{Path: "steps[].name", Type: "text", Default: "step N (its place, from 1)", Bounds: "a name, unique in the file", ReadBy: ReadByJob, Example: "a",
		Doc: "the step's name, by which watched and a setting's path (steps[NAME].p_fail) name it"},
}

// stepKeyDocs are a step's keys after its name, each setting a file gives
// documented by its File, with a latency's or a backoff's parts.
func stepKeyDocs() []Key {
	var keys []Key
	for _, s := range decl.StepSettings() {
		if s.SetBy != "" {
			continue
		}
		k := Key{Path: "steps[]." + s.ShardKey, Type: s.File.Type, Default: s.File.Default, Bounds: s.File.Bounds, ReadBy: ReadByJob, Example: s.File.Example, Doc: s.File.Doc}
		if s.Timed {
			k.ReadBy = ReadByDelivery
		}
		typ, bounds := TypeOf(s.Get(provider.Step{}), s.Min, s.Max)
		k.Type, k.Bounds = cmp.Or(k.Type, typ), cmp.Or(k.Bounds, bounds)
		var parts []Key
		switch s.Get(provider.Step{}).(type) {
		case provider.Latency:
			parts = latencyParts(k.Path, k.ReadBy, "latency", "every call takes the median", "20ms", "200ms")
		case *backoff.Schedule:
			for _, part := range []struct{ key, example string }{{"policy", "exponential"}, {"base", "100ms"}, {"cap", "2s"}} {
				setting := "queue.backoff"
				if part.key != "policy" {
					setting += "." + part.key
				}
				parts = append(parts, Key{Path: k.Path + "." + part.key, Setting: setting, ReadBy: k.ReadBy, Example: part.example})
			}
		}
		keys = append(append(keys, k), parts...)
	}
	return keys
}

// TypeOf is the type and bounds of a setting whose value is v, a whole
// number from lo to hi; any other type is a name.
func TypeOf(v any, lo, hi int) (typ, bounds string) {
	switch v.(type) {
	case float64:
		return "probability", "0 to 1"
	case bool:
		return "true or false", "true or false"
	case int:
		return "whole number", fmt.Sprintf("%d to %d", lo, hi)
	case time.Duration:
		return "duration", durationBounds
	case provider.Latency:
		return "duration, or {median, p99} (lognormal)", durationBounds + "; a p99 needs a median, and is at least it"
	}
	return "name", "one of the names in the meaning"
}

// queueSectionKey documents the queue section itself.
var queueSectionKey = Key{Path: "queue", Type: "a mapping of queue settings", Default: "none: the job model runs (unless a step takes time)", Bounds: "may be empty", ReadBy: ReadByDelivery, Example: "{}",
	Doc: "the queue around the job; the section, even empty, turns the delivery model on, and each key left out keeps its default"}

// Keys lists every key a scenario file takes, in the order of a file.
func Keys() []Key {
	keys := append(slices.Clip(jobKeyDocs), stepKeyDocs()...)
	keys = append(keys, queueSectionKey)
	keys = append(keys, queueKeyDocs()...)
	keys = append(keys, Key{Path: "fleet", Type: "a mapping of fleet settings", Default: "none", Bounds: "only in a file for retrysim fleet, which reads no job", ReadBy: ReadByFleet, Example: "{policy: unlimited}",
		Doc: "the settings of retrysim fleet (load, server, network, client, policy and hedges); each key is the fleet command's flag with _ for -, and a key left out keeps the flag's default (a flag may not give it again)"})
	for _, p := range decl.Params[fleet.Config]() {
		example := cmp.Or(fleetExamples[p.Key], exampleOf(p))
		keys = append(keys, Key{Path: "fleet." + strings.ReplaceAll(p.Key, "-", "_"), Setting: p.Key, ReadBy: ReadByFleet, Example: example})
	}
	return append(keys, graphKeyDocs()...)
}

// exampleOf is a value fleet setting p takes: 1s for a time, true for a
// flag, its default for a name, else 1.
func exampleOf(p decl.Param[fleet.Config]) string {
	defaults := fleet.DefaultConfig()
	switch v := p.Field(&defaults).(type) {
	case *time.Duration:
		return "1s"
	case *bool:
		return "true"
	case encoding.TextMarshaler:
		text, _ := v.MarshalText()
		return string(text)
	}
	return "1"
}

// graphKeyDocs are the graph section's keys, in the order of a file; an
// entry's client takes the keys of a call's, listed once.
func graphKeyDocs() []Key {
	k := func(path, typ, def, bounds, example, doc string) Key {
		return Key{Path: path, Type: typ, Default: def, Bounds: bounds, ReadBy: ReadByGraph, Example: example, Doc: doc}
	}
	section := func(prefix, name string) []Key {
		var keys []Key
		for _, p := range decl.Params[fleet.Config]() {
			if strings.HasPrefix(p.Path, name+".") {
				key := decl.SectionKey(name, p)
				example := cmp.Or(graphExamples[name+"."+key], exampleOf(p))
				keys = append(keys, Key{Path: prefix + "." + key, Setting: p.Key, ReadBy: ReadByGraph, Example: example, Doc: graphDocs[name+"."+key]})
			}
		}
		return keys
	}
	const svc, call = "graph.services[]", "graph.services[].calls[]"
	keys := []Key{
		k("graph", "a mapping: name, duration, net, deadlines, entries and services", "none", "only in a file for retrysim graph, which reads no job and no fleet section", "{entries: [{to: a}], services: [{name: a}]}",
			"the call graph retrysim graph runs: services that call each other, each call with its own client, and load entering at one or more services; each setting left out keeps retrysim fleet's default"),
	}
	for _, p := range decl.GraphParams[fleet.Graph]() {
		keys = append(keys, k("graph."+p.Key, p.Type, p.Default, p.Bounds, p.Example, p.Doc))
	}
	keys = append(keys,
		k("graph.entries", "a list of entries", "none: required", fmt.Sprintf("1 to %d entries", limits.GraphEntries), "[{to: a}]", "where load enters the graph"),
		k("graph.entries[].to", "a service's name", "none: required", "a service of the graph", "a", "the service the entry's requests go to"),
		k("graph.entries[].load", "a mapping of load settings", "constant 40 a second", "the keys below", "{shape: constant, rate: 10}", "the entry's arrivals: each key is retrysim fleet's load flag with _ for -"),
	)
	keys = append(keys, section("graph.entries[].load", "load")...)
	keys = append(keys,
		k("graph.entries[].client", "a mapping of client settings", "retrysim fleet's client: 1 client, timeout 3s, 3 attempts, no backoff", "the keys of "+call+".client", "{attempts: 1}",
			"the client that sends the entry's requests, whose successes are the graph's end to end; it takes the keys of a call's client"),
	)
	for _, p := range decl.EntryParams[fleet.Entry]() {
		keys = append(keys, k("graph.entries[]."+p.Key, p.Type, p.Default, p.Bounds, p.Example, p.Doc))
	}
	keys = append(keys,
		k("graph.services", "a list of services", "none: required", fmt.Sprintf("1 to %d services, each reached by an entry", limits.GraphServices), "[{name: a}]", "the services"),
		k(svc+".name", "text", "none: required", "a name, unique in the graph", "a", "the service's name, by which entries and calls reach it"),
		k(svc+".server", "a mapping of server settings", "retrysim fleet's server: latency 1s + 10ms a call in progress", "the keys below", "{kind: independent, base: 10ms}", "the service's server: each key is retrysim fleet's server flag with _ for -, the server's kind as kind"),
	)
	keys = append(keys, section(svc+".server", "server")...)
	keys = append(keys,
		k(svc+".outage", "a mapping: from, to and mode", "none", "the keys below", "{from: 10s, to: 20s}", "a window [from, to) in which the service fails or stalls every call, as the fleet model's outage"),
		k(svc+".outage.from", "duration", "0s", fmt.Sprintf("up to %ds", limits.FleetSeconds), "1s", "the outage's start"),
		k(svc+".outage.to", "duration", "0s (no outage)", fmt.Sprintf("up to %ds; after from", limits.FleetSeconds), "2s", "the outage's end"),
	)
	keys = append(keys, section(svc+".outage", "outage")...)
	keys = append(keys,
		k(svc+".calls", "a list of calls", "none: the service calls nothing", fmt.Sprintf("up to %d calls a service, %d in the graph; no cycle, at most %d services deep", limits.GraphFanout, limits.GraphCalls, limits.GraphDepth), "[{to: b}]",
			"the calls the service makes for each request, once its own work succeeded; the request succeeds when every call does"),
		k(svc+".parallel", "true or false", "false", "true or false", "true", "make the calls all at once (fan-out) instead of one after the other; the request fails at the first call that fails"),
		k(call+".to", "a service's name", "none: required", "a service of the graph", "b", "the service called"),
		k(call+".client", "a mapping of client settings", "retrysim fleet's client: 1 client, timeout 3s, 3 attempts, no backoff", "the keys below", "{attempts: 1}",
			"the caller's client for this call: each key is retrysim fleet's client flag with _ for -"),
	)
	return append(keys, section(call+".client", "client")...)
}

// graphDocs are the graph's own meanings of keys whose fleet setting's
// Usage says what the graph command does not do.
var graphDocs = map[string]string{
	"load.to": "the spike or ramp ends at this time",
}

// graphExamples are values the graph section's keys take other than exampleOf's.
var graphExamples = map[string]string{
	"load.shape": "spike", "load.to": "30s", "server.kind": "queue", "server.service_dist": "exp",
	"outage.mode": "stall", "client.backoff": "exponential", "client.keys": "same",
	"client.policy": "token-bucket", "client.policy_scope": "fleet",
	"server.pushback": "true", "client.honour_pushback": "true", "load.first_call": "true",
}

// queueKeyDocs are the keys of the queue section, each documented by its
// setting: the queue's own, each with its parts, then each mapping's.
func queueKeyDocs() []Key {
	var keys []Key
	mappings := map[string][]Key{}
	for _, s := range decl.Settings[delivery.Config]() {
		k := Key{Path: "queue." + s.Key, Setting: "queue." + s.Name, ReadBy: ReadByDelivery, Example: s.Example}
		if parent, _, ok := strings.Cut(s.Key, "."); ok {
			mappings[parent] = append(mappings[parent], k)
			continue
		}
		keys = append(keys, k)
		if s.Kind == enum.Latency { // queue.repeat_delay
			keys = append(keys, latencyParts(k.Path, ReadByDelivery, "delay", "every copy comes after the median", "2s", "60s")...)
		}
	}
	for _, m := range queueMappings {
		keys = append(keys, m)
		keys = append(keys, mappings[strings.TrimPrefix(m.Path, "queue.")]...)
	}
	return keys
}

// latencyParts document the median and p99 of the lognormal noun (latency,
// delay) at path, none saying what no p99 means.
func latencyParts(path, readBy, noun, none, median, p99 string) []Key {
	return []Key{
		{Path: path + ".median", Type: "duration", Default: "0s", Bounds: durationBounds, ReadBy: readBy, Example: median,
			Doc: "the lognormal " + noun + "'s median"},
		{Path: path + ".p99", Type: "duration", Default: "0s (" + none + ")", Bounds: durationBounds + ", at least the median", ReadBy: readBy, Example: p99,
			Doc: "the lognormal " + noun + "'s 99th percentile"},
	}
}

// queueMappings document the queue's mappings of settings.
var queueMappings = []Key{
	{Path: "queue.backoff", Type: "{policy, base, cap}", Default: "{policy: full-jitter, base: 100ms, cap: 2s}", Bounds: "a base or cap only where the policy reads it", ReadBy: ReadByDelivery, Example: "{policy: full-jitter}",
		Doc: "the wait between attempts, for every step without its own"},
}

// fleetExamples are values the fleet section's keys take other than exampleOf's.
var fleetExamples = map[string]string{"policy": "token-bucket", "policy-scope": "fleet", "to": "30s", "first-call": "true"}
