package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/scenario"
	"github.com/retrysim/retrysim/strategy"
)

// durationFlag is a flag.Value for a duration that is not negative.
type durationFlag struct{ v time.Duration }

func (d *durationFlag) String() string {
	if d == nil {
		return ""
	}
	return d.v.String()
}

func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want a duration from 0 to 8760h, such as 250ms, 2s or 24h")
	}
	if err := provider.CheckDuration(v); err != nil { // as scenario files check theirs
		return err
	}
	d.v = v
	return nil
}

// latencyFlag is a flag.Value for a fixed duration (20ms) or a lognormal
// median:p99 (20ms:200ms).
type latencyFlag struct{ v provider.Latency }

func (l *latencyFlag) String() string {
	if l == nil {
		return ""
	}
	if l.v.Random() {
		return l.v.Median.String() + ":" + l.v.P99.String()
	}
	return l.v.Median.String()
}

func (l *latencyFlag) Set(s string) error {
	bad := fmt.Errorf("want a duration (20ms) or a lognormal median:p99 (20ms:200ms), each from 0 to 8760h, a median above 0 with a p99")
	median, p99, two := strings.Cut(s, ":")
	m, err := time.ParseDuration(median)
	if err != nil {
		return bad
	}
	v := provider.Latency{Median: m}
	if two {
		if v.P99, err = time.ParseDuration(p99); err != nil {
			return bad
		}
	}
	if err := v.Check(); err != nil { // as scenario files check theirs
		return err
	}
	l.v = v
	return nil
}

// named is a flag.Value for one of a fixed list of names.
type nameFlag[T any] struct {
	v     T
	parse func(string) (T, error)
	text  func(T) string
}

func (n *nameFlag[T]) String() string {
	if n == nil || n.text == nil {
		return ""
	}
	return n.text(n.v)
}

func (n *nameFlag[T]) Set(s string) error {
	v, err := n.parse(s)
	if err != nil {
		return err
	}
	n.v = v
	return nil
}

// crashProbability is -crash, in the table command and in race alike: the
// probability that a worker dies at -crash-at. A crash point given to it
// (race's -crash took one before the vocabulary was made one) is refused with
// a pointer to -crash-at.
type crashProbability struct{ p probability }

func (c *crashProbability) String() string {
	if c == nil {
		return "0"
	}
	return c.p.String()
}

func (c *crashProbability) Set(s string) error {
	if _, err := delivery.ParseCrashPoint(s); err == nil || s == "after-charge" {
		return fmt.Errorf("%q is a crash point: give it with -crash-at; -crash is the probability that a worker dies there", s)
	}
	return c.p.Set(s)
}

// crashPointFlag is -crash-at, in the table command and in race alike, with
// the delivery model's names and default.
func crashPointFlag() nameFlag[delivery.CrashPoint] {
	return nameFlag[delivery.CrashPoint]{v: delivery.Defaults().CrashAt, parse: parseCrashPoint, text: delivery.CrashPoint.String}
}

// parseCrashPoint reads a crash point, naming race's old after-charge's new name.
func parseCrashPoint(s string) (delivery.CrashPoint, error) {
	if s == "after-charge" {
		return 0, fmt.Errorf("unknown crash point %q: it is after-work now (between the work and the key record)", s)
	}
	return delivery.ParseCrashPoint(s)
}

// queueFlags are the flags of the delivery model; any of them set turns it on.
type queueFlags struct {
	scenarioPath string
	// overrides names, after load, the flags set over a scenario file, with
	// their values: "-p-fail 0.05, -store lease".
	overrides   string
	latency     latencyFlag
	backoff     nameFlag[backoff.Kind]
	base, cap   durationFlag
	store       nameFlag[delivery.Store]
	ttl, lease  durationFlag
	visibility  durationFlag
	deliveries  bounded
	repeat      probability
	repeatDelay latencyFlag
	crash       crashProbability
	crashAt     nameFlag[delivery.CrashPoint]
	maxCrashes  bounded
}

// queueFlagNames are the flags that turn the delivery model on.
var queueFlagNames = []string{"latency", "backoff", "backoff-base", "backoff-cap", "store", "ttl", "lease",
	"visibility", "max-deliveries", "repeat", "repeat-delay", "crash", "crash-at", "max-crashes"}

// fieldFlags are the flags of delivery.Config's fields, by the fields' names.
var fieldFlags = map[string]string{
	"ttl": "ttl", "lease": "lease", "visibility": "visibility", "backoff.base": "backoff-base", "backoff.cap": "backoff-cap",
	"max_deliveries": "max-deliveries", "max_crashes": "max-crashes", "repeat": "repeat", "crash": "crash", "repeat_delay": "repeat-delay",
}

