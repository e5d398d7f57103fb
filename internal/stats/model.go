package stats

import (
	"encoding/json"
	"fmt"
	"slices"
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

// over reports whether x > each*jobs without the product, which may overflow.
func over(x, each, jobs int64) bool {
	return x/each > jobs || x/each == jobs && x%each != 0
}
