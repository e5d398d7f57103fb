package stats_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/retrysim/retrysim/internal/stats"
)

// everyText is twoJobsQueue with every text a shard can carry filled in: a
// scenario file's step_params (a step with its own policy) and overrides.
func everyText(t *testing.T) map[string]any {
	t.Helper()
	sh := twoJobsQueue()
	sh.File, sh.Overrides = "two.yaml", "-store claim"
	ownPolicy(&sh.Model.Steps[1])
	sh.StepList = &[]stats.StepParams{{Name: "charge", Settings: stats.Settings{{Key: "p_fail", Value: 0.5}, {Key: "lost_reply", Value: 0.0}, {Key: "latency", Value: "fixed 10ms"}, {Key: "keys", Value: false}}},
		{Name: "email", Settings: stats.Settings{{Key: "p_fail", Value: 0.5}, {Key: "lost_reply", Value: 0.5}, {Key: "latency", Value: "fixed 10ms"}, {Key: "keys", Value: false},
			{Key: "attempts", Value: int64(5)}, {Key: "key_mode", Value: "same"}, {Key: "backoff", Value: "constant base 50ms"}}}}
	if err := sh.Check(); err != nil {
		t.Fatalf("everyText: Check() = %v; want nil", err)
	}
	var m map[string]any
	if err := json.Unmarshal(mustJSON(t, sh), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// set sets the field at path (model.steps[1].keys) of a decoded JSON
// object, which must be there already; v nil removes it.
func set(t *testing.T, m map[string]any, path string, v any) {
	t.Helper()
	var cur any = m
	parts := strings.Split(strings.NewReplacer("[", ".", "]", "").Replace(path), ".")
	for i, p := range parts {
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if _, ok := c[p]; !ok {
				t.Fatalf("%s: no %s", path, p)
			}
			if last {
				if v == nil {
					delete(c, p)
				} else {
					c[p] = v
				}
				return
			}
			cur = c[p]
		case []any:
			n, err := strconv.Atoi(p)
			if err != nil || n >= len(c) {
				t.Fatalf("%s: no [%s]", path, p)
			}
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		default:
			t.Fatalf("%s: %s is in a %T", path, p, cur)
		}
	}
}

func read(t *testing.T, m map[string]any) error {
	t.Helper()
	_, err := stats.ReadShard(bytes.NewReader(mustJSON(t, m)))
	return err
}

// Every text of a shard file ends up in a title, a table or an error, so a
// control character in any of them is refused by the reader with the field
// named, not later by the simulator (the key mode and backoff policy were
// read past, to an "unknown key mode" error that needed the engine). The
// paths are the file's, listed by hand from a shard -shard writes.
func TestReadShardRefusesControlCharactersInEveryText(t *testing.T) {
	if err := read(t, everyText(t)); err != nil {
		t.Fatalf("ReadShard(everyText) = %v; want nil", err)
	}
	for _, path := range []string{
		"scenario", "scenario_file", "overrides", "rng", "engine",
		"step_params[1].name", "step_params[1].latency", "step_params[1].key_mode", "step_params[1].backoff",
		"delivery.store", "delivery.ttl", "delivery.lease", "delivery.visibility", "delivery.repeat_delay",
		"delivery.crash_at", "delivery.backoff", "delivery.latency",
		"model.name", "model.noun", "model.steps[1].name", "model.steps[1].keys", "model.steps[1].backoff.policy",
		"model.watched[0].label", "model.queue.store", "model.queue.crash_at", "model.queue.backoff",
		"rows[1].strategy", "rows[1].label",
	} {
		m := everyText(t)
		set(t, m, path, "same\x1b[2J")
		err := read(t, m)
		want := path + `: "same\x1b[2J" holds a control character`
		if err == nil || err.Error() != want {
			t.Errorf("ReadShard with a control character in %s = %v; want %q", path, err, want)
		}
	}
}

// -shard leaves a step's own attempts, keys and backoff out where the step
// keeps the run's; written out with the value that means so (0, "", null),
// the field is one no run wrote, and "attempts": 0 would silently run the
// run's attempts. The reader refuses each, naming it.
func TestReadShardRefusesAStepPolicyWrittenAsTheRuns(t *testing.T) {
	for _, tt := range []struct {
		path string
		v    any
		want string
	}{
		{"model.steps[1].attempts", 0.0, "model.steps[1].attempts: 0 is not a number of attempts; a step that keeps the run's leaves the field out"},
		{"model.steps[1].keys", "", `model.steps[1].keys: "" is not a key mode; a step that keeps the run's leaves the field out`},
		{"model.steps[1].backoff", json.RawMessage("null"), "model.steps[1].backoff: null is not a backoff; a step that keeps the run's leaves the field out"},
		{"model.steps[1].attempts", json.RawMessage("null"), "model.steps[1].attempts: null is not a number of attempts; a step that keeps the run's leaves the field out"},
		{"model.steps[1].keys", json.RawMessage("null"), "model.steps[1].keys: null is not a key mode; a step that keeps the run's leaves the field out"},
	} {
		m := everyText(t)
		set(t, m, tt.path, tt.v)
		if err := read(t, m); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ReadShard with %s = %v; want %q", tt.path, err, tt.want)
		}
		// Left out, the step keeps the run's, as -shard writes it.
		set(t, m, tt.path, nil)
		if err := read(t, m); err != nil {
			t.Errorf("ReadShard without %s = %v; want nil", tt.path, err)
		}
	}
}

// printableJSON reports the first string of a JSON document, key or value,
// that holds a control character.
func printableJSON(data []byte) (string, bool) {
	var walk func(v any) (string, bool)
	walk = func(v any) (string, bool) {
		switch x := v.(type) {
		case string:
			return x, strings.IndexFunc(x, unicode.IsControl) < 0
		case []any:
			for _, e := range x {
				if s, ok := walk(e); !ok {
					return s, false
				}
			}
		case map[string]any:
			for k, e := range x {
				if s, ok := walk(k); !ok {
					return s, false
				}
				if s, ok := walk(e); !ok {
					return s, false
				}
			}
		}
		return "", true
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return "", true
	}
	return walk(v)
}
