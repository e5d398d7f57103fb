package tune

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/schema"
)

// FirstReplicates is a fleet family candidate's first batch: five
// replicates, doubling (5, 10, 20, 40: 75 by the fourth batch, past the
// 35 whose Wilson interval's lower bound can reach 0.9).
const FirstReplicates = 5

// replicatesKind is what the fleet family's kinds share: replicates as the
// work, batch b of every candidate on the same replicate seeds (replicates
// First to First+n of Options.Seed: common random numbers).
type replicatesKind struct {
	// Options are the runs' seed and goroutines; Replicates and First are
	// the search's.
	Options fleet.Options
	// Duration is the runs' arrivals' (the first run's).
	Duration time.Duration
}

// Budget is the most replicates a search of runs of the kind's duration
// may spend: limits.FleetReplicates, fewer where they would keep more than
// limits.FleetSeriesSeconds.
func (k replicatesKind) Budget() int64 {
	return min(limits.FleetReplicates, limits.FleetSeriesSeconds/int64(math.Max(1, math.Ceil(k.Duration.Seconds()))))
}

// Unit is replicates.
func (replicatesKind) Unit() string { return "replicates" }

// First is FirstReplicates.
func (replicatesKind) First() int64 { return FirstReplicates }

// options are the options of a batch of n replicates after first.
func (k replicatesKind) options(first int, n int64) fleet.Options {
	o := k.Options
	o.First, o.Replicates, o.Progress = first, int(n), nil
	return o
}

// checkBatch refuses a budget whose batch (up to units replicates of
// duration) the runs may not take.
func checkBatch(units int64, duration time.Duration) error {
	err := (fleet.Options{Replicates: int(min(units, limits.FleetReplicates+1))}).Check(duration.Seconds())
	if err != nil {
		return pathtext.Errorf("budget", "a batch may run up to %d replicates: %s", units, err.(*schema.FieldError).Msg)
	}
	return nil
}

// fleetAxis reads a search PATH=VALUES of the fleet family, each value
// tried on the runs by set (each value's text as a scenario file writes
// it): a list or a range start:stop:count of numbers or durations (30s),
// or a list of an enum's names.
func fleetAxis(arg string, set func(path, value string) error) (Axis, error) {
	path, values, ok := strings.Cut(arg, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return Axis{}, pathtext.Errorf("search", "%q is not PATH=VALUES", arg)
	}
	a := Axis{Path: path}
	first := strings.TrimSpace(strings.FieldsFunc(values+",", func(r rune) bool { return r == ',' || r == ':' })[0])
	_, numErr := strconv.ParseFloat(first, 64)
	_, durErr := time.ParseDuration(first)
	var err error
	switch {
	case numErr == nil:
		a.Values, err = sweep.Parse(values, sweep.Spec{Kind: sweep.Number, Min: math.Inf(-1), Max: math.Inf(1)})
		a.Whole = !slices.ContainsFunc(a.Values, func(v float64) bool { return v != math.Trunc(v) })
	case durErr == nil:
		a.Duration = true
		a.Values, err = sweep.Parse(values, sweep.Spec{Kind: sweep.Duration, Max: math.Inf(1)})
	default:
		for name := range strings.SplitSeq(values, ",") {
			a.Values = append(a.Values, float64(len(a.Choices)))
			a.Choices = append(a.Choices, strings.TrimSpace(name))
		}
	}
	if err != nil {
		return Axis{}, pathtext.Errorf("search."+path, "%v", err)
	}
	for _, v := range a.Values {
		if err := set(path, a.text(v)); err != nil {
			return Axis{}, fieldpath.Within("search", err)
		}
	}
	return a, nil
}

