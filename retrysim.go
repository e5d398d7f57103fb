// Package retrysim is the Go API of the retrysim simulator: build an Experiment (a scenario, the
// strategies to compare and how to run them), Run it, and read the Report: per strategy, the
// counters, the rates with their 95% intervals, and the closed-form expectations where a strategy
// has them. A run can be cut into shards (Experiment.Shard) and merged elsewhere (MergeFiles, or
// Experiment.Merger for your own strategies); a grid of points can be swept (RunSweep).
//
// The command retrysim is flags over this package, then a renderer: the same experiment prints the
// same bytes whether it comes from flags or from Go. Scenarios come from package provider,
// strategies from package strategy, and the delivery model's settings from package delivery.
package retrysim

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/backoffkind"
	"github.com/retrysim/retrysim/internal/closedform"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/fieldpath"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/scenariocheck"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// Limits of an experiment, checked by Experiment.Check before any work.
const (
	// maxWorkers bounds Workers.
	maxWorkers = 4096
	// maxDeliveries bounds a delivery-model run's deliveries at worst: about 3 CPU hours when every
	// delivery crashes.
	maxDeliveries = 1e11
)

// Experiment is one simulated point: a scenario, the strategies to compare
// on it, and how to run them. The zero values of Generator, Engine,
// Replicates and Workers are the command's defaults.
type Experiment struct {
	// Scenario is the job's steps and watched step; Check refuses a zero one, and a step with Latency
	// when Delivery is nil.
	Scenario provider.Scenario
	// scenarioFile names the file Scenario came from, if any: the report then lists every step's
	// parameters.
	scenarioFile string
	// Strategies are compared on the same random draws, a report row each.
	Strategies []strategy.Strategy
	// Jobs is how many jobs each strategy runs, 1 to 10^12.
	Jobs int64
	// Seed is the random seed; every value is a seed, 0 included.
	Seed uint64
	// Generator names the random generator: "pcg" (the default), "mulberry32" (the article's) or
	// "xexp".
	Generator string
	// Engine names how jobs are drawn: "auto" (the default), "plain" or "skip".
	Engine string
	// Delivery, when set, runs every job as messages on an at-least-once queue in virtual time.
	Delivery *delivery.Config
	// Replicates runs this many independent seeds derived from Seed and pools their counts; 0 means 1.
	Replicates int
	// Workers is how many goroutines simulate, 0 for GOMAXPROCS; the report does not depend on it.
	Workers int
	// Progress, if not nil, is called from the workers as blocks of jobs finish, possibly out of order.
	Progress func(done, total int64)
}

func fieldErr(field, format string, args ...any) error {
	return pathtext.Errorf(field, format, args...)
}

// generator is the Experiment's generator, pcg by default.
func (e Experiment) generator() (rng.Generator, error) {
	name := cmp.Or(e.Generator, rng.PCGGenerator().Name)
	g, ok := rng.Lookup(name)
	if !ok {
		return g, fieldErr("generator", "unknown generator %q (want one of %s)", name, rng.Names())
	}
	return g, nil
}

// engine is the Experiment's engine, auto by default.
func (e Experiment) engine() (sim.Engine, error) {
	en, err := sim.ParseEngine(cmp.Or(e.Engine, sim.Auto.String()))
	if err != nil {
		return en, &schema.FieldError{Field: "engine", Msg: err.Error()}
	}
	return en, nil
}

func (e Experiment) replicates() int { return max(1, e.Replicates) }

