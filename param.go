package retrysim

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/scenariocheck"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// sweepParam is a numeric parameter of a scenario or its queue that a sweep varies by name
// (steps[charge the card].p_fail, queue.ttl); durations are in seconds.
type sweepParam struct {
	// Name names it in a sweep's settings, csv, json and plots.
	Name string
	spec sweep.Spec
	// value is v as Override takes it for the setting (seconds as a time.Duration).
	value func(v float64) any
}

// maxSetAxes bounds the parameters a sweep varies by name.
const maxSetAxes = sweep.MaxSets

// field is a field of a step or of the queue that a setting names, one table for Override and for sweeps.
type field struct {
	// name is the setting's (p_fail, queue.ttl); key, if not empty, its key in errors (queue.backoff.policy).
	name, key string
	// put sets v, of the field's own type, reporting false for another type.
	put func(st *provider.Step, q *delivery.Config, v any) bool
	// spec, for a numeric field, is what values a sweep gives it, and from turns one into the field's
	// type.
	spec *sweep.Spec
	from func(v float64) any
	get  func(st *provider.Step, q *delivery.Config) any
	// zero is a value of the field's type, to name it.
	zero any
	// usage is the field's flag help, its argument's name in backquotes.
	usage string
	// lossy: only a step that can lose its reply has it; timed: only the delivery model reads it;
	// stepOnly: only steps[STEP].FIELD gives it.
	lossy, timed, stepOnly bool
}

var (
	probabilitySpec = &sweep.Spec{Kind: sweep.Probability}
	durationSpec    = &sweep.Spec{Kind: sweep.Duration, Min: 0, Max: limits.MaxDuration.Seconds()}
)

func lookupTable(name string) (field, bool) {
	i := slices.IndexFunc(settingTable, func(f field) bool { return f.name == name })
	if i < 0 {
		return field{}, false
	}
	return settingTable[i], true
}

// fieldNames are the sorted names of a step's fields, or the queue's, only the numeric ones if numeric.
func fieldNames(queue, numeric bool) []string {
	var names []string
	for _, s := range settingTable {
		key, isQueue := strings.CutPrefix(s.name, "queue.")
		if isQueue == queue && (s.spec != nil || !numeric) {
			names = append(names, key)
		}
	}
	slices.Sort(names)
	return names
}

// settingTable declares every setting of a step, then of the queue, in the order reports list them:
// Settings, Override, lookupParam, the command's flags and Unread read it.
var settingTable = func() []field {
	var out []field
	for _, p := range decl.StepSettings() {
		if p.Name != "" {
			f := fieldOf(p.Setting, func(st *provider.Step, _ *delivery.Config) *provider.Step { return st })
			f.name, f.lossy, f.timed, f.stepOnly = p.Name, p.Lossy, p.Timed, p.OneStep
			out = append(out, f)
		}
	}
	for _, d := range decl.Settings[delivery.Config]() {
		f := fieldOf(d, func(_ *provider.Step, q *delivery.Config) *delivery.Config { return q })
		f.name, f.timed = "queue."+d.Name, true
		if d.Key != d.Name {
			f.key = "queue." + d.Key
		}
		out = append(out, f)
	}
	return out
}()

// fieldOf is the field s declares in what at points to (the step or the queue), with its sweep spec
// by its kind; a whole number is bounded by its Min and Max.
func fieldOf[C any](s decl.Setting[C], at func(st *provider.Step, q *delivery.Config) *C) field {
	var zero C
	f := field{zero: s.Get(zero), usage: s.Doc,
		put: func(st *provider.Step, q *delivery.Config, v any) bool { return s.Set(at(st, q), v) },
		get: func(st *provider.Step, q *delivery.Config) any { return s.Get(*at(st, q)) }}
	switch s.Kind {
	case enum.Probability:
		f.spec, f.from = probabilitySpec, func(v float64) any { return v }
	case enum.Duration:
		f.spec, f.from = durationSpec, func(v float64) any { return seconds(v) }
	case enum.Latency: // a fixed one: a sweep's value is one number
		f.spec, f.from = durationSpec, func(v float64) any { return provider.Latency{Median: seconds(v)} }
	case enum.Whole:
		f.spec, f.from = &sweep.Spec{Kind: sweep.Whole, Min: float64(s.Min), Max: float64(s.Max)}, func(v float64) any { return int(v) }
	}
	return f
}

