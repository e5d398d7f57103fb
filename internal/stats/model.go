package stats

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/retrysim/retrysim/internal/hist"
)

// Model is the model a shard's run simulated when it is not the built-in sign-up: its steps,
// watched steps and queue, from which merge rebuilds the run; durations are whole nanoseconds, so
// they read back exactly.
type Model struct {
	Name    string       `json:"name"`
	Noun    string       `json:"noun"`
	Steps   []ModelStep  `json:"steps"`
	Watched []ModelWatch `json:"watched"`
	// Queue is the delivery model's queue, nil for the job model, its settings keyed as package sim
	// writes them (ttl_ns, backoff_base_ns).
	Queue Settings `json:"queue,omitempty"`
}

// ModelStep is one step of a Model: its name, then its decl.StepSettings as package sim writes
// them, the step's own policy left out where it keeps the run's; one JSON object.
type ModelStep struct {
	Name string `json:"name"`
	Settings
}

// MarshalJSON writes the step's name, then its settings, as one object.
func (st ModelStep) MarshalJSON() ([]byte, error) { return writeNamed(st.Name, st.Settings) }

// UnmarshalJSON reads what MarshalJSON writes.
func (st *ModelStep) UnmarshalJSON(data []byte) error {
	name, set, err := readNamed(data)
	if err != nil {
		return err
	}
	*st = ModelStep{Name: name, Settings: set}
	return nil
}

// writeNamed writes name under "name", then the settings, as one object.
func writeNamed(name string, set Settings) ([]byte, error) {
	return append(Settings{{Key: "name", Value: name}}, set...).MarshalJSON()
}

// readNamed reads what writeNamed writes, the name a text.
func readNamed(data []byte) (string, Settings, error) {
	var all Settings
	if err := all.UnmarshalJSON(data); err != nil {
		return "", nil, err
	}
	name, ok := all.Lookup("name").(string)
	if !ok {
		return "", nil, fmt.Errorf("name: %v is not a text", all.Lookup("name"))
	}
	return name, slices.DeleteFunc(all, func(x Setting) bool { return x.Key == "name" }), nil
}

// ModelWatch is one watched step of a Model (provider.Watch).
type ModelWatch struct {
	Step  int    `json:"step"`
	Label string `json:"label"`
}

// stepsLeftOut refuses a step's own attempts, keys or backoff written as 0, "" or null, which no
// shard writer writes (it leaves the field out).
func stepsLeftOut(data []byte) error {
	var file struct {
		Model *struct {
			Steps []struct {
				// raw, as a pointer would read null as absent
				Attempts json.RawMessage `json:"attempts"`
				Keys     json.RawMessage `json:"keys"`
				Backoff  json.RawMessage `json:"backoff"`
			} `json:"steps"`
		} `json:"model"`
	}
	if json.Unmarshal(data, &file) != nil || file.Model == nil {
		return nil // the decoder has said what is wrong, or there is no model
	}
	const keep = "a step that keeps the run's leaves the field out, as a shard's writer does"
	for i, st := range file.Model.Steps {
		for _, f := range []struct {
			name, what string
			raw        json.RawMessage
		}{{"attempts", "a number of attempts", st.Attempts}, {"keys", "a key mode", st.Keys}, {"backoff", "a backoff", st.Backoff}} {
			var v any
			if f.raw != nil && json.Unmarshal(f.raw, &v) == nil && (v == nil || v == 0.0 || v == "") {
				return fmt.Errorf("model.steps[%d].%s: %s is not %s; %s", i, f.name, f.raw, f.what, keep)
			}
		}
	}
	return nil
}

// deliveriesPerJob is the most deliveries a job of the queue q gets, doubled when repeat is above 0.
func deliveriesPerJob(q Settings) (int64, error) {
	n, ok := q.Lookup("max_deliveries").(int64)
	if !ok || n < 1 {
		return 0, fmt.Errorf("model.queue.max_deliveries: %v is not a whole number at least 1", q.Lookup("max_deliveries"))
	}
	switch repeat := q.Lookup("repeat").(type) {
	case int64:
		if repeat > 0 {
			n *= 2
		}
	case float64:
		if repeat > 0 {
			n *= 2
		}
	}
	return n, nil
}