// Check reports the first setting of e that cannot be run, as a *schema.FieldError naming its path
// (scenario.steps[2].p_fail, queue.lease); what it accepts, Run runs.
func (e Experiment) Check() error {
	g, err := e.generator()
	if err != nil {
		return err
	}
	en, err := e.engine()
	if err != nil {
		return err
	}
	switch {
	case en == sim.Skip && g.Sequential:
		return fieldErr("engine", "skip cannot replay %s's single stream draw by draw; use %s plain, or %s pcg", g.Name, pathtext.Path("engine"), pathtext.Path("generator"))
	}
	if err := sim.CheckJobs(e.Jobs); err != nil {
		return fieldErr("jobs", "%v", err)
	}
	if r := e.Replicates; r < 0 || r > jobapi.MaxReplicates {
		return fieldErr("replicates", "%d is not a whole number from 1 to %d", r, jobapi.MaxReplicates)
	}
	if w := e.Workers; w < 0 || w > maxWorkers {
		return fieldErr("workers", "%d is not a whole number from 1 to %d", w, maxWorkers)
	}
	if err := e.checkScenario(); err != nil {
		return err
	}
	if err := stats.CheckText(e.scenarioFile); err != nil {
		return fieldErr("scenario", "file name %v", err)
	}
	if len(e.Strategies) == 0 {
		return fieldErr("strategies", "none given")
	}
	for i, s := range e.Strategies {
		if s == nil {
			return fieldErr(fmt.Sprintf("strategies[%d]", i), "is nil")
		}
		if err := checkStrategy(s); err != nil {
			return fieldpath.Within(fmt.Sprintf("strategies[%d]", i), err)
		}
	}
	// A row a strategy: a strategy given twice would print its row twice.
	ids, _ := jobapi.RowNames(e.Strategies)
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			return fieldErr(fmt.Sprintf("strategies[%d]", i), "%q is listed twice", id)
		}
	}
	if d := e.Delivery; d != nil {
		if err := d.Check(); err != nil {
			return fieldpath.Within("queue", err)
		}
		return e.checkDeliveries()
	}
	return nil
}

// checkStrategy reports what is wrong with s, not nil, as a *schema.FieldError naming its field.
func checkStrategy(s strategy.Strategy) error {
	name := s.Name()
	if name == "" {
		return fieldErr("name", "is empty; a strategy's Name labels its row")
	}
	if err := stats.CheckName(name); err != nil {
		return fieldErr("name", "%v", err)
	}
	r, ok := s.(strategy.Retry)
	if !ok {
		return nil
	}
	if err := sim.CheckAttempts(r.Attempts); err != nil {
		return fieldErr("attempts", "%v", err)
	}
	if err := enum.Check(r.Scope); err != nil {
		return fieldErr("scope", "%v", err)
	}
	if err := enum.Check(r.Keys); err != nil {
		return fieldErr("keys", "%v", err)
	}
	return nil
}

// checkDeliveries refuses a delivery-model run of more than maxDeliveries deliveries at worst.
func (e Experiment) checkDeliveries() error {
	d := e.Delivery
	runs := float64(e.Jobs) * float64(len(e.Strategies)) * float64(max(1, e.Replicates))
	if d.RepeatP > 0 {
		runs *= 2 // a request sent twice is two messages
	}
	worst := runs * float64(d.MaxDeliveries)
	if worst <= maxDeliveries {
		return nil
	}
	field := "jobs"
	if def := delivery.Defaults().MaxDeliveries; d.MaxDeliveries > def && runs*float64(def) <= maxDeliveries {
		field = "queue.max_deliveries"
	}
	what := fmt.Sprintf("%s x %s x %s", human.Count(e.Jobs, "job"), human.Count(int64(len(e.Strategies)), "strategy"), human.Count(int64(max(1, e.Replicates)), "replicate"))
	if d.RepeatP > 0 {
		what += " x 2 (repeats)"
	}
	return fieldErr(field, "%s, up to %d deliveries each (queue.max_deliveries), are up to %.3g deliveries; at most %.0e (about 3 CPU hours when every delivery crashes)",
		what, d.MaxDeliveries, worst, float64(maxDeliveries))
}

// checkScenario refuses a zero or invalid Scenario, and a step that takes time in the job model.
func (e Experiment) checkScenario() error {
	sc := e.Scenario
	if sc.Name == "" && sc.Noun == "" && sc.Steps == nil && sc.Watched == nil {
		return fieldErr("scenario", "none given; a zero Scenario has no steps (DefaultScenario is the command's default)")
	}
	if err := scenariocheck.Scenario(sc); err != nil {
		return fieldpath.Within("scenario", err)
	}
	if e.Delivery == nil {
		for i, st := range sc.Steps {
			if st.Latency != (provider.Latency{}) { // scenariocheck refused a negative one
				return fieldErr(fmt.Sprintf("scenario.steps[%d].latency", i), "%v is time, which only the delivery model reads, and the run is of the job model (Delivery nil); give it a Delivery (delivery.Defaults()), or no latency", st.Latency)
			}
		}
	}
	return nil
}

