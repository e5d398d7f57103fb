package scenario

import (
	"encoding"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Graph is a scenario file's graph section: the call graph retrysim graph
// runs, checked by fleet.Graph.Check, and where each of its keys is in the
// file, so that a refusal of the graph as a whole names a line.
type Graph struct {
	Graph fleet.Graph
	file  string
	// lines maps the path of every key and list item the section gives
	// (graph.services[1].calls[0].client.attempts) to its line.
	lines map[string]int
}

// Line is the line of the key or item at path (graph.duration) when the
// file gives it, 0 when it leaves it out.
func (g *Graph) Line(path string) int { return g.lines[path] }

// graphSections are the mappings of a graph section whose keys are the
// fleet schema's settings (decl.Params[fleet.Config]): those whose path starts with the
// section's name.
var graphSections = []string{"load", "server", "outage", "client"}

// sectionParams maps each key of the section to its setting.
func sectionParams(section string) map[string]decl.Param[fleet.Config] {
	m := map[string]decl.Param[fleet.Config]{}
	for _, p := range decl.Params[fleet.Config]() {
		if strings.HasPrefix(p.Path, section+".") {
			m[decl.SectionKey(section, p)] = p
		}
	}
	return m
}

// outageWindow are the outage section's keys that no decl.Param[fleet.Config] holds
// (the fleet model's outage window, Outage.From and Outage.To).
var outageWindow = []string{"from", "to"}

// graphReader reads one graph section.
type graphReader struct {
	file  string
	lines map[string]int
	// pushback are the keys server.pushback and client.honour_pushback
	// given, whose use depends on the graph around them: checked once
	// every service is read (checkPushback).
	pushback []pushbackKey
}

// pushbackKey is a pushback key given in the file: where, and the service
// it is of (server.pushback) or that its call goes to
// (client.honour_pushback).
type pushbackKey struct {
	key     *yaml.Node
	path    string
	service string
	client  bool
}

// inGraph are the settings whose use in a graph depends on the services
// around them, not on their own section: a service forwards a "do not
// retry" from below (server.pushback with calls), and a client can hear
// one only from a service that sends it.
var inGraph = map[string]bool{"server.pushback": true, "client.honour_pushback": true}

// fail is an Error at node k (a key or an item) of the field at path.
func (r *graphReader) fail(k *yaml.Node, path, msg string) error {
	return &Error{File: r.file, Line: k.Line, Field: path, Msg: msg}
}

// mapping checks that n is a mapping with only the keys allowed, records
// each key's line under path, and returns the values by key (with - read
// as _). what says what n should be.
func (r *graphReader) mapping(n *yaml.Node, path, what string, allowed []string) (map[string]*yaml.Node, []*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, r.fail(n, path, "want "+what)
	}
	vals := map[string]*yaml.Node{}
	var keys []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 { // checkKeys has refused duplicates
		k, v := n.Content[i], n.Content[i+1]
		key := strings.ReplaceAll(k.Value, "-", "_")
		if !slices.Contains(allowed, key) {
			return nil, nil, r.fail(k, path+"."+k.Value, fmt.Sprintf("unknown key (want %s)", andList(allowed)))
		}
		vals[key] = v
		keys = append(keys, k)
		r.lines[path+"."+key] = k.Line
	}
	return vals, keys, nil
}

// list checks that n is a list and records each item's line; how many
// items a graph may have is fleet.Graph.Check's to say.
func (r *graphReader) list(n *yaml.Node, path, what string) error {
	if n.Kind != yaml.SequenceNode {
		return r.fail(n, path, "want "+what)
	}
	for i, c := range n.Content {
		r.lines[fmt.Sprintf("%s[%d]", path, i)] = c.Line
	}
	return nil
}

// text reads a name.
func (r *graphReader) text(v *yaml.Node, path string) (string, error) {
	var s string
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || v.Decode(&s) != nil {
		return "", r.fail(v, path, fmt.Sprintf("%q is not a name", v.Value))
	}
	if err := stats.CheckName(s); err != nil {
		return "", r.fail(v, path, err.Error())
	}
	return s, nil
}

