// Package jobapi is what the command and the internal packages use of
// package retrysim and a program using the library does not: the job
// model's results as the outputs render them, a sweep's slices and merge,
// a shard the command's merge can rebuild, and the presets' plumbing.
//
// Package retrysim sets the hooks in its init (it imports this package, so
// this one cannot import it): each takes retrysim's value as any, and a
// value of another type panics. retrysim's TestHooks calls every one.
package jobapi

import (
	"context"
	"encoding/json"
	"io"

	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/schema"
)

// Hooks are package retrysim's functions that this package hands on, each
// taking retrysim's value as any: rep a retrysim.Report, s a
// retrysim.Sweep, res a retrysim.SweepResult, e a retrysim.Experiment,
// strategies a []strategy.Strategy.
type Hooks struct {
	Results          func(rep any, ci, expect bool) stats.Report
	Params           func(e any) stats.Params
	UnreadStepPolicy func(e any, i int) (attempts, backoff string)
	SweepStats       func(res any) stats.Sweep
	Settings         func() []SettingDef
	Unread           func(e any) map[string]string
	SweepUnread      func(s any) map[string]string
	ScenarioFile     func(e any) *string
	RunShard         func(ctx context.Context, e any, index, count int) (stats.Shard, error)
	RowIDs           func(strategies any) []string
	RunSweeps        func(ctx context.Context, ss any) ([]stats.Sweep, error)
	SweepPoints      func(s any) (int, error)
	RunSweepPoints   func(ctx context.Context, s any, lo, hi int) ([]SweepPoint, error)
	SweepOf          func(s any, points []SweepPoint) (stats.Sweep, error)
	SweepShown       func(s any, name string) (stats.Axis, error)
	SweepValue       func(s any, name string) (float64, error)
	SweepWarning     func(s any) string
}

// hooks are the Hooks package retrysim set.
var hooks Hooks

// Set stores h: package retrysim calls it once, in its init.
func Set(h Hooks) { hooks = h }

// Results is the report rep as the retrysim command renders it: with
// the expected lines only when expect is set, and the intervals in the
// tables when ci is.
func Results(rep any, ci, expect bool) stats.Report { return hooks.Results(rep, ci, expect) }

// Params are the parameters e's report echoes.
func Params(e any) stats.Params { return hooks.Params(e) }

// UnreadStepPolicy says why e's run never reads step i's own attempts,
// and why it never reads its own backoff, "" for one it reads.
func UnreadStepPolicy(e any, i int) (attempts, backoff string) { return hooks.UnreadStepPolicy(e, i) }

// Settings are the settings retrysim.Override takes besides
// steps[STEP].FIELD, in the order reports list them: p_fail, lost_reply and
// latency over every step, and every field of the queue.
func Settings() []SettingDef { return hooks.Settings() }

// Unread names the settings of e that its run never reads, given the
// others, each with why, so that the command refuses a flag it would
// otherwise drop: the keys are the settings' names as Settings and
// retrysim.Override name them (in a run of the job model, every setting
// only the delivery model reads, with the reason UnreadInJobModel). A
// setting unread for several reasons gets the first.
func Unread(e any) map[string]string { return hooks.Unread(e) }

// SweepUnread names, as Unread does, the settings the sweep s never reads
// at any of its points, each with why; nil for a sweep Check refuses.
func SweepUnread(s any) map[string]string { return hooks.SweepUnread(s) }

// ScenarioFile is the name of the file e's scenario came from (e a
// *retrysim.Experiment), to read or set: the report then lists every
// step's parameters and titles the run by the file.
func ScenarioFile(e any) *string { return hooks.ScenarioFile(e) }

// SweepStats is the sweep result res as the outputs render it.
func SweepStats(res any) stats.Sweep { return hooks.SweepStats(res) }

// RunShard runs slice index of count of e as Experiment.Shard does,
// refusing before any work a slice that the command's merge (a zero
// retrysim.Merger) could not rebuild from its parameters: e must be of
// unlabelled strategy.Retry strategies of one number of attempts, one
// replicate, and a generator with a stream a block (not mulberry32,
// unless count is 1).
func RunShard(ctx context.Context, e any, index, count int) (stats.Shard, error) {
	return hooks.RunShard(ctx, e, index, count)
}

// RowIDs are the ids of the rows a run of strategies (a
// []strategy.Strategy) reports, in their order: what a requirement's
// ROW: names.
func RowIDs(strategies any) []string { return hooks.RowIDs(strategies) }

// RunSweeps runs each sweep of ss (a []retrysim.Sweep) as
// retrysim.RunSweep does, every point of every sweep on one pool of the
// first sweep's Workers. It refuses what Check refuses of any, before
// any work.
func RunSweeps(ctx context.Context, ss any) ([]stats.Sweep, error) { return hooks.RunSweeps(ctx, ss) }

// SweepPoints is the number of points of s's grid; it refuses what
// Check refuses.
func SweepPoints(s any) (int, error) { return hooks.SweepPoints(s) }

// RunSweepPoints runs the points lo to hi-1 of s (0 <= lo <= hi <=
// SweepPoints), the first axis varying slowest, and returns their
// counters, for SweepOf. Progress counts the points of the slice.
func RunSweepPoints(ctx context.Context, s any, lo, hi int) ([]SweepPoint, error) {
	return hooks.RunSweepPoints(ctx, s, lo, hi)
}

