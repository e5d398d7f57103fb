package render

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/human"
)

// fleetSettings are the settings a run read, keyed by decl.Params[fleet.Config] keys.
func fleetSettings(c fleet.Config) []field {
	unread := c.Unread()
	f := []field{{"duration", durationValue(c.Duration.Seconds())}}
	for _, p := range decl.Params[fleet.Config]() {
		if unread[p.Path] != "" {
			continue
		}
		if p.Path == "outage.mode" {
			f = append(f, field{"outage", windowValue{c.Outage.From.Seconds(), c.Outage.To.Seconds()}})
		}
		v := fieldValue(p.Field(&c))
		if own := c.Client.Policy.Own; own != nil && p.Path == "client.policy.kind" {
			v = own.Name
		}
		f = append(f, field{p.Key, v})
	}
	return f
}

// fieldValue is the value a setting's field holds as the echo writes it, nil if none.
func fieldValue(f any) any {
	switch v := f.(type) {
	case *float64:
		return *v
	case *bool:
		return *v
	case *int:
		return int64(*v)
	case *time.Duration:
		return durationValue(v.Seconds())
	case encoding.TextMarshaler:
		b, _ := v.MarshalText()
		return string(b)
	}
	return nil
}

// durationValue is a setting's time in seconds.
type durationValue float64

// goText is d as time.Duration writes it.
func (d durationValue) goText() string {
	return time.Duration(math.Round(float64(d) * float64(time.Second))).String()
}

// MarshalJSON writes d as time.Duration does, a json string.
func (d durationValue) MarshalJSON() ([]byte, error) { return json.Marshal(d.goText()) }

// windowValue is the outage window from:to in seconds.
type windowValue struct{ from, to float64 }

// goText is w as -outage takes it, each end as time.Duration writes it.
func (w windowValue) goText() string {
	return durationValue(w.from).goText() + ":" + durationValue(w.to).goText()
}

// MarshalJSON writes w as goText does, a json string.
func (w windowValue) MarshalJSON() ([]byte, error) { return json.Marshal(w.goText()) }

// peopleText is a setting's value for people: times as human.Seconds writes them.
func peopleText(v any) string {
	switch x := v.(type) {
	case durationValue:
		return human.Seconds(float64(x))
	case windowValue:
		return human.Seconds(x.from) + ":" + human.Seconds(x.to)
	}
	return text(v)
}

// settingsObject is settings keyed as a scenario file keys them (_ for -).
func settingsObject(settings []field) []field {
	return mapped(settings, func(s field) field {
		return field{strings.ReplaceAll(s.key, "-", "_"), s.value}
	})
}

// fleetGroups are the settings that start a group of describeSome's line.
var fleetGroups = map[string]bool{"outage": true, "server": true, "net": true, "clients": true, "policy": true, "hedges": true}

// describeSome is the settings keep accepts for people on one line, a "; " between groups.
func describeSome(settings []field, keep func(field) bool) string {
	var b strings.Builder
	group, last := 0, -1
	for _, s := range settings {
		if fleetGroups[s.key] {
			group++
		}
		if s.key == "duration" || !keep(s) {
			continue
		}
		switch {
		case b.Len() == 0:
		case group != last:
			b.WriteString("; ")
		default:
			b.WriteString(", ")
		}
		last = group
		b.WriteString(s.key + " " + peopleText(s.value))
	}
	return b.String()
}

// wrapSettings breaks describeSome's line after a "; " or ", " to width columns.
func wrapSettings(line string, width int) string {
	var items []string // each with the separator that ends it
	for len(line) > 0 {
		item := line
		if i := strings.IndexAny(line, ",;"); i >= 0 {
			item = line[:i+1]
		}
		items, line = append(items, item), strings.TrimPrefix(line[len(item):], " ")
	}
	return strings.TrimSuffix(human.Fill(items, "", "", width), "\n")
}

// settingsLines are the html page's lines naming what runs ran.
func settingsLines(names []string, cfgs []fleet.Config) []string {
	common, own := splitSettings(cfgs)
	if len(cfgs) == 1 {
		return []string{"settings: " + own[0]}
	}
	lines := []string{"every run: " + common}
	for i := range own {
		lines = append(lines, names[i]+": "+own[i])
	}
	return lines
}

// splitSettings describes the settings every run shares, and each run's own.
func splitSettings(cfgs []fleet.Config) (common string, own []string) {
	all := mapped(cfgs, fleetSettings)
	if len(all) == 1 {
		return "", []string{describeSome(all[0], func(field) bool { return true })}
	}
	shared := func(s field) bool {
		for _, other := range all {
			if !slices.Contains(other, s) {
				return false
			}
		}
		return true
	}
	for _, settings := range all {
		own = append(own, describeSome(settings, func(s field) bool { return !shared(s) }))
	}
	return describeSome(all[0], shared), own
}

// runParams are a page's first parameter lines: the model, replicates, seed and source.
func runParams(model, source string, replicates int, seed uint64) []string {
	var ps []string
	if model != "" {
		ps = append(ps, "model: "+model)
	}
	ps = append(ps, fmt.Sprintf("%s a run, seed %d", replicatesText(replicates), seed))
	if source != "" {
		ps = append(ps, "source: "+source)
	}
	return ps
}

// replicatesNoted is replicatesText(n), then note in brackets when n > 1.
func replicatesNoted(n int, note string) string {
	if n > 1 {
		return replicatesText(n) + " (" + note + ")"
	}
	return replicatesText(n)
}

// replicatesText is "n replicates", "1 replicate" for one.
func replicatesText(n int) string { return human.Count(int64(n), "replicate") }

// FleetParams is the params object the json format writes for a run of c.
func FleetParams(c fleet.Config) (json.RawMessage, error) {
	return object(settingsObject(fleetSettings(c)))
}
