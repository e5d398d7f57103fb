package fleet

import (
	"fmt"
)

// Unread names the settings of c that a run never reads, given the others,
// each with why: the keys are the settings' flag names (as ParamError's),
// so that a command refuses a flag it would otherwise drop. A setting
// unread for several reasons gets the first.
func (c Config) Unread() map[string]string {
	unread := map[string]string{}
	add := func(cond bool, why string, flags ...string) {
		for _, f := range flags {
			if cond && unread[f] == "" {
				unread[f] = why
			}
		}
	}
	sv := c.Server
	add(c.Load.Kind == Constant, "a constant -shape has no peak and no window", "peak", "from", "to")
	add(!c.Outage.On(), "there is no -outage", "outage-mode")
	add(sv.Kind != Latency, fmt.Sprintf("only -server latency grows with load; the server is %s", sv.Kind), "slope")
	add(sv.Kind == Queue, "the queue server's calls take -service", "base")
	add(sv.Kind != Queue, fmt.Sprintf("only -server queue has workers; the server is %s", sv.Kind), "capacity", "queue", "service", "service-dist", "service-sigma")
	add(sv.Service.Dist != Lognormal, "exponential service times have no log-sd", "service-sigma")
	add(sv.Kind != RateLimit, fmt.Sprintf("only -server ratelimit has a limit; the server is %s", sv.Kind), "limit", "burst")
	add(c.Client.Attempts == 1, "with -attempts 1 nothing is retried, so no backoff is waited", "backoff", "backoff-base", "backoff-cap")
	baseWhy, capWhy := c.Client.Backoff.Kind.Unread() // as the job commands' -backoff-base and -backoff-cap
	add(baseWhy != "", baseWhy, "backoff-base")
	add(capWhy != "", capWhy, "backoff-cap")
	pk := c.Client.Policy.Kind
	add(c.Client.Attempts == 1 && c.Client.Hedges == 0 && !pk.GuardsFirst(),
		fmt.Sprintf("with -attempts 1 and no -hedges nothing is retried, so -policy %s is never asked", pk), "policy", "policy-scope")
	add(pk == Unlimited, "-policy unlimited keeps no state", "policy-scope")
	for _, p := range PolicyParams() {
		add(!pk.Reads(p), fmt.Sprintf("-policy %s does not read it", pk), p)
	}
	add(pk == SlidingBreaker && c.Client.Policy.WindowSeconds > 0, "-cb-window-time makes the window one of time, not of attempts", "cb-window")
	add(c.Client.Hedges == 0, "there are no -hedges", "hedge-delay")
	return unread
}
