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

// stepSetting declares the setting of a step that where points to.
func stepSetting[T any](shardKey string, where func(st *provider.Step) *T) StepSetting {
	return StepSetting{Setting: New("", "", 0, where, func(T) error { return nil }), ShardKey: shardKey}
}

// echoed is s echoed under key.
func echoed(s StepSetting, key string) StepSetting {
	s.Echo = key
	return s
}

// named is s under name, echoed under the same name, of kind, meaning doc.
func named(s StepSetting, name string, kind enum.Kind, doc string) StepSetting {
	s.Name, s.Echo, s.Kind, s.Doc = name, name, kind, doc
	return s
}

// inFile is s documented as a key of a scenario file's step by doc.
func inFile(s StepSetting, doc StepKeyDoc) StepSetting {
	s.File = doc
	return s
}

// stepSettings are the settings of a step, in the order a shard file
// writes them; the named ones are in the order reports list them.
var stepSettings = []StepSetting{
	inFile(named(stepSetting("p_fail", func(st *provider.Step) *float64 { return &st.PFail }), "p_fail", enum.Probability,
		"`probability` that a call fails before doing anything"),
		StepKeyDoc{Default: "0", Example: "0.01",
			Doc: "probability that a call fails before doing anything; the setting p_fail sets it on every step"}),
	setBy(stepSetting("can_lose_reply", func(st *provider.Step) *bool { return &st.CanLoseReply }), "lost_reply"),
	inFile(lossy(named(stepSetting("lost_reply", func(st *provider.Step) *float64 { return &st.LostReply }), "lost_reply", enum.Probability,
		"`probability` that the welcome email's reply is lost after the email went out")),
		StepKeyDoc{Default: "none: the step never loses its reply", Example: "0.005",
			Doc: "probability that the reply of a call that did its work is lost, so that the caller sees a failure; only a step with this key can lose its reply, and the setting lost_reply sets it on those steps only"}),
	inFile(echoed(stepSetting("keyed", func(st *provider.Step) *bool { return &st.HonoursKeys }), "keys"),
		StepKeyDoc{Default: "false", Example: "true",
			Doc: "the step's provider honours idempotency keys: it does the work once per key it has seen. Only a keyed step reads a key, so with no keyed step every key mode (nokey, newkey, samekey, a step's keys) gives the same numbers, and a run says so on stderr"}),
	inFile(timed(named(stepSetting("latency", func(st *provider.Step) *provider.Latency { return &st.Latency }), "latency", enum.Latency,
		"every call takes `d` (20ms) or a lognormal median:p99 (20ms:200ms, median above 0) of virtual time")),
		StepKeyDoc{Default: "0s", Example: "20ms",
			Doc: "how long each call takes in virtual time; above 0 it turns the delivery model on; the setting latency sets it on every step"}),
	inFile(oneStep(named(stepSetting("attempts", func(st *provider.Step) *int { return &st.Retry.Attempts }), "attempts", enum.Whole, ""), 1, limits.MaxAttempts),
		StepKeyDoc{Default: "the strategy's attempts", Example: "5",
			Doc: "the step's own attempts, the first included, for strategies that retry each step (a whole-job retry counts passes)"}),
	inFile(echoed(stepSetting("keys", func(st *provider.Step) **schema.KeyMode { return &st.Retry.Keys }), "key_mode"),
		StepKeyDoc{Type: "none, fresh or same", Default: "the strategy's key mode", Bounds: "none, fresh or same", Example: "same",
			Doc: "the key the step's calls send under any strategy: none, a new one on every call, or the same one for every attempt; only a keyed step reads it"}),
	inFile(timed(echoed(stepSetting("backoff", func(st *provider.Step) **backoff.Schedule { return &st.Retry.Backoff }), "backoff")),
		StepKeyDoc{Type: "{policy, base, cap}", Default: "the queue's backoff", Bounds: "not with attempts 1", Example: "{policy: constant, base: 1s}",
			Doc: "the wait between the step's own attempts; it turns the delivery model on"}),
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

// setBy marks flag s as turned on by the scenario file's key, no key of
// its own.
func setBy(s StepSetting, key string) StepSetting {
	s.SetBy = key
	return s
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
