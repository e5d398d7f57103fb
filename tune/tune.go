// Package tune answers "what should I set?": it searches a grid of settings,
// named by their paths, for the best candidate that meets every requirement,
// judged on 95% intervals, racing the candidates on common random numbers
// within a budget, for the job model's table (Run) or worker fleets
// (RunWorkers). It writes no output.
package tune

import (
	"context"
	"fmt"
	"strings"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/tune"
	"github.com/retrysim/retrysim/schema"
)

// Search is what to search and what to judge a candidate by; every error
// about it is a *schema.FieldError naming its part: set[0], objective,
// require[0], budget.
type Search struct {
	// Set are the searched settings, at least one, each PATH=VALUES as
	// retrysim.Sweep.Set or, for a worker fleet, fleet.Graph.Set takes it
	// (attempts=1:8:8, queue.store=none,claim); several make a grid.
	Set []string
	// Objective, required, is a searched setting's path or a metric, a column
	// of the run's csv, ROW:METRIC when the run has several rows.
	Objective string
	// Maximize makes a larger objective better; false minimizes it.
	Maximize bool
	// Require are bounds every answer meets, each [ROW:]METRIC OP VALUE, OP one
	// of <=, <, >=, >, == (failed_rate<=1e-4).
	Require []string
	// Budget is the most work to spend, jobs or replicates; 0 means 10^8 jobs,
	// or as many replicates as the runs may keep.
	Budget int64
}

// Result is a search's answer and every candidate.
type Result struct {
	// Best is the best candidate that meets every requirement, nil for none.
	Best *Candidate
	// Candidates are the grid's points, the first setting varying slowest, then
	// the settings as given when they are no point of the grid.
	Candidates []Candidate
	// Spent is the work spent, jobs or replicates.
	Spent int64
}

// Candidate is one point of the search and what the race found of it.
type Candidate struct {
	// Settings are the searched settings' values by path, as a scenario file
	// writes them; "as given" where the settings as given have no one value.
	Settings map[string]any
	// Current marks the settings as given.
	Current bool
	// Status is "best", "meets", "fails", "beaten" (worse, with 95% confidence,
	// than one that meets every requirement) or "undecided".
	Status string
	// Objective is the objective's estimate, exact for a setting.
	Objective schema.Estimate
	// Judged are the requirements' verdicts, in Search.Require's order.
	Judged []Judged
}

// Judged is a requirement's verdict at a candidate.
type Judged struct {
	// Verdict is "holds", "fails" or "undecided", by the metric's interval.
	Verdict string
	// Row is the deciding row (the first that fails, else the first undecided,
	// else the first), and Estimate its metric there.
	Row      string
	Estimate schema.Estimate
}

// Run searches the settings of e, a run of the job or delivery model: a
// candidate's batch b runs the jobs of replicate b of e.Seed, the same at
// every candidate. The search decides the jobs, so e.Jobs, e.Replicates
// above 1 and e.Progress are refused.
func Run(ctx context.Context, e retrysim.Experiment, s Search) (Result, error) {
	switch {
	case e.Jobs != 0:
		return Result{}, &schema.FieldError{Field: "jobs", Msg: "the search decides the jobs; give the search a Budget"}
	case e.Replicates > 1:
		return Result{}, &schema.FieldError{Field: "replicates", Msg: "the search runs batch b on replicate b's seeds; leave Replicates 0"}
	case e.Progress != nil:
		return Result{}, &schema.FieldError{Field: "progress", Msg: "a search tells no progress; leave Progress nil"}
	}
	base := retrysim.Sweep{Experiment: e}
	if _, err := base.Check(); err != nil {
		return Result{}, err
	}
	return race(ctx, s, func(set []string) (tune.Kind, []tune.Axis, error) { return tune.NewTableKind(base, set) })
}

// RunWorkers searches the settings of worker fleets (fleet.Graph.Set's paths
// on their graphs), each candidate setting its values in every run, its
// metrics a worker fleet's figures: batch b runs replicates of opts.Seed, the
// same at every candidate. opts.Replicates and opts.Progress are refused.
func RunWorkers(ctx context.Context, runs []fleet.Workers, opts fleet.Options, s Search) (Result, error) {
	switch {
	case len(runs) == 0:
		return Result{}, &schema.FieldError{Field: "workers", Msg: "none given; search at least one worker fleet"}
	case opts.Replicates != 0:
		return Result{}, &schema.FieldError{Field: "replicates", Msg: "the search decides the replicates; give the search a Budget"}
	case opts.Progress != nil:
		return Result{}, &schema.FieldError{Field: "progress", Msg: "a search tells no progress; leave Progress nil"}
	}
	graphs := make([]fleet.Graph, len(runs))
	for i, w := range runs {
		if err := w.Check(); err != nil {
			return Result{}, fieldpath.Renamed(err, func(f string) string { return fmt.Sprintf("workers[%d].%s", i, f) })
		}
		graphs[i] = w.Graph()
	}
	return race(ctx, s, func(set []string) (tune.Kind, []tune.Axis, error) { return tune.NewGraphKind(graphs, true, opts, set) })
}

// race reads the searched settings through kind, checks the search and races it.
func race(ctx context.Context, s Search, kind func(set []string) (tune.Kind, []tune.Axis, error)) (Result, error) {
	// set names a searched setting's path as Search does: search[0] is set[0].
	set := func(f string) string {
		if rest, ok := strings.CutPrefix(f, "search"); ok {
			return "set" + rest
		}
		return f
	}
	k, axes, err := kind(s.Set)
	if err != nil { // the first setting refused with those before it is at fault
		for i := range s.Set {
			if _, _, err := kind(s.Set[:i+1]); err != nil {
				return Result{}, fieldpath.Renamed(err, func(f string) string { return fmt.Sprintf("set[%d]", i) + strings.TrimPrefix(f, "search") })
			}
		}
		return Result{}, fieldpath.Renamed(err, set)
	}
	is := tune.Search{Axes: axes, Objective: s.Objective, Maximize: s.Maximize, Budget: s.Budget}
	switch {
	case s.Objective == "":
		return Result{}, &schema.FieldError{Field: "objective", Msg: "none given; give a searched setting's path or a metric"}
	case s.Budget < 0:
		return Result{}, &schema.FieldError{Field: "budget", Msg: fmt.Sprintf("%d is negative; give the most work to spend, or 0 for the default", s.Budget)}
	case s.Budget == 0:
		is.Budget = k.Budget()
	}
	for i, text := range s.Require {
		r, err := tune.ParseRequirement(text)
		if err == nil {
			err = r.Check(k.Metrics(), k.Rows())
		}
		if err != nil {
			return Result{}, &schema.FieldError{Field: fmt.Sprintf("require[%d]", i), Msg: err.Error()}
		}
		is.Require = append(is.Require, r)
	}
	res, err := tune.Race(ctx, k, is)
	if err != nil {
		return Result{}, fieldpath.Renamed(err, set)
	}
	out := Result{Candidates: make([]Candidate, len(res.Candidates)), Spent: res.Spent}
	for i, c := range res.Candidates {
		o := Candidate{Settings: map[string]any{}, Current: c.Current, Status: c.Status, Objective: c.Objective}
		for a, axis := range axes {
			o.Settings[axis.Path] = axis.Write(c.Point[a])
		}
		for _, j := range c.Judged {
			o.Judged = append(o.Judged, Judged{Verdict: j.Verdict.String(), Row: j.RowID, Estimate: j.Estimate})
		}
		out.Candidates[i] = o
	}
	if res.Best >= 0 {
		out.Best = &out.Candidates[res.Best]
	}
	return out, nil
}
