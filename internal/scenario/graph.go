package scenario

import (
	"encoding"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/schema"
)

// Graph is a scenario file's graph section, checked by fleet.Graph.Check,
// with the line of each key so that a refusal of the whole names a line.
type Graph struct {
	Graph fleet.Graph
	file  string
	lines map[string]int // by path: graph.services[1].calls[0].client.attempts
}

// Line is the line of the key or item at path (graph.duration), 0 when the
// file leaves it out.
func (g *Graph) Line(path string) int { return g.lines[path] }

// graphSections are the graph's mappings whose keys are fleet settings:
// those whose path starts with the section's name.
var graphSections = []string{"load", "server", "outage", "client"}

// outageWindow are the outage section's keys no decl.Param declares.
var outageWindow = []string{"from", "to"}

// graphReader reads one graph section.
type graphReader struct {
	file     string
	lines    map[string]int
	pushback []pushbackKey // checked once every service is read (checkPushback)
}

// pushbackKey is a pushback key given in the file, and the service it is
// of (server.pushback) or that its call goes to (client.honour_pushback).
type pushbackKey struct {
	key     *yaml.Node
	path    string
	service string
	client  bool
}

// inGraph are the settings whose use depends on the services around them.
var inGraph = map[string]bool{"server.pushback": true, "client.honour_pushback": true}

// fail is an Error at node k (a key or an item) of the field at path.
func (r *graphReader) fail(k *yaml.Node, path, msg string) error {
	return &Error{File: r.file, Line: k.Line, Field: path, Msg: msg}
}

// mapping checks that n is a mapping (what) with only the keys allowed,
// records each key's line, and returns the values and keys, - read as _.
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
			return nil, nil, r.fail(k, path+"."+k.Value, fmt.Sprintf("unknown key (want %s)", human.And(allowed)))
		}
		vals[key] = v
		keys = append(keys, k)
		r.lines[path+"."+key] = k.Line
	}
	return vals, keys, nil
}

// list checks that n is a list and records each item's line.
func (r *graphReader) list(n *yaml.Node, path, what string) error {
	if n.Kind != yaml.SequenceNode {
		return r.fail(n, path, "want "+what)
	}
	for i, c := range n.Content {
		r.lines[fmt.Sprintf("%s[%d]", path, i)] = c.Line
	}
	return nil
}

// item reads the mapping n, a list's item at path with the keys of the
// graph's mapping at keysPath (what it should be), and its name under
// nameKey, refused missing with why; then its sections secs over base.
func (r *graphReader) item(n *yaml.Node, path, what, keysPath, nameKey, why string, base fleet.Config, secs ...string) (map[string]*yaml.Node, string, fleet.Config, error) {
	vals, _, err := r.mapping(n, path, what, keysOf(keysPath))
	if err != nil {
		return nil, "", base, err
	}
	if vals[nameKey] == nil {
		return nil, "", base, r.fail(n, path+"."+nameKey, "missing; "+why)
	}
	var name string
	if err := r.value(&name, vals[nameKey], path+"."+nameKey, "", nil); err != nil {
		return nil, "", base, err
	}
	for _, sec := range secs {
		if v := vals[sec]; v != nil {
			if err := r.section(v, path+"."+sec, sec, &base, name); err != nil {
				return nil, "", base, err
			}
		}
	}
	return vals, name, base, nil
}

// value reads v into field, a setting of the graph or of an entry: a
// *string (a name), a *time.Duration, a *bool, a *float64 (a
// probability), an *int, or one of names read as text, a what.
func (r *graphReader) value(field any, v *yaml.Node, path, what string, names []string) error {
	scalar := v.Kind == yaml.ScalarNode
	switch d := field.(type) {
	case *string:
		if !scalar || v.ShortTag() != "!!str" || v.Decode(d) != nil {
			return r.fail(v, path, fmt.Sprintf("%q is not a name", v.Value))
		}
		if err := stats.CheckName(*d); err != nil {
			return r.fail(v, path, err.Error())
		}
	case *time.Duration:
		var msg string
		if *d, msg = readDuration(v); msg != "" {
			return r.fail(v, path, msg)
		}
	case *bool:
		if !scalar || v.ShortTag() != "!!bool" || v.Decode(d) != nil {
			return r.fail(v, path, fmt.Sprintf("%q is not true or false", v.Value))
		}
	case *float64:
		if !scalar || v.Decode(d) != nil || !(*d >= 0 && *d <= 1) {
			return r.fail(v, path, fmt.Sprintf("%q is not a probability from 0 to 1", v.Value))
		}
	case *int:
		if !scalar || v.ShortTag() != "!!int" || v.Decode(d) != nil {
			return r.fail(v, path, fmt.Sprintf("%q is not a whole number", v.Value))
		}
	case encoding.TextUnmarshaler:
		if !scalar || d.UnmarshalText([]byte(v.Value)) != nil {
			return r.fail(v, path, fmt.Sprintf("%q is not %s (want one of %s)", v.Value, what, strings.Join(names, ", ")))
		}
	default:
		panic("scenario: the graph setting " + path + " has a field of a type the graph reader does not read")
	}
	return nil
}