// ParseStrategies builds the strategies called ids (step-nokey, job-samekey-skip), each allowing
// attempts calls; an error names the index (strategies[1]).
func ParseStrategies(ids []string, attempts int) ([]strategy.Strategy, error) {
	out := make([]strategy.Strategy, len(ids))
	for i, id := range ids {
		r, err := strategy.Parse(id, attempts)
		if err != nil {
			return nil, fieldErr(fmt.Sprintf("strategies[%d]", i), "%v", err)
		}
		out[i] = r
	}
	return out, nil
}

// config is the engine's configuration of replicate r, slice sh.
func (e Experiment) config(r int, sh sim.Shard) sim.Config {
	g, _ := e.generator()
	en, _ := e.engine()
	return sim.Config{
		Scenario:   e.Scenario,
		Strategies: e.Strategies,
		Jobs:       e.Jobs,
		Seed:       rng.ReplicateSeed(e.Seed, uint64(r)),
		Generator:  g,
		Engine:     en,
		Shard:      sh,
		Delivery:   e.Delivery,
	}
}

// Report is what a run measured: the experiment as it ran and a row a strategy, in order.
type Report struct {
	// Experiment is the experiment as it ran, its defaults resolved; one read from json holds only
	// what the json echoes.
	Experiment Experiment
	Rows       []Row
	params     stats.Params
}

// Row is one strategy's outcome.
type Row struct {
	// ID is the strategy's short name, Label the name people read.
	ID, Label string
	// counters are the integer sums over every job of every replicate.
	counters stats.Counters
	// expected is the strategy's closed form, when it has one and the run is of the Part 5 model.
	expected *stats.Expected
	// noRepeats marks a strategy whose closed form repeats no side effect: its repeats' interval is
	// [0, 0].
	noRepeats bool
	// replicates are each replicate's metric values, when the experiment ran two or more.
	replicates []stats.Values
	// steps is the scenario's number of steps, the by-step counts' length.
	steps int
}

// Counters are a row's integer sums over every job of every replicate.
type Counters struct {
	Jobs   int64 `json:"jobs"`
	Failed int64 `json:"failed"`
	// Calls counts every provider call, failed ones included.
	Calls int64 `json:"calls"`
	// RepeatedSteps counts side effects beyond the first, over every job and step.
	RepeatedSteps int64 `json:"repeated_steps"`
	// DuplicateUsers counts the jobs whose first watched step did its work twice or more.
	DuplicateUsers int64 `json:"duplicate_users"`
	// SideEffects counts every side effect, over every job and step.
	SideEffects int64 `json:"side_effects"`
	// Deliveries counts the delivery model's deliveries, 0 in the job model.
	Deliveries int64 `json:"deliveries"`
	// LostWork counts jobs that succeeded with a step's work never done (the delivery model).
	LostWork int64 `json:"lost_work"`
	// RepeatedByStep splits RepeatedSteps by step, and TwiceByStep counts the jobs whose side effect
	// at that step happened twice or more.
	RepeatedByStep []int64 `json:"repeated_by_step"`
	TwiceByStep    []int64 `json:"twice_by_step"`
}

// Counters are the row's integer sums.
func (r *Row) Counters() Counters {
	c, steps := &r.counters, r.steps
	return Counters{Jobs: c.Jobs, Failed: c.Failed, Calls: c.Calls, RepeatedSteps: c.RepeatedSteps,
		DuplicateUsers: c.DuplicateUsers, SideEffects: c.SideEffects, Deliveries: c.Deliveries, LostWork: c.LostWork,
		RepeatedByStep: slices.Clone(c.RepeatedByStep[:steps]), TwiceByStep: slices.Clone(c.TwiceByStep[:steps])}
}

