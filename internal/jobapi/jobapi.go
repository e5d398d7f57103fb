// Package jobapi is what the command and the internal packages use of package retrysim and a
// program using the library does not. Package retrysim sets the hooks in its init (it imports this
// package); each takes retrysim's value as any, and another type panics.
package jobapi

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Hooks are package retrysim's functions that this package hands on.
type Hooks struct {
	Results        func(rep any, ci, expect bool) stats.Report
	SweepStats     func(res any) stats.Sweep
	Settings       func() []SettingDef
	Unread         func(e any) map[string]string
	SweepUnread    func(s any) map[string]string
	ScenarioFile   func(e any) *string
	RunShard       func(ctx context.Context, e any, index, count int) (stats.Shard, error)
	RunSweeps      func(ctx context.Context, ss any) ([]stats.Sweep, error)
	SweepPoints    func(s any) (int, error)
	RunSweepPoints func(ctx context.Context, s any, lo, hi int) ([]SweepPoint, error)
	SweepOf        func(s any, points []SweepPoint) (stats.Sweep, error)
	SweepShown     func(s any, name string) (stats.Axis, error)
	SweepValue     func(s any, name string) (float64, error)
	SweepWarning   func(s any) string
}

// hooks are the Hooks package retrysim set.
var hooks Hooks

// Set stores h: package retrysim calls it once, in its init.
func Set(h Hooks) { hooks = h }

// Results is the report rep as the command renders it, with expectations when expect is set and
// intervals in the tables when ci is.
func Results(rep any, ci, expect bool) stats.Report { return hooks.Results(rep, ci, expect) }

// Watches are sc's valid watched steps as reports name them, labelled Jobs with 2+ "<step name>" by
// default.
func Watches(sc provider.Scenario) []stats.Watch {
	var ws []stats.Watch
	for _, w := range sc.Watched {
		if w.Step < 0 || w.Step >= len(sc.Steps) {
			continue
		}
		label := cmp.Or(w.Label, fmt.Sprintf("Jobs with 2+ %q", sc.Steps[w.Step].Name))
		ws = append(ws, stats.Watch{Step: w.Step, Name: sc.Steps[w.Step].Name, Label: label})
	}
	return ws
}

// UnreadStepPolicy says why a run of strategies on sc never reads step i's own attempts, and its
// own backoff, "" where it does.
func UnreadStepPolicy(sc provider.Scenario, strategies []strategy.Strategy, i int) (attempts, backoff string) {
	own := sc.Steps[i].Retry
	var eachStep, retried bool
	for _, s := range strategies {
		r, ok := s.(strategy.Retry)
		if !ok {
			return "", ""
		}
		if r.Scope == strategy.EachStep {
			eachStep = true
			retried = retried || jobsim.StepAttempts(own, r.Attempts) > 1
		}
	}
	const wholeJob = "every strategy retries the whole job, which reads the run's attempts and backoff, not a step's own"
	switch {
	case !eachStep:
		attempts, backoff = wholeJob, wholeJob
	case !retried:
		backoff = "with attempts 1 the step's calls are not retried, so its own backoff is never waited"
	}
	if own.Attempts == 0 {
		attempts = ""
	}
	if own.Backoff == nil {
		backoff = ""
	}
	return attempts, backoff
}

// Settings are the settings retrysim.Override takes besides steps[STEP].FIELD, in the order reports
// list them.
func Settings() []SettingDef { return hooks.Settings() }

// Unread names the settings of e that its run never reads, given the others, each with the first
// reason why, so that the command refuses a flag it would drop.
func Unread(e any) map[string]string { return hooks.Unread(e) }

// SweepUnread names, as Unread does, the settings the sweep s never reads at any point.
func SweepUnread(s any) map[string]string { return hooks.SweepUnread(s) }

// ScenarioFile is the name of the file e's scenario came from (e a *retrysim.Experiment), to read or set.
func ScenarioFile(e any) *string { return hooks.ScenarioFile(e) }

// SweepStats is the sweep result res as the outputs render it.
func SweepStats(res any) stats.Sweep { return hooks.SweepStats(res) }

// RunShard runs slice index of count of e as Experiment.Shard does, refusing first a slice the
// command's merge could not rebuild from its parameters.
func RunShard(ctx context.Context, e any, index, count int) (stats.Shard, error) {
	return hooks.RunShard(ctx, e, index, count)
}

// RowIDs are the ids of the rows a run of strategies reports.
func RowIDs(strategies []strategy.Strategy) []string {
	ids, _ := RowNames(strategies)
	return ids
}

// RowNames are the strategies' row IDs and labels, naming the attempts of strategy.Retry values
// that differ only in them (step-nokey-5attempts).
func RowNames(ss []strategy.Strategy) (ids, labels []string) {
	ids, labels = make([]string, len(ss)), make([]string, len(ss))
	for i, s := range ss {
		if s != nil {
			ids[i], labels[i] = strategyID(s), s.Name()
		}
	}
	for i, s := range ss {
		r, ok := s.(strategy.Retry)
		if !ok || r.Label != "" || !slices.ContainsFunc(ss, func(o strategy.Strategy) bool {
			x, ok := o.(strategy.Retry)
			return ok && x.Label == "" && x.Attempts != r.Attempts && strategyID(x) == ids[i]
		}) {
			continue
		}
		ids[i] = fmt.Sprintf("%s-%dattempts", ids[i], r.Attempts)
		labels[i] = fmt.Sprintf("%s, %d attempts", labels[i], r.Attempts)
	}
	return ids, labels
}

