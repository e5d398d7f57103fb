// Package incident is the gallery of public incidents replayed: each one a
// run of the fleet or workers model that an organisation's own report (or
// its documentation) describes, with the source named and quoted, the
// numbers the source gives, the values assumed for what it does not, the
// outcome as a share of replicates with its Wilson interval, and the fix
// the report applied, replayed beside it.
//
// It is not a new engine: an incident is a preset of an existing kind
// (fleet.Config or fleet.Workers) with a story. It does not tune: `retrysim
// tune fleet|workers -scenario FILE` searches an incident's scenario files,
// and docs/incidents.md shows what it finds beside each fix.
package incident

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
)

// Kind is the model an incident runs on, named as the command that runs its
// scenario files: "fleet" or "workers".
type Kind string

// The kinds an incident may be.
const (
	Fleet   Kind = "fleet"
	Workers Kind = "workers"
)

// Source is the public report an incident follows.
type Source struct {
	Title, Organisation string
	// Date is the incident's date (or the document's, for a warning in
	// documentation), as the source gives it.
	Date string
	Link string
	// Quote is the source's key sentence, word for word.
	Quote string
}

// Given is a number the source gives, beside the replay's figure for the
// same thing. Tolerance is how far (in Unit) the test holds the replay
// from Value; AtLeast holds a duration longer than a run one-sided (the
// figure is the time from the trigger's end to the run's end, and the
// incident's run still collapsed there in every replicate is consistent
// with Value at least that); with neither, the figures are not comparable,
// and Note says why.
type Given struct {
	What  string
	Value float64
	Unit  string
	// Replay names the replay's figure printed beside the source's.
	Replay    string
	Tolerance float64
	AtLeast   bool
	Note      string
	// figure is the replay's figure from a report.
	figure func(*Report) float64
}

// Assumption is a setting the source does not give and the value the
// replay assumes for it.
type Assumption struct {
	Name, Value string
}

// Run is one of an incident's runs: the incident itself, or a fix.
type Run struct {
	// Name is the run's name in outputs, as its Config or Workers names it.
	Name string
	Fix  bool
	// Scenario is the scenario file, from the repository's root, that
	// `retrysim KIND -scenario` runs to the same rows (with Flags).
	Scenario string
	// Flags are what the command needs beside the file to run it as the
	// gallery does (the duration and replicates of a fleet run, which a
	// fleet section does not hold).
	Flags string
}

// Incident is one entry of the gallery.
type Incident struct {
	Name string
	Kind Kind
	Source
	// Story is what happened, in the gallery's own words, every sentence
	// traceable to Source.
	Story string
	// Outcome says what a replicate's outcome counts ("stayed collapsed
	// after the trigger ended"), and FixText what the fix is and where the
	// source asks for it.
	Outcome, FixText string
	Given            []Given
	Assumptions      []Assumption
	Runs             []Run
	// Duration is the runs' duration.
	Duration time.Duration
	// configs builds a fleet incident's runs, in Runs order; workers a
	// workers incident's.
	configs func() []fleet.Config
	workers func() []fleet.Workers
	// bad says whether replicate r of run i had the outcome.
	bad func(rep *Report, run, r int) bool
}

// Configs is a fleet incident's runs, in Runs order (nil for a workers
// incident).
func (inc Incident) Configs() []fleet.Config {
	if inc.configs == nil {
		return nil
	}
	return inc.configs()
}

// WorkersRuns is a workers incident's runs, in Runs order (nil for a fleet
// incident).
func (inc Incident) WorkersRuns() []fleet.Workers {
	if inc.workers == nil {
		return nil
	}
	return inc.workers()
}

// Graphs is a workers incident's runs as the graphs the engine runs, in
// Runs order (nil for a fleet incident).
func (inc Incident) Graphs() []fleet.Graph {
	var gs []fleet.Graph
	for _, w := range inc.WorkersRuns() {
		gs = append(gs, w.Graph())
	}
	return gs
}

// DefaultReplicates is the replicates a replay runs unless told otherwise,
// the same for every incident.
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