// flag reads true or false.
func (r *graphReader) flag(v *yaml.Node, path string) (bool, error) {
	var b bool
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || v.Decode(&b) != nil {
		return false, r.fail(v, path, fmt.Sprintf("%q is not true or false", v.Value))
	}
	return b, nil
}

// time reads a duration such as 250ms or 2s.
func (r *graphReader) time(v *yaml.Node, path string) (time.Duration, error) {
	var d duration
	if err := v.Decode(&d); err != nil {
		msg := fmt.Sprintf("%q is not a duration such as 250ms or 2s", v.Value)
		var fe *fieldError
		if errors.As(err, &fe) {
			msg = fe.msg
		}
		return 0, r.fail(v, path, msg)
	}
	return d.v, nil
}

// entrySetting reads v into setting p of entry en (decl.EntryParams[fleet.Entry]), as
// the delivery model's queue settings of the same names are read;
// fleet.Graph.Check holds it to its bounds.
func (r *graphReader) entrySetting(p decl.EntryParam[fleet.Entry], v *yaml.Node, path string, en *fleet.Entry) error {
	switch d := p.Field(en).(type) {
	case *float64:
		if v.Kind != yaml.ScalarNode || v.Decode(d) != nil || !(*d >= 0 && *d <= 1) {
			return r.fail(v, path, fmt.Sprintf("%q is not a probability from 0 to 1", v.Value))
		}
	case *bool:
		b, err := r.flag(v, path)
		if err != nil {
			return err
		}
		*d = b
	case *time.Duration:
		t, err := r.time(v, path)
		if err != nil {
			return err
		}
		*d = t
	case *int:
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || v.Decode(d) != nil {
			return r.fail(v, path, fmt.Sprintf("%q is not a whole number", v.Value))
		}
	case encoding.TextUnmarshaler:
		if v.Kind != yaml.ScalarNode || d.UnmarshalText([]byte(v.Value)) != nil {
			return r.fail(v, path, fmt.Sprintf("%q is not %s (want one of %s)", v.Value, p.Type, strings.Join(p.Names, ", ")))
		}
	default:
		panic("scenario: decl.EntryParam[fleet.Entry] " + p.Key + " has a field of a type the graph reader does not read")
	}
	if p.Sets != nil {
		p.Sets(en)
	}
	return nil
}

// entrySettings reads an entry's settings (decl.EntryParams[fleet.Entry]) from its
// mapping's values ev into en, in their order: a key whose Needs the file
// leaves out, or that the entry's other settings leave unread (a ttl with
// the store none), would do nothing and is refused.
func (r *graphReader) entrySettings(ev map[string]*yaml.Node, path string, en *fleet.Entry) error {
	params := decl.EntryParams[fleet.Entry]()
	for _, p := range params {
		v := ev[p.Key]
		if v == nil {
			continue
		}
		if p.Needs != "" && ev[p.Needs] == nil {
			return r.fail(v, path+"."+p.Key, fmt.Sprintf("needs %s.%s: without it, it does nothing", path, p.Needs))
		}
		if err := r.entrySetting(p, v, path+"."+p.Key, en); err != nil {
			return err
		}
	}
	for _, p := range params {
		if v := ev[p.Key]; v != nil && p.Unread != nil {
			if why := p.Unread(*en); why != "" {
				return r.fail(v, path+"."+p.Key, why)
			}
		}
	}
	return nil
}

