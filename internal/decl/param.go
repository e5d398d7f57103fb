package decl

import (
	"strings"

	"github.com/retrysim/retrysim/internal/pathtext"
)

// Param is one setting of a configuration C, a fleet.Config: the one place that names it, says what
// it means and bounds it, and reaches its field. Path names it by its Go
// fields, lower case with _ between words and . between fields
// (client.policy.budget_ratio for Config.Client.Policy.BudgetRatio): errors
// (FieldError) and Unread name settings by it. Key is its short name, the
// last part of Path with - for _ unless set (budget-ratio; the server's
// kind is server): a command names its flag so, and a scenario file's
// fleet section its key, with _ for - (a file may give every setting).
// Usage says what it means, naming other settings by their paths (a
// command's help names them as its flags, by Usage.Words). Field
// returns the setting in c: a *float64 (a probability when Probability,
// else a number in [Lo, Hi]), an *int in [Lo, Hi], a *time.Duration (a
// time, up to 86400 s), or, for a setting that is one of a list of
// names, a value that reads and writes it as text (encoding.TextMarshaler
// and encoding.TextUnmarshaler).
type Param[C any] struct {
	Path, Key   string
	Usage       pathtext.Text
	Field       func(c *C) any
	Lo, Hi      float64
	Probability bool
}

// Params lists the settings of C, in the order its package's table lists
// them (Register). The result is a fresh slice.
func Params[C any]() []Param[C] { return Table[Param[C]]() }

// LookupParam returns the setting of C whose path is path.
func LookupParam[C any](path string) (Param[C], bool) {
	for _, p := range Params[C]() {
		if p.Path == path {
			return p, true
		}
	}
	return Param[C]{}, false
}

// LookupKey returns the setting of C whose Key is key.
func LookupKey[C any](key string) (Param[C], bool) {
	for _, p := range Params[C]() {
		if p.Key == key {
			return p, true
		}
	}
	return Param[C]{}, false
}

// SectionKey is the key of setting p in a graph section's mapping named
// section (load, server, outage or client): its Key with _ for -, less the
// section's name in front (outage-mode is mode), and kind for the setting
// whose Key is the section's name (server.kind, whose Key is server).
func SectionKey[C any](section string, p Param[C]) string {
	k := strings.ReplaceAll(p.Key, "-", "_")
	if k == section {
		return "kind"
	}
	if rest, ok := strings.CutPrefix(k, section+"_"); ok {
		return rest
	}
	return k
}

// EntryParam is one setting of a graph's entry E, a fleet.Entry, besides its service, load
// and client (whose settings Params declares): the one place that names it,
// says what it means and what it takes, and reaches its field. Key names
// it under an entry, as a scenario file's graph.entries[i] and FieldError
// (entries[i].KEY) do, and a worker fleet's settings (Workers) with the
// same name. Doc, Type, Default, Bounds and Example are what help scenario
// says of it (Example as YAML; Type, for a setting that is one of a list of
// names, what one is: a store). Needs is the key without which it does
// nothing (ttl needs store); Sets, if not nil, is what giving it sets
// besides its own field (a store's TTL and lease, the delivery model's);
// Unread, if not nil, says why a run of e never reads it, "" when it does.
// Field returns the setting in e: a *float64 (a probability), a *bool, a
// *time.Duration, an *int, or a value that reads and writes it as one of
// Names (encoding.TextMarshaler and encoding.TextUnmarshaler).
type EntryParam[E any] struct {
	Key, Doc, Type, Default, Bounds, Example string
	Needs                                    string
	Names                                    []string
	Field                                    func(e *E) any
	Sets                                     func(e *E)
	Unread                                   func(e E) string
}

// EntryParams lists an entry's settings, in the order a scenario file's
// reference lists them and a file's reader reads them. The result is a
// fresh slice.
func EntryParams[E any]() []EntryParam[E] { return Table[EntryParam[E]]() }

// GraphParam is one setting of a graph G itself, a fleet.Graph, besides its entries and
// services: the one place that names it (its key under a scenario file's
// graph, as FieldError names it), says what it means (Doc, Type, Default,
// Bounds and Example, as for EntryParam) and reaches its field. Field
// returns the setting in g: a *string (a name), a *time.Duration or a
// *bool.
type GraphParam[G any] struct {
	Key, Doc, Type, Default, Bounds, Example string
	Field                                    func(g *G) any
}

// GraphParams lists a graph's own settings, in the order a scenario file's
// reference lists them and a file's reader reads them. The result is a
// fresh slice.
func GraphParams[G any]() []GraphParam[G] { return Table[GraphParam[G]]() }
