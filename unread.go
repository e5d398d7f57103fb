package retrysim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/strategy"
)

// Unread names the settings of e that its run never reads, given the
// others, each with why, so that the command refuses a flag it would
// otherwise drop: the keys are the command's flag names (lost-reply, and the
// delivery model's backoff, backoff-base, backoff-cap, ttl, lease, crash-at,
// max-crashes, repeat-delay; in a run of the job model, every flag of a
// setting only the delivery model reads). A setting unread for several
// reasons gets the first.
func (e Experiment) Unread() map[string]string {
	unread := map[string]string{}
	add := func(cond bool, why string, flags ...string) {
		for _, f := range flags {
			if cond && unread[f] == "" {
				unread[f] = why
			}
		}
	}
	add(!slices.ContainsFunc(e.Scenario.Steps, func(st provider.Step) bool { return st.CanLoseReply }),
		"no step of the scenario can lose its reply", "lost-reply")
	cfg := e.Delivery
	if cfg == nil {
		for _, s := range Settings() {
			add(s.Delivery, "only the delivery model reads it; add -model delivery", settingFlag(s.Name))
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
		// The run's backoff is waited between a whole job's passes and
		// between the attempts of a step with no backoff of its own.
		if r.Scope == strategy.WholeJob {
			retried = retried || r.Attempts > 1
		} else {
			retried = retried || slices.ContainsFunc(e.Scenario.Steps, func(st provider.Step) bool {
				return st.Policy.Backoff == nil && st.Policy.AttemptsOr(r.Attempts) > 1
			})
		}
	}
	keyed = keyed || cfg.Store != delivery.NoStore
	kind := cfg.Backoff.Kind
	add(!retried, "with -attempts 1 no call is retried, so no backoff is waited (a step's own attempts wait its own backoff)", "backoff", "backoff-base", "backoff-cap")
	add(kind == backoff.None, "the backoff policy none never waits", "backoff-base", "backoff-cap")
	add(kind.Schedule(), fmt.Sprintf("the %s schedule sets its own waits, in seconds by attempt", kind), "backoff-base", "backoff-cap")
	add(kind == backoff.Constant, "the constant backoff waits -backoff-base, with no cap", "backoff-cap")
	add(!keyed, "no key is written: the store is none and no strategy skips finished steps", "ttl")
	add(cfg.Store != delivery.Lease, fmt.Sprintf("only -store lease takes a lease; the store is %s", cfg.Store), "lease")
	add(cfg.CrashP == 0, "no worker crashes: the crash probability is 0", "crash-at", "max-crashes")
	add(cfg.RepeatP == 0, "no request is sent twice: the repeat probability is 0", "repeat-delay")
	return unread
}

// settingFlag is the flag that gives the setting called name, as the
// commands name it (flagval.FlagOf): queue.backoff.base is backoff-base.
func settingFlag(name string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(strings.TrimPrefix(name, "queue."))
}
