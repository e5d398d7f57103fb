package stats

import (
	"slices"

	"github.com/retrysim/retrysim/internal/hist"
)

// Axis is a parameter a sweep can vary: its name, its plot label, and whether its values are whole
// numbers or durations in seconds.
type Axis struct {
	Name, Label string
	Whole       bool
	Duration    bool
}

// axes are the parameters a sweep can vary, in grid order.
var axes = []Axis{
	{Name: "p_fail", Label: "Probability that a call fails"},
	{Name: "lost_reply", Label: "Probability that the watched step's reply is lost"},
	{Name: "attempts", Label: "Attempts a retry allows", Whole: true},
	{Name: "jobs", Label: "Jobs simulated", Whole: true},
}

// Axes are the parameters a sweep can vary, in grid order, a fresh slice.
func Axes() []Axis { return slices.Clone(axes) }

// Point is one grid point of a sweep, a value an axis.
type Point []float64

// SweepRow is one strategy at one grid point: the Part 5 counters in Core and the others only where
// not zero, a few hundred bytes where Counters take 90 KB.
type SweepRow struct {
	Point Point
	// ID is the strategy's short name; Label the name people read.
	ID, Label string
	// NoRepeats is Row.NoRepeats.
	NoRepeats bool
	Core
	// Replicates are each replicate's metric values, when there are two or more.
	Replicates []Values
	// rest are the counters beyond Core that are not zero; the histograms keep their buckets.
	rest                         []counted
	completion, failedCompletion []hist.Bucket
}

// counted is one counter beyond Core, by its index in restOf's order.
type counted struct {
	at int
	n  int64
}

// restOf are the counters of c beyond Core, in a fixed order.
func restOf(c *Counters) []*int64 {
	p := []*int64{&c.Deliveries, &c.LostWork}
	for i := range c.RepeatedByStep {
		p = append(p, &c.RepeatedByStep[i], &c.TwiceByStep[i])
	}
	return p
}

// SetCounters sets the row's counters to c, every one of them.
func (r *SweepRow) SetCounters(c *Counters) {
	r.Core = CoreOf(c)
	r.rest = nil
	r.completion, r.failedCompletion = c.Completion.Buckets(), c.FailedCompletion.Buckets()
	for i, p := range restOf(c) {
		if *p != 0 {
			r.rest = append(r.rest, counted{i, *p})
		}
	}
}

// Core are the counters of the Part 5 model, the rates' inputs.
type Core struct {
	Jobs, Failed, Calls, RepeatedSteps, DuplicateUsers, SideEffects int64
	CallsSq, RepeatedSq                                             Wide
}

// CoreOf is c's Part 5 counters.
func CoreOf(c *Counters) Core {
	return Core{c.Jobs, c.Failed, c.Calls, c.RepeatedSteps, c.DuplicateUsers, c.SideEffects, c.CallsSq, c.RepeatedSq}
}

// Row is the sweep row as a Row, for the metrics and the flat fields.
func (r *SweepRow) Row() Row {
	var row Row
	r.Fill(&row)
	return row
}

// Fill writes the sweep row into row, which a caller reading many rows reuses (89 KB).
func (r *SweepRow) Fill(row *Row) {
	c := r.Core
	*row = Row{ID: r.ID, Label: r.Label, NoRepeats: r.NoRepeats, Replicates: r.Replicates, Counters: Counters{
		Jobs: c.Jobs, Failed: c.Failed, Calls: c.Calls, RepeatedSteps: c.RepeatedSteps, DuplicateUsers: c.DuplicateUsers,
		SideEffects: c.SideEffects, CallsSq: c.CallsSq, RepeatedSq: c.RepeatedSq,
	}}
	if len(r.rest) > 0 {
		p := restOf(&row.Counters)
		for _, x := range r.rest {
			*p[x.at] = x.n
		}
	}
	// The buckets came from Buckets, so they are valid.
	_ = row.Counters.Completion.SetBuckets(r.completion)
	_ = row.Counters.FailedCompletion.SetBuckets(r.failedCompletion)
}

// Sweep is a whole sweep: the fixed parameters, the swept axes, the metric shown, and a row per
// point and strategy.
type Sweep struct {
	Scenario string `json:"scenario"`
	// File is the scenario file the sweep ran, if any.
	File   string `json:"scenario_file,omitempty"`
	RNG    string `json:"rng"`
	Seed   uint64 `json:"seed"`
	Engine string `json:"engine"`
	// Axes are the sweep's parameters in grid order; nil means Axes().
	Axes []Axis `json:"-"`
	// Swept are indexes into the axes of the parameters that take several values.
	Swept  []int  `json:"-"`
	Metric Metric `json:"-"`
	// CI puts the metric's intervals in the table formats.
	CI bool `json:"-"`
	// Watched are the scenario's watched steps, as Params.Watched.
	Watched []Watch `json:"watched,omitempty"`
	// StepNames are the scenario's steps when the delivery model ran.
	StepNames []string   `json:"-"`
	Rows      []SweepRow `json:"-"`
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

// At is the row's value on axis a, 0 for a row without a point.
func (r SweepRow) At(a int) float64 {
	if a < len(r.Point) {
		return r.Point[a]
	}
	return 0
}
