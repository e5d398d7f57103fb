package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/chain"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/fleetrun"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/metastable"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/shardrun"
	"github.com/retrysim/retrysim/schema"
)

// chainUsages are the chain's own words for the fleet flags whose fleet
// usage says what the chain does not do: its spike is its own flags' (no
// brooker-collapse spike, no ramp), and a failure strikes as the chain has it.
var chainUsages = map[string]string{
	"shape":  "the `shape` of the arrival rate over time: constant (-rate) or spike (-peak in [-from, -to), -rate elsewhere); no ramp",
	"peak":   "the spike's arrival `rate`, requests a second",
	"from":   "the spike starts at this `time`",
	"to":     "the spike ends at this `time`; the probability of health is then over -within from it",
	"p-fail": "`probability` that a call fails when its service ends (its worker held for the whole service time), doing nothing; it is then retried with -retry-prob, as a timed-out attempt is",
}

// maxSplitRuns bounds -split-runs.
const maxSplitRuns = 1000

// Chain declares the chain's flags (the fleet settings it reads by their
// decl.Param, and its own), parses args (-help printing help, filled with
// the chain's limits) and makes its run, whose items are splitting runs and
// crude replicates (none without a splitting).
func Chain(kind string, args []string, help string, stdout, _ io.Writer) (*shardrun.Work, error) {
	r := New(kind, Usages{Plain: true, Seed: "random `seed` of the splitting; the same flags and seed print the same bytes",
		Workers: "parallel `workers`, each running splittings, %d to %d; the output does not depend on it",
		Shard:   "run slice `i/n` of the splitting runs (0 <= i < n), or auto/n or auto (index, and count, from the environment), and write it as a shard for retrysim merge"}, 1)
	c := fleet.DefaultConfig()
	c.Load.Rate, c.Load.Peak = 1, 3
	c.Server = fleet.Server{Kind: fleet.QueueServer, Workers: 2, QueueMax: 3,
		Service: fleet.Service{Dist: fleet.ExponentialService, Median: time.Second}}
	c.Net = 0
	c.Client.Attempts = limits.FleetAttempts
	*fleetrun.Fleet().Memoryless(&c) = fleetdata.Memoryless{On: true, TimeoutRate: 0.5, RetryProb: 0.9, BackoffRate: 1, Orbit: 5}
	within := time.Minute
	var (
		splitOrbit   int
		splitHorizon = 30 * time.Second
		splitEffort  = 200
		splitRuns    = 20
	)
	fs := r.FS
	for _, p := range decl.Params[fleet.Config]() {
		switch p.Key {
		case "shape", "rate", "peak", "from", "to", "capacity", "queue", "service", "p-fail":
			usage := FleetWords(p.Usage)
			if u, ok := chainUsages[p.Key]; ok {
				usage = u
			}
			fs.Var(flagval.ParamVar(p, &c), p.Key, usage)
		}
	}
	m := fleetrun.Fleet().Memoryless(&c)
	fs.Var(flagval.FloatVar(&m.TimeoutRate, 1e-9, limits.FleetRate), "timeout-rate", "each attempt times out after an exponential time of this `rate` a second")
	fs.Var(flagval.FloatVar(&m.RetryProb, 0, 1), "retry-prob", "a failed or timed-out attempt is retried with this `probability`")
	fs.Var(flagval.FloatVar(&m.BackoffRate, 1e-9, limits.FleetRate), "backoff-rate", "a retry waits an exponential backoff of this `rate` a second")
	fs.Var(flagval.IntVar(&m.Orbit, 0, limits.FleetOrbit), "orbit", "at most `n` requests wait out a backoff at once; a retry beyond them is given up")
	fs.Var(flagval.DurationVar(&within), "within", "the time `span` the probability of health is computed over")
	fs.Var(flagval.IntVar(&splitOrbit, 0, limits.FleetOrbit), "split-orbit", "also estimate by multilevel splitting the probability that the orbit reaches `size` (0: no splitting)")
	fs.Var(flagval.DurationVar(&splitHorizon), "split-horizon", "the `span` from an empty server at 0 s the orbit must reach -split-orbit within")
	fs.Var(flagval.IntVar(&splitEffort, 1, metastable.MaxEffort), "split-effort", "`paths` a level of each splitting run")
	fs.Var(flagval.IntVar(&splitRuns, 2, maxSplitRuns), "split-runs", "independent splitting `runs`, whose spread gives the relative error")
	if err := r.Parse(args, fmt.Sprintf(help, chain.MaxStates, chain.MaxQueue, chain.MaxBlock, chain.MaxSteps, float64(chain.MaxWork), metastable.MaxEffort, maxSplitRuns, limits.FleetDuration-1, float64(limits.FleetBytes)/(1<<30)), nil, stdout); err != nil {
		return nil, err
	}
	if err := outfile.Check(r.O.Out); err != nil {
		return nil, flagval.Usage(err)
	}
	if r.Shard.Count > 0 && splitOrbit == 0 {
		return nil, flagval.Usage(fmt.Errorf("-shard: only splitting runs are sharded, and without -split-orbit there are none; the chain itself is exact and cheap"))
	}
	if splitOrbit > m.Orbit || (splitOrbit > 0 && m.RetryProb == 0) {
		return nil, flagval.Usage(fmt.Errorf("-split-orbit: the orbit never reaches %d with -orbit %d and -retry-prob %g", splitOrbit, m.Orbit, m.RetryProb))
	}
	if splitHorizon <= 0 || splitHorizon.Seconds() > limits.FleetDuration-1 {
		return nil, flagval.Usage(fmt.Errorf("-split-horizon: %g s is not above 0 s and at most %d s", splitHorizon.Seconds(), limits.FleetDuration-1))
	}
	if splitOrbit > 0 {
		c.Duration = time.Duration(math.Ceil(splitHorizon.Seconds())+1) * time.Second // arrivals go on past the horizon, as the chain's do
	}
	if c.Server.QueueMax > chain.MaxQueue {
		return nil, flagval.Usage(fmt.Errorf("-queue: %d places are more than the chain's %d", c.Server.QueueMax, chain.MaxQueue))
	}
	if c.Load.Kind == fleet.RampLoad {
		return nil, flagval.Usage(fmt.Errorf("-shape: ramp is not piecewise constant; the chain takes constant or spike"))
	}
	model, err := chain.FromConfig(c)
	if err != nil {
		return nil, flagval.Usage(err)
	}
	ch, err := chain.Build(model)
	if err != nil {
		return nil, flagval.Usage(fmt.Errorf("-capacity %d -queue %d -orbit %d: %w", c.Server.Workers, c.Server.QueueMax, m.Orbit, err))
	}
	q := chain.Question{Chain: ch, Within: within.Seconds(), Collapse: "collapse"}
	if m.RetryProb == 0 && m.Orbit > 0 {
		q.Collapse = "collapse (the orbit empty: with -retry-prob 0 nothing enters it)"
	}
	if splitOrbit > 0 {
		q.Split = chain.OrbitSplit(c, splitOrbit, splitHorizon.Seconds(), splitEffort, splitRuns, uint64(r.Seed))
		if err := q.Split.CheckCost(&c); err != nil {
			return nil, flagval.Usage(FlagError(err, Names{"*": "-split-%s"}, nil))
		}
	}
	// A shard too answers, so that a span the chain refuses (within,
	// split.horizon) is refused by its flag before any splitting, not at merge.
	ans, err := q.Answer()
	if fe := (*schema.FieldError)(nil); errors.As(err, &fe) {
		return nil, flagval.Usage(fmt.Errorf("-%s %s", strings.ReplaceAll(fe.Field, ".", "-"), fe.Msg))
	} else if err != nil {
		return nil, err
	}
	return Work(r, "runs and crude replicates", nil, shardrun.Items[chain.Item]{N: q.Items(), Check: q.CheckItem,
		Run: func(ctx context.Context, lo, hi int) ([]chain.Item, error) {
			return q.RunItems(ctx, lo, hi, r.Workers.V)
		},
		Finish: func(ctx context.Context, all []chain.Item) error {
			return outfile.WriteAll(ctx, stdout, outfile.Output{File: r.O.Out, Data: []byte(render.ChainEcho(fs) + "\n" + q.Stats(ans, all).String())})
		}}), nil
}
