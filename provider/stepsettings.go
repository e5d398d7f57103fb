package provider

import (
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/testhook"
	"github.com/retrysim/retrysim/schema"
)

// StepSetting is one setting of a step, declared once: the shard file's
// model.steps writes and reads each step's settings from StepSettings,
// under ShardKey, and the settings a run takes by name (retrysim.Override,
// a sweep, the command) are those with a Name, so that a setting declared
// there is written and taken with no field elsewhere.
type StepSetting struct {
	// Name is the setting's name as Override and a sweep take it, over
	// every step (p_fail) or one (steps[STEP].attempts); empty for a field
	// no setting names (a step's flags, its key mode, its backoff).
	Name string
	// ShardKey is its key in a shard file's model.steps; a latency writes
	// its median and p99 under ShardKey with _ns and _p99_ns.
	ShardKey string
	// Echo is its key where outputs echo a scenario file's steps
	// (step_params in json, step_N_KEY in csv); empty for a setting they
	// do not echo.
	Echo string
	// Doc says what it means, its argument's name in backquotes, as package
	// flag reads a flag's help; empty for a setting given for one step only.
	Doc string
	// Kind is what values a named setting takes (a probability, a
	// latency, a whole number), and Min and Max bound a whole number.
	Kind     schema.Kind
	Min, Max int
	// Lossy: only a step that can lose its reply has it. Timed: only the
	// delivery model reads it. OneStep: it is given for one step only
	// (steps[STEP].FIELD), never over every step.
	Lossy, Timed, OneStep bool
	// get is the setting's value in a step, of the field's own type; set
	// sets it, reporting false for a value of another type.
	get func(st Step) any
	set func(st *Step, v any) bool
}

// Get is the setting's value in st, of the field's own type: a float64, a
// bool, a Latency, an int, a *schema.KeyMode or a *backoff.Policy (nil
// where the step keeps the run's).
func (s StepSetting) Get(st Step) any { return s.get(st) }

// Set sets the setting in st to v, of the field's own type, reporting false
// for a value of another type.
func (s StepSetting) Set(st *Step, v any) bool { return s.set(st, v) }

// stepSetting declares the setting of a step that where points to, which
// no name sets; named gives it its name.
func stepSetting[T any](shardKey string, where func(st *Step) *T) StepSetting {
	return StepSetting{
		ShardKey: shardKey,
		get:      func(st Step) any { return *where(&st) },
		set: func(st *Step, v any) bool {
			x, ok := v.(T)
			if ok {
				*where(st) = x
			}
			return ok
		},
	}
}

// echoed is s echoed under key.
func echoed(s StepSetting, key string) StepSetting {
	s.Echo = key
	return s
}

// named is s under name, echoed under the same name, of kind, meaning doc.
func named(s StepSetting, name string, kind schema.Kind, doc string) StepSetting {
	s.Name, s.Echo, s.Kind, s.Doc = name, name, kind, doc
	return s
}

// stepSettings are the settings of a step, in the order a shard file
// writes them; the named ones are in the order reports list them.
var stepSettings = []StepSetting{
	named(stepSetting("p_fail", func(st *Step) *float64 { return &st.PFail }), "p_fail", schema.Probability,
		"`probability` that a call fails before doing anything"),
	stepSetting("can_lose_reply", func(st *Step) *bool { return &st.CanLoseReply }),
	lossy(named(stepSetting("lost_reply", func(st *Step) *float64 { return &st.LostReply }), "lost_reply", schema.Probability,
		"`probability` that the welcome email's reply is lost after the email went out")),
	echoed(stepSetting("keyed", func(st *Step) *bool { return &st.HonoursKeys }), "keys"),
	timed(named(stepSetting("latency", func(st *Step) *Latency { return &st.Latency }), "latency", schema.Latency,
		"every call takes `d` (20ms) or a lognormal median:p99 (20ms:200ms, median above 0) of virtual time")),
	// attempts is the step's own (Policy), bounded as a scenario file's: 1
	// to MaxAttempts.
	oneStep(named(stepSetting("attempts", func(st *Step) *int { return &st.Policy.Attempts }), "attempts", schema.Whole, ""), 1, MaxAttempts),
	echoed(stepSetting("keys", func(st *Step) **schema.KeyMode { return &st.Policy.Keys }), "key_mode"),
	echoed(stepSetting("backoff", func(st *Step) **backoff.Policy { return &st.Policy.Backoff }), "backoff"),
}

// StepSettings declares every setting of a step but its name once, in the
// order a shard file writes them. The result is a fresh slice.
func StepSettings() []StepSetting { return append([]StepSetting(nil), stepSettings...) }

func init() { testhook.SetSteps(&stepSettings) }

// EchoedStepSettings are the settings of a step that outputs echo, in the
// order they list them: those a name gives over every step (p_fail,
// lost_reply, latency) first, then the step's own flags and policy, each
// in StepSettings' order.
func EchoedStepSettings() []StepSetting {
	var over, own []StepSetting
	for _, s := range StepSettings() {
		switch {
		case s.Echo == "":
		case s.Name != "" && !s.OneStep:
			over = append(over, s)
		default:
			own = append(own, s)
		}
	}
	return append(over, own...)
}

func lossy(s StepSetting) StepSetting {
	s.Lossy = true
	return s
}

func timed(s StepSetting) StepSetting {
	s.Timed = true
	return s
}

// oneStep marks s as given for one step only, a whole number from lo to hi.
func oneStep(s StepSetting, lo, hi int) StepSetting {
	s.OneStep, s.Min, s.Max = true, lo, hi
	return s
}