// text is v as the axis's setting takes it: a name, a duration, a number.
func (a Axis) text(v float64) string {
	switch {
	case a.Choices != nil:
		return a.Choices[int(v)]
	case a.Duration:
		return time.Duration(math.Round(v * 1e9)).String()
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// value reads text as the axis's value: NaN for text it does not hold.
func (a Axis) value(text string) float64 {
	if a.Choices != nil {
		if i := slices.Index(a.Choices, text); i >= 0 {
			return float64(i)
		}
		return math.NaN()
	}
	if a.Duration {
		if d, err := time.ParseDuration(text); err == nil {
			return d.Seconds()
		}
		return math.NaN()
	}
	if x, err := strconv.ParseFloat(text, 64); err == nil {
		return x
	}
	return math.NaN()
}

// family is a kind of the fleet family run as runs C (fleet.Config,
// fleet.Graph) whose replicates are P, read as results R: what FleetKind
// and GraphKind share, a candidate being the runs with the searched
// settings set in every one.
type family[C, P, R any] struct {
	replicatesKind
	runs    []C
	metrics []string
	// name is a run's row; set sets a setting by path, as a scenario file
	// writes its value; get is a setting's text in a run, false for none
	// read (a run as given); check refuses runs that cannot run, and
	// checkRep a replicate (a shard's) that run c does not make.
	name     func(C) string
	set      func(c *C, path, value string) error
	get      func(c C, path string) (string, bool)
	check    func([]C) error
	checkRep func(c *C, r *P) error
	// run runs a batch of runs (those of the points at, in turn), each
	// run's replicates in order; result is run c's replicates as a result,
	// and rows the results' rows.
	run    func(ctx context.Context, at []Point, runs []C, opts fleet.Options) ([][]P, error)
	result func(c C, reps []P) R
	rows   func([]R) []Row
}

// newFamily is k with the axes of the searches, each PATH=VALUES, each
// value tried on every run by k.set; a path no setting has, or a value out
// of its bounds, is refused naming the valid ones.
func newFamily[C, P, R any](k family[C, P, R], searches []string) (family[C, P, R], []Axis, error) {
	var axes []Axis
	for _, arg := range searches {
		a, err := fleetAxis(arg, func(path, value string) error {
			for _, c := range k.runs {
				if err := k.set(&c, path, value); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return k, nil, err
		}
		if slices.ContainsFunc(axes, func(x Axis) bool { return x.Path == a.Path }) {
			return k, nil, pathtext.Errorf("search", "%s: given twice", a.Path)
		}
		axes = append(axes, a)
	}
	return k, axes, nil
}

// Rows are the runs' names.
func (k family[C, P, R]) Rows() []string {
	names := make([]string, len(k.runs))
	for i, c := range k.runs {
		names[i] = k.name(c)
	}
	return names
}

// Metrics are the kind's figures' keys.
func (k family[C, P, R]) Metrics() []string { return k.metrics }

// Current is each axis's value in the runs, NaN where they differ or a
// run's setting is not read (a run as given).
func (k family[C, P, R]) Current(axes []Axis) (Point, error) {
	p := make(Point, len(axes))
	for i, a := range axes {
		for j, c := range k.runs {
			text, ok := k.get(c, a.Path)
			v := math.NaN()
			if ok {
				v = a.value(text)
			}
			if j > 0 && v != p[i] {
				v = math.NaN()
			}
			p[i] = v
		}
	}
	return p, nil
}

// at is the runs at p (nil: as given).
func (k family[C, P, R]) at(axes []Axis, p Point) []C {
	runs := slices.Clone(k.runs)
	for j := range runs {
		for i, a := range axes {
			if p != nil {
				_ = k.set(&runs[j], a.Path, a.text(p[i])) // newFamily set each value
			}
		}
	}
	return runs
}

// Check refuses a point whose runs k.check refuses, or a budget a batch of
// the runs may not take.
func (k family[C, P, R]) Check(axes []Axis, p Point, units int64) error {
	if err := k.check(k.at(axes, p)); err != nil {
		return fieldpath.Within("search", err)
	}
	return checkBatch(units, k.Duration)
}

// Run runs n replicates of every point's runs, replicates first to
// first+n (first: those its pool holds, the same for every point).
func (k family[C, P, R]) Run(ctx context.Context, axes []Axis, b int, n int64, at []Point, pools []Pool) ([]Pool, error) {
	first := 0
	var runs []C
	for i, p := range at {
		if pool, ok := pools[i].(*familyPool[C, P, R]); ok {
			first = len(pool.reps[0])
		}
		runs = append(runs, k.at(axes, p)...)
	}
	reps, err := k.run(ctx, at, runs, k.options(first, n))
	if err != nil {
		return nil, err
	}
	per := len(k.runs)
	out := make([]Pool, len(at))
	for i := range at {
		pool, _ := pools[i].(*familyPool[C, P, R])
		if pool == nil {
			pool = &familyPool[C, P, R]{k: k, runs: runs[i*per : (i+1)*per], reps: make([][]P, per)}
		}
		for j := range pool.reps {
			pool.reps[j] = append(pool.reps[j], reps[i*per+j]...)
		}
		out[i] = pool
	}
	return out, nil
}

// familyPool is a candidate's runs and their replicates so far.
type familyPool[C, P, R any] struct {
	k    family[C, P, R]
	runs []C
	reps [][]P
}

func (p *familyPool[C, P, R]) Rows() []Row {
	res := make([]R, len(p.runs))
	for j, c := range p.runs {
		res[j] = p.k.result(c, p.reps[j])
	}
	return p.k.rows(res)
}

// FleetKind is the fleet run's kind (retrysim fleet): a candidate is its
// runs with the searched settings (decl.Params[fleet.Config]' paths: client.attempts,
// client.backoff.kind) set in every one.
type FleetKind struct {
	family[fleet.Config, fleet.Replicate, fleet.Result]
}

var _ Kind = FleetKind{}

// NewFleetKind is the kind of cfgs run with opts, and the axes of the
// searches, each PATH=VALUES, PATH a fleet setting's path; a path no
// setting has, or a value out of its bounds, is refused naming the valid
// ones.
func NewFleetKind(cfgs []fleet.Config, opts fleet.Options, searches []string) (FleetKind, []Axis, error) {
	f, axes, err := newFamily(family[fleet.Config, fleet.Replicate, fleet.Result]{
		replicatesKind: replicatesKind{opts, cfgs[0].Duration}, runs: cfgs, metrics: render.FleetFigureKeys(),
		name: func(c fleet.Config) string { return c.Name },
		set:  setConfig,
		get: func(c fleet.Config, path string) (string, bool) {
			par, _ := decl.LookupParam[fleet.Config](path)
			return flagval.ParamVar(par, &c).String(), true
		},
		check:    func(cfgs []fleet.Config) error { return fleet.Check(cfgs, fleet.Options{Replicates: 1}) },
		checkRep: (*fleet.Config).CheckReplicate,
		run:      replicatesOf(fleet.Run, func(r fleet.Result) []fleet.Replicate { return r.Replicates }),
		result: func(c fleet.Config, reps []fleet.Replicate) fleet.Result {
			return fleet.Result{Config: c, Replicates: reps}
		},
		rows: func(res []fleet.Result) []Row {
			sums := make([]fleet.Summary, len(res))
			for i, r := range res {
				sums[i] = r.Summary()
			}
			return FigureRows(render.FleetFigures(sums))
		},
	}, searches)
	return FleetKind{f}, axes, err
}

// setConfig sets the setting at path in c to value, as the fleet command's
// flag for it does, with the fleet command's cap: 0 is none.
func setConfig(c *fleet.Config, path, value string) error {
	p, ok := decl.LookupParam[fleet.Config](path)
	if !ok {
		var paths []string
		for _, p := range decl.Params[fleet.Config]() {
			paths = append(paths, p.Path)
		}
		return pathtext.Errorf(path, "no setting of a fleet run has this path (want one of %s)", strings.Join(paths, ", "))
	}
	if err := flagval.ParamVar(p, c).Set(value); err != nil {
		return pathtext.Errorf(path, "%v", err)
	}
	if c.Client.Backoff.Cap == 0 {
		c.Client.Backoff.Cap = fleet.NoCap
	}
	return nil
}

// GraphKind is the worker fleet's kind (retrysim workers) or, without
// workers, the service graph's (retrysim graph): a candidate is its graphs
// with the searched settings (fleet.Graph.Set's paths:
// graph.services[workers].server.capacity, graph.entries[0].client.timeout)
// set in every one; their settings are shown as given.
type GraphKind struct {
	family[fleet.Graph, fleet.GraphReplicate, fleet.GraphResult]
}

var _ Kind = GraphKind{}

// NewGraphKind is the kind of graphs run with opts (worker fleets with
// workers, their rows WorkersRows; else the graphs' services' rows), and
// the axes of the searches, each PATH=VALUES, PATH as fleet.Graph.Set takes
// it; a path no setting has, or a value out of its bounds, is refused
// naming it.
func NewGraphKind(graphs []fleet.Graph, workers bool, opts fleet.Options, searches []string) (GraphKind, []Axis, error) {
	metrics, rows := render.GraphFigureKeys(), func(res []fleet.GraphResult) []Row {
		var rows []fleet.GraphRow
		for _, r := range res {
			rows = append(rows, r.Rows()...)
		}
		return FigureRows(render.GraphFigures(rows))
	}
	if workers {
		metrics, rows = render.WorkersFigureKeys(), func(res []fleet.GraphResult) []Row {
			var rows []fleet.WorkersRow
			for _, r := range res {
				rows = append(rows, r.WorkersRows()...)
			}
			return FigureRows(render.WorkersFigures(rows))
		}
	}
	f, axes, err := newFamily(family[fleet.Graph, fleet.GraphReplicate, fleet.GraphResult]{
		replicatesKind: replicatesKind{opts, graphs[0].Duration}, runs: graphs, metrics: metrics,
		name: func(g fleet.Graph) string { return g.Name },
		set:  func(g *fleet.Graph, path, value string) error { return g.Set(path, value) },
		get:  func(fleet.Graph, string) (string, bool) { return "", false },
		check: func(graphs []fleet.Graph) error {
			for _, g := range graphs {
				if err := g.Check(); err != nil {
					return err
				}
			}
			return nil
		},
		checkRep: (*fleet.Graph).CheckReplicate,
		run:      replicatesOf(fleet.RunGraph, func(r fleet.GraphResult) []fleet.GraphReplicate { return r.Replicates }),
		result: func(g fleet.Graph, reps []fleet.GraphReplicate) fleet.GraphResult {
			return fleet.GraphResult{Graph: g, Replicates: reps}
		},
		rows: rows,
	}, searches)
	return GraphKind{f}, axes, err
}

// replicatesOf is a family's run over the library's: each run's replicates,
// as replicates reads them from its result.
func replicatesOf[C, P, R any](run func(context.Context, []C, fleet.Options) ([]R, error), replicates func(R) []P) func(context.Context, []Point, []C, fleet.Options) ([][]P, error) {
	return func(ctx context.Context, _ []Point, runs []C, opts fleet.Options) ([][]P, error) {
		res, err := run(ctx, runs, opts)
		reps := make([][]P, len(res))
		for i, r := range res {
			reps[i] = replicates(r)
		}
		return reps, err
	}
}
