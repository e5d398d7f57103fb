package fleet

import (
	"fmt"
)

// Unread names the settings of c that a run never reads, given the others,
// each with why: the keys are the settings' paths (as FieldError's), so
// that a command refuses a setting it would otherwise drop, as
// retrysim.Experiment.Unread does for the job and delivery models. A setting unread
// for several reasons gets the first. The reasons name settings by their
// paths too (ReplacePaths rewrites them).
func (c Config) Unread() map[string]string {
	unread := map[string]string{}
	add := func(cond bool, why string, paths ...string) {
		for _, p := range paths {
			if cond && unread[p] == "" {
				unread[p] = why
			}
		}
	}
	sv := c.Server
	add(c.Load.Kind == Constant, "a constant load.kind has no peak and no window", "load.peak", "load.from", "load.to")
	add(!c.Load.FirstCall, "load.first_call false adds nothing to the Poisson arrivals", "load.first_call")
	add(!c.Outage.On(), "there is no outage", "outage.mode")
	add(sv.Kind != Latency, fmt.Sprintf("only server.kind latency grows with load; the server is %s", sv.Kind), "server.slope")
	add(sv.Kind == Queue, "the queue server's calls take server.service.median", "server.base")
	add(sv.Kind != Queue, fmt.Sprintf("only server.kind queue has workers; the server is %s", sv.Kind),
		"server.workers", "server.queue_max", "server.service.median", "server.service.dist", "server.service.sigma")
	add(sv.Service.Dist != Lognormal, "exponential service times have no log-sd", "server.service.sigma")
	add(sv.Kind != RateLimit, fmt.Sprintf("only server.kind ratelimit has a limit; the server is %s", sv.Kind), "server.limit", "server.burst")
	add(c.Client.Attempts == 1, "with client.attempts 1 nothing is retried, so no backoff is waited", "client.backoff.kind", "client.backoff.base", "client.backoff.cap")
	baseWhy, capWhy := c.Client.Backoff.Kind.Unread() // as for the queue's queue.backoff.base and queue.backoff.cap
	add(baseWhy != "", baseWhy, "client.backoff.base")
	add(capWhy != "", capWhy, "client.backoff.cap")
	pk, own := c.Client.Policy.Kind, c.Client.Policy.Own != nil
	add(c.Client.Attempts == 1 && c.Client.Hedges == 0 && !pk.GuardsFirst() && !own,
		fmt.Sprintf("with client.attempts 1 and no client.hedges nothing is retried, so client.policy.kind %s is never asked", pk), "client.policy.kind", "client.policy.shared")
	add(pk == Unlimited && !own, "client.policy.kind unlimited keeps no state", "client.policy.shared")
	for _, p := range PolicyParams() {
		add(!pk.Reads(p), fmt.Sprintf("client.policy.kind %s does not read it", pk), p)
	}
	add(pk == SlidingBreaker && c.Client.Policy.WindowTime > 0, "client.policy.window_time makes the window one of time, not of attempts", "client.policy.window")
	add(c.Client.Hedges == 0, "there are no client.hedges", "client.hedge_delay")
	add(sv.Kind != Queue && sv.Kind != RateLimit, fmt.Sprintf("only server.kind queue and ratelimit refuse calls for overload; the server is %s", sv.Kind), "server.pushback")
	add(!sv.Pushback || sv.Kind != Queue && sv.Kind != RateLimit, "without server.pushback no answer says \"do not retry\"", "client.honour_pushback")
	return unread
}
