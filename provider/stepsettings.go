package provider

import (
	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/testhook"
	"github.com/retrysim/retrysim/schema"
)

// StepSetting is one setting of a step, declared once: the shard file's
// model.steps writes and reads each step's settings from StepSettings,
// under ShardKey, so that a setting declared there is written with no
// field elsewhere.
type StepSetting struct {
	// ShardKey is its key in a shard file's model.steps; a latency writes
	// its median and p99 under ShardKey with _ns and _p99_ns.
	ShardKey string
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

// stepSetting declares the setting of a step that where points to.
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

// stepSettings are the settings of a step, in the order a shard file
// writes them.
var stepSettings = []StepSetting{
	stepSetting("p_fail", func(st *Step) *float64 { return &st.PFail }),
	stepSetting("can_lose_reply", func(st *Step) *bool { return &st.CanLoseReply }),
	stepSetting("lost_reply", func(st *Step) *float64 { return &st.LostReply }),
	stepSetting("keyed", func(st *Step) *bool { return &st.HonoursKeys }),
	stepSetting("latency", func(st *Step) *Latency { return &st.Latency }),
	stepSetting("attempts", func(st *Step) *int { return &st.Policy.Attempts }),
	stepSetting("keys", func(st *Step) **schema.KeyMode { return &st.Policy.Keys }),
	stepSetting("backoff", func(st *Step) **backoff.Policy { return &st.Policy.Backoff }),
}

// StepSettings declares every setting of a step but its name once, in the
// order a shard file writes them. The result is a fresh slice.
func StepSettings() []StepSetting { return append([]StepSetting(nil), stepSettings...) }

func init() { testhook.SetSteps(&stepSettings) }
