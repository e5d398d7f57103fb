package stats

import "slices"

// Axis is a parameter a sweep can vary: its name in outputs and the words
// that label it on a plot.
type Axis struct{ Name, Label string }

// axes are the parameters a sweep can vary, in grid order.
var axes = []Axis{
	{"p_fail", "Probability that a call fails"},
	{"lost_reply", "Probability that the watched step's reply is lost"},
	{"attempts", "Attempts a retry allows"},
	{"jobs", "Jobs simulated"},
}

// Axes are the parameters a sweep can vary, in grid order: a fresh slice,
// so no importer can change what another gets.
func Axes() []Axis { return slices.Clone(axes) }

// Point is one grid point of a sweep: a value for every axis, in Axes order.
type Point [4]float64

// SweepRow is one strategy at one grid point. It keeps the Part 5 model's
// counters only (a sweep runs no delivery model), so that a grid of thousands
// of points holds a hundred bytes a row, not Counters' kilobytes.
type SweepRow struct {
	Point Point
	// ID is the strategy's short name; Label the name people read.
	ID, Label string
	// NoRepeats is Row.NoRepeats.
	NoRepeats bool
	Core
}

// Core are the counters of the Part 5 model, the rates' inputs: a hundred
// bytes, where the delivery model's histograms and per-step counts make
// Counters kilobytes.
type Core struct {
	Jobs, Failed, Calls, RepeatedSteps, DuplicateUsers, SideEffects int64
	CallsSq, RepeatedSq                                             Wide
}

// CoreOf is c's Part 5 counters.
func CoreOf(c Counters) Core {
	return Core{c.Jobs, c.Failed, c.Calls, c.RepeatedSteps, c.DuplicateUsers, c.SideEffects, c.CallsSq, c.RepeatedSq}
}

// Row is the sweep row as a Row, for the metrics and the flat fields.
func (r SweepRow) Row() Row {
	c := r.Core
	return Row{ID: r.ID, Label: r.Label, NoRepeats: r.NoRepeats, Counters: Counters{
		Jobs: c.Jobs, Failed: c.Failed, Calls: c.Calls, RepeatedSteps: c.RepeatedSteps, DuplicateUsers: c.DuplicateUsers,
		SideEffects: c.SideEffects, CallsSq: c.CallsSq, RepeatedSq: c.RepeatedSq,
	}}
}

// Sweep is a whole sweep: the fixed parameters, which axes vary, the metric
// the table formats and plots show, and a row per point and strategy.
type Sweep struct {
	Scenario string `json:"scenario"`
	RNG      string `json:"rng"`
	Seed     uint64 `json:"seed"`
	Engine   string `json:"engine"`
	// Swept are indexes into Axes of the parameters that take several values.
	Swept  []int      `json:"-"`
	Metric Metric     `json:"-"`
	Rows   []SweepRow `json:"-"`
	// Strategies are the row IDs in the order asked for, for columns and legends.
	Strategies []string `json:"strategies"`
}
