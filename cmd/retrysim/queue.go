package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/scenario"
)

// queueFlags are the flags of the delivery model; any of them set turns it on.
type queueFlags struct {
	scenarioPath string
	// overrides names, after load, the flags set over a scenario file, with
	// their values: "-p-fail 0.05, -store lease".
	overrides   string
	latency     flagval.Latency
	backoff     flagval.Name[backoff.Kind]
	base, cap   flagval.Duration
	store       flagval.Name[delivery.Store]
	ttl, lease  flagval.Duration
	visibility  flagval.Duration
	deliveries  flagval.Bounded
	repeat      flagval.Probability
	repeatDelay flagval.Latency
	crash       flagval.CrashProbability
	crashAt     flagval.Name[delivery.CrashPoint]
	maxCrashes  flagval.Bounded
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
	q.backoff = flagval.Name[backoff.Kind]{V: d.Backoff.Kind, Parse: backoff.ParseKind, Text: backoff.Kind.String}
	q.base, q.cap = flagval.Duration{V: d.Backoff.Base}, flagval.Duration{V: d.Backoff.Cap}
	q.store = flagval.Name[delivery.Store]{V: d.Store, Parse: delivery.ParseStore, Text: delivery.Store.String}
	q.ttl, q.lease, q.visibility = flagval.Duration{V: d.TTL}, flagval.Duration{V: d.Lease}, flagval.Duration{V: d.Visibility}
	q.deliveries = flagval.Bounded{V: d.MaxDeliveries, Lo: 1, Hi: delivery.DeliveriesLimit}
	q.crashAt = flagval.CrashPoint()
	q.maxCrashes = flagval.Bounded{V: 0, Lo: 0, Hi: delivery.CrashesLimit}
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
			return sc, nil, flagval.Usage(fmt.Errorf("-scenario %w", err))
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
			sc.Steps[i].Latency = q.latency.V
		}
	}
	apply := map[string]func(){
		"backoff":        func() { cfg.Backoff.Kind = q.backoff.V },
		"backoff-base":   func() { cfg.Backoff.Base = q.base.V },
		"backoff-cap":    func() { cfg.Backoff.Cap = q.cap.V },
		"store":          func() { cfg.Store = q.store.V },
		"ttl":            func() { cfg.TTL = q.ttl.V },
		"lease":          func() { cfg.Lease = q.lease.V },
		"visibility":     func() { cfg.Visibility = q.visibility.V },
		"max-deliveries": func() { cfg.MaxDeliveries = q.deliveries.V },
		"repeat":         func() { cfg.RepeatP = float64(q.repeat) },
		"repeat-delay":   func() { cfg.RepeatDelay = q.repeatDelay.V },
		"crash":          func() { cfg.CrashP = float64(q.crash.P) },
		"crash-at":       func() { cfg.CrashAt = q.crashAt.V },
		"max-crashes":    func() { cfg.MaxCrashes = q.maxCrashes.V },
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
			return sc, nil, flagval.Usage(fmt.Errorf("-%s: %s", fieldFlags[fe.Field], fe.Msg))
		}
		return sc, nil, flagval.Usage(err)
	}
	return sc, cfg, nil
}
