package scenario

import (
	"encoding"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/provider"
)

// readerPaths walks the reader's structs by their yaml tags: every key the
// decoder takes, a type with its own UnmarshalYAML (a latency, the watched
// list) or a yaml.Node (the fleet section) as one key, the queue
// section's keys as it reads them, from decl.Settings[delivery.Config], and a step's as
// it reads them: its name and each setting of decl.StepSettings, a
// backoff's keys as the queue's backoff.
func readerPaths(t reflect.Type, prefix string) []string {
	var paths []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		path := prefix + name
		paths = append(paths, path)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft == reflect.TypeFor[queueFile]() { // read by decl.Settings[delivery.Config]
			for _, s := range decl.Settings[delivery.Config]() {
				if parent, _, ok := strings.Cut(s.Key, "."); ok && !slices.Contains(paths, path+"."+parent) {
					paths = append(paths, path+"."+parent)
				}
				paths = append(paths, path+"."+s.Key)
			}
			continue
		}
		if ft.Kind() == reflect.Slice && ft.Elem() == reflect.TypeFor[stepFile]() { // read by decl.StepSettings
			paths = append(paths, path+"[].name")
			for _, s := range decl.StepSettings() {
				if s.SetBy != "" {
					continue
				}
				paths = append(paths, path+"[]."+s.ShardKey)
				if _, ok := s.Get(provider.Step{}).(*backoff.Schedule); ok { // read as the queue's backoff
					for _, q := range decl.Settings[delivery.Config]() {
						if key, ok := strings.CutPrefix(q.Key, "backoff."); ok {
							paths = append(paths, path+"[]."+s.ShardKey+"."+key)
						}
					}
				}
			}
			continue
		}
		own := reflect.PointerTo(ft).Implements(reflect.TypeFor[yaml.Unmarshaler]())
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct && !own {
			paths = append(paths, readerPaths(ft.Elem(), path+"[].")...)
			continue
		}
		if ft.Kind() == reflect.Struct && !own && ft != reflect.TypeFor[yaml.Node]() {
			paths = append(paths, readerPaths(ft, path+".")...)
		}
	}
	return paths
}

// Every key the reader's structs take is in the reference.
func TestKeysCoverTheReader(t *testing.T) {
	var listed []string
	for _, k := range Keys() {
		listed = append(listed, k.Path)
	}
	paths := readerPaths(reflect.TypeFor[file](), "")
	if len(paths) < 30 {
		t.Fatalf("found %d keys in the reader's structs; want at least 30: %v", len(paths), paths)
	}
	for _, p := range paths {
		if !slices.Contains(listed, p) {
			t.Errorf("the reader takes %s, which Keys does not list", p)
		}
	}
	seen := map[string]bool{}
	for _, p := range listed {
		if seen[p] {
			t.Errorf("Keys lists %s twice", p)
		}
		seen[p] = true
	}
}

