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
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/replicates"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/schema"
)

// FirstReplicates is a fleet family candidate's first batch: doubling, 75
// by the fourth, past the 35 whose Wilson lower bound can reach 0.9.
const FirstReplicates = 5

// Budget is the most replicates a search may spend: limits.FleetReplicates,
// fewer where runs of the kind's duration would pass limits.FleetSeriesSeconds.
func (k family[C, P, R]) Budget() int64 {
	return min(limits.FleetReplicates, limits.FleetSeriesSeconds/int64(math.Max(1, math.Ceil(k.duration.Seconds()))))
}

func (family[C, P, R]) Unit() string { return "replicates" }

func (family[C, P, R]) First() int64 { return FirstReplicates }

// options are the options of a batch of n replicates a run.
func (k family[C, P, R]) options(n int64) fleet.Options {
	o := k.opts
	o.Replicates, o.Progress = int(n), nil
	return o
}

// fleetAxis reads a search PATH=VALUES, a list or a range start:stop:count of
// numbers or durations, or a list of an enum's names, trying each value by set.
func fleetAxis(arg string, set func(path, value string) error) (Axis, error) {
	path, values, ok := strings.Cut(arg, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return Axis{}, pathtext.Errorf("search", "%q is not PATH=VALUES", arg)
	}
	a := Axis{Path: path}
	first, _, _ := strings.Cut(strings.TrimLeft(values, " ,:"), ",")
	first, _, _ = strings.Cut(first, ":")
	first = strings.TrimSpace(first)
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
	if i := slices.Index(a.Choices, text); a.Choices != nil && i >= 0 {
		return float64(i)
	} else if d, err := time.ParseDuration(text); a.Duration && err == nil {
		return d.Seconds()
	} else if x, err := strconv.ParseFloat(text, 64); a.Choices == nil && !a.Duration && err == nil {
		return x
	}
	return math.NaN()
}

// family is what FleetKind and GraphKind are: a candidate is the runs with
// the searched settings set in every one, run with opts.
type family[C, P, R any] struct {
	kind     replicates.Kind[C, P, R]
	runs     []C
	opts     fleet.Options
	duration time.Duration
	// set sets a setting by path to a value's text; get is a setting's text in
	// a run, false for none read; check refuses runs that cannot run.
	set   func(c *C, path, value string) error
	get   func(c C, path string) (string, bool)
	check func([]C) error
	// replay, when not nil, gives a batch's items from a merge's shards instead of running them.
	replay func(at []Point, first, n int) ([][]P, error)
}

// newFamily is k with the axes of the searches, each value tried on every run by k.set.
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
		names[i] = k.kind.Name(c)
	}
	return names
}

// Metrics are the kind's figures' keys.
func (k family[C, P, R]) Metrics() []string { return k.kind.Keys }

