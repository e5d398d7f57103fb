// Package stats turns the engines' integer counters into the numbers people
// read: rates and their confidence intervals derived at the end, expectations
// and z-scores, completion-time quantiles (from hist.Histogram), the
// Kaplan-Meier estimate of a recovery time with censored observations, and
// the shard file format with its validation. It is the computation side only: it
// runs no simulation and renders nothing, so engines and models import it
// without pulling in a table writer or gonum/plot (the retrysim command does the
// presentation).
package stats

import (
	"fmt"
	"slices"

	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/schema"
)

// Counters are one strategy's sums over every simulated job. They are integers
// so that sums over blocks, workers and machines are exact and order-free.
type Counters struct {
	Jobs   int64 `json:"jobs"`
	Failed int64 `json:"failed"`
	// Calls counts every provider call, failed ones included.
	Calls int64 `json:"calls"`
	// RepeatedSteps counts side effects beyond the first, over every job and step.
	RepeatedSteps int64 `json:"repeated_steps"`
	// DuplicateUsers counts jobs whose first watched step's side effect
	// happened twice or more (TwiceByStep of that step).
	DuplicateUsers int64 `json:"duplicate_users"`
	// CallsSq and RepeatedSq sum the squares of each job's calls and repeated
	// side effects: the variances behind the intervals of the per-job means.
	CallsSq    Wide `json:"calls_sq"`
	RepeatedSq Wide `json:"repeated_steps_sq"`

	// SideEffects counts every side effect, over every job and step.
	SideEffects int64 `json:"side_effects"`

	// The delivery model's counters, zero in the Part 5 model.
	Deliveries int64 `json:"deliveries"`
	// LostWork counts jobs that succeeded although a step's key says done
	// and its work never happened: work lost silently. A failed job is
	// counted in Failed only, so the two never overlap.
	LostWork int64 `json:"lost_work"`
	// RepeatedByStep splits RepeatedSteps by step, and TwiceByStep counts,
	// step by step, the jobs whose side effect at that step happened twice or
	// more: every engine fills both, so any step a scenario watches is read
	// off them.
	RepeatedByStep StepCounts `json:"repeated_by_step"`
	TwiceByStep    StepCounts `json:"twice_by_step"`
	// Completion counts the virtual completion times of the jobs that
	// succeeded, FailedCompletion those of the jobs that failed: a job's time
	// runs from its first enqueue until its last delivery stopped or its
	// message was dead-lettered.
	Completion       hist.Histogram `json:"completion"`
	FailedCompletion hist.Histogram `json:"failed_completion,omitzero"`
}

// MaxSteps bounds a scenario's length, so a job's bookkeeping fits in fixed
// arrays and a bit set.
const MaxSteps = 64

// StepCounts counts something for each step.
type StepCounts [MaxSteps]int64

// UnmarshalJSON reads exactly MaxSteps counts: encoding/json would drop the
// extra numbers of a longer array without a word.
func (s *StepCounts) UnmarshalJSON(b []byte) error { return exactly(b, s[:], "step counts") }

// Add adds *o to c (by pointer: a Counters holds two dense histograms, 88
// KB); a run's counts, bounded by a run's most jobs (10^12), cannot
// overflow (AddChecked checks a shard's, which may come from anywhere).
func (c *Counters) Add(o *Counters) {
	c.Jobs += o.Jobs
	c.Failed += o.Failed
	c.Calls += o.Calls
	c.RepeatedSteps += o.RepeatedSteps
	c.DuplicateUsers += o.DuplicateUsers
	c.CallsSq.addWide(o.CallsSq)
	c.RepeatedSq.addWide(o.RepeatedSq)
	c.SideEffects += o.SideEffects
	c.Deliveries += o.Deliveries
	c.LostWork += o.LostWork
	for i := range c.RepeatedByStep {
		c.RepeatedByStep[i] += o.RepeatedByStep[i]
		c.TwiceByStep[i] += o.TwiceByStep[i]
	}
	// Only the delivery model times jobs: a Part 5 block's empty
	// histograms are not walked, bucket by bucket, into the sum.
	if o.Completion.Count() != 0 {
		c.Completion.Merge(&o.Completion)
	}
	if o.FailedCompletion.Count() != 0 {
		c.FailedCompletion.Merge(&o.FailedCompletion)
	}
}

// Succeeded is the fraction of jobs that did not fail.
func (c *Counters) Succeeded() float64 { return float64(c.Jobs-c.Failed) / float64(c.Jobs) }

// CallsPerJob is the mean number of provider calls a job.
func (c *Counters) CallsPerJob() float64 { return float64(c.Calls) / float64(c.Jobs) }