// setting reads v into setting p of c as a fleet section's key is read
// (setParam), but for a whole number out of bounds, said as the fleet
// model says it; a backoff cap of 0 is no cap, as the fleet command's
// -backoff-cap 0.
func (r *graphReader) setting(p decl.Param[fleet.Config], v *yaml.Node, path string, c *fleet.Config) error {
	var w whole
	if _, ok := p.Field(c).(*int); ok && v.Decode(&w) == nil && (w.v < int(p.Lo) || w.v > int(p.Hi)) {
		return r.fail(v, path, fmt.Sprintf("%d is not a whole number from %g to %g", w.v, p.Lo, p.Hi))
	}
	if msg := setParam(p, c, v); msg != "" {
		return r.fail(v, path, msg)
	}
	return nil
}

// section reads the mapping n of section (load, server, outage, client)
// at path into c, starting from what c holds, then refuses a key whose
// setting c's run never reads (fleet.Config.Unread) and a value
// fleet.Config.Check refuses, each at its line.
func (r *graphReader) section(n *yaml.Node, path, section string, c *fleet.Config, service string) error {
	params := sectionParams(section)
	allowed := slices.Sorted(func(yield func(string) bool) {
		for k := range params {
			if !yield(k) {
				return
			}
		}
	})
	if section == "outage" {
		allowed = append(outageWindow, allowed...)
	}
	vals, keys, err := r.mapping(n, path, fmt.Sprintf("a mapping of %s settings", section), allowed)
	if err != nil {
		return err
	}
	for _, k := range keys {
		key := strings.ReplaceAll(k.Value, "-", "_")
		v := vals[key]
		if p, ok := params[key]; ok {
			if err := r.setting(p, v, path+"."+key, c); err != nil {
				return err
			}
			continue
		}
		t, err := r.time(v, path+"."+key) // from or to
		if err != nil {
			return err
		}
		if key == "from" {
			c.Outage.From = t
		} else {
			c.Outage.To = t
		}
	}
	if section == "outage" {
		if err := r.window(n, path, vals, c.Outage); err != nil {
			return err
		}
	}
	unread := decl.UnreadWhy[fleet.Config](*c)
	for _, k := range keys {
		key := strings.ReplaceAll(k.Value, "-", "_")
		p, ok := params[key]
		if !ok {
			continue
		}
		if inGraph[p.Path] {
			r.pushback = append(r.pushback, pushbackKey{k, path + "." + key, service, section == "client"})
			continue
		}
		if why, ok := unread[p.Path]; ok {
			return r.fail(k, path+"."+key, GraphWords(why))
		}
	}
	if err := c.Check(); err != nil {
		return r.located(err, path, section)
	}
	return nil
}

// window refuses an outage mapping n at path that is no window: empty, a
// from with no to, or a to not after from (as the fleet command's -outage
// refuses from:to with from >= to). A mapping of a mode alone is the
// fleet's to refuse.
func (r *graphReader) window(n *yaml.Node, path string, vals map[string]*yaml.Node, o fleet.Outage) error {
	const want = "want a window from < to, such as {from: 20s, to: 25s}"
	switch {
	case len(vals) == 0:
		return r.fail(n, path, "an empty outage; "+want+", or no outage key")
	case vals["from"] != nil && vals["to"] == nil:
		return r.fail(vals["from"], path+".from", fmt.Sprintf("needs %s.to: %s", path, want))
	case vals["to"] != nil && o.To <= o.From:
		return r.fail(vals["to"], path+".to", fmt.Sprintf("%s is not after from (%s): %s", o.To, o.From, want))
	}
	return nil
}

// located is err, a *schema.FieldError of a section's setting, at the line
// of its key in the section at path, or of the section when the file left
// the key out (a default refused with the others).
func (r *graphReader) located(err error, path, section string) error {
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	var field string
	if p, ok := decl.LookupParam[fleet.Config](fe.Field); ok && strings.HasPrefix(p.Path, section+".") {
		field = path + "." + decl.SectionKey(section, p)
	} else if rest, ok := strings.CutPrefix(fe.Field, section+"."); ok {
		field = path + "." + rest // outage.from, outage.to
	} else if section == "graph" {
		field = path + "." + fe.Field // duration, net
	} else { // another setting, with which this section's conflicts: said at the section
		return &Error{File: r.file, Line: r.lineOf(path), Field: path, Msg: graphKey(fe.Field) + " " + pathtext.FieldWords(fe, graphKey)}
	}
	return &Error{File: r.file, Line: r.lineOf(field), Field: field, Msg: pathtext.FieldWords(fe, graphKey)}
}