// CheckDelivery reports the first counter of c, by its field, that no delivery-model run of steps
// steps, attempts calls a retry (0: any) and deliveries deliveries a job could produce.
func (c *Counters) CheckDelivery(steps, attempts int, deliveries int64) error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"jobs", c.Jobs}, {"failed", c.Failed}, {"calls", c.Calls}, {"repeated_steps", c.RepeatedSteps},
		{"duplicate_users", c.DuplicateUsers}, {"side_effects", c.SideEffects}, {"deliveries", c.Deliveries}, {"lost_work", c.LostWork}} {
		if f.v < 0 {
			return fmt.Errorf("%s: %d is negative", f.name, f.v)
		}
	}
	maxCalls := callsBound(steps, attempts, deliveries)
	switch {
	case c.Failed > c.Jobs:
		return fmt.Errorf("failed: %d is more than the %d jobs", c.Failed, c.Jobs)
	case c.LostWork > c.Jobs-c.Failed:
		return fmt.Errorf("lost_work: %d is more than the %d jobs that succeeded", c.LostWork, c.Jobs-c.Failed)
	case c.DuplicateUsers > c.Jobs:
		return fmt.Errorf("duplicate_users: %d is more than the %d jobs", c.DuplicateUsers, c.Jobs)
	case c.Deliveries < c.Jobs:
		return fmt.Errorf("deliveries: %d is fewer than one for each of the %d jobs", c.Deliveries, c.Jobs)
	case over(c.Deliveries, deliveries, c.Jobs):
		return fmt.Errorf("deliveries: %d is more than %d jobs get at %d deliveries each", c.Deliveries, c.Jobs, deliveries)
	case over(c.Calls, maxCalls, c.Jobs):
		return fmt.Errorf("calls: %d is more than %d jobs make at %d calls each", c.Calls, c.Jobs, maxCalls)
	case c.SideEffects > c.Calls:
		return fmt.Errorf("side_effects: %d is more than the %d calls, each of which does the work at most once", c.SideEffects, c.Calls)
	case c.RepeatedSteps > c.SideEffects:
		return fmt.Errorf("repeated_steps: %d is more than the %d side effects", c.RepeatedSteps, c.SideEffects)
	case c.DuplicateUsers > c.RepeatedSteps:
		return fmt.Errorf("duplicate_users: %d is more than the %d repeated side effects", c.DuplicateUsers, c.RepeatedSteps)
	case over(c.SideEffects-c.RepeatedSteps, int64(steps), c.Jobs):
		return fmt.Errorf("side_effects: %d, less %d repeated, is more than one a step of each job", c.SideEffects, c.RepeatedSteps)
	}
	for _, h := range []struct {
		name string
		h    *hist.Histogram
		want int64
	}{{"completion", &c.Completion, c.Jobs - c.Failed}, {"failed_completion", &c.FailedCompletion, c.Failed}} {
		if n := h.h.Count(); n != h.want { // its counts are positive, their sum within 64 bits
			return fmt.Errorf("%s: its counts add up to %d, not the %d jobs it times", h.name, n, h.want)
		}
	}
	if err := checkSquares(c.Calls, c.CallsSq, c.Jobs, maxCalls); err != nil {
		return fmt.Errorf("calls_sq: %w", err)
	}
	if err := checkSquares(c.RepeatedSteps, c.RepeatedSq, c.Jobs, maxCalls-1); err != nil {
		return fmt.Errorf("repeated_steps_sq: %w", err)
	}
	return c.checkByStep(steps)
}

// over reports whether x > each*jobs without the product, which may overflow.
func over(x, each, jobs int64) bool {
	return x/each > jobs || x/each == jobs && x%each != 0
}
