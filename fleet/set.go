package fleet

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/pathtext"
)

// graphPathRE splits a path of Graph.Set: an entry, or a service and its
// call, and the rest.
var graphPathRE = regexp.MustCompile(`^(?:entries\[(\d+)\]|services\[([^\]]*)\](?:\.calls\[(\d+)\])?)\.(.+)$`)

// Set sets the setting at path in g to value, as a scenario file names and
// writes it (graph.services[db].server.capacity, 8); a refusal is a
// *schema.FieldError, g unchanged.
func (g *Graph) Set(path, value string) error {
	rest, ok := strings.CutPrefix(path, "graph.")
	if !ok {
		return pathtext.Errorf(path, "not a path of a graph (graph.entries[0].client.timeout, graph.services[NAME].server.capacity)")
	}
	h := *g
	h.Entries, h.Services = slices.Clone(g.Entries), slices.Clone(g.Services) // what g shares with another graph stays as it is
	if err := h.set(path, rest, value); err != nil {
		return err
	}
	*g = h
	return nil
}

// graphPaths are the forms of a graph's paths, for a refusal.
const graphPaths = "graph.KEY, graph.entries[i].KEY, .load.KEY or .client.KEY, graph.services[NAME].server.KEY, .outage.KEY or .parallel, graph.services[NAME].calls[j].client.KEY; retrysim help scenario lists the keys"

// set is Set of rest, path without graph., in g, which owns its slices.
func (g *Graph) set(path, rest, value string) error {
	for _, p := range decl.GraphParams[Graph]() {
		if p.Key == rest {
			return setValue(path, p.Field(g), value)
		}
	}
	m := graphPathRE.FindStringSubmatch(rest)
	if m == nil {
		return pathtext.Errorf(path, "no setting of a graph has this path (%s)", graphPaths)
	}
	entry, service, call, key := m[1], m[2], m[3], m[4]
	if entry != "" {
		k, _ := strconv.Atoi(entry)
		if k >= len(g.Entries) {
			return pathtext.Errorf(path, "the graph has %d entries", len(g.Entries))
		}
		e := &g.Entries[k]
		for _, p := range decl.EntryParams[Entry]() {
			if p.Key != key {
				continue
			}
			if text, ok := p.Field(e).(encoding.TextMarshaler); ok && p.Sets != nil {
				if b, _ := text.MarshalText(); string(b) == p.Default { // given where it was left out, as a file gives it
					p.Sets(e)
				}
			}
			if err := setValue(path, p.Field(e), value); err != nil {
				return err
			}
			if x, ok := p.Field(e).(*float64); ok && !(*x >= 0 && *x <= 1) { // an entry's numbers are probabilities
				return pathtext.Errorf(path, "%g is not a probability in [0, 1]", *x)
			}
			return nil
		}
		c := Config{Load: e.Load, Client: e.Client}
		err := setSection(path, key, &c, value, "load", "client")
		e.Load, e.Client = c.Load, c.Client
		return err
	}
	v := slices.IndexFunc(g.Services, func(n Node) bool { return n.Name == service })
	if k, err := strconv.Atoi(service); v < 0 && err == nil && k >= 0 && k < len(g.Services) {
		v = k
	}
	if v < 0 {
		return pathtext.Errorf(path, "no service is called %q (the graph's: %s)", service, g.serviceNames())
	}
	n := &g.Services[v]
	if call != "" {
		i, _ := strconv.Atoi(call)
		if i >= len(n.Calls) {
			return pathtext.Errorf(path, "service %q makes %d calls", n.Name, len(n.Calls))
		}
		n.Calls = slices.Clone(n.Calls)
		c := Config{Client: n.Calls[i].Client}
		err := setSection(path, key, &c, value, "client")
		n.Calls[i].Client = c.Client
		return err
	}
	switch key {
	case "parallel":
		return setValue(path, &n.Parallel, value)
	case "outage.from":
		return setValue(path, &n.Outage.From, value)
	case "outage.to":
		return setValue(path, &n.Outage.To, value)
	}
	c := Config{Server: n.Server, Outage: n.Outage}
	err := setSection(path, key, &c, value, "server", "outage")
	n.Server, n.Outage = c.Server, c.Outage
	return err
}

// setSection sets the setting SECTION.KEY (decl.SectionKey) of c, its
// section one of sections, to value.
func setSection(path, key string, c *Config, value string, sections ...string) error {
	section, k, _ := strings.Cut(key, ".")
	if slices.Contains(sections, section) {
		for _, p := range decl.Params[Config]() {
			if strings.HasPrefix(p.Path, section+".") && decl.SectionKey(section, p) == k {
				return setParam(path, p, c, value)
			}
		}
	}
	return pathtext.Errorf(path, "no setting of a graph has this path (%s)", graphPaths)
}