// lineOf is the line of the key or item at path, or of the nearest one
// that holds it.
func (r *graphReader) lineOf(path string) int {
	for {
		if line, ok := r.lines[path]; ok {
			return line
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return r.lines["graph"]
		}
		path = path[:i]
	}
}

// GraphWords is a fleet text (a reason Config.UnreadWhy gives, a Param's
// Usage) with each setting it names by path named as graphKey names it.
func GraphWords(t pathtext.Text) string { return t.Words(graphKey) }

// graphKey names the fleet setting at path as the graph section's key in
// its mapping (client.budget_ratio for client.policy.budget_ratio,
// server.kind for server.kind); a path no decl.Param[fleet.Config] declares, or of no
// mapping (net), is named as it is.
func graphKey(path string) string {
	p, ok := decl.LookupParam[fleet.Config](path)
	section, _, dotted := strings.Cut(path, ".")
	if !ok || !dotted {
		return path
	}
	return section + "." + decl.SectionKey(section, p)
}

// The keys of the graph section's mappings that are not settings of the
// fleet schema (decl.Params[fleet.Config], decl.EntryParams[fleet.Entry], decl.GraphParams[fleet.Graph]).
var (
	serviceKeys = []string{"name", "server", "outage", "calls", "parallel"}
	callKeys    = []string{"to", "client"}
)

// graphKeys are the keys of the graph mapping: its settings
// (decl.GraphParams[fleet.Graph]), then its entries and services.
func graphKeys() []string {
	var keys []string
	for _, p := range decl.GraphParams[fleet.Graph]() {
		keys = append(keys, p.Key)
	}
	return append(keys, "entries", "services")
}

// graphSetting reads v into field, a setting of the graph itself
// (decl.GraphParams[fleet.Graph]): a name, a duration or true or false.
func (r *graphReader) graphSetting(field any, v *yaml.Node, path string) error {
	var err error
	switch d := field.(type) {
	case *string:
		*d, err = r.text(v, path)
	case *time.Duration:
		*d, err = r.time(v, path)
	case *bool:
		*d, err = r.flag(v, path)
	default:
		panic("scenario: decl.GraphParam[fleet.Graph] " + path + " has a field of a type the graph reader does not read")
	}
	return err
}

// entryKeys are the keys of an entry's mapping: its service, its load and
// client, then its settings (decl.EntryParams[fleet.Entry]).
func entryKeys() []string {
	keys := []string{"to", "load", "client"}
	for _, p := range decl.EntryParams[fleet.Entry]() {
		keys = append(keys, p.Key)
	}
	return keys
}

