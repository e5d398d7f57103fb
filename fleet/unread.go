package fleet

import (
	"github.com/retrysim/retrysim/internal/backoffkind"
	"github.com/retrysim/retrysim/internal/pathtext"
)

// Unread names the settings of c, by path, that a run never reads given
// the others, each with why.
func (c Config) Unread() map[string]string {
	out := map[string]string{}
	for p, why := range c.unreadWhy() {
		out[p] = why.String()
	}
	return out
}

// unreadWhy is Unread with each reason a pathtext.Text (decl.UnreadWhy).
func (c Config) unreadWhy() map[string]pathtext.Text {
	unread := map[string]pathtext.Text{}
	add := func(cond bool, why pathtext.Text, paths ...string) {
		for _, p := range paths {
			if _, ok := unread[p]; cond && !ok {
				unread[p] = why
			}
		}
	}
	type P = pathtext.Path
	t := pathtext.Textf
	sv := c.Server
	add(c.Load.Kind == ConstantLoad, t("a constant %s has no peak and no window", P("load.kind")), "load.peak", "load.from", "load.to")
	add(!c.Load.FirstCall, t("%s false adds nothing to the Poisson arrivals", P("load.first_call")), "load.first_call")
	add(!c.Outage.On(), t("there is no outage"), "outage.mode")
	add(sv.Kind != LatencyServer, t("only %s latency grows with load; the server is %s", P("server.kind"), sv.Kind), "server.slope")
	add(sv.Kind == QueueServer, t("the queue server's calls take %s", P("server.service.median")), "server.base")
	add(sv.Kind != QueueServer, t("only %s queue has workers; the server is %s", P("server.kind"), sv.Kind),
		"server.workers", "server.queue_max", "server.service.median", "server.service.dist", "server.service.sigma")
	add(sv.Service.Dist != LognormalService, t("exponential service times have no log-sd"), "server.service.sigma")
	add(sv.Kind != RateLimitServer, t("only %s ratelimit has a limit; the server is %s", P("server.kind"), sv.Kind), "server.limit", "server.burst")
	add(c.Client.Attempts == 1, t("with %s 1 nothing is retried, so no backoff is waited", P("client.attempts")), "client.backoff.kind", "client.backoff.base", "client.backoff.cap")
	baseWhy, capWhy := backoffkind.Unread(c.Client.Backoff.Kind.String()) // as for the queue's queue.backoff.base and queue.backoff.cap
	add(baseWhy != "", t("%s", baseWhy), "client.backoff.base")
	add(capWhy != "", t("%s", capWhy), "client.backoff.cap")
	pk, own := c.Client.Policy.Kind, c.Client.Policy.Own != nil
	add(c.Client.Attempts == 1 && c.Client.Hedges == 0 && !pk.GuardsFirst() && !own,
		t("with %s 1 and no %s nothing is retried, so %s %s is never asked", P("client.attempts"), P("client.hedges"), P("client.policy.kind"), pk), "client.policy.kind", "client.policy.shared")
	add(pk == Unlimited && !own, t("%s unlimited keeps no state", P("client.policy.kind")), "client.policy.shared")
	for _, p := range policyPaths() {
		add(!pk.reads(p), t("%s %s does not read it", P("client.policy.kind"), pk), p)
	}
	add(pk == SlidingBreaker && c.Client.Policy.WindowTime > 0, t("%s makes the window one of time, not of attempts", P("client.policy.window_time")), "client.policy.window")
	add(c.Client.Hedges == 0, t("there are no %s", P("client.hedges")), "client.hedge_delay")
	add(sv.Kind != QueueServer && sv.Kind != RateLimitServer, t("only %s queue and ratelimit refuse calls for overload; the server is %s", P("server.kind"), sv.Kind), "server.pushback")
	add(!sv.Pushback || sv.Kind != QueueServer && sv.Kind != RateLimitServer, t("without %s no answer says \"do not retry\"", P("server.pushback")), "client.honour_pushback")
	return unread
}