// DefaultScenario is the sign-up at the settings' defaults (p_fail 0.01, lost_reply 0.005), the
// command's job without a scenario file.
func DefaultScenario() provider.Scenario {
	return provider.Signup(jobapi.SweepDefault(0), jobapi.SweepDefault(1))
}

// settingDefs are the settings Override takes besides steps[STEP].FIELD (jobapi.Settings).
func settingDefs() []jobapi.SettingDef {
	step, queue := provider.Step{PFail: jobapi.SweepDefault(0), LostReply: jobapi.SweepDefault(1)}, delivery.Defaults()
	var defs []jobapi.SettingDef
	for _, s := range settingTable {
		if s.stepOnly {
			continue
		}
		def := jobapi.SettingDef{Name: s.name, Key: s.key, Usage: s.usage, Default: s.get(&step, &queue), Delivery: s.timed}
		if s.spec != nil && s.spec.Kind == sweep.Whole {
			def.Min, def.Max = int(s.spec.Min), int(s.spec.Max)
		}
		defs = append(defs, def)
	}
	return defs
}

// Setting is a value given by name over a scenario and its queue, of the field's own type: a
// float64 probability, an int count, a time.Duration, a provider.Latency, a delivery.Store, a
// backoff.Kind or a delivery.CrashPoint.
type Setting struct {
	Name  string
	Value any
}

// Override returns copies of sc and q with the settings applied in order: p_fail, lost_reply and
// latency over every step (that has the field), steps[STEP].FIELD over one, queue.FIELD over the
// queue. With q nil a setting only the delivery model reads is refused. Errors are
// *schema.FieldError values naming the setting, or the queue's path (queue.lease).
func Override(sc provider.Scenario, q *delivery.Config, settings ...Setting) (provider.Scenario, *delivery.Config, error) {
	sc.Steps = slices.Clone(sc.Steps)
	if q != nil {
		c := *q
		q = &c
	}
	for _, s := range settings {
		f, steps, queue, err := lookupField(s.Name, sc, false)
		if err != nil {
			return sc, q, err
		}
		// Checked on a scratch step even when no step takes the setting.
		if !f.put(&provider.Step{}, &delivery.Config{}, s.Value) {
			return sc, q, fieldErr(s.Name, "takes a %T, not a %T", f.zero, s.Value)
		}
		if err := f.check(s.Value); err != nil {
			return sc, q, fieldErr(s.Name, "%v", err)
		}
		if q == nil && f.timed {
			return sc, q, &schema.FieldError{Field: s.Name, Msg: jobModelMsg}
		}
		if queue {
			f.put(nil, q, s.Value)
		}
		for _, i := range steps {
			f.put(&sc.Steps[i], q, s.Value)
		}
	}
	if q != nil {
		if err := q.Check(); err != nil {
			return sc, q, fieldpath.Within("queue", err)
		}
	}
	return sc, q, nil
}

// check refuses v outside the field's bounds; rules between settings are the queue's Check's.
func (f field) check(v any) error {
	if l, ok := v.(provider.Latency); ok {
		return scenariocheck.Latency(l)
	}
	if x, ok := number(v); ok && f.spec != nil {
		return f.spec.Check(x)
	}
	return nil
}

// number is v, a setting's value, in a sweep's units (a time in seconds, a latency's median), and
// whether it is a number.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case time.Duration:
		return v.Seconds(), true
	case provider.Latency:
		return v.Median.Seconds(), true
	}
	return 0, false
}