// checkBounds refuses the value of p in c outside p's bounds.
func checkBounds(path string, p decl.Param[Config], c *Config) error {
	switch v := p.Field(c).(type) {
	case *float64:
		if p.Probability && !(*v >= 0 && *v <= 1) {
			return pathtext.Errorf(path, "%g is not a probability in [0, 1]", *v)
		}
		if p.Hi > p.Lo && !(*v >= p.Lo && *v <= p.Hi) {
			return pathtext.Errorf(path, "%g is not from %g to %g", *v, p.Lo, p.Hi)
		}
	case *int:
		if p.Hi > p.Lo && (*v < int(p.Lo) || *v > int(p.Hi)) {
			return pathtext.Errorf(path, "%d is not a whole number from %g to %g", *v, p.Lo, p.Hi)
		}
	}
	return nil
}

// setValue sets *field, of a setting's types, from value.
func setValue(path string, field any, value string) error {
	var err error
	switch f := field.(type) {
	case *string:
		*f = value
		return nil
	case *float64:
		var x float64
		if x, err = strconv.ParseFloat(value, 64); err == nil && !math.IsNaN(x) {
			*f = x
			return nil
		}
		return pathtext.Errorf(path, "%q is not a number", value)
	case *int:
		var x int
		if x, err = strconv.Atoi(value); err == nil {
			*f = x
			return nil
		}
		return pathtext.Errorf(path, "%q is not a whole number", value)
	case *bool:
		var b bool
		if b, err = strconv.ParseBool(value); err == nil && (value == "true" || value == "false") {
			*f = b
			return nil
		}
		return pathtext.Errorf(path, "%q is not true or false", value)
	case *time.Duration:
		var d time.Duration
		if d, err = time.ParseDuration(value); err == nil {
			*f = d
			return nil
		}
		return pathtext.Errorf(path, "%q is not a duration such as 250ms or 2s", value)
	case encoding.TextUnmarshaler:
		if err = f.UnmarshalText([]byte(value)); err != nil {
			return pathtext.Errorf(path, "%v", err)
		}
		return nil
	}
	panic(fmt.Sprintf("fleet: the setting %s is a %T", path, field))
}

// Set sets the setting at path in w to value, as Graph.Set does in w's
// graph (graph.entries[0] the queue, graph.services[workers] the workers).
func (w *Workers) Set(path, value string) error {
	g := w.Graph()
	if err := g.Set(path, value); err != nil {
		return err
	}
	back := workersOf(g)
	if !reflect.DeepEqual(back.Graph(), g) {
		return pathtext.Errorf(path, "a worker fleet does not hold this setting of its graph")
	}
	*w = back
	return nil
}

// workersOf is the worker fleet whose graph (Workers.Graph) is g.
func workersOf(g Graph) Workers {
	e, ws := g.Entries[0], g.Services[0]
	steps := make([]WorkerStep, len(ws.Calls))
	for i, c := range ws.Calls {
		steps[i] = WorkerStep(c)
	}
	return Workers{Name: g.Name, Duration: g.Duration, Net: g.Net, Load: e.Load, Queue: e.Client,
		EntrySettings: e.EntrySettings, WorkerCount: ws.Server.Workers, QueueMax: ws.Server.QueueMax, Down: ws.Outage,
		Steps: steps, Dependencies: g.Services[1:]}
}

// Set sets the setting at path (client.timeout) or scenario key (capacity)
// in c to value; a refusal is a *schema.FieldError, c unchanged.
func (c *Config) Set(path, value string) error {
	p, ok := lookupSetting(path)
	if !ok {
		return pathtext.Errorf(path, "no setting of a fleet run has this path or key (load.rate, server.workers or capacity, client.timeout, client.policy.kind; retrysim help scenario lists the fleet section's keys)")
	}
	d := *c
	if err := setParam(path, p, &d, value); err != nil {
		return err
	}
	*c = d
	return nil
}

// setParam sets p in c to value and refuses it outside p's bounds.
func setParam(path string, p decl.Param[Config], c *Config, value string) error {
	if err := setValue(path, p.Field(c), value); err != nil {
		return err
	}
	return checkBounds(path, p, c)
}

// lookupSetting is the setting whose Path, or else scenario key, is path.
func lookupSetting(path string) (decl.Param[Config], bool) {
	if p, ok := decl.LookupParam[Config](path); ok {
		return p, true
	}
	return decl.LookupKey[Config](strings.ReplaceAll(path, "_", "-"))
}