// Rate is one metric of a row: its estimate with the 95% interval and, with a closed form, the
// expectation and the estimate's z.
type Rate struct {
	schema.Estimate
	Expected float64 // NaN without a closed form
	Z        float64 // NaN without a closed form, or when undefined
}

// Rate returns the row's metric called name: "succeeded", "failed_rate",
// "calls_per_job", "repeated_per_job" or "duplicate_rate".
func (r *Row) Rate(name string) (Rate, error) {
	m, err := stats.LookupMetric(name)
	if err != nil {
		return Rate{}, err
	}
	out := Rate{Estimate: m.Estimate(&r.counters, r.noRepeats), Expected: math.NaN(), Z: math.NaN()}
	if r.expected != nil {
		out.Expected = m.Expected(*r.expected)
		if z, ok := m.Z(&r.counters, *r.expected); ok {
			out.Z = z
		}
	}
	return out, nil
}

// results is the report as the command renders it, with the expected lines when expect is set and
// intervals when ci is.
func (rep *Report) results(ci, expect bool) stats.Report {
	out := stats.Report{Params: rep.params, ShowCI: ci, EchoWatched: echoWatched(rep.params), Rows: make([]stats.Row, len(rep.Rows))}
	for i := range rep.Rows { // in place: a Row's counters are 89 KB
		r, o := &rep.Rows[i], &out.Rows[i]
		o.ID, o.Label, o.NoRepeats, o.Replicates = r.ID, r.Label, r.noRepeats, r.replicates
		o.Counters = r.counters
		if expect {
			o.Expected = r.expected
		}
	}
	return out
}

// newReport is the report of e with empty counters and each strategy's closed form.
func (e Experiment) newReport() Report {
	rep := Report{params: e.params(), Rows: make([]Row, len(e.Strategies))}
	rep.Experiment = e
	rep.Experiment.Generator, rep.Experiment.Engine, rep.Experiment.Replicates = rep.params.RNG, rep.params.Engine, rep.params.Replicates
	rep.Experiment.Progress = nil
	ids, labels := jobapi.RowNames(e.Strategies)
	for i, s := range e.Strategies {
		r := &rep.Rows[i] // in place: a Row's counters are 89 KB
		r.ID, r.Label, r.steps = ids[i], labels[i], len(e.Scenario.Steps)
		if x, ok := s.(strategy.Retry); ok && e.Delivery == nil {
			ex := closedform.Retry(x, e.Scenario)
			r.expected = &ex
			r.noRepeats = ex.RepeatedPerJob == 0
		}
	}
	return rep
}

// Run simulates the experiment and reports it; it stops with ctx's error, or a *schema.PanicError
// when a strategy panics.
func Run(ctx context.Context, e Experiment) (Report, error) {
	if err := e.Check(); err != nil {
		return Report{}, err
	}
	rep := e.newReport()
	cfgs := make([]sim.Config, e.replicates())
	for r := range cfgs {
		cfgs[r] = e.config(r, sim.Shard{})
	}
	if len(cfgs) > 1 {
		for i := range rep.Rows {
			rep.Rows[i].replicates = make([]stats.Values, len(cfgs))
		}
	}
	// Integer sums do not depend on the order replicates finish in.
	err := sim.RunEach(ctx, cfgs, e.Workers, e.Progress, func(r int, counters []stats.Counters) {
		for i := range rep.Rows {
			rep.Rows[i].counters.Add(&counters[i])
			if rep.Rows[i].replicates != nil {
				rep.Rows[i].replicates[r] = stats.ValuesOf(&counters[i])
			}
		}
	})
	if err != nil {
		return Report{}, err
	}
	return rep, nil
}

