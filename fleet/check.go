package fleet

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/schema"
)

// withDefaults is o with a Replicates of 0 made 1, as Options documents.
func (o Options) withDefaults() Options {
	if o.Replicates == 0 {
		o.Replicates = 1
	}
	return o
}

// Check is what Run checks before any work: Config.Check, Options.Check
// and the runs' cost, each error a *schema.FieldError naming a setting.
func Check(cfgs []Config, opt Options) error {
	if len(cfgs) == 0 {
		return errors.New("no configuration to run")
	}
	for _, c := range cfgs {
		if err := c.Check(); err != nil {
			return err
		}
	}
	if err := opt.Check(cfgs[0].Duration.Seconds()); err != nil {
		return err
	}
	return checkCosts(cfgs, opt)
}

// Check refuses options Run cannot honour for runs of duration seconds: at
// most 360,000 replicate-seconds in all, Workers not negative.
func (o Options) Check(duration float64) error {
	o = o.withDefaults()
	if o.Replicates < 1 || o.Replicates > limits.FleetReplicates {
		return &schema.FieldError{Field: "replicates", Msg: fmt.Sprintf("%d is not from 1 to %d", o.Replicates, limits.FleetReplicates)}
	}
	if float64(o.Replicates)*math.Ceil(duration) > limits.FleetSeriesSeconds {
		return &schema.FieldError{Field: "replicates", Msg: fmt.Sprintf("%d replicates of %g s keep %g series seconds; at most %d (fewer replicates or a shorter duration)",
			o.Replicates, duration, float64(o.Replicates)*math.Ceil(duration), limits.FleetSeriesSeconds)}
	}
	if o.first < 0 {
		return &schema.FieldError{Field: "first", Msg: fmt.Sprintf("%d is not 0 or more: a replicate's index", o.first)}
	}
	if o.Workers < 0 {
		return &schema.FieldError{Field: "workers", Msg: fmt.Sprintf("%d is not 0 (GOMAXPROCS) or more", o.Workers)}
	}
	return nil
}

// checker gathers the first setting refused.
type checker struct {
	first  error
	params map[string]decl.Param[Config] // by path, for their bounds
}

// bounds are the Lo and Hi that params declares for the setting at path.
func (k *checker) bounds(path string) (lo, hi float64) {
	if k.params == nil {
		k.params = map[string]decl.Param[Config]{}
		for _, p := range decl.Params[Config]() {
			k.params[p.Path] = p
		}
	}
	p, ok := k.params[path]
	if !ok || p.Hi <= p.Lo {
		panic("fleet: Params declares no bounds for " + path)
	}
	return p.Lo, p.Hi
}

// whole refuses a whole number outside the setting's bounds, unit after them.
func (k *checker) whole(path string, v int, unit string) {
	lo, hi := k.bounds(path)
	if v < int(lo) || v > int(hi) {
		k.bad(path, "%d is not from %d to %d%s", v, int(lo), int(hi), unit)
	}
}

// number refuses a number outside the setting's bounds, or NaN, unit after them.
func (k *checker) number(path string, v float64, unit string) {
	lo, hi := k.bounds(path)
	if math.IsNaN(v) || v < lo || v > hi {
		k.bad(path, "%g is not from %g to %g%s", v, lo, hi, unit)
	}
}

func (k *checker) bad(path, format string, args ...any) {
	if k.first == nil {
		k.first = pathtext.Errorf(path, format, args...)
	}
}

// seconds refuses a time outside [0, limits.FleetSeconds], or 0 when positive.
func (k *checker) seconds(path string, v float64, positive bool) {
	if math.IsNaN(v) || v < 0 || v > limits.FleetSeconds || (positive && v == 0) {
		what := "from 0"
		if positive {
			what = "above 0"
		}
		k.bad(path, "%g s is not %s to %d s", v, what, limits.FleetSeconds)
	}
}

// rate refuses a rate outside the setting's bounds ([0, limits.FleetRate]).
func (k *checker) rate(path string, v float64) {
	lo, hi := k.bounds(path)
	if math.IsNaN(v) || v < lo || v > hi {
		k.bad(path, "%g is not a rate from %g to %g a second", v, lo, hi)
	}
}

// enum refuses a value that is not one of names; what is what it should be.
func (k *checker) enum(path, what string, v int, names []string) {
	if v < 0 || v >= len(names) {
		k.bad(path, "%d is not %s (want one of %s)", v, what, strings.Join(names, ", "))
	}
}

