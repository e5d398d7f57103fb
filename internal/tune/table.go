package tune

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// TableKind is the job and delivery models' kind: a candidate is its Sweep at
// one point, batch b run with the seed of the sweep's replicate b.
type TableKind struct {
	// Sweep is the run as given, its fixed axes' single values included; it varies nothing.
	Sweep api.Sweep
}

var _ Kind = TableKind{}

// NewTableKind is the kind of the sweep base, which varies nothing, and the
// axes of the searches, each PATH=VALUES as api.Sweep.Set takes it or an enum
// setting's names; a path or value it does not take is refused naming the valid ones.
func NewTableKind(base api.Sweep, searches []string) (TableKind, []Axis, error) {
	k := TableKind{Sweep: base}
	var axes []Axis
	for _, arg := range searches {
		probe := base
		probe.Axes = slices.Clone(base.Axes)
		name, _, _ := strings.Cut(arg, "=")
		name = strings.TrimSpace(name)
		if name == "jobs" {
			return k, nil, pathtext.Errorf("search", "jobs: the search decides the jobs; give a budget")
		}
		if slices.ContainsFunc(base.Axes, func(a api.Axis) bool { return a.Name == name }) {
			return k, nil, pathtext.Errorf("search", "%s: the settings give it a value too; give one of the two", name)
		}
		if def, ok := enumSetting(name); ok {
			if slices.ContainsFunc(axes, func(x Axis) bool { return x.Path == name }) {
				return k, nil, pathtext.Errorf("search", "%s: given twice", name)
			}
			a, err := fleetAxis(arg, func(path, value string) error {
				if _, err := enumValue(def, value); err != nil {
					return pathtext.Errorf(path, "%v", err)
				}
				return nil
			})
			if err != nil {
				return k, nil, err
			}
			axes = append(axes, a)
			continue
		}
		if err := probe.Set(arg); err != nil {
			if !strings.Contains(arg, "[") && !strings.HasPrefix(name, "queue.") && strings.Contains(err.Error(), "unknown parameter") {
				var fixed []string
				for _, a := range jobapi.SweepAxes() {
					if a.Name != "jobs" {
						fixed = append(fixed, a.Name)
					}
				}
				return k, nil, pathtext.Errorf("search", "unknown setting %q (want %s, steps[STEP].FIELD or queue.FIELD)", name, strings.Join(fixed, ", "))
			}
			return k, nil, fieldpath.Within("search", err)
		}
		a := probe.Axes[len(probe.Axes)-1]
		if slices.ContainsFunc(axes, func(x Axis) bool { return x.Path == a.Name }) {
			return k, nil, pathtext.Errorf("search", "%s: given twice", a.Name)
		}
		shown, err := jobapi.SweepShown(probe, a.Name)
		if err != nil {
			return k, nil, fieldpath.Within("search", err)
		}
		axes = append(axes, Axis{Path: a.Name, Values: a.Values, Whole: shown.Whole, Duration: shown.Duration})
	}
	return k, axes, nil
}

// enumSetting is the setting called name when it takes a name (queue.store).
func enumSetting(name string) (jobapi.SettingDef, bool) {
	for _, d := range jobapi.Settings() {
		if d.Name == name {
			switch d.Default.(type) {
			case float64, int, time.Duration, provider.Latency:
				return d, false
			}
			return d, true
		}
	}
	return jobapi.SettingDef{}, false
}

// enumValue is def's value called name, as its flag reads it.
func enumValue(def jobapi.SettingDef, name string) (any, error) {
	v := flagval.SettingVar(def)
	if err := v.Set(name); err != nil {
		return nil, err
	}
	return v.(flag.Getter).Get(), nil
}

func (TableKind) Unit() string { return "jobs" }

// FirstJobs is a table candidate's first batch: enough to rule out a rate ten
// times its bound from 1e-3 up.
const FirstJobs = 10_000

// DefaultJobs is a table search's budget when it gives none.
const DefaultJobs = 100_000_000

func (TableKind) First() int64 { return FirstJobs }

func (TableKind) Budget() int64 { return DefaultJobs }

func (k TableKind) Rows() []string { return jobapi.RowIDs(k.Sweep.Experiment.Strategies) }

// Metrics are the columns of the table's csv and json with an estimate.
func (k TableKind) Metrics() []string {
	return Metrics(k.watched(), k.Sweep.Experiment.Delivery != nil)
}

// scenario is the sweep's scenario, the default when it gives none.
func (k TableKind) scenario() provider.Scenario {
	if sc := k.Sweep.Experiment.Scenario; len(sc.Steps) > 0 || sc.Name != "" {
		return sc
	}
	return api.DefaultScenario()
}

