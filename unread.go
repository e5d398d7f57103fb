package retrysim

import (
	"fmt"
	"slices"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/backoffkind"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/jobsim"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// unread names the settings of e that its run never reads, given the others, each with the first
// reason why (jobapi.Unread), so that a command refuses a setting it would otherwise drop.
func (e Experiment) unread() map[string]string {
	unread := map[string]string{}
	add := func(cond bool, why string, settings ...string) {
		for _, f := range settings {
			if cond && unread[f] == "" {
				unread[f] = why
			}
		}
	}
	add(!slices.ContainsFunc(e.Scenario.Steps, func(st provider.Step) bool { return st.CanLoseReply }),
		"no step of the scenario can lose its reply", "lost_reply")
	cfg := e.Delivery
	if cfg == nil {
		for _, s := range settingDefs() {
			add(s.Delivery, jobapi.UnreadInJobModel, s.Name)
		}
		return unread
	}
	var keyed, retried bool
	for _, s := range e.Strategies {
		r, ok := s.(strategy.Retry)
		if !ok {
			continue
		}
		keyed = keyed || r.SkipFinished
		// The run's backoff is waited between a job's passes and a step's attempts.
		if r.Scope == strategy.WholeJob {
			retried = retried || r.Attempts > 1
		} else {
			retried = retried || slices.ContainsFunc(e.Scenario.Steps, func(st provider.Step) bool {
				return st.Retry.Backoff == nil && jobsim.StepAttempts(st.Retry, r.Attempts) > 1
			})
		}
	}
	keyed = keyed || cfg.Store != delivery.NoStore
	add(!retried, "with attempts 1 no call is retried, so no backoff is waited (a step's own attempts wait its own backoff)", "queue.backoff", "queue.backoff.base", "queue.backoff.cap")
	baseWhy, capWhy := backoffkind.Unread(cfg.Backoff.Kind.String()) // as a scenario file's backoff is refused
	add(baseWhy != "", baseWhy, "queue.backoff.base")
	add(capWhy != "", capWhy, "queue.backoff.cap")
	add(!keyed, "no key is written: the store is none and no strategy skips finished steps", "queue.ttl")
	add(cfg.Store != delivery.Lease, fmt.Sprintf("only the lease store takes a lease; the store is %s", cfg.Store), "queue.lease")
	add(cfg.CrashP == 0, "no worker crashes: the crash probability is 0", "queue.crash_at", "queue.max_crashes")
	add(cfg.RepeatP == 0, "no request is sent twice: the repeat probability is 0", "queue.repeat_delay")
	return unread
}
