package retrysim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
)

// signupWatched are the built-in sign-up's watched steps, which its reports' json leaves out.
func signupWatched() (provider.Scenario, []stats.Watch) {
	sc := provider.Signup(0, 0)
	return sc, jobapi.Watches(sc)
}

// echoWatched reports whether the json of a report of p names its watched steps by number: not a
// scenario file's or the built-in sign-up's.
func echoWatched(p stats.Params) bool {
	if p.StepList != nil {
		return false
	}
	_, ws := signupWatched()
	return !(p.Scenario == "signup" && reflect.DeepEqual(p.Watched, ws))
}

// readStepTypes gives each setting of steps read from json its echo's type (a probability 0 is a
// float64), refusing another.
func readStepTypes(steps []stats.StepParams) error {
	for i, st := range steps {
		for k, x := range st.Settings {
			j := slices.IndexFunc(decl.EchoedStepSettings(), func(s decl.StepSetting) bool { return s.Echo == x.Key })
			if j < 0 {
				continue // no setting of this program's: kept as read
			}
			if _, isFloat := decl.EchoedStepSettings()[j].Get(provider.Step{}).(float64); !isFloat {
				continue
			}
			switch v := x.Value.(type) {
			case int64:
				st.Settings[k].Value = float64(v)
			case float64:
			default:
				return fmt.Errorf("step_params[%d].%s: %v is not a number", i, x.Key, v)
			}
		}
	}
	return nil
}

// MarshalJSON writes the report as the command's json format prints it, without expectations: the
// parameters as used, then a row a strategy with its counters and every metric with its 95% interval.
func (r Report) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := reportjson.WriteReport(&b, r.results(false, false)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalJSON reads a report from the json MarshalJSON, or the command, writes: its parameters,
// watched steps and the counters the json carries. What the json does not carry is zero
// (histograms, replicates' values, expectations, side_effects); a report of one replicate of the
// job model writes the same json again.
func (r *Report) UnmarshalJSON(data []byte) error {
	var doc struct {
		stats.Params
		Watched json.RawMessage              `json:"watched"`
		Rows    []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	out := Report{params: doc.Params}
	p := &out.params
	switch {
	case len(doc.Watched) > 0 && p.StepList != nil: // a file's: by step name
		if err := json.Unmarshal(doc.Watched, &p.Watched); err != nil {
			return fmt.Errorf("watched: %w", err)
		}
		for k, w := range p.Watched {
			p.Watched[k].Step = slices.IndexFunc(*p.StepList, func(st stats.StepParams) bool { return st.Name == w.Name })
			if p.Watched[k].Step < 0 {
				return fmt.Errorf("watched[%d]: no step is named %q", k, w.Name)
			}
		}
	case len(doc.Watched) > 0:
		var ws []stats.EchoWatch
		if err := json.Unmarshal(doc.Watched, &ws); err != nil {
			return fmt.Errorf("watched: %w", err)
		}
		for k, w := range ws {
			if w.Step < 1 || w.Step > stats.MaxSteps {
				return fmt.Errorf("watched[%d].step: %d is not from 1 to %d", k, w.Step, stats.MaxSteps)
			}
			p.Watched = append(p.Watched, stats.Watch{Step: w.Step - 1, Name: w.Name, Label: w.Label})
		}
	case p.Scenario == "signup" && p.StepList == nil:
		sc, ws := signupWatched()
		p.Watched, p.Noun = ws, sc.Noun
		p.LossyStep = ws[0].Name
	}
	var names []string
	if p.StepList != nil {
		if err := readStepTypes(*p.StepList); err != nil {
			return err
		}
		for _, st := range *p.StepList {
			names = append(names, st.Name)
			if pol := st.Policy(); pol != (stats.StepPolicy{Step: st.Name}) {
				p.Policies = append(p.Policies, pol)
			}
		}
	} else if p.Scenario == "signup" {
		sc, _ := signupWatched()
		for _, st := range sc.Steps {
			names = append(names, st.Name)
		}
	}
	if p.Delivery != nil {
		for i := range p.Steps {
			name := "step " + strconv.Itoa(i+1)
			if i < len(names) {
				name = names[i]
			}
			p.Delivery.StepNames = append(p.Delivery.StepNames, name)
		}
	}
	for i, fields := range doc.Rows {
		row, err := rowOf(fields)
		if err != nil {
			return fmt.Errorf("rows[%d].%w", i, err)
		}
		row.steps = p.Steps
		out.Rows = append(out.Rows, row)
	}
	out.Experiment = Experiment{Jobs: p.Jobs, Seed: p.Seed, Generator: p.RNG, Engine: p.Engine, Replicates: p.Replicates}
	*r = out
	return nil
}

// rowOf reads a row's counters from its json fields.
func rowOf(fields map[string]json.RawMessage) (Row, error) {
	var row Row
	c := &row.counters
	for _, f := range []struct { // in a fixed order, so that the same bad field is named every time
		key string
		dst any
	}{
		{"strategy", &row.ID}, {"label", &row.Label}, {"jobs", &c.Jobs}, {"failed", &c.Failed}, {"calls", &c.Calls},
		{"repeated_steps", &c.RepeatedSteps}, {"duplicate_users", &c.DuplicateUsers}, {"calls_sq", &c.CallsSq},
		{"repeated_steps_sq", &c.RepeatedSq}, {"deliveries", &c.Deliveries}, {"lost_work", &c.LostWork},
	} {
		if raw, ok := fields[f.key]; ok {
			if err := json.Unmarshal(raw, f.dst); err != nil {
				return Row{}, fmt.Errorf("%s: %w", f.key, err)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(fields)) {
		dst := &c.TwiceByStep
		rest, ok := strings.CutPrefix(key, "duplicate_users_step_")
		if !ok {
			dst = &c.RepeatedByStep
			if rest, ok = strings.CutPrefix(key, "repeated_step_"); !ok {
				continue
			}
		}
		step, err := strconv.Atoi(rest)
		if err != nil || step < 1 || step > stats.MaxSteps {
			return Row{}, fmt.Errorf("%s: no such step", key)
		}
		if err := json.Unmarshal(fields[key], &dst[step-1]); err != nil {
			return Row{}, fmt.Errorf("%s: %w", key, err)
		}
	}
	// Only a strategy that cannot repeat a side effect has the interval [0, 0].
	var hi *float64
	if raw, ok := fields["repeated_per_job_hi"]; ok {
		if err := json.Unmarshal(raw, &hi); err != nil {
			return Row{}, fmt.Errorf("repeated_per_job_hi: %w", err)
		}
	}
	row.noRepeats = hi != nil && *hi == 0 && c.Jobs > 0
	return row, nil
}