// Params are the inputs that determine a report, echoed in every format.
type Params struct {
	Scenario string `json:"scenario"`
	// File is the scenario file the steps came from, if any. Then StepList
	// holds each step's parameters as used, the top-level p_fail and
	// lost_reply are left out of json (the steps carry them), and Overrides
	// names the settings set over the file, in the command's words.
	File string `json:"scenario_file,omitempty"`
	// StepList is a pointer so that Params stays comparable: merge compares
	// shards' parameters with ==, and shards never come from a file.
	StepList  *[]StepParams `json:"step_params,omitempty"`
	Overrides string        `json:"overrides,omitempty"`
	// Noun is what a job is, for titles ("sign-ups").
	Noun  string `json:"-"`
	Steps int    `json:"steps"`
	// LossyStep names the step whose reply can be lost, for titles.
	LossyStep string  `json:"-"`
	Jobs      int64   `json:"jobs"`
	PFail     float64 `json:"p_fail"`
	LostReply float64 `json:"lost_reply"`
	// Attempts is the most calls a strategy.Retry of the run allows a try,
	// the first included; 0 when no strategy is one (Row.OwnStrategy),
	// each setting its own limits.
	Attempts int `json:"attempts"`
	// OwnStrategies is set when some strategy is not a strategy.Retry
	// (Row.OwnStrategy): Attempts does not bound it, and titles say so.
	OwnStrategies bool `json:"-"`
	// Policies are the steps that set their own attempts, key mode or
	// backoff, in step order (none for the sign-up): titles name them, since
	// Attempts does not hold for them. A file's step_params carry them too.
	Policies []StepPolicy `json:"-"`
	RNG      string       `json:"rng"`
	Seed     uint64       `json:"seed"`
	// Engine is how jobs were drawn: plain or skip.
	Engine string `json:"engine"`
	// Watched are the watched steps, each heading a duplicate column: the
	// first is the duplicate_users column ("Users with 2+ welcome emails"),
	// the others follow it. A run from a file echoes them in json.
	Watched []Watch `json:"-"`
	// Replicates is how many independent seeds the rows pool (1 for a plain run).
	Replicates int `json:"replicates"`
	// Model is "delivery" when the delivery model ran, and empty for the
	// job model, Part 5's, whose outputs name no model: they are the Part 5
	// goldens, which define what a seed means. A shard leaves it empty: its
	// "model" key is its Model, which has a queue for the delivery model.
	Model string `json:"model,omitempty"`
	// Delivery describes the delivery model, when it is on.
	Delivery *DeliveryParams `json:"delivery,omitempty"`
}

// Watch is one watched step as outputs show it.
type Watch struct {
	// Step is the step's index, from 0; its csv and json fields number it
	// from 1, as repeated_step_<i> does.
	Step  int    `json:"-"`
	Name  string `json:"name"`
	Label string `json:"label"`
}

// StepParams are one step's parameters as the run used them: its name,
// then each setting of decl.EchoedStepSettings under its echo key (the
// root package fills them from the table, so a setting declared there is
// echoed with no field here): a probability as a number (lost_reply 0 for
// a step whose reply cannot be lost), a latency as its text, whether the
// step's provider honours keys (keys), and the step's own attempts, key
// mode and backoff (StepPolicy), each left out where the step keeps the
// run's. It writes and reads as one JSON object.
type StepParams struct {
	Name string `json:"name"`
	Settings
}

// MarshalJSON writes the step's name, then its settings, as one object.
func (st StepParams) MarshalJSON() ([]byte, error) { return writeNamed(st.Name, st.Settings) }

// UnmarshalJSON reads what MarshalJSON writes: a name, which must be a
// text, and every other key as one of the settings, a number, a text or a
// boolean, in order.
func (st *StepParams) UnmarshalJSON(data []byte) error {
	name, set, err := readNamed(data)
	if err != nil {
		return err
	}
	for _, x := range set {
		if _, ok := x.Value.(Settings); ok {
			return fmt.Errorf("%s: want a number, a text or a boolean", x.Key)
		}
	}
	*st = StepParams{Name: name, Settings: set}
	return nil
}

// Policy is the step's own policy as st echoes it: its attempts, key_mode
// and backoff, each zero where the step keeps the run's.
func (st StepParams) Policy() StepPolicy {
	p := StepPolicy{Step: st.Name}
	attempts, _ := st.Lookup("attempts").(int64)
	p.Attempts = int(attempts)
	p.KeyMode, _ = st.Lookup("key_mode").(string)
	p.Backoff, _ = st.Lookup("backoff").(string)
	return p
}

// StepPolicy is a step's own retry policy (provider.StepRetry) as outputs show
// it: a field is zero where the step keeps the run's. A strategy.Retry
// honours a step's own key mode under either scope and its own attempts
// when it retries each step (a whole-job retry counts passes); a strategy
// of a Go program's own reads them from Calls.Policies, or may not.
type StepPolicy struct {
	// Step is the step's name.
	Step string
	// Attempts bounds the step's retry loop, the first call included.
	Attempts int
	// KeyMode is none, fresh or same.
	KeyMode string
	// Backoff is the wait between the step's attempts in the delivery
	// model, as DeliveryParams.Backoff writes it.
	Backoff string
}

