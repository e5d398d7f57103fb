package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Settings are a model's settings as a shard's model or an output's echo writes them, in the order
// of the model's settings table, written as one JSON object.
type Settings []Setting

// Setting is one of Settings: an int64, a float64, a string, a bool, or Settings of its own (a
// step's backoff).
type Setting struct {
	Key   string
	Value any
}

// Lookup is the value under key, nil when s has none.
func (s Settings) Lookup(key string) any {
	for _, x := range s {
		if x.Key == key {
			return x.Value
		}
	}
	return nil
}

// Set sets the value under key, in its place when s has one, or last.
func (s *Settings) Set(key string, v any) {
	for i, x := range *s {
		if x.Key == key {
			(*s)[i].Value = v
			return
		}
	}
	*s = append(*s, Setting{Key: key, Value: v})
}

// MarshalJSON writes s as a JSON object of its keys, in order.
func (s Settings) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, x := range s {
		switch x.Value.(type) {
		case int64, float64, string, bool, Settings:
		default:
			return nil, fmt.Errorf("setting %s: %T is not an int64, a float64, a string, a bool or Settings", x.Key, x.Value)
		}
		key, err := json.Marshal(x.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(x.Value)
		if err != nil {
			return nil, fmt.Errorf("setting %s: %w", x.Key, err)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, key...), ':'), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads a JSON object of numbers, strings, booleans and such objects, in order, a whole
// number as an int64; it refuses a key given twice, arrays, null and numbers beyond a float64.
func (s *Settings) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("want an object of settings")
	}
	out := Settings{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // the decoder reads a key where one is due
		if seen[key] {
			return fmt.Errorf("%s: given twice", key)
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		v, err := settingValue(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		out = append(out, Setting{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	*s = out
	return nil
}

// settingValue is the JSON value raw as a Setting's value.
func settingValue(raw json.RawMessage) (any, error) {
	switch raw[0] {
	case '"':
		var text string
		err := json.Unmarshal(raw, &text)
		return text, err
	case 't', 'f':
		return raw[0] == 't', nil
	case '{':
		var in Settings
		err := in.UnmarshalJSON(raw)
		return in, err
	case '[', 'n':
		return nil, errors.New("want a number, a string, a boolean or an object")
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, nil
	}
	if x, err := strconv.ParseFloat(string(raw), 64); err == nil {
		return x, nil
	}
	return nil, fmt.Errorf("%s is not a number a setting may be", raw)
}