// params are the experiment's parameters as its report echoes them: with a scenario file or
// per-step rates, every step's own instead of top-level rates.
func (e Experiment) params() stats.Params {
	sc := e.Scenario
	g, _ := e.generator()
	par := stats.Params{
		Scenario:   sc.Name,
		File:       e.scenarioFile,
		Noun:       cmp.Or(sc.Noun, "jobs"), // as a scenario file's
		Steps:      len(sc.Steps),
		Jobs:       e.Jobs,
		RNG:        g.Name,
		Seed:       e.Seed,
		Engine:     e.config(0, sim.Shard{}).EngineUsed().String(),
		Replicates: e.replicates(),
	}
	if len(sc.Steps) > 0 {
		par.PFail = sc.Steps[0].PFail
		if len(sc.Watched) > 0 && sc.Watched[0].Step >= 0 && sc.Watched[0].Step < len(sc.Steps) {
			par.LossyStep = sc.Steps[sc.Watched[0].Step].Name
		}
	}
	par.Watched = jobapi.Watches(sc)
	for _, s := range e.Strategies {
		if r, ok := s.(strategy.Retry); ok {
			par.Attempts = max(par.Attempts, r.Attempts)
		} else {
			par.OwnStrategies = true
		}
	}
	if i := slices.IndexFunc(sc.Steps, func(st provider.Step) bool { return st.CanLoseReply }); i >= 0 {
		par.LossyStep, par.LostReply = sc.Steps[i].Name, sc.Steps[i].LostReply
	}
	for _, st := range sc.Steps {
		if st.Retry != (provider.StepRetry{}) {
			par.Policies = append(par.Policies, stepParams(st).Policy())
		}
	}
	if e.scenarioFile != "" || ownRates(sc) {
		par.PFail, par.LostReply = 0, 0
		steps := make([]stats.StepParams, len(sc.Steps))
		for i, st := range sc.Steps {
			steps[i] = stepParams(st)
		}
		par.StepList = &steps
	}
	if q := e.Delivery; q != nil {
		latency := "no time"
		if len(sc.Steps) > 0 {
			latency = sc.Steps[0].Latency.String()
			if slices.ContainsFunc(sc.Steps, func(st provider.Step) bool { return st.Latency != sc.Steps[0].Latency }) {
				latency = "per-step times"
			}
		}
		par.Model = "delivery"
		par.Delivery = deliveryParams(*q, latency)
		for _, st := range sc.Steps {
			par.Delivery.StepNames = append(par.Delivery.StepNames, st.Name)
		}
	}
	return par
}

// ownRates reports whether no one failure or lost-reply rate describes the steps of sc.
func ownRates(sc provider.Scenario) bool {
	lost := -1.0
	for _, st := range sc.Steps {
		if st.PFail != sc.Steps[0].PFail {
			return true
		}
		if st.CanLoseReply {
			if lost >= 0 && st.LostReply != lost {
				return true
			}
			lost = st.LostReply
		}
	}
	return false
}

// stepParams is st as outputs echo it, under decl.EchoedStepSettings' keys, leaving out the policy
// the step does not override.
func stepParams(st provider.Step) stats.StepParams {
	p := stats.StepParams{Name: st.Name, Settings: stats.Settings{}}
	for _, s := range decl.EchoedStepSettings() {
		var echo any
		switch v := s.Get(st).(type) {
		case float64:
			if s.Lossy && !st.CanLoseReply {
				v = 0
			}
			echo = v
		case bool:
			echo = v
		case provider.Latency:
			echo = v.String()
		case int:
			if v != 0 {
				echo = int64(v)
			}
		case *schema.KeyMode:
			if v != nil {
				echo = v.String()
			}
		case *backoff.Schedule:
			if v != nil {
				echo = backoffText(*v)
			}
		default:
			panic(fmt.Sprintf("retrysim: the step's setting %s is a %T, which outputs cannot echo", s.Echo, v))
		}
		if echo != nil {
			p.Settings = append(p.Settings, stats.Setting{Key: s.Echo, Value: echo})
		}
	}
	return p
}

// backoffText is a backoff policy as reports show it ("full-jitter base 100ms cap 2s"), without
// what the kind never reads.
func backoffText(b backoff.Schedule) string {
	text := b.Kind.String()
	baseWhy, capWhy := backoffkind.Unread(b.Kind.String())
	if baseWhy == "" {
		text += fmt.Sprintf(" base %v", b.Base)
	}
	if capWhy == "" {
		text += fmt.Sprintf(" cap %v", b.Cap)
	}
	return text
}
