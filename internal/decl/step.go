package decl

import (
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// StepSetting is one setting of a step, declared once: shard files, scenario
// files, their reference, Override and sweeps all read it. Its Name is as
// Override takes it, over every step (p_fail) or one (steps[STEP].attempts),
// empty when no name sets it; its Doc names its argument in backquotes,
// empty for a one-step setting; its Get is nil where the step keeps the run's.
type StepSetting struct {
	Setting[provider.Step]
	// ShardKey is its key in a shard file's model.steps and a scenario
	// file's step; a latency adds _ns and _p99_ns in a shard.
	ShardKey string
	Echo     string // its key where outputs echo the steps; empty for none
	// Lossy: only a step that can lose its reply has it. Timed: only the
	// delivery model reads it. OneStep: given for one step only.
	Lossy, Timed, OneStep bool
	// SetBy is the scenario file's step key whose presence turns this flag
	// on (lost_reply turns can_lose_reply on), no key of its own.
	SetBy string
	File  StepKeyDoc
}

// StepKeyDoc documents a step's setting as a scenario file's key; Type and
// Bounds are left empty where the setting's value says them.
type StepKeyDoc struct {
	Type, Default, Bounds, Doc, Example string
}

// stepSetting is s, a setting of a step whose field where points to, with
// its Setting's Name, Kind, Doc, Min and Max as s gives them.
func stepSetting[T any](where func(st *provider.Step) *T, s StepSetting) StepSetting {
	given := s.Setting
	s.Setting = New(given.Name, "", given.Kind, where, func(T) error { return nil })
	s.Doc, s.Min, s.Max = given.Doc, given.Min, given.Max
	return s
}

// stepSettings are the settings of a step, in the order a shard file
// writes them; the named ones are in the order reports list them, each
// echoed under its name.
var stepSettings = []StepSetting{
	stepSetting(func(st *provider.Step) *float64 { return &st.PFail }, StepSetting{ShardKey: "p_fail", Echo: "p_fail",
		Setting: Setting[provider.Step]{Name: "p_fail", Kind: enum.Probability, Doc: "`probability` that a call fails before doing anything"},
		File: StepKeyDoc{Default: "0", Example: "0.01",
			Doc: "probability that a call fails before doing anything; the setting p_fail sets it on every step"}}),
	stepSetting(func(st *provider.Step) *bool { return &st.CanLoseReply }, StepSetting{ShardKey: "can_lose_reply", SetBy: "lost_reply"}),
	stepSetting(func(st *provider.Step) *float64 { return &st.LostReply }, StepSetting{ShardKey: "lost_reply", Echo: "lost_reply", Lossy: true,
		Setting: Setting[provider.Step]{Name: "lost_reply", Kind: enum.Probability, Doc: "`probability` that the welcome email's reply is lost after the email went out"},
		File: StepKeyDoc{Default: "none: the step never loses its reply", Example: "0.005",
			Doc: "probability that the reply of a call that did its work is lost, so that the caller sees a failure; only a step with this key can lose its reply, and the setting lost_reply sets it on those steps only"}}),
	stepSetting(func(st *provider.Step) *bool { return &st.HonoursKeys }, StepSetting{ShardKey: "keyed", Echo: "keys",
		File: StepKeyDoc{Default: "false", Example: "true",
			Doc: "the step's provider honours idempotency keys: it does the work once per key it has seen. Only a keyed step reads a key, so with no keyed step every key mode (nokey, newkey, samekey, a step's keys) gives the same numbers, and a run says so on stderr"}}),
	stepSetting(func(st *provider.Step) *provider.Latency { return &st.Latency }, StepSetting{ShardKey: "latency", Echo: "latency", Timed: true,
		Setting: Setting[provider.Step]{Name: "latency", Kind: enum.Latency, Doc: "every call takes `d` (20ms) or a lognormal median:p99 (20ms:200ms, median above 0) of virtual time"},
		File: StepKeyDoc{Default: "0s", Example: "20ms",
			Doc: "how long each call takes in virtual time; above 0 it turns the delivery model on; the setting latency sets it on every step"}}),
	stepSetting(func(st *provider.Step) *int { return &st.Retry.Attempts }, StepSetting{ShardKey: "attempts", Echo: "attempts", OneStep: true,
		Setting: Setting[provider.Step]{Name: "attempts", Kind: enum.Whole, Min: 1, Max: limits.MaxAttempts},
		File: StepKeyDoc{Default: "the strategy's attempts", Example: "5",
			Doc: "the step's own attempts, the first included, for strategies that retry each step (a whole-job retry counts passes)"}}),
	stepSetting(func(st *provider.Step) **schema.KeyMode { return &st.Retry.Keys }, StepSetting{ShardKey: "keys", Echo: "key_mode",
		Setting: Setting[provider.Step]{Kind: enum.OneOf},
		File: StepKeyDoc{Type: "none, fresh or same", Default: "the strategy's key mode", Bounds: "none, fresh or same", Example: "same",
			Doc: "the key the step's calls send under any strategy: none, a new one on every call, or the same one for every attempt; only a keyed step reads it"}}),
	stepSetting(func(st *provider.Step) **backoff.Schedule { return &st.Retry.Backoff }, StepSetting{ShardKey: "backoff", Echo: "backoff", Timed: true,
		File: StepKeyDoc{Type: "{policy, base, cap}", Default: "the queue's backoff", Bounds: "not with attempts 1", Example: "{policy: constant, base: 1s}",
			Doc: "the wait between the step's own attempts; it turns the delivery model on"}}),
}

// StepSettings lists every setting of a step but its name, in the order a
// shard file writes them; a fresh slice.
func StepSettings() []StepSetting { return append([]StepSetting(nil), stepSettings...) }

// EchoedStepSettings are the settings of a step that outputs echo, in
// their order: those a name gives over every step first.
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