// graphSection reads the graph mapping n of the file called name: each
// setting left out keeps the fleet command's default (fleet.DefaultConfig),
// and the graph must pass fleet.Graph.Check, whose refusal is reported at
// the line of the key it names.
func graphSection(name string, n *yaml.Node, line int) (*Graph, error) {
	r := &graphReader{file: name, lines: map[string]int{"graph": line}}
	vals, _, err := r.mapping(n, "graph", "a mapping with entries and services", graphKeys())
	if err != nil {
		return nil, err
	}
	def := fleet.DefaultConfig()
	g := fleet.Graph{Name: "graph", Duration: def.Duration, Net: def.Net}
	for _, p := range decl.GraphParams[fleet.Graph]() { // in their order, so a file with two wrong gets one error
		if v := vals[p.Key]; v != nil {
			if err := r.graphSetting(p.Field(&g), v, "graph."+p.Key); err != nil {
				return nil, err
			}
		}
	}
	// Duration and net are checked as the fleet's: a section's Config
	// holds them, and its errors name them.
	base := def
	base.Duration, base.Net = g.Duration, g.Net
	if err := base.Check(); err != nil {
		return nil, r.located(err, "graph", "graph")
	}
	for _, key := range []string{"entries", "services"} {
		if vals[key] == nil {
			return nil, r.fail(n, "graph."+key, "missing; a graph needs its entries (where load enters) and its services")
		}
	}
	entries, services := vals["entries"], vals["services"]
	if err := r.list(entries, "graph.entries", "a list of entries, each {to, load, client}"); err != nil {
		return nil, err
	}
	if err := r.list(services, "graph.services", "a list of services, each {name, server, outage, calls, parallel}"); err != nil {
		return nil, err
	}
	for i, e := range entries.Content {
		path := fmt.Sprintf("graph.entries[%d]", i)
		ev, _, err := r.mapping(e, path, "a mapping with to, load and client", entryKeys())
		if err != nil {
			return nil, err
		}
		if ev["to"] == nil {
			return nil, r.fail(e, path+".to", "missing; an entry sends its load to a service")
		}
		var en fleet.Entry
		if en.To, err = r.text(ev["to"], path+".to"); err != nil {
			return nil, err
		}
		c := base
		if v := ev["load"]; v != nil {
			if err := r.section(v, path+".load", "load", &c, ""); err != nil {
				return nil, err
			}
		}
		if v := ev["client"]; v != nil {
			if err := r.section(v, path+".client", "client", &c, en.To); err != nil {
				return nil, err
			}
		}
		en.Load, en.Client = c.Load, c.Client
		if err := r.entrySettings(ev, path, &en); err != nil {
			return nil, err
		}
		g.Entries = append(g.Entries, en)
	}
	named := map[string]int{}
	for i, s := range services.Content {
		path := fmt.Sprintf("graph.services[%d]", i)
		sv, _, err := r.mapping(s, path, "a mapping with name, server, outage, calls and parallel", serviceKeys)
		if err != nil {
			return nil, err
		}
		if sv["name"] == nil {
			return nil, r.fail(s, path+".name", "missing; every service has a name, by which calls and entries reach it")
		}
		var node fleet.Node
		if node.Name, err = r.text(sv["name"], path+".name"); err != nil {
			return nil, err
		}
		if j, ok := named[node.Name]; ok {
			return nil, r.fail(sv["name"], path+".name", fmt.Sprintf("%q is also the name of graph.services[%d]", node.Name, j))
		}
		named[node.Name] = i
		c := base
		for _, sec := range []string{"server", "outage"} {
			if v := sv[sec]; v != nil {
				if err := r.section(v, path+"."+sec, sec, &c, node.Name); err != nil {
					return nil, err
				}
			}
		}
		node.Server, node.Outage = c.Server, c.Outage
		if v := sv["parallel"]; v != nil {
			if node.Parallel, err = r.flag(v, path+".parallel"); err != nil {
				return nil, err
			}
		}
		if calls := sv["calls"]; calls != nil {
			if err := r.list(calls, path+".calls", "a list of calls, each {to, client}"); err != nil {
				return nil, err
			}
			for j, cn := range calls.Content {
				cpath := fmt.Sprintf("%s.calls[%d]", path, j)
				cv, _, err := r.mapping(cn, cpath, "a mapping with to and client", callKeys)
				if err != nil {
					return nil, err
				}
				if cv["to"] == nil {
					return nil, r.fail(cn, cpath+".to", "missing; a call names the service it calls")
				}
				var call fleet.Call
				if call.To, err = r.text(cv["to"], cpath+".to"); err != nil {
					return nil, err
				}
				cc := base
				if v := cv["client"]; v != nil {
					if err := r.section(v, cpath+".client", "client", &cc, call.To); err != nil {
						return nil, err
					}
				}
				call.Client = cc.Client
				node.Calls = append(node.Calls, call)
			}
		}
		if v := sv["parallel"]; v != nil && len(node.Calls) == 0 {
			return nil, r.fail(v, path+".parallel", node.Name+" makes no calls; parallel says whether a service makes its calls at once")
		}
		g.Services = append(g.Services, node)
	}
	out := &Graph{Graph: g, file: name, lines: r.lines}
	if err := g.Check(); err != nil {
		return nil, out.Located(err)
	}
	if v := vals["deadlines"]; v != nil && !slices.ContainsFunc(g.Services, func(n fleet.Node) bool { return len(n.Calls) > 0 }) {
		return nil, r.fail(v, "graph.deadlines", "no service makes calls; deadlines propagate from a service's request to its calls")
	}
	if err := r.checkPushback(g); err != nil {
		return nil, err
	}
	return out, nil
}