// DeliveryParams are the delivery model's settings, as outputs echo them:
// each of decl.Settings[delivery.Config] whose scenario key is no mapping's, under that
// key (the root package fills them from the table, so a setting declared
// there is echoed with no field here); the backoff as one text; and how
// long the steps' calls take. Its JSON is one object: the settings, then
// backoff and latency.
type DeliveryParams struct {
	// Settings are the queue's settings in the table's order: a time or a
	// latency as its text (24h0m0s, fixed 2s), a whole number as an int64,
	// a probability as a float64, an enumeration by its value's name.
	Settings
	// Backoff is the queue's backoff as one text (full-jitter base 100ms
	// cap 2s).
	Backoff string `json:"backoff"`
	// Latency is how long the steps' calls take (fixed 20ms).
	Latency string `json:"latency"`
	// StepNames are the steps' names, in order, for the by-step tables.
	StepNames []string `json:"-"`
}

// MarshalJSON writes d's settings, then backoff and latency, as one object.
func (d DeliveryParams) MarshalJSON() ([]byte, error) {
	all := append(slices.Clip(d.Settings), Setting{Key: "backoff", Value: d.Backoff}, Setting{Key: "latency", Value: d.Latency})
	return all.MarshalJSON()
}

// UnmarshalJSON reads what MarshalJSON writes: backoff and latency, which
// must be texts, and every other key as one of the settings, a number or a
// text, in order.
func (d *DeliveryParams) UnmarshalJSON(data []byte) error {
	var all Settings
	if err := all.UnmarshalJSON(data); err != nil {
		return err
	}
	out := DeliveryParams{Settings: Settings{}, StepNames: d.StepNames}
	for _, x := range all {
		dst := map[string]*string{"backoff": &out.Backoff, "latency": &out.Latency}[x.Key]
		switch x.Value.(type) {
		case bool, Settings: // the echo writes no flag and no object
			return fmt.Errorf("%s: want a number or a string", x.Key)
		}
		if dst == nil {
			out.Settings = append(out.Settings, x)
			continue
		}
		text, ok := x.Value.(string)
		if !ok {
			return fmt.Errorf("%s: %v is not a text", x.Key, x.Value)
		}
		*dst = text
	}
	*d = out
	return nil
}

// Row is one strategy's outcome.
type Row struct {
	// ID is the strategy's short name; Label the name people read.
	ID    string `json:"strategy"`
	Label string `json:"label"`
	// OwnStrategy marks a strategy that is not a strategy.Retry, such as
	// one written in Go against strategy.Strategy: it sets its own limits,
	// so the run's attempts do not bound its calls, and only the program
	// that ran it can rebuild it to merge its shards. A shard file writes
	// it only where it is set.
	OwnStrategy bool `json:"own_strategy,omitempty"`
	// Counters are pooled over every replicate.
	Counters
	// NoRepeats marks a strategy that cannot repeat a side effect in the model
	// that ran (its exact expectation is 0): its repeats' interval is [0, 0].
	// Nothing in the counters tells such a 0 from one that merely did not
	// happen, whose interval must reach above it.
	NoRepeats bool `json:"-"`
	// Expected is the closed form, when the strategy has one and it was asked for.
	Expected *Expected `json:"-"`
	// Replicates are each replicate's metric values, when there are two or more.
	Replicates []Values `json:"-"`
}

// Report is one run: its parameters and a row for every strategy, in the order
// they were asked for.
type Report struct {
	Params
	Rows []Row
	// ShowCI puts intervals in the table formats; csv and json always carry them.
	ShowCI bool
	// EchoWatched has json name the watched steps, each with its step
	// (numbered from 1), for a run whose watched steps are neither the
	// built-in sign-up's nor a scenario file's (whose json names them by
	// step name): so that a report read back from its json keeps them.
	EchoWatched bool
}

// EchoWatch is one watched step as json echoes it when Report.EchoWatched
// is set: the step numbered from 1, as its csv and json fields number it.
type EchoWatch struct {
	Step  int    `json:"step"`
	Name  string `json:"name"`
	Label string `json:"label"`
}

// Twice is the count of jobs whose k-th watched step w did its work twice or
// more: DuplicateUsers for the first, TwiceByStep for the others.
func (c *Counters) Twice(k int, w Watch) int64 {
	if k == 0 {
		return c.DuplicateUsers
	}
	return c.TwiceByStep[w.Step]
}

// WatchedRate is Twice's share of the jobs with its interval, as
// duplicate_rate is the first watched step's.
func (c *Counters) WatchedRate(k int, w Watch) schema.Estimate { return share(c.Twice(k, w), c.Jobs) }