// Current is each axis's value in the runs, NaN where they differ or it is not read.
func (k family[C, P, R]) Current(axes []Axis) (Point, error) {
	p := make(Point, len(axes))
	for i, a := range axes {
		for j, c := range k.runs {
			v := math.NaN()
			if text, ok := k.get(c, a.Path); ok && (j == 0 || a.value(text) == p[i]) {
				v = a.value(text)
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
		for i, a := range axes[:len(p)] { // none at nil
			_ = k.set(&runs[j], a.Path, a.text(p[i])) // newFamily set each value
		}
	}
	return runs
}

// Check refuses a point whose runs k.check refuses, or a budget a batch may not take.
func (k family[C, P, R]) Check(axes []Axis, p Point, units int64) error {
	if err := k.check(k.at(axes, p)); err != nil {
		return fieldpath.Within("search", err)
	}
	err := (fleet.Options{Replicates: int(min(units, limits.FleetReplicates+1))}).Check(k.duration.Seconds())
	if err != nil {
		return pathtext.Errorf("budget", "a batch may run up to %d replicates: %s", units, err.(*schema.FieldError).Msg)
	}
	return nil
}

// Run runs n replicates of every point's runs, from the first its pool lacks.
func (k family[C, P, R]) Run(ctx context.Context, axes []Axis, b int, n int64, at []Point, pools []Pool) ([]Pool, error) {
	first := 0
	var runs []C
	for i, p := range at {
		if pool, ok := pools[i].(*familyPool[C, P, R]); ok {
			first = len(pool.items)
		}
		runs = append(runs, k.at(axes, p)...)
	}
	items, err := k.batch(ctx, at, runs, first, int(n))
	if err != nil {
		return nil, err
	}
	per := len(k.runs)
	out := make([]Pool, len(at))
	for i := range at {
		pool, _ := pools[i].(*familyPool[C, P, R])
		if pool == nil {
			pool = &familyPool[C, P, R]{k: k, runs: runs[i*per : (i+1)*per]}
		}
		pool.items = append(pool.items, items[i*int(n):(i+1)*int(n)]...)
		out[i] = pool
	}
	return out, nil
}

// batch is replicates first to first+n of the points' runs, run as one point
// and cut by point, a point's items after another's.
func (k family[C, P, R]) batch(ctx context.Context, at []Point, runs []C, first, n int) ([][]P, error) {
	if k.replay != nil {
		return k.replay(at, first, n)
	}
	items, err := k.kind.Run(ctx, runs, len(runs), k.options(int64(first+n)), first, first+n)
	if err != nil {
		return nil, err
	}
	per := len(k.runs)
	out := make([][]P, 0, len(at)*n)
	for i := range at {
		for _, item := range items {
			out = append(out, item[i*per:(i+1)*per])
		}
	}
	return out, nil
}

// familyPool is a candidate's runs and their items so far.
type familyPool[C, P, R any] struct {
	k     family[C, P, R]
	runs  []C
	items [][]P
}

func (p *familyPool[C, P, R]) Rows() []Row {
	return FigureRows(p.k.kind.Rows(p.k.kind.Fold(p.runs, len(p.runs), p.items)))
}

// FleetKind is the fleet run's kind: its settings by decl.Params[fleet.Config]'s paths.
type FleetKind = family[fleet.Config, fleetdata.Replicate, fleet.Result]

var _ Kind = FleetKind{}

// NewFleetKind is the kind of cfgs run with opts, and the axes of the searches.
func NewFleetKind(cfgs []fleet.Config, opts fleet.Options, searches []string) (FleetKind, []Axis, error) {
	return newFamily(FleetKind{
		opts: opts, duration: cfgs[0].Duration, kind: replicates.Fleet(), runs: cfgs, set: setConfig,
		get: func(c fleet.Config, path string) (string, bool) {
			par, _ := decl.LookupParam[fleet.Config](path)
			return flagval.ParamVar(par, &c).String(), true
		},
		check: func(cfgs []fleet.Config) error { return fleet.Check(cfgs, fleet.Options{Replicates: 1}) },
	}, searches)
}

// setConfig sets the setting at path in c to value, as its fleet flag does.
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
	return nil
}

// GraphKind is the worker fleet's kind or, without workers, the service
// graph's: its settings by fleet.Graph.Set's paths, shown as given.
type GraphKind = family[fleet.Graph, fleetdata.GraphReplicate, fleet.GraphResult]

var _ Kind = GraphKind{}

// NewGraphKind is the kind of graphs (worker fleets with workers) run with opts, and the searches' axes.
func NewGraphKind(graphs []fleet.Graph, workers bool, opts fleet.Options, searches []string) (GraphKind, []Axis, error) {
	kind := replicates.Graph()
	if workers {
		kind = replicates.Workers()
	}
	return newFamily(GraphKind{
		opts: opts, duration: graphs[0].Duration, kind: kind, runs: graphs,
		set: func(g *fleet.Graph, path, value string) error { return g.Set(path, value) },
		get: func(fleet.Graph, string) (string, bool) { return "", false },
		check: func(graphs []fleet.Graph) error {
			for _, g := range graphs {
				if err := g.Check(); err != nil {
					return err
				}
			}
			return nil
		},
	}, searches)
}