// SweepOf makes the rows of s, as RunSweep returns them, from the
// counters of each of its points in grid order (RunSweepPoints'),
// refusing points that are not one for each of the grid's, each with
// the sweep's replicates, a counter a strategy, the jobs its point runs,
// and counts no run of the point can have.
func SweepOf(s any, points []SweepPoint) (stats.Sweep, error) { return hooks.SweepOf(s, points) }

// SweepShown is how outputs show s's axis called name (a whole number,
// a duration in seconds); s must name it.
func SweepShown(s any, name string) (stats.Axis, error) { return hooks.SweepShown(s, name) }

// SweepValue is the value the axis or parameter called name has at a
// point of s that does not vary it, in the axis's units.
func SweepValue(s any, name string) (float64, error) { return hooks.SweepValue(s, name) }

// SweepWarning is the delivery model's warning at the first point of s
// that has one, "" when none has or Check refuses s.
func SweepWarning(s any) string { return hooks.SweepWarning(s) }

// SettingDef is a setting retrysim.Override takes by a plain name: what it
// means and what a run has without it, so that a command declares its flags
// from Settings instead of repeating them.
type SettingDef struct {
	// Name is the setting's name: p_fail, queue.backoff.base.
	Name string
	// Key is its path in a scenario file, and so in the errors of a file
	// and of the queue's Check, where that is not Name:
	// queue.backoff.policy for queue.backoff.
	Key string
	// Usage says what it means, its argument's name in backquotes, as
	// package flag reads a flag's help; it names other settings by their
	// names here (queue.store), which a command's help turns into its
	// flags' names.
	Usage string
	// Default is the value a run has when the setting is not given (the
	// sign-up's p_fail and lost_reply, delivery.Defaults' queue), of the
	// type retrysim.Override takes for it (retrysim.Setting.Value).
	Default any
	// Min and Max bound a count: an int Default.
	Min, Max int
	// Delivery: only the delivery model reads it (latency, queue.FIELD).
	Delivery bool
}

// SweepPoint is one point's counters as RunSweepPoints returns them: a
// replicate's, one a strategy in the order of the sweep's Strategies.
type SweepPoint struct {
	Replicates [][]stats.Counters `json:"replicates"`
}

// WriteShard writes sh as the command's shard option does, for the
// command's merge to read on another machine: indented json, then a newline.
func WriteShard(w io.Writer, sh stats.Shard) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sh)
}

// DefaultSeed is the seed the command runs when given none: the seed of
// the article's tables.
const DefaultSeed = 1

// MaxReplicates bounds an experiment's and a sweep's replicates: each
// replicate keeps its metric values until the report is built.
const MaxReplicates = 10_000

// UnreadInJobModel is why retrysim's Unread names a setting only the
// delivery model reads, in a run of the job model.
const UnreadInJobModel = "only the delivery model reads it"

// CheckExpect refuses expectations (Results' expect) asked of a run of the
// delivery model, as a *schema.FieldError: the closed forms cover the Part
// 5 model only. The command's table and merge both ask it.
func CheckExpect(expect, delivery bool) error {
	if expect && delivery {
		return &schema.FieldError{Field: "expect", Msg: "the closed forms cover the Part 5 model, not the delivery model"}
	}
	return nil
}

// sweepDefaults are the values of a sweep's fixed axis that it leaves out,
// in stats.Axes order.
var sweepDefaults = [...]float64{0.01, 0.005, 3, 1_000_000}

// SweepDefault is the value of a sweep's fixed axis i (in stats.Axes
// order) that a sweep leaving it out runs.
func SweepDefault(i int) float64 { return sweepDefaults[i] }

// SweepSpec is what a sweep's fixed axis i (in stats.Axes order) accepts.
func SweepSpec(i int) sweep.Spec { return sweepSpecs[i] }

// sweepSpecs are what each fixed axis of a sweep accepts, in stats.Axes order.
var sweepSpecs = [...]sweep.Spec{
	{Kind: sweep.Probability}, {Kind: sweep.Probability},
	{Kind: sweep.Whole, Min: 1, Max: limits.MaxAttempts}, {Kind: sweep.Whole, Min: 1, Max: limits.MaxJobs},
}

// SweepAxis is one of a sweep's fixed axes as a command declares its flag:
// what its values mean, what each takes, and the value a sweep that leaves
// it out runs.
type SweepAxis struct {
	// Name is the axis's (stats.Axes): p_fail, lost_reply, attempts, jobs.
	Name string
	// Usage is the flag's help, its argument named in backquotes.
	Usage string
	// Default is the value a sweep that leaves the axis out runs.
	Default float64
	// Spec is what values the axis takes.
	Spec sweep.Spec
}

// Parse reads values of the axis: a value, a list or a range
// start:stop:count, each one the axis takes.
func (a SweepAxis) Parse(values string) ([]float64, error) {
	return sweep.Parse(values, a.Spec)
}

// SweepAxes are a sweep's fixed axes, in stats.Axes order.
func SweepAxes() []SweepAxis {
	usage := [...]string{
		"`values` of the probability that a call fails",
		"`values` of the probability that the welcome email's reply is lost",
		"`values` of the attempts a retry allows (1 to 1000)",
		"`values` of the jobs simulated at each point (each 1 to 10^12)",
	}
	axes := make([]SweepAxis, len(usage))
	for i, a := range stats.Axes() {
		axes[i] = SweepAxis{Name: a.Name, Usage: usage[i], Default: sweepDefaults[i], Spec: sweepSpecs[i]}
	}
	return axes
}
