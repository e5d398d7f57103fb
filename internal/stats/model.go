package stats

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/retrysim/retrysim/internal/hist"
)

// Model is the model a shard's run simulated when it is not the built-in
// sign-up at the shard's p_fail and lost_reply: the scenario's steps as the
// run used them (a file's, with any flag set over it), its watched steps, and
// the delivery model's queue. Merge rebuilds the run from it (sim.ShardConfig)
// and checks that every shard carries the same one. Durations are whole
// nanoseconds, so they read back exactly.
type Model struct {
	Name    string       `json:"name"`
	Noun    string       `json:"noun"`
	Steps   []ModelStep  `json:"steps"`
	Watched []ModelWatch `json:"watched"`
	// Queue is the delivery model's queue, nil for the job model: each
	// setting of decl.Settings[delivery.Config], the queue's own first and then its
	// mapping's (the backoff's), under its name with _ for . and a time in
	// whole nanoseconds (ttl_ns, backoff_base_ns), a latency as its median
	// and p99 (_ns, _p99_ns), an enumeration by its value's name. Package
	// sim writes and reads it.
	Queue Settings `json:"queue,omitempty"`
}

// ModelStep is one step of a Model (provider.Step): its name, then each
// setting of decl.StepSettings under its key (package sim writes and
// reads them from the table, so a setting declared there is written with
// no field here): a probability as a number, a flag as a boolean, a
// latency as its median and p99 in whole nanoseconds (latency_ns,
// latency_p99_ns), the step's own attempts, key mode and backoff (policy,
// base_ns, cap_ns) each left out where the step keeps the run's: without
// them a merge would rebuild a step that retries as the run does, and its
// closed forms would not be the run's. It writes and reads as one JSON
// object.
type ModelStep struct {
	Name string `json:"name"`
	Settings
}

// MarshalJSON writes the step's name, then its settings, as one object.
func (st ModelStep) MarshalJSON() ([]byte, error) { return writeNamed(st.Name, st.Settings) }

// UnmarshalJSON reads what MarshalJSON writes: a name, which must be a
// text, and every other key as one of the settings, in order.
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

// readNamed reads what writeNamed writes: the name, which must be a text,
// and every other key as one of the settings, in order.
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

// maxAttempts is the most calls any step of m may make in one retry loop:
// its own attempts where it has them, the run's otherwise.
func (m *Model) maxAttempts(run int) int {
	n := run
	for _, st := range m.Steps {
		if a, ok := st.Lookup("attempts").(int64); ok {
			n = max(n, int(a))
		}
	}
	return n
}

// ModelWatch is one watched step of a Model (provider.Watch).
type ModelWatch struct {
	Step  int    `json:"step"`
	Label string `json:"label"`
}

// check refuses what no run writes in a model of steps steps: another number
// of steps. Its texts Shard.Check has found printable; the values' own
// bounds (the probabilities, durations, a step's own attempts, the names of
// stores and key modes) package sim checks with the validators the flags
// use.
func (m *Model) check(steps int) error {
	if len(m.Steps) != steps {
		return fmt.Errorf("model.steps: %d steps, but the run has %d", len(m.Steps), steps)
	}
	return nil
}

// stepsLeftOut refuses, in a shard file's data, a step's own attempts,
// keys or backoff written with the value that means "the run's" (0, "" or
// null): -shard leaves the field out instead (omitempty), so such a field
// is one no run wrote, and "attempts": 0 read silently as the run's
// attempts would run a step otherwise than the file seems to say.
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

// deliveriesPerJob is the most deliveries a job of the queue q gets:
// max_deliveries for its message, twice that when a request may be sent
// twice (repeat above 0); a max_deliveries that is no whole number at
// least 1 is refused.
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

// CheckDelivery reports the first counter of c that no run of the delivery
// model could have produced, naming its field, when each of c.Jobs jobs runs
// steps steps, a retry allows attempts calls and a job gets at most
// deliveries deliveries. Each delivery makes at most steps x attempts calls
// (any number when attempts is 0, as Check takes it);
// a crash before any call means a job may make none, and a job that lost its
// work succeeded without doing every step, so the bounds are looser than
// Check's. Every job counts one completion time: in completion if it
// succeeded, in failed_completion if it failed.
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

// over reports whether x > each x jobs, for x, each > 0 and jobs >= 0,
// without the product, which may overflow.
func over(x, each, jobs int64) bool {
	return x/each > jobs || x/each == jobs && x%each != 0
}