// lookupField is the field a setting names: the steps it sets in sc, or whether it is the queue's;
// with numeric, only what a sweep varies.
func lookupField(name string, sc provider.Scenario, numeric bool) (f field, steps []int, queue bool, err error) {
	what := ""
	if numeric {
		what = "numeric "
	}
	if f, ok := lookupTable(name); ok && !strings.HasPrefix(name, "queue.") && !f.stepOnly && !numeric { // every step's
		for i, st := range sc.Steps {
			if !f.lossy || st.CanLoseReply {
				steps = append(steps, i)
			}
		}
		return f, steps, false, nil
	}
	if m := stepRE.FindStringSubmatch(name); m != nil {
		i := slices.IndexFunc(sc.Steps, func(st provider.Step) bool { return st.Name == m[1] })
		if i < 0 {
			names := make([]string, len(sc.Steps))
			for k, st := range sc.Steps {
				names[k] = fmt.Sprintf("%q", st.Name)
			}
			return f, nil, false, fieldErr(name, "no step is called %q (the steps are %s)", m[1], strings.Join(names, ", "))
		}
		if j := slices.IndexFunc(sc.Steps[i+1:], func(st provider.Step) bool { return st.Name == m[1] }); j >= 0 {
			return f, nil, false, fieldErr(name, "%q names two steps, %d and %d, and a step's name must be its own", m[1], i, i+1+j)
		}
		f, ok := lookupTable(m[2])
		ok = ok && !strings.HasPrefix(m[2], "queue.")
		switch {
		case !ok || numeric && f.spec == nil:
			return f, nil, false, fieldErr(name, "a step has no %sfield %q (want %s)", what, m[2], strings.Join(fieldNames(false, numeric), ", "))
		case f.lossy && !sc.Steps[i].CanLoseReply:
			return f, nil, false, fieldErr(name, "step %q cannot lose its reply; give it a lost_reply in the file to vary it", m[1])
		}
		return f, []int{i}, false, nil
	}
	if key, ok := strings.CutPrefix(name, "queue."); ok {
		f, ok := lookupTable(name)
		if !ok || numeric && f.spec == nil {
			return f, nil, true, fieldErr(name, "the queue has no %sfield %q (want %s)", what, key, strings.Join(fieldNames(true, numeric), ", "))
		}
		return f, nil, true, nil
	}
	if numeric {
		return f, nil, false, fieldErr(name, "unknown parameter (want steps[STEP].FIELD or queue.FIELD)")
	}
	var names []string
	for _, s := range settingDefs() {
		names = append(names, s.Name)
	}
	return f, nil, false, fieldErr(name, "unknown setting (want %s, or steps[STEP].FIELD)", strings.Join(names, ", "))
}

// jobModelMsg refuses, in the job model, a setting only the delivery model reads.
const jobModelMsg = jobapi.UnreadInJobModel + ", and the run is of the job model (no queue)"

// seconds is v seconds as a Duration, to the nanosecond.
func seconds(v float64) time.Duration { return time.Duration(math.Round(v * 1e9)) }

var stepRE = regexp.MustCompile(`^steps\[([^\]]*)\]\.([a-z_.]+)$`)

// lookupParam is the numeric parameter called name (steps[STEP].FIELD or queue.FIELD) in sc and q,
// refused as Override refuses it.
func lookupParam(name string, sc provider.Scenario, q *delivery.Config) (sweepParam, error) {
	f, _, _, err := lookupField(name, sc, true)
	switch {
	case err != nil:
		return sweepParam{}, err
	case f.timed && q == nil:
		return sweepParam{}, fieldErr(name, "%s", jobModelMsg)
	}
	return sweepParam{Name: name, spec: *f.spec, value: f.from}, nil
}

// parseSet reads NAME=VALUES, a parameter to vary and its values; errors are *schema.FieldError
// values naming it.
func parseSet(arg string, sc provider.Scenario, q *delivery.Config) (sweepParam, []float64, error) {
	name, values, ok := strings.Cut(arg, "=")
	name = strings.TrimSpace(name)
	if err := stats.CheckText(name); err != nil {
		return sweepParam{}, nil, fieldErr("axes", "%v", err)
	}
	if !ok {
		return sweepParam{}, nil, fieldErr(name, "gives no values: %q is not NAME=VALUES (steps[charge the card].p_fail=0:0.05:11, queue.ttl=1h,24h)", arg)
	}
	p, err := lookupParam(name, sc, q)
	if err != nil {
		return sweepParam{}, nil, err
	}
	vals, err := sweep.Parse(values, p.spec)
	if err != nil {
		return sweepParam{}, nil, fieldErr(p.Name, "%v", err)
	}
	return p, vals, nil
}
