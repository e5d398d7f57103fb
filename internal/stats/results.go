// Package stats turns the engines' integer counters into the numbers people read: rates with their
// intervals, expectations and z-scores, completion-time quantiles, Kaplan-Meier recovery times, and
// the shard file format. It runs no simulation and renders nothing, so engines import it without a
// table writer or plot.
package stats

import (
	"fmt"
	"slices"

	"github.com/retrysim/retrysim/internal/hist"
	"github.com/retrysim/retrysim/schema"
)

// Counters are one strategy's integer sums over every simulated job, exact and order-free over
// blocks, workers and machines.
type Counters struct {
	Jobs   int64 `json:"jobs"`
	Failed int64 `json:"failed"`
	// Calls counts every provider call, failed ones included.
	Calls int64 `json:"calls"`
	// RepeatedSteps counts side effects beyond the first, over every job and step.
	RepeatedSteps int64 `json:"repeated_steps"`
	// DuplicateUsers counts jobs whose first watched step's side effect happened twice or more.
	DuplicateUsers int64 `json:"duplicate_users"`
	// CallsSq and RepeatedSq sum the squares of each job's calls and repeated side effects.
	CallsSq    Wide `json:"calls_sq"`
	RepeatedSq Wide `json:"repeated_steps_sq"`

	// SideEffects counts every side effect, over every job and step.
	SideEffects int64 `json:"side_effects"`

	// The delivery model's counters, zero in the Part 5 model.
	Deliveries int64 `json:"deliveries"`
	// LostWork counts jobs that succeeded although a step's work never happened; a failed job counts
	// in Failed only.
	LostWork int64 `json:"lost_work"`
	// RepeatedByStep splits RepeatedSteps by step; TwiceByStep counts by step the jobs whose side
	// effect there happened twice or more.
	RepeatedByStep StepCounts `json:"repeated_by_step"`
	TwiceByStep    StepCounts `json:"twice_by_step"`
	// Completion times the jobs that succeeded, FailedCompletion those that failed, from first enqueue
	// to last delivery.
	Completion       hist.Histogram `json:"completion"`
	FailedCompletion hist.Histogram `json:"failed_completion,omitzero"`
}

// MaxSteps bounds a scenario's length, so a job's bookkeeping fits in fixed arrays.
const MaxSteps = 64

// StepCounts counts something for each step.
type StepCounts [MaxSteps]int64

// UnmarshalJSON reads exactly MaxSteps counts, where encoding/json would drop extra ones.
func (s *StepCounts) UnmarshalJSON(b []byte) error { return exactly(b, s[:], "step counts") }

// Add adds *o to c; a run's counts cannot overflow (AddChecked checks a shard's).
func (c *Counters) Add(o *Counters) {
	c.Jobs += o.Jobs
	c.Failed += o.Failed
	c.Calls += o.Calls
	c.RepeatedSteps += o.RepeatedSteps
	c.DuplicateUsers += o.DuplicateUsers
	c.CallsSq.Add(o.CallsSq)
	c.RepeatedSq.Add(o.RepeatedSq)
	c.SideEffects += o.SideEffects
	c.Deliveries += o.Deliveries
	c.LostWork += o.LostWork
	for i := range c.RepeatedByStep {
		c.RepeatedByStep[i] += o.RepeatedByStep[i]
		c.TwiceByStep[i] += o.TwiceByStep[i]
	}
	// Only the delivery model times jobs: skip walking empty histograms.
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
	// File is the scenario file the steps came from, if any; then StepList holds each step's
	// parameters and Overrides names the settings set over the file.
	File string `json:"scenario_file,omitempty"`
	// StepList is a pointer so that Params stays comparable.
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
	// Attempts is the most calls a strategy.Retry of the run allows a try; 0 when no strategy is one.
	Attempts int `json:"attempts"`
	// OwnStrategies is set when some strategy is not a strategy.Retry.
	OwnStrategies bool `json:"-"`
	// Policies are the steps that set their own attempts, key mode or backoff, in order.
	Policies []StepPolicy `json:"-"`
	RNG      string       `json:"rng"`
	Seed     uint64       `json:"seed"`
	// Engine is how jobs were drawn: plain or skip.
	Engine string `json:"engine"`
	// Watched are the watched steps, each heading a duplicate column, the first duplicate_users'.
	Watched []Watch `json:"-"`
	// Replicates is how many independent seeds the rows pool.
	Replicates int `json:"replicates"`
	// Model is "delivery" when the delivery model ran, empty for the job model (whose outputs are the
	// Part 5 goldens) and in a shard.
	Model string `json:"model,omitempty"`
	// Delivery describes the delivery model, when it is on.
	Delivery *DeliveryParams `json:"delivery,omitempty"`
}

