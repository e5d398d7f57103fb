package retrysim

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/sweep"
	"github.com/retrysim/retrysim/provider"
)

// Param is a numeric parameter of a scenario or its queue that a sweep can
// vary by name: steps[charge the card].p_fail, queue.ttl. Durations are
// values in seconds.
type Param struct {
	// Name is how it is named: in -set, in csv and json, on a plot's axis.
	Name string
	// Spec is what values it takes.
	Spec sweep.Spec
	// set puts v in the scenario or the queue.
	set func(sc *provider.Scenario, q *delivery.Config, v float64)
}

// MaxSetAxes bounds the parameters a sweep varies by name; the grid's size
// bounds their values.
const MaxSetAxes = 8

// stepField is a step's field that a sweep can set, with what it takes.
type stepField struct {
	spec sweep.Spec
	set  func(st *provider.Step, v float64)
	// lossy: only a step that can lose its reply has the field.
	lossy bool
}

var stepFields = map[string]stepField{
	"p_fail":     {spec: sweep.Spec{Kind: sweep.Probability}, set: func(st *provider.Step, v float64) { st.PFail = v }},
	"lost_reply": {spec: sweep.Spec{Kind: sweep.Probability}, set: func(st *provider.Step, v float64) { st.LostReply = v }, lossy: true},
	"latency":    {spec: durationSpec, set: func(st *provider.Step, v float64) { st.Latency = provider.Latency{Median: seconds(v)} }},
	// attempts is the step's own (provider.Policy), bounded as a scenario
	// file's: 1 to provider.MaxAttempts.
	"attempts": {spec: sweep.Spec{Kind: sweep.Whole, Min: 1, Max: provider.MaxAttempts}, set: func(st *provider.Step, v float64) { st.Policy.Attempts = int(v) }},
}

// durationSpec takes durations from 0 to provider.MaxDuration, in seconds.
var durationSpec = sweep.Spec{Kind: sweep.Duration, Min: 0, Max: provider.MaxDuration.Seconds()}

type queueField struct {
	spec sweep.Spec
	set  func(q *delivery.Config, v float64)
}

var queueFields = map[string]queueField{
	"ttl":            {durationSpec, func(q *delivery.Config, v float64) { q.TTL = seconds(v) }},
	"lease":          {durationSpec, func(q *delivery.Config, v float64) { q.Lease = seconds(v) }},
	"visibility":     {durationSpec, func(q *delivery.Config, v float64) { q.Visibility = seconds(v) }},
	"repeat_delay":   {durationSpec, func(q *delivery.Config, v float64) { q.RepeatDelay = provider.Latency{Median: seconds(v)} }},
	"backoff.base":   {durationSpec, func(q *delivery.Config, v float64) { q.Backoff.Base = seconds(v) }},
	"backoff.cap":    {durationSpec, func(q *delivery.Config, v float64) { q.Backoff.Cap = seconds(v) }},
	"max_deliveries": {sweep.Spec{Kind: sweep.Whole, Min: 1, Max: delivery.DeliveriesLimit}, func(q *delivery.Config, v float64) { q.MaxDeliveries = int(v) }},
	"max_crashes":    {sweep.Spec{Kind: sweep.Whole, Min: 0, Max: delivery.CrashesLimit}, func(q *delivery.Config, v float64) { q.MaxCrashes = int(v) }},
	"repeat":         {sweep.Spec{Kind: sweep.Probability}, func(q *delivery.Config, v float64) { q.RepeatP = v }},
	"crash":          {sweep.Spec{Kind: sweep.Probability}, func(q *delivery.Config, v float64) { q.CrashP = v }},
}

// seconds is v seconds as a Duration, to the nanosecond.
func seconds(v float64) time.Duration { return time.Duration(math.Round(v * 1e9)) }

var stepRE = regexp.MustCompile(`^steps\[([^\]]*)\]\.([a-z_.]+)$`)

// LookupParam is the parameter called name in sc and, when not nil, its
// queue q: steps[STEP].FIELD, STEP a step's name and FIELD p_fail,
// lost_reply (a step that can lose its reply), latency (a fixed duration) or
// attempts (the step's own, overriding the run's);
// queue.FIELD, FIELD ttl, lease, visibility, repeat_delay, backoff.base,
// backoff.cap (durations), max_deliveries, max_crashes, repeat or crash. An
// unknown name is refused with the names allowed.
func LookupParam(name string, sc provider.Scenario, q *delivery.Config) (Param, error) {
	if m := stepRE.FindStringSubmatch(name); m != nil {
		i := slices.IndexFunc(sc.Steps, func(st provider.Step) bool { return st.Name == m[1] })
		if i < 0 {
			names := make([]string, len(sc.Steps))
			for k, st := range sc.Steps {
				names[k] = fmt.Sprintf("%q", st.Name)
			}
			return Param{}, fmt.Errorf("%s: no step is called %q (the steps are %s)", name, m[1], strings.Join(names, ", "))
		}
		f, ok := stepFields[m[2]]
		switch {
		case !ok:
			return Param{}, fmt.Errorf("%s: a step has no numeric field %q (want %s)", name, m[2], strings.Join(sortedKeys(stepFields), ", "))
		case f.lossy && !sc.Steps[i].CanLoseReply:
			return Param{}, fmt.Errorf("%s: step %q cannot lose its reply; give it a lost_reply in the file to vary it", name, m[1])
		}
		return Param{Name: name, Spec: f.spec, set: func(sc *provider.Scenario, _ *delivery.Config, v float64) { f.set(&sc.Steps[i], v) }}, nil
	}
	if field, ok := strings.CutPrefix(name, "queue."); ok {
		f, ok := queueFields[field]
		switch {
		case !ok:
			return Param{}, fmt.Errorf("%s: the queue has no numeric field %q (want %s)", name, field, strings.Join(sortedKeys(queueFields), ", "))
		case q == nil:
			return Param{}, fmt.Errorf("%s: the scenario has no queue; give the file a queue: section to vary it", name)
		}
		return Param{Name: name, Spec: f.spec, set: func(_ *provider.Scenario, q *delivery.Config, v float64) { f.set(q, v) }}, nil
	}
	return Param{}, fmt.Errorf("unknown parameter %q (want steps[STEP].FIELD or queue.FIELD)", name)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ParseSet reads a -set argument, NAME=VALUES: the parameter's name
// (LookupParam) and its values (sweep.Parse: a value, a list or a range
// start:stop:count; durations as 1h or 250ms), checked against what the
// parameter takes.
func ParseSet(arg string, sc provider.Scenario, q *delivery.Config) (Param, []float64, error) {
	name, values, ok := strings.Cut(arg, "=")
	if !ok {
		return Param{}, nil, fmt.Errorf("%q is not NAME=VALUES (steps[charge the card].p_fail=0:0.05:11, queue.ttl=1h,24h)", arg)
	}
	name = strings.TrimSpace(name)
	if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return Param{}, nil, fmt.Errorf("%q holds a control character", name)
	}
	p, err := LookupParam(name, sc, q)
	if err != nil {
		return Param{}, nil, err
	}
	vals, err := sweep.Parse(values, p.Spec)
	if err != nil {
		return Param{}, nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	return p, vals, nil
}