// watched are the scenario's watched steps.
func (k TableKind) watched() []stats.Watch {
	return jobapi.Watches(k.scenario())
}

// Current is every axis's value in the settings as given, NaN for one of no
// one value (p_fail over steps of their own).
func (k TableKind) Current(axes []Axis) (Point, error) {
	p := make(Point, len(axes))
	for i, a := range axes {
		if a.Choices != nil {
			p[i] = a.value(k.enumNow(a.Path))
			continue
		}
		v, err := jobapi.SweepValue(k.Sweep, a.Path)
		if err != nil { // no one value (p_fail over a file's steps): as given
			v = math.NaN()
		}
		p[i] = v
	}
	return p, nil
}

// enumNow is the settings' name for the enum setting path, "" for none.
func (k TableKind) enumNow(path string) string {
	_, q, err := api.Override(k.scenario(), k.Sweep.Experiment.Delivery, k.Sweep.Settings...)
	if err != nil || q == nil {
		return ""
	}
	for _, d := range decl.Settings[delivery.Config]() {
		if "queue."+d.Name == path {
			return fmt.Sprint(d.Get(*q))
		}
	}
	return ""
}

// at is the sweep of a batch of n jobs at p (nil: the settings as given) with seed.
func (k TableKind) at(axes []Axis, p Point, n int64, seed uint64) api.Sweep {
	sw := k.Sweep
	sw.Axes = slices.Clone(sw.Axes)
	sw.Settings = slices.Clone(sw.Settings)
	for i, a := range axes {
		switch {
		case p == nil:
		case a.Choices != nil: // a name, set over the settings as given
			def, _ := enumSetting(a.Path)
			v, _ := enumValue(def, a.Choices[int(p[i])]) // NewTableKind read each
			sw.Settings = append(sw.Settings, api.Setting{Name: a.Path, Value: v})
		default:
			sw.Axes = append(sw.Axes, api.Axis{Name: a.Path, Values: []float64{p[i]}})
		}
	}
	sw.Axes = append(sw.Axes, api.Axis{Name: "jobs", Values: []float64{float64(n)}})
	sw.Experiment.Seed, sw.Experiment.Progress = seed, nil
	return sw
}

// Check refuses a point the table cannot run, or whose delivery model could
// take more deliveries than a run may in a batch as large as jobs.
func (k TableKind) Check(axes []Axis, p Point, jobs int64) error {
	if _, err := k.at(axes, p, 1, 0).Check(); err != nil {
		return fieldpath.Within("search", err)
	}
	_, err := k.at(axes, p, min(jobs, limits.MaxJobs), 0).Check()
	var fe *schema.FieldError
	if errors.As(err, &fe) && (fe.Field == "jobs" || fe.Field == "queue.max_deliveries") {
		return pathtext.Errorf("budget", "a batch may run up to %s jobs: %s", human.Group(jobs), fe.Msg)
	}
	return fieldpath.Within("search", err)
}

// Run runs batch b at each point: n jobs with the seed of the sweep's replicate b.
func (k TableKind) Run(ctx context.Context, axes []Axis, b int, n int64, at []Point, pools []Pool) ([]Pool, error) {
	seed := rng.ReplicateSeed(k.Sweep.Experiment.Seed, uint64(b))
	sweeps := make([]api.Sweep, len(at))
	for i, p := range at {
		sweeps[i] = k.at(axes, p, n, seed)
	}
	runs, err := jobapi.RunSweeps(ctx, sweeps)
	if err != nil {
		return nil, err
	}
	out, row := make([]Pool, len(at)), new(stats.Row)
	for i, s := range runs {
		pool, _ := pools[i].(*tablePool)
		if pool == nil {
			pool = &tablePool{watched: k.watched(), delivery: k.Sweep.Experiment.Delivery != nil, rows: make([]stats.Row, len(s.Rows))}
		}
		for j := range s.Rows {
			s.Rows[j].Fill(row)
			pool.rows[j].ID, pool.rows[j].NoRepeats = row.ID, row.NoRepeats
			pool.rows[j].Counters.Add(&row.Counters)
		}
		out[i] = pool
	}
	return out, nil
}

// tablePool is a candidate's counters, a strategy's each, summed over its batches.
type tablePool struct {
	rows     []stats.Row
	watched  []stats.Watch
	delivery bool
}

func (p *tablePool) Rows() []Row { return statRows(p.rows, p.watched, p.delivery) }
