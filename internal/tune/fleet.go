package tune

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/flagval"
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
// may spend: fleet.MaxReplicates, fewer where they would keep more than
// fleet.MaxSeriesSeconds.
func (k replicatesKind) Budget() int64 {
	return min(fleet.MaxReplicates, fleet.MaxSeriesSeconds/int64(math.Max(1, math.Ceil(k.Duration.Seconds()))))
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
	err := (fleet.Options{Replicates: int(min(units, fleet.MaxReplicates+1))}).Check(duration.Seconds())
	if err != nil {
		return schema.Errorf("budget", "a batch may run up to %d replicates: %s", units, err.(*fleet.FieldError).Msg)
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
		return Axis{}, schema.Errorf("search", "%q is not PATH=VALUES", arg)
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
		return Axis{}, schema.Errorf("search."+path, "%v", err)
	}
	for _, v := range a.Values {
		if err := set(path, a.text(v)); err != nil {
			return Axis{}, schema.Within("search", err)
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

// FleetKind is the fleet run's kind (retrysim fleet): a candidate is its
// runs with the searched settings (fleet.Params' paths: client.attempts,
// client.backoff.kind) set in every one.
type FleetKind struct {
	replicatesKind
	Configs []fleet.Config
}

var _ Kind = FleetKind{}

// NewFleetKind is the kind of cfgs run with opts, and the axes of the
// searches, each PATH=VALUES, PATH a fleet setting's path; a path no
// setting has, or a value out of its bounds, is refused naming the valid
// ones.
func NewFleetKind(cfgs []fleet.Config, opts fleet.Options, searches []string) (FleetKind, []Axis, error) {
	k := FleetKind{replicatesKind{opts, cfgs[0].Duration}, cfgs}
	var axes []Axis
	for _, arg := range searches {
		a, err := fleetAxis(arg, func(path, value string) error {
			for _, c := range cfgs {
				if err := setConfig(&c, path, value); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return k, nil, err
		}
		if slices.ContainsFunc(axes, func(x Axis) bool { return x.Path == a.Path }) {
			return k, nil, schema.Errorf("search", "%s: given twice", a.Path)
		}
		axes = append(axes, a)
	}
	return k, axes, nil
}

// setConfig sets the setting at path in c to value, as the fleet command's
// flag for it does, with the fleet command's cap: 0 is none.
func setConfig(c *fleet.Config, path, value string) error {
	p, ok := fleet.LookupParam(path)
	if !ok {
		var paths []string
		for _, p := range fleet.Params() {
			paths = append(paths, p.Path)
		}
		return schema.Errorf(path, "no setting of a fleet run has this path (want one of %s)", strings.Join(paths, ", "))
	}
	if err := flagval.ParamVar(p, c).Set(value); err != nil {
		return schema.Errorf(path, "%v", err)
	}
	if c.Client.Backoff.Cap == 0 {
		c.Client.Backoff.Cap = fleet.NoCap
	}
	return nil
}

// Rows are the runs' names.
func (k FleetKind) Rows() []string {
	names := make([]string, len(k.Configs))
	for i, c := range k.Configs {
		names[i] = c.Name
	}
	return names
}

// Metrics are the fleet's figures' keys.
func (FleetKind) Metrics() []string { return render.FleetFigureKeys() }

// Current is each axis's value in the runs, NaN where they differ.
func (k FleetKind) Current(axes []Axis) (Point, error) {
	p := make(Point, len(axes))
	for i, a := range axes {
		par, _ := fleet.LookupParam(a.Path)
		for j, c := range k.Configs {
			v := a.value(flagval.ParamVar(par, &c).String())
			if j > 0 && v != p[i] {
				v = math.NaN()
			}
			p[i] = v
		}
	}
	return p, nil
}

// at is the runs at p (nil: as given).
func (k FleetKind) at(axes []Axis, p Point) []fleet.Config {
	cfgs := slices.Clone(k.Configs)
	for j := range cfgs {
		for i, a := range axes {
			if p != nil {
				_ = setConfig(&cfgs[j], a.Path, a.text(p[i])) // fleetAxis set each value
			}
		}
	}
	return cfgs
}

// Check refuses a point whose runs fleet.Check refuses, or a budget a
// batch of the runs may not take.
func (k FleetKind) Check(axes []Axis, p Point, units int64) error {
	if err := fleet.Check(k.at(axes, p), fleet.Options{Replicates: 1}); err != nil {
		return schema.Within("search", err)
	}
	return checkBatch(units, k.Duration)
}

// Run runs n replicates of every point's runs, replicates First to
// First+n (First: those its pool holds, the same for every point).
func (k FleetKind) Run(ctx context.Context, axes []Axis, b int, n int64, at []Point, pools []Pool) ([]Pool, error) {
	first := 0
	var cfgs []fleet.Config
	for i, p := range at {
		if pool, ok := pools[i].(*fleetPool); ok {
			first = len(pool.results[0].Replicates)
		}
		cfgs = append(cfgs, k.at(axes, p)...)
	}
	res, err := fleet.Run(ctx, cfgs, k.options(first, n))
	if err != nil {
		return nil, err
	}
	out := make([]Pool, len(at))
	for i := range at {
		pool, _ := pools[i].(*fleetPool)
		if pool == nil {
			pool = &fleetPool{results: res[i*len(k.Configs) : (i+1)*len(k.Configs)]}
		} else {
			for j := range pool.results {
				pool.results[j].Replicates = append(pool.results[j].Replicates, res[i*len(k.Configs)+j].Replicates...)
			}
		}
		out[i] = pool
	}
	return out, nil
}

// fleetPool is a candidate's runs' replicates so far.
type fleetPool struct{ results []fleet.Result }

func (p *fleetPool) Rows() []Row {
	sums := make([]fleet.Summary, len(p.results))
	for i, r := range p.results {
		sums[i] = r.Summary()
	}
	return FigureRows(render.FleetFigures(sums))
}

// GraphKind is the worker fleet's kind (retrysim workers) or, without
// Workers, the service graph's (retrysim graph): a candidate is its graphs
// with the searched settings (fleet.Graph.Set's paths:
// graph.services[workers].server.capacity, graph.entries[0].client.timeout)
// set in every one.
type GraphKind struct {
	replicatesKind
	Graphs []fleet.Graph
	// Workers says the rows are the worker fleets' (WorkersRows), not the
	// graphs' services'.
	Workers bool
}

var _ Kind = GraphKind{}

// NewGraphKind is the kind of graphs run with opts (worker fleets with
// workers), and the axes of the searches, each PATH=VALUES, PATH as
// fleet.Graph.Set takes it; a path no setting has, or a value out of its
// bounds, is refused naming it.
func NewGraphKind(graphs []fleet.Graph, workers bool, opts fleet.Options, searches []string) (GraphKind, []Axis, error) {
	k := GraphKind{replicatesKind{opts, graphs[0].Duration}, graphs, workers}
	var axes []Axis
	for _, arg := range searches {
		a, err := fleetAxis(arg, func(path, value string) error {
			for _, g := range graphs {
				if err := g.Set(path, value); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return k, nil, err
		}
		if slices.ContainsFunc(axes, func(x Axis) bool { return x.Path == a.Path }) {
			return k, nil, schema.Errorf("search", "%s: given twice", a.Path)
		}
		axes = append(axes, a)
	}
	return k, axes, nil
}

// Rows are the graphs' names.
func (k GraphKind) Rows() []string {
	names := make([]string, len(k.Graphs))
	for i, g := range k.Graphs {
		names[i] = g.Name
	}
	return names
}

// Metrics are the worker fleet's figures' keys, or the graph's.
func (k GraphKind) Metrics() []string {
	if k.Workers {
		return render.WorkersFigureKeys()
	}
	return render.GraphFigureKeys()
}

// Current is NaN for every axis: a graph's settings are run as given.
func (k GraphKind) Current(axes []Axis) (Point, error) {
	p := make(Point, len(axes))
	for i := range p {
		p[i] = math.NaN()
	}
	return p, nil
}

// at is the graphs at p (nil: as given).
func (k GraphKind) at(axes []Axis, p Point) []fleet.Graph {
	graphs := slices.Clone(k.Graphs)
	for j := range graphs {
		for i, a := range axes {
			if p != nil {
				_ = graphs[j].Set(a.Path, a.text(p[i])) // fleetAxis set each value
			}
		}
	}
	return graphs
}

// Check refuses a point whose graphs Graph.Check refuses, or a budget a
// batch of them may not take.
func (k GraphKind) Check(axes []Axis, p Point, units int64) error {
	for _, g := range k.at(axes, p) {
		if err := g.Check(); err != nil {
			return schema.Within("search", err)
		}
	}
	return checkBatch(units, k.Duration)
}

// Run runs n replicates of every point's graphs, replicates First to
// First+n (First: those its pool holds, the same for every point).
func (k GraphKind) Run(ctx context.Context, axes []Axis, b int, n int64, at []Point, pools []Pool) ([]Pool, error) {
	first := 0
	var graphs []fleet.Graph
	for i, p := range at {
		if pool, ok := pools[i].(*graphPool); ok {
			first = len(pool.results[0].Replicates)
		}
		graphs = append(graphs, k.at(axes, p)...)
	}
	res, err := fleet.RunGraph(ctx, graphs, k.options(first, n))
	if err != nil {
		return nil, err
	}
	out := make([]Pool, len(at))
	for i := range at {
		pool, _ := pools[i].(*graphPool)
		if pool == nil {
			pool = &graphPool{results: res[i*len(k.Graphs) : (i+1)*len(k.Graphs)], workers: k.Workers}
		} else {
			for j := range pool.results {
				pool.results[j].Replicates = append(pool.results[j].Replicates, res[i*len(k.Graphs)+j].Replicates...)
			}
		}
		out[i] = pool
	}
	return out, nil
}

// graphPool is a candidate's graphs' replicates so far.
type graphPool struct {
	results []fleet.GraphResult
	workers bool
}

func (p *graphPool) Rows() []Row {
	if p.workers {
		var rows []fleet.WorkersRow
		for _, r := range p.results {
			rows = append(rows, r.WorkersRows()...)
		}
		return FigureRows(render.WorkersFigures(rows))
	}
	var rows []fleet.GraphRow
	for _, r := range p.results {
		rows = append(rows, r.Rows()...)
	}
	return FigureRows(render.GraphFigures(rows))
}
