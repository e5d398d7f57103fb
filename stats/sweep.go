package stats

import "slices"

// Axis is a parameter a sweep can vary: its name in outputs, the words that
// label it on a plot, and whether its values are whole numbers.
type Axis struct {
	Name, Label string
	Whole       bool
}

// axes are the parameters a sweep can vary, in grid order.
var axes = []Axis{
	{"p_fail", "Probability that a call fails", false},
	{"lost_reply", "Probability that the watched step's reply is lost", false},
	{"attempts", "Attempts a retry allows", true},
	{"jobs", "Jobs simulated", true},
}

// Axes are the parameters a sweep can vary, in grid order: a fresh slice,
// so no importer can change what another gets.
func Axes() []Axis { return slices.Clone(axes) }

// Point is one grid point of a sweep: a value for every axis of the sweep,
// in the order of its axes (Sweep.AxisList).
type Point []float64

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
	// File is the scenario file the sweep ran, if any.
	File   string `json:"scenario_file,omitempty"`
	RNG    string `json:"rng"`
	Seed   uint64 `json:"seed"`
	Engine string `json:"engine"`
	// Axes are the sweep's parameters, in grid order; nil means Axes(), the
	// four of the built-in sign-up. A scenario file's sweep leaves out
	// p_fail and lost_reply unless they are set over the file, and a
	// parameter varied by name (steps[charge the card].p_fail) follows the
	// four, labelled with its name.
	Axes []Axis `json:"-"`
	// Swept are indexes into the axes of the parameters that take several values.
	Swept  []int      `json:"-"`
	Metric Metric     `json:"-"`
	Rows   []SweepRow `json:"-"`
	// Strategies are the row IDs in the order asked for, for columns and legends.
	Strategies []string `json:"strategies"`
}

// AxisList is the sweep's axes: Axes, or the built-in four when it is nil.
func (s Sweep) AxisList() []Axis {
	if s.Axes == nil {
		return Axes()
	}
	return s.Axes
}

// At is the row's value on axis a; a row without a point (a zero SweepRow)
// reads 0 on every axis, as the fixed array of four it replaced did.
func (r SweepRow) At(a int) float64 {
	if a < len(r.Point) {
		return r.Point[a]
	}
	return 0
}