// fileWith is a YAML file that gives the key at path its example, in the
// least context the key needs: a job of one step named a that watches it,
// or a fleet section that reads the key with companion, a key and its
// value, the setting that makes it read (policy: token-bucket, server:
// queue).
func fileWith(t *testing.T, k Key, companion [2]string) string {
	t.Helper()
	var ex any
	if err := yaml.Unmarshal([]byte(k.Example), &ex); err != nil {
		t.Fatalf("%s: example %q is not YAML: %v", k.Path, k.Example, err)
	}
	if strings.HasPrefix(k.Path, "graph") {
		// A graph's client reads a policy's keys, its server a kind's: the
		// companion's name when it is one of those.
		context := ""
		if companion[0] == "policy" && strings.Contains(k.Path, ".client.") || companion[0] == "server" && strings.Contains(k.Path, ".server.") {
			context = companion[1]
		}
		return graphFileWith(t, k, context)
	}
	if rest, ok := strings.CutPrefix(k.Path, "fleet."); ok {
		m := map[string]any{rest: ex}
		switch {
		case rest == "hedge_delay":
			m["hedges"] = 1
		case rest == "honour_pushback": // read when a server that refuses calls says so
			m["pushback"], m["server"] = true, "queue"
		case companion[0] != "" && companion[0] != rest:
			m[companion[0]] = companion[1]
		}
		return marshal(t, map[string]any{"fleet": m})
	}
	step := map[string]any{"name": "a"}
	doc := map[string]any{"watched": "a", "steps": []any{step}}
	var at map[string]any // the mapping the key's last part goes in
	parts := strings.Split(k.Path, ".")
	switch parts[0] {
	case "steps[]":
		at, parts = step, parts[1:]
	case "watched[]":
		at = map[string]any{"step": "a"}
		doc["watched"], parts = []any{at}, parts[1:]
	default:
		at = doc
	}
	for _, p := range parts[:len(parts)-1] {
		m := map[string]any{}
		at[p], at = m, m
	}
	last := parts[len(parts)-1]
	at[last] = ex
	if last == "p99" {
		at["median"] = "1ms" // a p99 needs a median
	}
	return marshal(t, doc)
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every key of the reference is one the reader takes, with the value the
// reference shows for it; and a key next to it that the reference does not
// list is refused.
func TestKeysAreRead(t *testing.T) {
	// A fleet key's companions: each name of each setting read by name
	// (each policy, each server kind, each shape...), from its error.
	var companions [][2]string
	for _, p := range decl.Params[fleet.Config]() {
		c := fleet.DefaultConfig()
		text, ok := p.Field(&c).(encoding.TextUnmarshaler)
		if !ok {
			continue
		}
		err := text.UnmarshalText(nil)
		if err == nil {
			continue
		}
		_, list, _ := strings.Cut(err.Error(), "(want ")
		list = strings.ReplaceAll(strings.TrimPrefix(strings.TrimSuffix(list, ")"), "one of "), " or ", ", ")
		for _, name := range strings.Split(list, ", ") {
			companions = append(companions, [2]string{strings.ReplaceAll(p.Key, "-", "_"), name})
		}
	}
	for _, k := range Keys() {
		t.Run(k.Path, func(t *testing.T) {
			if k.Example == "" {
				t.Fatal("no example")
			}
			candidates := [][2]string{{}}
			if strings.HasPrefix(k.Path, "fleet.") || strings.Contains(k.Path, ".client.") || strings.Contains(k.Path, ".server.") {
				candidates = append(candidates, companions...)
			}
			var errs []string
			for _, p := range candidates { // for a fleet key, some setting's value makes it read
				text := fileWith(t, k, p)
				_, err := Parse("f.yaml", []byte(text))
				if err == nil {
					return
				}
				errs = append(errs, err.Error())
			}
			t.Errorf("no file that gives %s: %s is read: %v", k.Path, k.Example, errs)
		})
	}
	for _, path := range []string{"nmae", "steps[].keyd", "steps[].latency.p90", "watched[].labl", "queue.stor", "queue.backoff.bse", "fleet.budget_rat",
		"graph.nmae", "graph.entries[].too", "graph.entries[].load.shap", "graph.services[].server.bse", "graph.services[].outage.fro",
		"graph.services[].calls[].client.budget_rat", "graph.services[].calls[].too"} {
		k := Key{Path: path, Example: "1"}
		if _, err := Parse("f.yaml", []byte(fileWith(t, k, [2]string{}))); err == nil || !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("a file with %s: Parse = %v; want an unknown key", path, err)
		}
	}
}

// graphFileWith is a file whose graph gives the key at path its example,
// in the least context the key needs: an entry to service a, which calls
// b; a client whose policy is context (or a server of that kind), a spike
// for a load's window, a window for an outage's mode, a hedge for its
// delay, a store for its ttl and lease, a crash for its point and bound, a
// queue server for a timeout from a receive.
func graphFileWith(t *testing.T, k Key, context string) string {
	t.Helper()
	var ex any
	if err := yaml.Unmarshal([]byte(k.Example), &ex); err != nil {
		t.Fatalf("%s: example %q is not YAML: %v", k.Path, k.Example, err)
	}
	entry := map[string]any{"to": "a"}
	call := map[string]any{"to": "b"}
	a := map[string]any{"name": "a", "calls": []any{call}}
	b := map[string]any{"name": "b"}
	g := map[string]any{"entries": []any{entry}, "services": []any{a, b}}
	var at map[string]any
	inEntry := false
	parts := strings.Split(k.Path, ".")[1:]
	switch {
	case len(parts) == 0: // graph itself
		return marshal(t, map[string]any{"graph": ex})
	case parts[0] == "entries[]":
		at, parts, inEntry = entry, parts[1:], true
	case parts[0] == "services[]" && len(parts) > 1 && parts[1] == "calls[]":
		at, parts = call, parts[2:]
	case parts[0] == "services[]":
		at, parts = a, parts[1:]
	default:
		at = g
	}
	if len(parts) == 0 { // a list itself
		return marshal(t, map[string]any{"graph": g})
	}
	if len(parts) == 2 {
		m := map[string]any{}
		switch parts[0] {
		case "client":
			if context != "" {
				m["policy"] = context
			}
			switch parts[1] {
			case "hedge_delay":
				m["hedges"] = 1
			case "backoff_base", "backoff_cap":
				m["backoff"] = "exponential"
			case "honour_pushback": // b must say "do not retry"
				b["server"] = map[string]any{"kind": "queue", "pushback": true}
			}
		case "server":
			if context != "" {
				m["kind"] = context
			}
		case "load":
			m["shape"] = "spike"
		case "outage":
			m["from"], m["to"] = "1s", "2s"
		}
		at[parts[0]], at = m, m
		parts = parts[1:]
	}
	if inEntry && len(parts) == 1 { // a key an entry reads only with the one it needs, at its example (a lease store)
		params := decl.EntryParams[fleet.Entry]()
		for _, p := range params {
			if i := slices.IndexFunc(params, func(n decl.EntryParam[fleet.Entry]) bool { return n.Key == p.Needs }); p.Key == parts[0] && i >= 0 {
				var need any
				if err := yaml.Unmarshal([]byte(params[i].Example), &need); err != nil {
					t.Fatal(err)
				}
				entry[p.Needs] = need
			}
		}
	}
	if parts[0] == "timeout_at_receive" { // a needs workers to receive
		a["server"] = map[string]any{"kind": "queue"}
	}
	at[parts[0]] = ex
	return marshal(t, map[string]any{"graph": g})
}