// strategyID is a strategy's short name: scope-keys[-skip] for an unlabelled strategy.Retry, else its Name.
func strategyID(s strategy.Strategy) string {
	r, ok := s.(strategy.Retry)
	if !ok || r.Label != "" {
		return s.Name()
	}
	parts := []string{r.Scope.String(),
		[...]string{schema.NoKeys: "nokey", schema.FreshKeys: "newkey", schema.SameKey: "samekey"}[r.Keys]}
	if r.SkipFinished {
		parts = append(parts, "skip")
	}
	return strings.Join(parts, "-")
}

// RunSweeps runs each sweep of ss (a []retrysim.Sweep) on one pool of the first sweep's Workers.
func RunSweeps(ctx context.Context, ss any) ([]stats.Sweep, error) { return hooks.RunSweeps(ctx, ss) }

// SweepPoints is the number of points of s's grid.
func SweepPoints(s any) (int, error) { return hooks.SweepPoints(s) }

// RunSweepPoints runs the points lo to hi-1 of s and returns their counters, for SweepOf.
func RunSweepPoints(ctx context.Context, s any, lo, hi int) ([]SweepPoint, error) {
	return hooks.RunSweepPoints(ctx, s, lo, hi)
}

// SweepOf makes the rows of s from its points' counters in grid order, refusing counters that are
// not the grid's or that no run can have.
func SweepOf(s any, points []SweepPoint) (stats.Sweep, error) { return hooks.SweepOf(s, points) }

// SweepShown is how outputs show s's axis called name.
func SweepShown(s any, name string) (stats.Axis, error) { return hooks.SweepShown(s, name) }

// SweepValue is the value the axis or parameter called name has at a point of s that does not vary it.
func SweepValue(s any, name string) (float64, error) { return hooks.SweepValue(s, name) }

// SweepWarning is the delivery model's warning at the first point of s that has one.
func SweepWarning(s any) string { return hooks.SweepWarning(s) }

// SettingDef is a setting retrysim.Override takes by a plain name, from which a command declares its flag.
type SettingDef struct {
	// Name is the setting's name: p_fail, queue.backoff.base.
	Name string
	// Key is its path in a scenario file where that is not Name (queue.backoff.policy).
	Key string
	// Usage is its flag help, its argument's name in backquotes, naming other settings by Name.
	Usage string
	// Default is the value a run has without it, of the type retrysim.Override takes.
	Default any
	// Min and Max bound a count: an int Default.
	Min, Max int
	// Delivery: only the delivery model reads it (latency, queue.FIELD).
	Delivery bool
}

// SweepPoint is one point's counters: a replicate's, one a strategy.
type SweepPoint struct {
	Replicates [][]stats.Counters `json:"replicates"`
}

// DefaultSeed is the seed of the article's tables, the command's default.
const DefaultSeed = 1

// MaxReplicates bounds an experiment's and a sweep's replicates.
const MaxReplicates = 10_000

// UnreadInJobModel is why retrysim's Unread names a setting only the
// delivery model reads, in a run of the job model.
const UnreadInJobModel = "only the delivery model reads it"

// CheckExpect refuses expectations of a run of the delivery model, which the closed forms do not cover.
func CheckExpect(expect, delivery bool) error {
	if expect && delivery {
		return &schema.FieldError{Field: "expect", Msg: "the closed forms cover the Part 5 model, not the delivery model"}
	}
	return nil
}

// sweepAxes are a sweep's fixed axes but their names, in stats.Axes order.
var sweepAxes = [...]SweepAxis{
	{Usage: "`values` of the probability that a call fails", Default: 0.01, Spec: sweep.Spec{Kind: sweep.Probability}},
	{Usage: "`values` of the probability that the welcome email's reply is lost", Default: 0.005, Spec: sweep.Spec{Kind: sweep.Probability}},
	{Usage: "`values` of the attempts a retry allows (1 to 1000)", Default: 3, Spec: sweep.Spec{Kind: sweep.Whole, Min: 1, Max: limits.MaxAttempts}},
	{Usage: "`values` of the jobs simulated at each point (each 1 to 10^12)", Default: 1_000_000, Spec: sweep.Spec{Kind: sweep.Whole, Min: 1, Max: limits.MaxJobs}},
}

// SweepDefault is the value a sweep runs of fixed axis i it leaves out.
func SweepDefault(i int) float64 { return sweepAxes[i].Default }

// SweepSpec is what a sweep's fixed axis i (in stats.Axes order) accepts.
func SweepSpec(i int) sweep.Spec { return sweepAxes[i].Spec }

// SweepAxis is one of a sweep's fixed axes as a command declares its flag.
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

// Parse reads values of the axis: a value, a list or a range start:stop:count.
func (a SweepAxis) Parse(values string) ([]float64, error) {
	return sweep.Parse(values, a.Spec)
}

// SweepAxes are a sweep's fixed axes, in stats.Axes order.
func SweepAxes() []SweepAxis {
	axes := sweepAxes
	for i, a := range stats.Axes() {
		axes[i].Name = a.Name
	}
	return axes[:]
}
