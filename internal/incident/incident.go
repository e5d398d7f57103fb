// Package incident is the gallery of public incidents replayed: each a run of
// the fleet or workers model that a public report describes, with its source
// quoted, its numbers beside the replay's, the values assumed, the outcome as
// a share of replicates, and the fix replayed beside it. An incident is a
// preset of an existing kind with a story: no engine, and no tuning.
package incident

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
)

// Kind is the command that runs an incident's scenario files: "fleet" or "workers".
type Kind string

const (
	Fleet   Kind = "fleet"
	Workers Kind = "workers"
)

// Source is the public report an incident follows.
type Source struct {
	Title        string `json:"title"`
	Organisation string `json:"organisation"`
	Date         string `json:"date"` // as the source gives it
	Link         string `json:"link"`
	Quote        string `json:"quote"` // the source's key sentence, word for word
}

// Given is a number the source gives, beside the replay's figure for it:
// held within Tolerance (in Unit), or AtLeast (one-sided: a collapse still
// on at the run's end), or else not comparable, as Note says.
type Given struct {
	What      string
	Value     float64
	Unit      string
	Replay    string
	Tolerance float64
	AtLeast   bool
	Note      string
	figure    func(*Report) float64
}

// Assumption is a setting the source does not give and the replay's value for it.
type Assumption struct {
	Name, Value string
}

// Run is one of an incident's runs: the incident itself, or a fix.
type Run struct {
	// Name is the run's name in outputs.
	Name string
	Fix  bool
	// Scenario is the file, from the repository's root, that `retrysim KIND
	// -scenario` runs with Flags to the same rows.
	Scenario string
	Flags    string
}

// Incident is one entry of the gallery.
type Incident struct {
	Name string
	Kind Kind
	Source
	// Story is what happened, every sentence traceable to Source.
	Story string
	// Outcome says what a replicate's outcome counts; FixText what the fix is.
	Outcome, FixText string
	Given            []Given
	Assumptions      []Assumption
	Runs             []Run
	Duration         time.Duration
	// configs are a fleet incident's runs, in Runs order; workers a workers incident's.
	configs []fleet.Config
	workers []fleet.Workers
	// bad says whether replicate r of run i had the outcome (a workers incident).
	bad func(rep *Report, run, r int) bool
}

// Configs is a fleet incident's runs, in Runs order.
func (inc Incident) Configs() []fleet.Config { return slices.Clone(inc.configs) }

// Graphs is a workers incident's runs as the engine's graphs, in Runs order.
func (inc Incident) Graphs() []fleet.Graph {
	var gs []fleet.Graph
	for _, w := range inc.workers {
		gs = append(gs, w.Graph())
	}
	return gs
}

// DefaultReplicates is the replicates a replay runs unless told otherwise.
const DefaultReplicates = 20

// Gallery lists the incidents, in the order the gallery shows them.
func Gallery() []Incident {
	return []Incident{sqsVisibility(), dynamoDB2015(), googleCloud2025(), awsUSEast2025(), sidekiq480(), facebook2010()}
}

// Lookup returns the incident called name; its error lists the gallery.
func Lookup(name string) (Incident, error) {
	g := Gallery()
	if i := slices.IndexFunc(g, func(inc Incident) bool { return inc.Name == name }); i >= 0 {
		return g[i], nil
	}
	names := make([]string, len(g))
	for i, inc := range g {
		names[i] = inc.Name
	}
	return Incident{}, fmt.Errorf("unknown incident %q (want one of %s)", name, strings.Join(names, ", "))
}
