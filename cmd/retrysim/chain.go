package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/fleet/chain"
	"github.com/retrysim/retrysim/internal/flagval"
)

var chainIntro = fmt.Sprintf(`retrysim chain computes, exactly and without sampling, what the fleet model
does when every time in it is exponential (a Memoryless run: Poisson arrivals,
-capacity workers with a queue of -queue places and exponential service of
mean -service, each attempt timing out at -timeout-rate, a timed-out call
staying in the server to be served in vain, a failed attempt retried with
probability -retry-prob into an orbit of at most -orbit requests that each
wait an exponential backoff at -backoff-rate). It builds the Markov chain over
(the workers' calls, live or abandoned; the queue's calls in order, live or
abandoned; the orbit's size) and prints from it the mean time from collapse
(every worker and queue place holding an abandoned call, the orbit full) to
health (nothing queued, the orbit empty), and the probability of health
within -within: from collapse, or with -shape spike from an empty server at
time 0, within -within of the spike's end. The fleet engine runs the same
model; package fleet/chain's tests hold its replicates to these numbers.

Usage: retrysim chain [flags]

Example: retrysim chain -capacity 2 -queue 4 -rate 1.5 -timeout-rate 0.5 -retry-prob 0.9 -orbit 10

Limits (checked before any work):
  states        at most %d; -queue at most %d (a state holds the queue's calls
                as bits); the states of one orbit size at most %d (a dense
                block of that order is solved for each)
  steps         at most %d steps of uniformisation (about the largest rate
                out of a state x -within)

Flags:
`, chain.MaxStates, chain.MaxQueue, chain.MaxBlock, chain.MaxSteps)

// chainCommand prints the exact chain's answers for a Memoryless run.
func chainCommand(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := flagval.NewFlagSet("retrysim chain")
	c := fleet.DefaultConfig()
	c.Load.Rate, c.Load.Peak = 1, 3
	c.Server = fleet.Server{Kind: fleet.Queue, Workers: 2, QueueMax: 3,
		Service: fleet.Service{Dist: fleet.Exponential, Median: 1}}
	c.Net = 0
	c.Client.Attempts = fleet.MaxAttempts
	c.Memoryless = fleet.Memoryless{On: true, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 5}
	within := 60.0
	for _, p := range fleet.Params() {
		switch p.Name {
		case "shape", "rate", "peak", "from", "to", "capacity", "queue", "service", "p-fail":
			fs.Var(flagval.ParamVar(p, &c), p.Name, p.Usage)
		}
	}
	m := &c.Memoryless
	fs.Var(flagval.FloatVar(&m.TimeoutRate, 1e-9, fleet.MaxRate), "timeout-rate", "each attempt times out after an exponential time of this `rate` a second")
	fs.Var(flagval.FloatVar(&m.RetryProb, 0, 1), "retry-prob", "a failed or timed-out attempt is retried with this `probability`")
	fs.Var(flagval.FloatVar(&m.BackoffRate, 1e-9, fleet.MaxRate), "backoff-rate", "a retry waits an exponential backoff of this `rate` a second")
	fs.Var(flagval.IntVar(&m.Orbit, 0, fleet.MaxOrbit), "orbit", "at most `n` requests wait out a backoff at once; a retry beyond them is given up")
	fs.Var(flagval.SecondsVar(&within), "within", "the time `span` the probability of health is computed over")
	if err := flagval.Parse(fs, args, chainIntro, stdout); err != nil {
		return err
	}
	if c.Server.QueueMax > chain.MaxQueue {
		return flagval.Usage(fmt.Errorf("-queue: %d places are more than the chain's %d", c.Server.QueueMax, chain.MaxQueue))
	}
	if c.Load.Kind == fleet.Ramp {
		return flagval.Usage(fmt.Errorf("-shape: ramp is not piecewise constant; the chain takes constant or spike"))
	}
	model, err := chain.FromConfig(c)
	if err != nil {
		return flagval.Usage(err)
	}
	ch, err := chain.Build(model)
	if err != nil {
		return flagval.Usage(fmt.Errorf("-capacity %d -queue %d -orbit %d: %w", c.Server.Workers, c.Server.QueueMax, m.Orbit, err))
	}
	return printChain(stdout, fs, ch, within)
}

// printChain prints the chain's size and answers, once all are computed.
func printChain(w io.Writer, fs *flag.FlagSet, ch *chain.Chain, within float64) error {
	md := ch.Model
	healthy := func(s fleet.MarkovState) bool { return s.InServer <= md.Workers && s.Orbit == 0 }
	collapsed := md.Collapsed()
	p0, from, what := ch.Point(collapsed), 0.0, "from collapse"
	if md.To > md.From {
		p0, from, what = ch.Empty(), md.To, fmt.Sprintf("after the spike ends at %g s, from an empty server at 0 s", md.To)
	}
	p, err := ch.Hit(p0, from, from+within, healthy)
	if err != nil {
		return flagval.Usage(fmt.Errorf("-within %g s: %w", within, err))
	}
	mean, err := ch.Mean(healthy)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "retrysim chain")
	fs.VisitAll(func(f *flag.Flag) { fmt.Fprintf(w, " -%s %s", f.Name, f.Value) })
	fmt.Fprintf(w, "\nstates %d, transitions %d\n", ch.Len(), ch.Transitions())
	fmt.Fprintf(w, "mean time from collapse to health: %.6g s\n", mean[ch.Index(collapsed)])
	fmt.Fprintf(w, "probability of health within %g s %s: %.6g\n", within, what, p)
	return nil
}