// Check refuses a configuration outside the limits with a *schema.FieldError
// naming the setting by its path; Run does not panic on one it passes.
func (c Config) Check() error {
	c.Client = c.Client.withDefaults()
	var k checker
	dur := c.Duration.Seconds()
	if dur < 1 || dur > limits.FleetDuration {
		k.bad("duration", "%g s is not from 1 s to %d s", dur, limits.FleetDuration)
	}
	k.enum("load.kind", "a shape", int(c.Load.Kind), shapes.names)
	k.rate("load.rate", c.Load.Rate)
	if c.Load.Kind != ConstantLoad {
		k.rate("load.peak", c.Load.Peak)
		k.seconds("load.from", c.Load.From.Seconds(), false)
		k.seconds("load.to", c.Load.To.Seconds(), false)
		if !(c.Load.To > c.Load.From) {
			k.bad("load.to", "%g s is not after %s %g s", c.Load.To.Seconds(), pathtext.Path("load.from"), c.Load.From.Seconds())
		}
		if c.Load.From >= c.Duration {
			k.bad("load.from", "%s is not before the run's end (duration %s): the %s would never start", human.Duration(c.Load.From), human.Duration(c.Duration), c.Load.Kind)
		}
		if c.Load.Kind == RampLoad && c.Load.Peak < c.Load.Rate {
			k.bad("load.peak", "%g is below %[3]s %[2]g; a ramp rises from %[3]s to %[4]s and back (a drop in load is a %[5]s spike with %[4]s below %[3]s)",
				c.Load.Peak, c.Load.Rate, pathtext.Path("load.rate"), pathtext.Path("load.peak"), pathtext.Path("load.kind"))
		}
	}
	if c.Load.max() == 0 {
		k.bad("load.rate", "no requests arrive: the rate is 0 throughout")
	}
	if c.Load.max()*dur > limits.FleetArrivals {
		k.bad("duration", "%g s at up to %g requests a second is more than %g requests a replicate", dur, c.Load.max(), float64(limits.FleetArrivals))
	}
	k.seconds("outage.from", c.Outage.From.Seconds(), false)
	k.seconds("outage.to", c.Outage.To.Seconds(), false)
	k.enum("outage.mode", "an outage mode", int(c.Outage.Mode), outageModes.names)
	k.seconds("net", c.Net.Seconds(), false)
	s := c.Server
	k.enum("server.kind", "a server kind", int(s.Kind), servers.names)
	k.seconds("server.base", s.Base.Seconds(), false)
	k.seconds("server.slope", s.Slope.Seconds(), false)
	switch s.Kind {
	case QueueServer:
		k.whole("server.workers", s.Workers, " workers")
		k.whole("server.queue_max", s.QueueMax, " waiting calls")
		k.enum("server.service.dist", "a distribution", int(s.Service.Dist), dists.names)
		k.seconds("server.service.median", s.Service.Median.Seconds(), true)
		k.number("server.service.sigma", s.Service.Sigma, "")
	case RateLimitServer:
		k.rate("server.limit", s.Limit)
		k.number("server.burst", s.Burst, " calls")
	}
	cl := c.Client
	k.seconds("client.timeout", cl.Timeout.Seconds(), true)
	k.enum("client.keys", "a key mode", int(cl.Keys), enum.Names[schema.KeyMode]())
	if enum.Check(cl.Backoff.Kind) != nil {
		k.bad("client.backoff.kind", "%d is not a backoff policy (want one of %s)", int(cl.Backoff.Kind), strings.Join(enum.Names[backoff.Kind](), ", "))
	}
	k.seconds("client.backoff.base", cl.Backoff.Base.Seconds(), false)
	k.seconds("client.backoff.cap", cl.Backoff.Cap.Seconds(), false)
	var fe *schema.FieldError
	if err := cl.Backoff.Check(); errors.As(err, &fe) && fe.Field == "cap" { // the backoff's own rule, as every model's
		k.bad("client.backoff.cap", "%s", fe.Msg)
	}
	k.whole("client.hedges", cl.Hedges, "") // before hedge_delay, which only hedges read
	if cl.Hedges > 0 {
		k.seconds("client.hedge_delay", cl.HedgeDelay.Seconds(), true)
	}
	cl.Policy.check(&k)
	k.declared(&c, "")
	if k.first == nil {
		k.first = c.checkMemoryless()
	}
	return k.first
}

