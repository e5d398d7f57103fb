package fleet

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/retrysim/retrysim/internal/dist"
	est "github.com/retrysim/retrysim/internal/estimate"
	"github.com/retrysim/retrysim/internal/fleetdata"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Options say how to run a set of configurations.
type Options struct {
	Replicates int    // the seeds each run is simulated with, 1 to 1000; 0 means 1
	Seed       uint64 // with the replicate's number, all that seeds a replicate
	Workers    int    // how many replicates run at once (0: GOMAXPROCS)
	// Progress, if not nil, is told the seconds of arrivals simulated.
	Progress func(done, total int64)
	first    int // replicate r is seeded as first + r: a shard's slice (fleetrun.Fleet().First)
}

// Result is a run and its replicates, in replicate order.
type Result struct {
	Config     Config
	replicates []fleetdata.Replicate
}

// Run simulates every configuration Replicates times, each as its one-edge
// graph (Config.Graph), after Check, whose error it returns without running
// anything; once ctx is done it stops and returns ctx's error.
func Run(ctx context.Context, cfgs []Config, opt Options) ([]Result, error) {
	opt = opt.withDefaults()
	cfgs = slices.Clone(cfgs)
	for i := range cfgs {
		cfgs[i].Client = cfgs[i].Client.withDefaults()
	}
	if err := Check(cfgs, opt); err != nil {
		return nil, err
	}
	out := make([]Result, len(cfgs))
	graphs := make([]Graph, len(cfgs))
	for i, c := range cfgs {
		out[i] = Result{Config: c, replicates: make([]fleetdata.Replicate, opt.Replicates)}
		graphs[i] = c.Graph()
	}
	err := runReplicates(ctx, graphs, opt, boundsOf(cfgs, opt), func(run, r int, s *sim) {
		s.cfg = &out[run].Config
		out[run].replicates[r] = s.replicate()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// runReplicates runs Replicates replicates of every graph on as many
// workers at once as b allows (GOMAXPROCS when opt sets none), telling keep
// of each finished one from its worker; a panic in a run's own policy stops
// every worker with its error.
func runReplicates(ctx context.Context, graphs []Graph, opt Options, b bounds, keep func(run, r int, s *sim)) error {
	if opt.Workers == 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	jobs := len(graphs) * opt.Replicates
	var total int64
	for _, g := range graphs {
		total += int64(opt.Replicates) * int64(math.Ceil(g.Duration.Seconds()))
	}
	var next, done atomic.Int64
	var wg sync.WaitGroup
	ctx, stop := context.WithCancelCause(ctx) // stopped by a policy's panic too
	defer stop(nil)
	// replicate runs replicate r of run, reusing spare's memory if not nil.
	replicate := func(run, r int, spare *sim) (s *sim, err error) {
		defer func() {
			if v := recover(); v != nil {
				pp, ok := v.(policyPanic)
				if !ok {
					panic(v)
				}
				err = policyError(pp, graphs[run].Name, r)
				stop(err)
			}
		}()
		s = newGraphSim(&graphs[run], rng.ReplicateSeed(opt.Seed, uint64(opt.first+r)), spare)
		var shown int64 // this replicate's seconds told
		if opt.Progress != nil {
			s.tick = func(now float64) {
				if sec := int64(math.Min(now, s.dur)); sec > shown {
					opt.Progress(done.Add(sec-shown), total)
					shown = sec
				}
			}
		}
		if err := s.simulate(ctx); err != nil {
			return nil, err // ctx is done: runReplicates returns its cause
		}
		keep(run, r, s)
		if opt.Progress != nil {
			opt.Progress(done.Add(int64(math.Ceil(s.dur))-shown), total)
		}
		return s, nil
	}
	for range b.atOnce(opt) {
		wg.Go(func() {
			var spare *sim
			for {
				j := int(next.Add(1) - 1)
				if j >= jobs || ctx.Err() != nil {
					return
				}
				s, err := replicate(j/opt.Replicates, j%opt.Replicates, spare)
				if err != nil {
					return
				}
				spare = s
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// triggered says whether the run has a spike, a ramp or an outage to
// recover from.
func (c *Config) triggered() bool {
	return c.Load.Kind != ConstantLoad && c.Load.Peak != c.Load.Rate || c.Outage.On()
}

// settledAt is the end of the spike or ramp, or of the outage if later.
func (c *Config) settledAt() float64 {
	settled := c.Load.settled()
	if c.Outage.On() {
		settled = math.Max(settled, c.Outage.To.Seconds())
	}
	return settled
}

// recovery is how long after settledAt every later window [s,
// s+RecoveryWindow) holding an arrival is healthy (90% of the requests that
// arrived in it succeeded, whenever), and its verdict; NaN unless Recovered.
// Successes count by arrival so that answers' lag is not judged as ill health.
func recovery(cfg *Config, series []fleetdata.Second) (float64, fleetdata.Verdict) {
	if !cfg.triggered() {
		return math.NaN(), fleetdata.NoTrigger
	}
	settled := cfg.settledAt()
	first := int(math.Ceil(settled))
	from, last := first, -1 // from: the first window after the last unhealthy one
	for s := first; s+fleetdata.RecoveryWindow <= len(series); s++ {
		var starts, successes int64
		for _, sec := range series[s : s+fleetdata.RecoveryWindow] {
			starts += sec.Starts
			successes += sec.Served
		}
		if starts == 0 {
			continue
		}
		last = s
		if 10*successes < 9*starts {
			from = s + 1
		}
	}
	switch {
	case last < 0:
		return math.NaN(), fleetdata.TooShort
	case from > last:
		return math.NaN(), fleetdata.Down
	}
	return math.Max(0, float64(from)-settled), fleetdata.Recovered
}

// nonNegative cuts at 0 an estimate of a quantity that cannot be negative.
func nonNegative(e schema.Estimate) schema.Estimate {
	e.Lo = math.Max(0, e.Lo)
	return e
}

// column is the estimate of f over replicates reps, in their order.
func column[R any](reps []R, f func(*R) float64) schema.Estimate {
	xs := make([]float64, len(reps))
	for i := range reps {
		xs[i] = f(&reps[i])
	}
	return estimate(xs)
}

// recoveredShare is the share of reps judged (Recovered or Down) that
// recovered, with its Wilson interval.
func recoveredShare[R any](reps []R, verdict func(*R) fleetdata.Verdict) schema.Estimate {
	judged, ok := 0, 0
	for i := range reps {
		switch verdict(&reps[i]) {
		case fleetdata.Recovered:
			ok++
			judged++
		case fleetdata.Down:
			judged++
		}
	}
	return stats.Share(ok, judged)
}

// ratio is a over b, NaN when b is 0.
func ratio(a, b int64) float64 { return ratioF(float64(a), b) }

// estimate is the mean of xs but NaNs with its 95% Student t interval
// (NaN bounds with one value).
func estimate(xs []float64) schema.Estimate {
	var sum float64
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return est.Point(math.NaN(), 0)
	}
	mean := sum / float64(n)
	if n == 1 {
		return est.Point(mean, 1)
	}
	var ss float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			ss += (x - mean) * (x - mean)
		}
	}
	t := dist.StudentTQuantile(float64(n-1), 0.975)
	half := t * math.Sqrt(ss/float64(n-1)/float64(n))
	return schema.Estimate{Value: mean, Lo: mean - half, Hi: mean + half, N: int64(n), Level: stats.Confidence, Method: est.StudentT}
}

// summary sums up r's replicates.
func (r Result) summary() fleetdata.RunRow {
	col := func(f func(*fleetdata.Replicate) float64) schema.Estimate { return column(r.replicates, f) }
	d := r.Config.Duration.Seconds()
	return fleetdata.RunRow{
		Run:            r.Config.Name,
		Replicates:     len(r.replicates),
		Requests:       col(func(p *fleetdata.Replicate) float64 { return float64(p.Requests) }),
		Succeeded:      col(func(p *fleetdata.Replicate) float64 { return ratio(p.Succeeded, p.Requests) }),
		Goodput:        col(func(p *fleetdata.Replicate) float64 { return float64(p.Succeeded) / d }),
		Amplification:  col(func(p *fleetdata.Replicate) float64 { return ratio(p.Calls, p.Requests) }),
		Timeouts:       col(func(p *fleetdata.Replicate) float64 { return float64(p.Timeouts) }),
		Conflicts:      col(func(p *fleetdata.Replicate) float64 { return float64(p.Conflicts) }),
		Duplicates:     col(func(p *fleetdata.Replicate) float64 { return float64(p.Duplicates) }),
		LocalRejected:  col(func(p *fleetdata.Replicate) float64 { return float64(p.LocalRejected) }),
		Hedges:         col(func(p *fleetdata.Replicate) float64 { return float64(p.Hedges) }),
		P50:            col(func(p *fleetdata.Replicate) float64 { return p.P50 }),
		P95:            col(func(p *fleetdata.Replicate) float64 { return p.P95 }),
		P99:            col(func(p *fleetdata.Replicate) float64 { return p.P99 }),
		PeakInProgress: col(func(p *fleetdata.Replicate) float64 { return float64(p.PeakInProgress) }),
		Trigger:        r.Config.triggered(),
		RecoveredShare: recoveredShare(r.replicates, func(p *fleetdata.Replicate) fleetdata.Verdict { return p.Verdict }),
		Recovery:       nonNegative(col(func(p *fleetdata.Replicate) float64 { return p.Recovery })),
		RecoveryTime:   r.recoveryCurve().Quartiles(),
	}
}

// observations are r's judged replicates' recovery times, one down at the
// end censored at the end of its series.
func (r Result) observations() []stats.Observation {
	settled := r.Config.settledAt()
	var obs []stats.Observation
	for i := range r.replicates {
		p := &r.replicates[i]
		switch p.Verdict {
		case fleetdata.Recovered:
			obs = append(obs, stats.Observation{Time: p.Recovery, Recovered: true})
		case fleetdata.Down:
			obs = append(obs, stats.Observation{Time: math.Max(0, float64(len(p.Series))-settled)})
		}
	}
	return obs
}

// recoveryCurve is the Kaplan-Meier estimate of r's recovery time over its
// judged replicates, a replicate still down censored at its run's end.
func (r Result) recoveryCurve() stats.Survival { return stats.KaplanMeier(r.observations()) }

// duplicatesPerRequest is the duplicate side effects a request.
func (r Result) duplicatesPerRequest() schema.Estimate {
	return column(r.replicates, func(p *fleetdata.Replicate) float64 { return ratio(p.Duplicates, p.Requests) })
}

// totals sums r's replicates.
func (r Result) totals() fleetdata.Totals {
	t := fleetdata.Totals{Run: r.Config.Name, Clients: r.Config.Client.Clients, FailureRate: r.Config.Server.PFail}
	for i := range r.replicates {
		t.Requests += r.replicates[i].Requests
		t.Succeeded += r.replicates[i].Succeeded
		t.Calls += r.replicates[i].Calls
	}
	return t
}

// series is r's time series, a point a second, averaged over replicates in
// replicate order.
func (r Result) series() []fleetdata.Point {
	if len(r.replicates) == 0 {
		return nil
	}
	n := float64(len(r.replicates))
	pts := make([]fleetdata.Point, len(r.replicates[0].Series))
	for t := range pts {
		p := fleetdata.Point{Run: r.Config.Name, T: t}
		width := math.Min(1, r.Config.Duration.Seconds()-float64(t)) // the last second may be cut short
		for i := range r.replicates {
			p.Add(&r.replicates[i].Series[t], width)
		}
		p.Divide(n)
		pts[t] = p
	}
	return pts
}
