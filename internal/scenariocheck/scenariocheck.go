// Package scenariocheck refuses what a job's scenario cannot be, with a
// *schema.FieldError naming the field at fault.
package scenariocheck

import (
	"fmt"
	"slices"

	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// Scenario reports the first thing wrong with s as a *schema.FieldError
// naming its field path (steps[2].p_fail).
func Scenario(s provider.Scenario) error {
	for _, f := range []struct{ name, v string }{{"name", s.Name}, {"noun", s.Noun}} {
		if err := stats.CheckName(f.v); err != nil {
			return &schema.FieldError{Field: f.name, Msg: err.Error()}
		}
	}
	if len(s.Steps) == 0 {
		return pathtext.Errorf("steps", "a scenario needs at least one step")
	}
	if len(s.Steps) > stats.MaxSteps {
		return pathtext.Errorf("steps", "%d steps is more than the %d allowed", len(s.Steps), stats.MaxSteps)
	}
	for i, st := range s.Steps {
		if err := stats.CheckName(st.Name); err != nil {
			return &schema.FieldError{Field: fmt.Sprintf("steps[%d].name", i), Msg: err.Error()}
		}
		if j := slices.IndexFunc(s.Steps[:i], func(o provider.Step) bool { return o.Name == st.Name }); j >= 0 { // a path names a step by its name
			return pathtext.Errorf(fmt.Sprintf("steps[%d].name", i), "%q is also the name of steps[%d]", st.Name, j)
		}
		if err := limits.Probability(st.PFail); err != nil {
			return &schema.FieldError{Field: fmt.Sprintf("steps[%d].p_fail", i), Msg: err.Error()}
		}
		if err := limits.Probability(st.LostReply); err != nil {
			return &schema.FieldError{Field: fmt.Sprintf("steps[%d].lost_reply", i), Msg: err.Error()}
		}
		if st.LostReply > 0 && !st.CanLoseReply {
			return pathtext.Errorf(fmt.Sprintf("steps[%d].lost_reply", i), "%v is never read: the step cannot lose its reply (%s false)", st.LostReply, pathtext.Path(fmt.Sprintf("steps[%d].can_lose_reply", i)))
		}
		if err := Latency(st.Latency); err != nil {
			return &schema.FieldError{Field: fmt.Sprintf("steps[%d].latency", i), Msg: err.Error()}
		}
		if err := stepRetry(st.Retry); err != nil {
			return fieldpath.Within(fmt.Sprintf("steps[%d]", i), err)
		}
	}
	if len(s.Watched) == 0 {
		return pathtext.Errorf("watched", "no step is watched; name at least one step whose repeated side effect is counted")
	}
	seen := map[int]int{}
	for k, w := range s.Watched {
		if w.Step < 0 || w.Step >= len(s.Steps) {
			return pathtext.Errorf(fmt.Sprintf("watched[%d]", k), "step %d does not exist (there are %d steps)", w.Step, len(s.Steps))
		}
		if j, ok := seen[w.Step]; ok {
			return pathtext.Errorf(fmt.Sprintf("watched[%d]", k), "step %d is also watched[%d]", w.Step, j)
		}
		if err := stats.CheckName(w.Label); err != nil {
			return &schema.FieldError{Field: fmt.Sprintf("watched[%d].label", k), Msg: err.Error()}
		}
		seen[w.Step] = k
	}
	return nil
}

// Latency refuses a duration out of bounds, and a p99 below the median or
// with no median.
func Latency(l provider.Latency) error {
	if err := limits.Duration(l.Median); err != nil {
		return err
	}
	if err := limits.Duration(l.P99); err != nil {
		return err
	}
	switch {
	case l.P99 > 0 && l.Median == 0:
		return fmt.Errorf("a p99 (%v) needs a median above 0", l.P99)
	case l.P99 > 0 && l.P99 < l.Median:
		return fmt.Errorf("p99 %v is below the median %v", l.P99, l.Median)
	}
	return nil
}

// stepRetry reports the first thing wrong with p as a *schema.FieldError naming
// its field (attempts, keys, backoff.cap).
func stepRetry(p provider.StepRetry) error {
	if p.Attempts < 0 || p.Attempts > limits.MaxAttempts {
		return pathtext.Errorf("attempts", "%d is not a whole number from 1 to %d", p.Attempts, limits.MaxAttempts)
	}
	if p.Keys != nil {
		if err := enum.Check(*p.Keys); err != nil {
			return &schema.FieldError{Field: "keys", Msg: err.Error()}
		}
	}
	if b := p.Backoff; b != nil {
		return fieldpath.Within("backoff", limits.Backoff(*b))
	}
	return nil
}