func (q *queueFlags) register(fs *flag.FlagSet) {
	d := delivery.Defaults()
	q.backoff = nameFlag[backoff.Kind]{v: d.Backoff.Kind, parse: backoff.ParseKind, text: backoff.Kind.String}
	q.base, q.cap = durationFlag{d.Backoff.Base}, durationFlag{d.Backoff.Cap}
	q.store = nameFlag[delivery.Store]{v: d.Store, parse: delivery.ParseStore, text: delivery.Store.String}
	q.ttl, q.lease, q.visibility = durationFlag{d.TTL}, durationFlag{d.Lease}, durationFlag{d.Visibility}
	q.deliveries = bounded{v: d.MaxDeliveries, lo: 1, hi: delivery.DeliveriesLimit}
	q.crashAt = crashPointFlag()
	q.maxCrashes = bounded{v: 0, lo: 0, hi: delivery.CrashesLimit}
	fs.StringVar(&q.scenarioPath, "scenario", "", "read the steps (and the queue, if the file has one) from a YAML `file`, a regular file of at most 1 MiB, with no fleet section (that is for retrysim fleet); flags override it; see examples/")
	fs.Var(&q.latency, "latency", "every call takes `d` (20ms) or a lognormal median:p99 (20ms:200ms, median above 0) of virtual time")
	fs.Var(&q.backoff, "backoff", "the `policy` of the wait between attempts: none, constant, exponential, full-jitter, equal-jitter, decorrelated, or a job queue's schedule: sidekiq (c^4 + 15 + rand(10) x (c + 1) s for retry c from 0) or river (n^4 s ±10% after the n-th error)")
	fs.Var(&q.base, "backoff-base", "the backoff's base `duration`")
	fs.Var(&q.cap, "backoff-cap", "the backoff's cap `duration`")
	fs.Var(&q.store, "store", "the `mode` in which the worker writes a step's key: none, after (check, work, record), loose (check, insert, work), claim (unique insert first) or lease (claim with status, release and takeover)")
	fs.Var(&q.ttl, "ttl", "keys expire this `duration` after they are written (0: never)")
	fs.Var(&q.lease, "lease", "a lease holds this `duration` before another delivery may take it over, even from a live, slow holder (more than 0; -store lease only)")
	fs.Var(&q.visibility, "visibility", "the queue's visibility timeout: an unacked message comes back after this `duration`")
	fs.Var(&q.deliveries, "max-deliveries", "dead-letter a message after `n` deliveries, 1 to 1000")
	fs.Var(&q.repeat, "repeat", "`probability` that a request is sent twice")
	fs.Var(&q.repeatDelay, "repeat-delay", "the second copy arrives this `d` (or lognormal median:p99, median above 0) after the first; needs -repeat")
	fs.Var(&q.crash, "crash", "`probability` that a worker dies at -crash-at, each time a step passes it")
	fs.Var(&q.crashAt, "crash-at", "the `point` where workers die: before-key, after-key (between the key and the work), after-work (between the work and the key record) or before-ack; needs -crash")
	fs.Var(&q.maxCrashes, "max-crashes", "at most `n` crashes a job, 0 to 1000 (0: no bound); needs -crash")
}