// A setting of the graph section given in Go, by fleet.Graph.Set with the
// path and value a file writes, sets what the file's reader sets: for each
// setting key of the reference (a decl.Param[fleet.Config] of a load, client, server or
// outage mapping, an entry's decl.EntryParam[fleet.Entry] or the graph's own
// decl.GraphParam[fleet.Graph]), the graph of a file that
// gives it its example equals the graph of the same file without it, with
// the key Set. The reader is the independent reference: it reads the
// file's mappings, not paths.
func TestGraphSetAgreesWithTheFile(t *testing.T) {
	companions := [][2]string{{}}
	for _, p := range decl.Params[fleet.Config]() {
		text, ok := p.Field(&fleet.Config{}).(encoding.TextUnmarshaler)
		if !ok {
			continue
		}
		_, list, _ := strings.Cut(text.UnmarshalText(nil).Error(), "(want ")
		list = strings.ReplaceAll(strings.TrimPrefix(strings.TrimSuffix(list, ")"), "one of "), " or ", ", ")
		for _, name := range strings.Split(list, ", ") {
			companions = append(companions, [2]string{strings.ReplaceAll(p.Key, "-", "_"), name})
		}
	}
	tested := 0
	for _, k := range Keys() {
		rest, ok := strings.CutPrefix(k.Path, "graph.")
		parts := strings.Split(rest, ".")
		entryKey := len(parts) == 2 && parts[0] == "entries[]" && slices.ContainsFunc(decl.EntryParams[fleet.Entry](), func(p decl.EntryParam[fleet.Entry]) bool { return p.Key == parts[1] })
		graphKey := len(parts) == 1 && slices.ContainsFunc(decl.GraphParams[fleet.Graph](), func(p decl.GraphParam[fleet.Graph]) bool { return p.Key == parts[0] })
		if !ok || k.Setting == "" && !entryKey && !graphKey {
			continue
		}
		tested++
		path := "graph." + strings.NewReplacer("entries[]", "entries[0]", "services[]", "services[a]", "calls[]", "calls[0]").Replace(rest)
		found := false
		for _, c := range companions {
			text := fileWith(t, k, c)
			want, err := Parse("f.yaml", []byte(text))
			if err != nil {
				continue
			}
			found = true
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatal(err)
			}
			at := doc["graph"].(map[string]any)
			for _, part := range parts[:len(parts)-1] {
				switch part {
				case "entries[]":
					at = at["entries"].([]any)[0].(map[string]any)
				case "services[]":
					at = at["services"].([]any)[0].(map[string]any)
				case "calls[]":
					at = at["calls"].([]any)[0].(map[string]any)
				default:
					at = at[part].(map[string]any)
				}
			}
			delete(at, parts[len(parts)-1])
			without, err := Parse("f.yaml", []byte(marshal(t, doc)))
			if err != nil {
				t.Errorf("%s: the file without it: %v", k.Path, err)
				break
			}
			g := without.Graph.Graph
			if err := g.Set(path, k.Example); err != nil {
				t.Errorf("Set(%s, %s) = %v", path, k.Example, err)
			} else if !reflect.DeepEqual(g, want.Graph.Graph) {
				t.Errorf("Set(%s, %s) = %+v; want the file's %+v", path, k.Example, g, want.Graph.Graph)
			}
			break
		}
		if !found {
			t.Errorf("%s: no file gives it", k.Path)
		}
	}
	if tested < 65 {
		t.Errorf("tested %d settings; want every one of the graph section's, at least 65", tested)
	}
}