// declared refuses a setting under prefix that c's run reads outside its
// declared bounds.
func (k *checker) declared(c *Config, prefix string) {
	unread := c.unreadWhy()
	for _, p := range decl.Params[Config]() {
		if _, skip := unread[p.Path]; skip || !strings.HasPrefix(p.Path, prefix) {
			continue
		}
		switch v := p.Field(c).(type) {
		case *float64:
			if p.Probability && !(*v >= 0 && *v <= 1) {
				k.bad(p.Path, "%g is not a probability in [0, 1]", *v)
			} else if p.Hi > p.Lo {
				k.number(p.Path, *v, "")
			}
		case *int:
			if p.Hi > p.Lo {
				k.whole(p.Path, *v, "")
			}
		}
	}
}

// Check refuses an unknown kind, or a parameter of its kind out of bounds,
// with a *schema.FieldError naming it (client.policy.budget_ratio).
func (p PolicyConfig) Check() error {
	var k checker
	p.check(&k)
	k.declared(&Config{Client: Client{Policy: p}}, "client.policy.")
	return k.first
}

// check refuses what PolicyConfig.Check does but a parameter outside its
// declared bounds (checker.declared).
func (p PolicyConfig) check(k *checker) {
	seconds := func(path string, v, lo, hi float64) {
		if math.IsNaN(v) || v < lo || v > hi {
			k.bad(path, "%g s is not from %g s to %g s", v, lo, hi)
		}
	}
	// ratio refuses v outside [lo, hi], or (open) at lo.
	ratio := func(path string, v, lo, hi float64, open bool) {
		if math.IsNaN(v) || v < lo || v > hi || (open && v == lo) {
			what := "from"
			if open {
				what = "above"
			}
			k.bad(path, "%g is not %s %g to %g", v, what, lo, hi)
		}
	}
	k.enum("client.policy.kind", "a policy", int(p.Kind), policies.names)
	if o := p.Own; o != nil {
		switch {
		case p.Kind != Unlimited:
			k.bad("client.policy.kind", "%s, with %s set too; want unlimited, or no own policy", p.Kind, pathtext.Path("client.policy.own"))
		case o.New == nil:
			k.bad("client.policy.own", "policy %q has no New", o.Name)
		case o.Name == "":
			k.bad("client.policy.own", "the policy has no Name")
		}
	}
	if int(p.Kind) < len(policyParams) && len(policyParams[p.Kind]) > 0 && p == (PolicyConfig{Kind: p.Kind, Shared: p.Shared}) {
		k.bad("client.policy.kind", "%s with every parameter 0, which never allows a retry; start from DefaultPolicy() and set its Kind", p.Kind)
	}
	switch p.Kind {
	case GRPCThrottle:
		k.number("client.policy.max_tokens", p.MaxTokens, "") // before the ratio, which it bounds
		if math.IsNaN(p.Ratio) || p.Ratio <= 0 || p.Ratio > p.MaxTokens {
			k.bad("client.policy.ratio", "%g is not above 0 and at most %s", p.Ratio, pathtext.Path("client.policy.max_tokens"))
		}
	case Breaker, AttemptBreaker:
		if lo, hi := k.bounds("client.policy.threshold"); math.IsNaN(p.Threshold) || p.Threshold < lo || p.Threshold > hi {
			k.bad("client.policy.threshold", "%g is not a ratio in [%g, %g]", p.Threshold, lo, hi)
		}
	case FinagleBudget: // its budget_ratio has the declared bounds, which declared checks
		seconds("client.policy.ttl", p.TTL.Seconds(), limits.PolicyMinTTL, limits.PolicyMaxTTL)
	case EnvoyBudget:
		lo, _ := k.bounds("client.policy.budget_ratio")
		ratio("client.policy.budget_ratio", p.BudgetRatio, lo, 1, false) // Envoy's budget_percent is at most 100
	case SlidingBreaker:
		lo, hi := k.bounds("client.policy.failure_rate")
		ratio("client.policy.failure_rate", p.FailureRate, lo, hi, true)
		k.whole("client.policy.window", p.Window, "") // read or not: declared skips it under window_time
		seconds("client.policy.window_time", p.WindowTime.Seconds(), 0, limits.FleetSeconds)
		seconds("client.policy.open_time", p.OpenTime.Seconds(), 0, limits.FleetSeconds)
	case SREThrottle:
		lo, hi := k.bounds("client.policy.k")
		ratio("client.policy.k", p.K, lo, hi, true)
		seconds("client.policy.sre_window", p.SREWindow.Seconds(), 1, limits.FleetSeconds)
	}
}