// load returns the scenario and the delivery model the flags describe: the
// file's (or the built-in sign-up at pFail and lostReply), with every flag
// that was set applied over it. The model is nil when nothing turns it on.
func (q *queueFlags) load(fs *flag.FlagSet, pFail, lostReply float64) (provider.Scenario, *delivery.Config, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	sc := provider.Signup(pFail, lostReply)
	var cfg *delivery.Config
	if q.scenarioPath != "" {
		loaded, err := scenario.Load(q.scenarioPath)
		if err == nil {
			err = loaded.CheckJob()
		}
		if err != nil {
			return sc, nil, usageError{fmt.Errorf("-scenario %w", err)}
		}
		sc, cfg = loaded.Scenario, loaded.Queue
		for i := range sc.Steps {
			if set["p-fail"] {
				sc.Steps[i].PFail = pFail
			}
			if set["lost-reply"] && sc.Steps[i].CanLoseReply {
				sc.Steps[i].LostReply = lostReply
			}
		}
	}
	on := cfg != nil
	for _, n := range queueFlagNames {
		on = on || set[n]
	}
	if q.scenarioPath != "" {
		var over []string
		for _, n := range append([]string{"p-fail", "lost-reply"}, queueFlagNames...) {
			if set[n] {
				over = append(over, "-"+n+" "+fs.Lookup(n).Value.String())
			}
		}
		q.overrides = strings.Join(over, ", ")
	}
	if !on {
		return sc, nil, nil
	}
	if cfg == nil {
		c := delivery.Defaults()
		cfg = &c
	}
	if set["latency"] {
		for i := range sc.Steps {
			sc.Steps[i].Latency = q.latency.v
		}
	}
	apply := map[string]func(){
		"backoff":        func() { cfg.Backoff.Kind = q.backoff.v },
		"backoff-base":   func() { cfg.Backoff.Base = q.base.v },
		"backoff-cap":    func() { cfg.Backoff.Cap = q.cap.v },
		"store":          func() { cfg.Store = q.store.v },
		"ttl":            func() { cfg.TTL = q.ttl.v },
		"lease":          func() { cfg.Lease = q.lease.v },
		"visibility":     func() { cfg.Visibility = q.visibility.v },
		"max-deliveries": func() { cfg.MaxDeliveries = q.deliveries.v },
		"repeat":         func() { cfg.RepeatP = float64(q.repeat) },
		"repeat-delay":   func() { cfg.RepeatDelay = q.repeatDelay.v },
		"crash":          func() { cfg.CrashP = float64(q.crash.p) },
		"crash-at":       func() { cfg.CrashAt = q.crashAt.v },
		"max-crashes":    func() { cfg.MaxCrashes = q.maxCrashes.v },
	}
	for _, n := range queueFlagNames {
		if f := apply[n]; f != nil && set[n] {
			f()
		}
	}
	// The validator scenario files go through; a field a file set has passed
	// it already, so what fails is a flag's.
	if err := cfg.Check(); err != nil {
		var fe *delivery.FieldError
		if errors.As(err, &fe) {
			return sc, nil, usageError{fmt.Errorf("-%s: %s", fieldFlags[fe.Field], fe.Msg)}
		}
		return sc, nil, usageError{err}
	}
	return sc, cfg, nil
}

// unusedQueueFlags refuses a flag that was set but that the run, as the
// flags and the scenario file configure it, would never read: a setting is
// honoured or refused, never dropped.
func unusedQueueFlags(fs *flag.FlagSet, sc provider.Scenario, cfg *delivery.Config, strats []strategy.Retry) error {
	lossy := slices.ContainsFunc(sc.Steps, func(st provider.Step) bool { return st.CanLoseReply })
	var unused map[string]string
	if cfg != nil {
		keyed := cfg.Store != delivery.NoStore || slices.ContainsFunc(strats, func(r strategy.Retry) bool { return r.SkipFinished })
		// The run's backoff is waited between a whole job's passes and
		// between the attempts of a step with no backoff of its own.
		retried := slices.ContainsFunc(strats, func(r strategy.Retry) bool {
			if r.Scope == strategy.WholeJob {
				return r.Attempts > 1
			}
			return slices.ContainsFunc(sc.Steps, func(st provider.Step) bool {
				return st.Policy.Backoff == nil && st.Policy.AttemptsOr(r.Attempts) > 1
			})
		})
		kind := cfg.Backoff.Kind
		unused = map[string]string{}
		add := func(cond bool, why string, flags ...string) {
			for _, f := range flags {
				if cond && unused[f] == "" {
					unused[f] = why
				}
			}
		}
		add(!retried, "with -attempts 1 no call is retried, so no backoff is waited (a step's own attempts wait its own backoff)", "backoff", "backoff-base", "backoff-cap")
		add(kind == backoff.None, "the backoff policy none never waits", "backoff-base", "backoff-cap")
		add(kind.Schedule(), fmt.Sprintf("the %s schedule sets its own waits, in seconds by attempt", kind), "backoff-base", "backoff-cap")
		add(kind == backoff.Constant, "the constant backoff waits -backoff-base, with no cap", "backoff-cap")
		add(!keyed, "no key is written: the store is none and no strategy skips finished steps", "ttl")
		add(cfg.Store != delivery.Lease, fmt.Sprintf("only -store lease takes a lease; the store is %s", cfg.Store), "lease")
		add(cfg.CrashP == 0, "no worker crashes: the crash probability is 0", "crash-at", "max-crashes")
		add(cfg.RepeatP == 0, "no request is sent twice: the repeat probability is 0", "repeat-delay")
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case err != nil:
		case f.Name == "lost-reply" && !lossy:
			err = usageError{fmt.Errorf("-lost-reply: no step of the scenario can lose its reply")}
		case unused[f.Name] != "":
			err = usageError{fmt.Errorf("-%s: %s", f.Name, unused[f.Name])}
		}
	})
	return err
}
