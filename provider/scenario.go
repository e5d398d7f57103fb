// Package provider models the external services a job calls: each step of a
// scenario is one provider that can fail, lose its reply, and (if it honours
// idempotency keys) perform its work only once per key.
//
// A provider's memory is per job, so jobs are independent and the engine can run
// any job anywhere. This package knows nothing about retries: that is package
// strategy's business.
package provider

import (
	"fmt"
	"slices"

	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Step is one call of a scenario.
type Step struct {
	// Name says what the step does.
	Name string
	// PFail is the probability that a call fails before doing anything.
	PFail float64
	// CanLoseReply marks a step whose reply can be lost after its work is done.
	// Only such a step draws the second random number of a call.
	CanLoseReply bool
	// LostReply is the probability that such a step's reply is lost.
	LostReply float64
	// HonoursKeys marks a provider that performs the work once per key it has seen.
	HonoursKeys bool
	// Latency is how long a call takes, in virtual time; zero by default.
	Latency Latency
	// Retry is the step's own attempts, key mode and backoff, overriding
	// the run's; its zero value keeps the run's.
	Retry StepRetry
}

// Scenario is the ordered steps of a job, and the steps whose repeats are
// counted job by job (the article's welcome email; a checkout's charge and its
// receipt).
type Scenario struct {
	Name  string
	Steps []Step
	// Watched are the steps whose side effect happening twice in one job is
	// counted, each in a column of its own, the first in the duplicate_users
	// column the Part 5 outputs carry. There must be at least one: a zero
	// Scenario watches nothing and Validate refuses it, where an int would
	// have silently watched the first step.
	Watched []Watch
	// Noun names what a job is, for titles: "sign-ups".
	Noun string
}

// Watch is one watched step.
type Watch struct {
	// Step is the step's index in Steps.
	Step int
	// Label heads the step's column; empty means Jobs with 2+ "<step name>".
	Label string
}

// Signup is the article's scenario: ten steps, every call fails with pFail, and
// the welcome email (step 7) loses its reply with lostReply and is the only
// provider that accepts keys.
func Signup(pFail, lostReply float64) Scenario {
	names := []string{
		"save the user", "create the billing customer", "create the workspace",
		"upload the default avatar", "add to the CRM", "subscribe to the newsletter",
		"send the welcome email", "notify the sales channel", "record the analytics event",
		"schedule the day-3 email",
	}
	const email = 6
	steps := make([]Step, len(names))
	for i, n := range names {
		steps[i] = Step{Name: n, PFail: pFail}
	}
	steps[email].CanLoseReply = true
	steps[email].LostReply = lostReply
	steps[email].HonoursKeys = true
	return Scenario{
		Name:    "signup",
		Steps:   steps,
		Watched: []Watch{{Step: email, Label: "Users with 2+ welcome emails"}},
		Noun:    "sign-ups",
	}
}

// Validate reports the first thing wrong with s as a *schema.FieldError
// naming its field path (steps[2].p_fail, watched[0]). Its names and labels
// are held to stats.CheckName.
func (s Scenario) Validate() error {
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
		if j := slices.IndexFunc(s.Steps[:i], func(o Step) bool { return o.Name == st.Name }); j >= 0 { // a path names a step by its name
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
		if err := st.Latency.Check(); err != nil {
			return &schema.FieldError{Field: fmt.Sprintf("steps[%d].latency", i), Msg: err.Error()}
		}
		if err := st.Retry.check(); err != nil {
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