// sendsPushback reports whether service n can answer "do not retry": its
// server has Pushback and refuses calls for overload (a queue or a rate
// limit), or makes calls whose "do not retry" it forwards.
func sendsPushback(n fleet.Node) bool {
	return n.Server.Pushback && (n.Server.Kind == fleet.QueueServer || n.Server.Kind == fleet.RateLimitServer || len(n.Calls) > 0)
}

// checkPushback refuses a pushback key the graph never reads: a
// server.pushback of a service that neither refuses calls for overload nor
// makes calls, and a client.honour_pushback of a call to a service that
// never answers "do not retry". g has passed Check.
func (r *graphReader) checkPushback(g fleet.Graph) error {
	for _, k := range r.pushback {
		i := slices.IndexFunc(g.Services, func(n fleet.Node) bool { return n.Name == k.service })
		n := g.Services[i]
		switch {
		case !k.client && n.Server.Kind != fleet.QueueServer && n.Server.Kind != fleet.RateLimitServer && len(n.Calls) == 0:
			return r.fail(k.key, k.path, fmt.Sprintf("only server.kind queue and ratelimit refuse calls for overload, and %s makes no call whose \"do not retry\" it could forward; the server is %s", n.Name, n.Server.Kind))
		case k.client && !sendsPushback(n):
			return r.fail(k.key, k.path, fmt.Sprintf("%s never answers \"do not retry\" (it needs server.pushback, and a queue or rate limit or calls of its own)", n.Name))
		}
	}
	return nil
}

// graphFieldRE splits a fleet.Graph field path into a list's item, by name
// or index (services[api], entries[0]), and what follows.
var graphFieldRE = regexp.MustCompile(`^(services|entries)\[([^\]]*)\](.*)$`)

// Located is err, a refusal of the graph (a *schema.FieldError naming a
// field of fleet.Graph, such as services[b].calls[0].to, a service by its
// name), as an *Error at the line of the key it names in the file; any
// other error is returned as it is.
func (g *Graph) Located(err error) error {
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	r := &graphReader{file: g.file, lines: g.lines}
	field := "graph." + fe.Field
	if m := graphFieldRE.FindStringSubmatch(fe.Field); m != nil {
		// a service by its name (a name may be a number), else an item by
		// its index
		i := -1
		if m[1] == "services" {
			i = slices.IndexFunc(g.Graph.Services, func(n fleet.Node) bool { return n.Name == m[2] })
		}
		if k, err := strconv.Atoi(m[2]); i < 0 && err == nil {
			i = k
		}
		rest := m[3]
		// a setting of a section: named by its key in the file
		for _, sec := range graphSections {
			at := strings.Index(rest, "."+sec+".")
			if at < 0 {
				continue
			}
			if p, ok := decl.LookupParam[fleet.Config](rest[at+1:]); ok {
				rest = rest[:at] + "." + sec + "." + decl.SectionKey(sec, p)
			}
			break
		}
		if i >= 0 {
			field = fmt.Sprintf("graph.%s[%d]%s", m[1], i, rest)
		}
	}
	return &Error{File: g.file, Line: r.lineOf(field), Field: field, Msg: pathtext.FieldWords(fe, graphKey)}
}