// entrySettings reads an entry's settings from its mapping's values ev into
// en, refusing a key whose Needs is left out or that en leaves unread.
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
		if err := r.value(p.Field(en), v, path+"."+p.Key, p.Type, p.Names); err != nil {
			return err
		}
		if p.Sets != nil {
			p.Sets(en)
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

// section reads the mapping n of section (load, server, outage, client)
// at path into c, each key a setting whose path starts with the section's
// name, read as setParam reads it (a whole number out of bounds said as
// the fleet model says it), then refuses a key c never reads and a value
// c.Check refuses, each at its line.
func (r *graphReader) section(n *yaml.Node, path, section string, c *fleet.Config, service string) error {
	params := map[string]decl.Param[fleet.Config]{} // by key
	for _, p := range decl.Params[fleet.Config]() {
		if strings.HasPrefix(p.Path, section+".") {
			params[decl.SectionKey(section, p)] = p
		}
	}
	allowed := slices.Sorted(maps.Keys(params))
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
			var w whole
			msg := setParam(p, c, v)
			if _, isInt := p.Field(c).(*int); isInt && v.Decode(&w) == nil && (w.v < int(p.Lo) || w.v > int(p.Hi)) {
				msg = fmt.Sprintf("%d is not a whole number from %g to %g", w.v, p.Lo, p.Hi)
			}
			if msg != "" {
				return r.fail(v, path+"."+key, msg)
			}
			continue
		}
		window := map[string]*time.Duration{"from": &c.Outage.From, "to": &c.Outage.To}
		if err := r.value(window[key], v, path+"."+key, "", nil); err != nil {
			return err
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
// from with no to, or a to not after from.
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
// of its key in the section at path, or of the section.
func (r *graphReader) located(err error, path, section string) error {
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	field := path + "." + fe.Field // the graph's duration and net
	if section != "graph" {
		if !strings.HasPrefix(fe.Field, section+".") { // another setting, with which this section's conflicts: said at the section
			return &Error{File: r.file, Line: r.lineOf(path), Field: path, Msg: graphKey(fe.Field) + " " + pathtext.FieldWords(fe, graphKey)}
		}
		field = strings.TrimSuffix(path, section) + graphKey(fe.Field) // path ends in the section's name: client.budget_ratio, outage.from
	}
	return &Error{File: r.file, Line: r.lineOf(field), Field: field, Msg: pathtext.FieldWords(fe, graphKey)}
}

// lineOf is the line of the key or item at path, or of the nearest holding it.
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

// GraphWords is a fleet text with each setting it names by its graph key.
func GraphWords(t pathtext.Text) string { return t.Words(graphKey) }

// graphKey names the fleet setting at path as the graph section's key
// (client.budget_ratio for client.policy.budget_ratio), or as it is.
func graphKey(path string) string {
	p, ok := decl.LookupParam[fleet.Config](path)
	section, _, dotted := strings.Cut(path, ".")
	if !ok || !dotted {
		return path
	}
	return section + "." + decl.SectionKey(section, p)
}

// keysOf are the keys of the graph's mapping at path (graph.services[]),
// in graphKeyDocs' order.
func keysOf(path string) []string {
	var keys []string
	for _, k := range graphKeyDocs() {
		if key, ok := strings.CutPrefix(k.Path, path+"."); ok && !strings.ContainsAny(key, ".[") {
			keys = append(keys, key)
		}
	}
	return keys
}

// graphSection reads the graph mapping n of the file called name over
// fleet.DefaultConfig, refusing at its line what fleet.Graph.Check refuses.
func graphSection(name string, n *yaml.Node, line int) (*Graph, error) {
	r := &graphReader{file: name, lines: map[string]int{"graph": line}}
	vals, _, err := r.mapping(n, "graph", "a mapping with entries and services", keysOf("graph"))
	if err != nil {
		return nil, err
	}
	def := fleet.DefaultConfig()
	g := fleet.Graph{Name: "graph", Duration: def.Duration, Net: def.Net}
	for _, p := range decl.GraphParams[fleet.Graph]() { // in their order, so a file with two wrong gets one error
		if v := vals[p.Key]; v != nil {
			if err := r.value(p.Field(&g), v, "graph."+p.Key, p.Type, nil); err != nil {
				return nil, err
			}
		}
	}
	base := def // duration and net checked as the fleet's
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
		ev, to, c, err := r.item(e, path, "a mapping with to, load and client", "graph.entries[]",
			"to", "an entry sends its load to a service", base, "load", "client")
		if err != nil {
			return nil, err
		}
		en := fleet.Entry{To: to, Load: c.Load, Client: c.Client}
		if err := r.entrySettings(ev, path, &en); err != nil {
			return nil, err
		}
		g.Entries = append(g.Entries, en)
	}
	named := map[string]int{}
	for i, s := range services.Content {
		path := fmt.Sprintf("graph.services[%d]", i)
		sv, name, c, err := r.item(s, path, "a mapping with name, server, outage, calls and parallel", "graph.services[]",
			"name", "every service has a name, by which calls and entries reach it", base, "server", "outage")
		if err != nil {
			return nil, err
		}
		if j, ok := named[name]; ok {
			return nil, r.fail(sv["name"], path+".name", fmt.Sprintf("%q is also the name of graph.services[%d]", name, j))
		}
		named[name] = i
		node := fleet.Node{Name: name, Server: c.Server, Outage: c.Outage}
		if v := sv["parallel"]; v != nil {
			if err := r.value(&node.Parallel, v, path+".parallel", "", nil); err != nil {
				return nil, err
			}
		}
		if calls := sv["calls"]; calls != nil {
			if err := r.list(calls, path+".calls", "a list of calls, each {to, client}"); err != nil {
				return nil, err
			}
			for j, cn := range calls.Content {
				_, to, cc, err := r.item(cn, fmt.Sprintf("%s.calls[%d]", path, j), "a mapping with to and client", "graph.services[].calls[]",
					"to", "a call names the service it calls", base, "client")
				if err != nil {
					return nil, err
				}
				call := fleet.Call{To: to, Client: cc.Client}
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

// checkPushback refuses a pushback key g, which passed Check, never reads.
func (r *graphReader) checkPushback(g fleet.Graph) error {
	for _, k := range r.pushback {
		n := g.Services[slices.IndexFunc(g.Services, func(n fleet.Node) bool { return n.Name == k.service })]
		answers := n.Server.Kind == fleet.QueueServer || n.Server.Kind == fleet.RateLimitServer || len(n.Calls) > 0 // "do not retry", given server.pushback
		switch {
		case !k.client && !answers:
			return r.fail(k.key, k.path, fmt.Sprintf("only server.kind queue and ratelimit refuse calls for overload, and %s makes no call whose \"do not retry\" it could forward; the server is %s", n.Name, n.Server.Kind))
		case k.client && !(n.Server.Pushback && answers):
			return r.fail(k.key, k.path, fmt.Sprintf("%s never answers \"do not retry\" (it needs server.pushback, and a queue or rate limit or calls of its own)", n.Name))
		}
	}
	return nil
}

// graphFieldRE splits a fleet.Graph field path into a list's item (services[api]) and the rest.
var graphFieldRE = regexp.MustCompile(`^(services|entries)\[([^\]]*)\](.*)$`)

// Located is err, a *schema.FieldError naming a field of fleet.Graph
// (services[b].calls[0].to), as an *Error at its line; any other error as it is.
func (g *Graph) Located(err error) error {
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	r := &graphReader{file: g.file, lines: g.lines}
	field := "graph." + fe.Field
	if m := graphFieldRE.FindStringSubmatch(fe.Field); m != nil {
		i := -1 // a service by its name (which may be a number), else by index
		if m[1] == "services" {
			i = slices.IndexFunc(g.Graph.Services, func(n fleet.Node) bool { return n.Name == m[2] })
		}
		if k, err := strconv.Atoi(m[2]); i < 0 && err == nil {
			i = k
		}
		rest := m[3]
		for _, sec := range graphSections {
			if at := strings.Index(rest, "."+sec+"."); at >= 0 {
				rest = rest[:at+1] + graphKey(rest[at+1:])
				break
			}
		}
		if i >= 0 {
			field = fmt.Sprintf("graph.%s[%d]%s", m[1], i, rest)
		}
	}
	return &Error{File: g.file, Line: r.lineOf(field), Field: field, Msg: pathtext.FieldWords(fe, graphKey)}
}