// Watch is one watched step as outputs show it.
type Watch struct {
	// Step is the step's index from 0; csv and json number it from 1.
	Step  int    `json:"-"`
	Name  string `json:"name"`
	Label string `json:"label"`
}

// StepParams are one step's parameters as the run used them: its name, then its
// decl.EchoedStepSettings, written as one JSON object.
type StepParams struct {
	Name string `json:"name"`
	Settings
}

// MarshalJSON writes the step's name, then its settings, as one object.
func (st StepParams) MarshalJSON() ([]byte, error) { return writeNamed(st.Name, st.Settings) }

// UnmarshalJSON reads what MarshalJSON writes, each setting a number, a text or a boolean.
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

// Policy is the step's own policy as st echoes it.
func (st StepParams) Policy() StepPolicy {
	p := StepPolicy{Step: st.Name}
	attempts, _ := st.Lookup("attempts").(int64)
	p.Attempts = int(attempts)
	p.KeyMode, _ = st.Lookup("key_mode").(string)
	p.Backoff, _ = st.Lookup("backoff").(string)
	return p
}

// StepPolicy is a step's own retry policy as outputs show it, a field zero where the step keeps the run's.
type StepPolicy struct {
	// Step is the step's name.
	Step string
	// Attempts bounds the step's retry loop, the first call included.
	Attempts int
	// KeyMode is none, fresh or same.
	KeyMode string
	// Backoff is the wait between the step's attempts in the delivery model.
	Backoff string
}

// DeliveryParams are the delivery model's settings as outputs echo them, written as one JSON
// object: the settings, then backoff and latency.
type DeliveryParams struct {
	// Settings are the queue's settings in the table's order.
	Settings
	// Backoff is the queue's backoff as one text (full-jitter base 100ms cap 2s).
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

// UnmarshalJSON reads what MarshalJSON writes: backoff and latency texts, and settings.
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
	// OwnStrategy marks a strategy that is not a strategy.Retry: the run's attempts do not bound it,
	// and only its program can merge its shards.
	OwnStrategy bool `json:"own_strategy,omitempty"`
	// Counters are pooled over every replicate.
	Counters
	// NoRepeats marks a strategy that cannot repeat a side effect: its repeats' interval is [0, 0].
	NoRepeats bool `json:"-"`
	// Expected is the closed form, when the strategy has one and it was asked for.
	Expected *Expected `json:"-"`
	// Replicates are each replicate's metric values, when there are two or more.
	Replicates []Values `json:"-"`
}

// Report is one run: its parameters and a row a strategy, in order.
type Report struct {
	Params
	Rows []Row
	// ShowCI puts intervals in the table formats; csv and json always carry them.
	ShowCI bool
	// EchoWatched has json name the watched steps by number, so a report read back keeps them.
	EchoWatched bool
}

// EchoWatch is one watched step as json echoes it, numbered from 1.
type EchoWatch struct {
	Step  int    `json:"step"`
	Name  string `json:"name"`
	Label string `json:"label"`
}

// Twice counts the jobs whose k-th watched step w did its work twice or more.
func (c *Counters) Twice(k int, w Watch) int64 {
	if k == 0 {
		return c.DuplicateUsers
	}
	return c.TwiceByStep[w.Step]
}

// WatchedRate is Twice's share of the jobs with its interval.
func (c *Counters) WatchedRate(k int, w Watch) schema.Estimate { return share(c.Twice(k, w), c.Jobs) }
