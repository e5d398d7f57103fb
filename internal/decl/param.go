package decl

import (
	"strings"

	"github.com/retrysim/retrysim/internal/pathtext"
)

// Param is one setting of a configuration C (a fleet.Config), declared once.
type Param[C any] struct {
	// Path names it by its Go fields (client.policy.budget_ratio), as
	// errors and Unread do; Key is its flag's name and, with _ for -, its
	// fleet section key (budget-ratio).
	Path, Key string
	Usage     pathtext.Text // naming other settings by their paths
	// Field is the setting in c: a *float64 (in [Lo, Hi] or a
	// Probability), an *int in [Lo, Hi], a *time.Duration, a *bool, or a
	// name read and written as text.
	Field       func(c *C) any
	Lo, Hi      float64
	Probability bool
}

// Params lists the settings of C in their table's order, a fresh slice.
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

// SectionKey is the key of setting p in a graph mapping named section: its
// Key with _ for - less the section's name in front (outage-mode is mode),
// or kind for the setting whose Key is the section's name.
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

// EntryParam is one setting of a graph's entry E (a fleet.Entry) besides
// its service, load and client, declared once under its Key; Doc, Type,
// Default, Bounds and Example are what help scenario says of it.
type EntryParam[E any] struct {
	Key, Doc, Type, Default, Bounds, Example string
	Needs                                    string   // the key without which it does nothing
	Names                                    []string // a name's values
	// Field is the setting in e: a *float64 (a probability), a *bool, a
	// *time.Duration, an *int, or one of Names read and written as text.
	Field  func(e *E) any
	Sets   func(e *E)       // if not nil, what giving it sets besides its field
	Unread func(e E) string // if not nil, why a run of e never reads it, or ""
}

// EntryParams lists an entry's settings in their table's order, a fresh slice.
func EntryParams[E any]() []EntryParam[E] { return Table[EntryParam[E]]() }

// GraphParam is one setting of a graph G (a fleet.Graph) itself, declared
// as an entry's; Field is a *string, a *time.Duration or a *bool.
type GraphParam[G any] = EntryParam[G]

// GraphParams lists a graph's own settings in their table's order, a fresh slice.
func GraphParams[G any]() []GraphParam[G] { return Table[GraphParam[G]]() }
