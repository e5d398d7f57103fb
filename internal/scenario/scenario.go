// Package scenario reads scenario files: YAML that describes a job (its
// steps, watched steps and queue), a fleet section or a graph section.
// Decoding is strict: an unknown key, a key given twice in any spelling, a
// value of the wrong type or one the flags' validators refuse is an error
// naming the file, the line and the field. It only reads; the models run
// elsewhere.
package scenario

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/backoffkind"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/enum"
	"github.com/retrysim/retrysim/internal/human"
	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/scenariocheck"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// Error is a problem at a line of a scenario file (the whole file when Line
// is 0); with a Field (steps[2].p_fail) it wraps that *schema.FieldError.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error is one line: a newline quoted from the file is written as \n.
func (e *Error) Error() string {
	switch {
	case e.Line == 0: // the file as a whole
		return oneLine(fmt.Sprintf("%s: %s", e.File, e.Msg))
	case e.Field == "":
		return oneLine(fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg))
	}
	return oneLine(fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg))
}

// Unwrap is the *schema.FieldError naming e's field, or nil.
func (e *Error) Unwrap() error {
	if e.Field == "" {
		return nil
	}
	return &schema.FieldError{Field: e.Field, Msg: e.Msg}
}

// fieldError is raised while decoding; Load adds the file name.
type fieldError struct {
	line, col int
	msg       string
}

func (e *fieldError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// duration is a YAML duration such as 250ms or 2s, not negative.
type duration struct {
	v time.Duration
}

func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return &fieldError{n.Line, n.Column, fmt.Sprintf("%q is not a duration such as 250ms or 2s", s)}
	}
	if err := limits.Duration(v); err != nil { // as the flags check theirs
		return &fieldError{n.Line, n.Column, err.Error()}
	}
	d.v = v
	return nil
}

// readDuration reads v as a duration, or says what is wrong.
func readDuration(v *yaml.Node) (time.Duration, string) {
	var d duration
	if err := v.Decode(&d); err != nil {
		if fe := (*fieldError)(nil); errors.As(err, &fe) {
			return 0, fe.msg
		}
		return 0, fmt.Sprintf("%q is not a duration such as 250ms or 2s", v.Value)
	}
	return d.v, ""
}

// whole is a YAML integer, written as one: yaml.v3 would truncate 2.5 into an int.
type whole struct {
	v int
}

func (w *whole) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&w.v) != nil {
		return &fieldError{n.Line, n.Column, fmt.Sprintf("want a whole number, not %q", n.Value)}
	}
	return nil
}

// decodeKeys decodes each value of mapping n into what into holds under its
// key, refusing another key with the keys wanted.
func decodeKeys(n *yaml.Node, want string, into map[string]any) error {
	return readMapping(n, "", func(k, v *yaml.Node) (bool, error) {
		p, ok := into[k.Value]
		if !ok {
			return true, &fieldError{k.Line, k.Column, fmt.Sprintf("unknown key %q (want %s)", k.Value, want)}
		}
		return true, v.Decode(p)
	})
}

// watchFile is one watched step: its name, or {step: NAME, label: TEXT}.
type watchFile struct {
	step, label string
	line, col   int
}

func (w *watchFile) UnmarshalYAML(n *yaml.Node) error {
	w.line, w.col = n.Line, n.Column
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Decode(&w.step)
	case yaml.MappingNode:
		if err := decodeKeys(n, "step and label", map[string]any{"step": &w.step, "label": &w.label}); err != nil {
			return err
		}
		if w.step == "" {
			return &fieldError{n.Line, n.Column, "a watched step needs its step: the name of a step"}
		}
		return nil
	}
	return &fieldError{n.Line, n.Column, "want a step's name or {step: NAME, label: TEXT}"}
}

// watchList is the watched key: one watched step or a list of them.
type watchList []watchFile

func (l *watchList) UnmarshalYAML(n *yaml.Node) error {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		if items = n.Content; len(items) == 0 {
			return &fieldError{n.Line, n.Column, "an empty list; name at least one step"}
		}
	}
	for _, c := range items {
		var w watchFile
		if err := c.Decode(&w); err != nil {
			return err
		}
		*l = append(*l, w)
	}
	return nil
}

// stepFile is a step: its name, and each setting of decl.StepSettings it
// gives, by ShardKey, read by the setting's type; Parse checks the values.
type stepFile struct {
	Name  string
	given map[string]givenStep // by key
}

// givenStep is a setting a step gives: the line of its key and its value.
type givenStep struct {
	line int
	v    any
}

func (s *stepFile) UnmarshalYAML(n *yaml.Node) error {
	settings := decl.StepSettings()
	return readMapping(n, "scenario.stepFile", func(k, v *yaml.Node) (bool, error) {
		if k.Value == "name" {
			return true, v.Decode(&s.Name)
		}
		j := slices.IndexFunc(settings, func(st decl.StepSetting) bool { return st.SetBy == "" && st.ShardKey == k.Value })
		if j < 0 {
			return false, nil
		}
		x, err := decodeStep(settings[j], v)
		if err == nil {
			if s.given == nil {
				s.given = map[string]givenStep{}
			}
			s.given[k.Value] = givenStep{k.Line, x}
		}
		return true, err
	})
}

// readMapping reads mapping n, of the type called typ, by read, which
// reports whether it knows key k; an unknown key and a value of the wrong
// type are collected as yaml reports them (so that located finds the key),
// the rest still read.
func readMapping(n *yaml.Node, typ string, read func(k, v *yaml.Node) (bool, error)) error {
	if n.Kind != yaml.MappingNode {
		return notA(n, typ)
	}
	var typeErrs []string
	for i := 0; i+1 < len(n.Content); i += 2 { // checkKeys has refused duplicates
		k, v := n.Content[i], n.Content[i+1]
		known, err := read(k, v)
		if !known {
			typeErrs = append(typeErrs, fmt.Sprintf("line %d: field %s not found in type %s", k.Line, k.Value, typ))
		}
		var te *yaml.TypeError
		switch {
		case errors.As(err, &te):
			typeErrs = append(typeErrs, te.Errors...)
		case err != nil:
			return err
		}
	}
	if len(typeErrs) > 0 {
		return &yaml.TypeError{Errors: typeErrs}
	}
	return nil
}

// decodeStep reads n as a value of step setting s, by its kind but a flag
// and a backoff.
func decodeStep(s decl.StepSetting, n *yaml.Node) (any, error) {
	switch s.Get(provider.Step{}).(type) {
	case bool:
		var b bool
		err := n.Decode(&b)
		return b, err
	case *backoff.Schedule: // read as the queue's backoff.policy, base and cap
		var b queueFile
		if n.Kind == yaml.AliasNode { // as yaml decodes an alias: its anchor's node, null as nothing given
			n = n.Alias
		}
		if n.ShortTag() == "!!null" {
			return &b, nil
		}
		if n.Kind != yaml.MappingNode {
			return nil, notA(n, "scenario.backoffFile") // typeWords says what it wants
		}
		return &b, b.read(n, "backoff.", "")
	}
	return decodeKind(s.Kind, n)
}

// notA is yaml's type error for n, not a mapping, decoded into the type typ.
func notA(n *yaml.Node, typ string) error {
	value := ""
	if n.Kind == yaml.ScalarNode {
		if value = n.Value; len(value) > 10 {
			value = value[:7] + "..."
		}
		value = " `" + value + "`"
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: cannot unmarshal %s%s into %s", n.Line, n.ShortTag(), value, typ)}}
}

// queueFile is the queue section: each key of decl.Settings[delivery.Config]
// the file gives, in file order.
type queueFile struct {
	given []givenValue
}

// givenValue is a setting the queue section gives, the line of its key, and
// its value as its kind reads it (an enumeration's name as text).
type givenValue struct {
	setting decl.Setting[delivery.Config]
	line    int
	v       any
}

func (q *queueFile) UnmarshalYAML(n *yaml.Node) error {
	return q.read(n, "", "a mapping of queue settings")
}

// read reads mapping n, whose keys are under prefix (backoff.); what says
// what n should be.
func (q *queueFile) read(n *yaml.Node, prefix, what string) error {
	if n.Kind != yaml.MappingNode {
		value := "a " + map[yaml.Kind]string{yaml.SequenceNode: "list", yaml.AliasNode: "alias"}[n.Kind]
		if n.Kind == yaml.ScalarNode {
			value = fmt.Sprintf("%q", n.Value)
		}
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s is not %s", n.Line, value, what)}}
	}
	settings := decl.Settings[delivery.Config]()
	return readMapping(n, "scenario.queueFile", func(k, v *yaml.Node) (bool, error) {
		key := prefix + k.Value
		if j := slices.IndexFunc(settings, func(s decl.Setting[delivery.Config]) bool { return s.Key == key }); j >= 0 {
			x, err := decodeKind(settings[j].Kind, v)
			if err == nil {
				q.given = append(q.given, givenValue{settings[j], k.Line, x})
			}
			return true, err
		}
		if sub := subKeys(settings, key+"."); len(sub) > 0 { // a mapping of settings: backoff
			return true, q.read(v, key+".", "a mapping with "+human.And(sub))
		}
		return false, nil
	})
}

// subKeys are the keys of settings under prefix (backoff.), without it.
func subKeys(settings []decl.Setting[delivery.Config], prefix string) []string {
	var keys []string
	for _, s := range settings {
		if k, ok := strings.CutPrefix(s.Key, prefix); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// decodeKind reads n as a value of kind k, an enumeration as its name, a
// latency as a fixed duration (20ms) or a lognormal {median: 20ms, p99: 200ms}.
func decodeKind(k enum.Kind, n *yaml.Node) (any, error) {
	if n.Kind == yaml.AliasNode { // as yaml decodes an alias: its anchor's node
		n = n.Alias
	}
	switch {
	case k == enum.Probability:
		var f float64
		if err := n.Decode(&f); err != nil {
			return f, err
		}
		if math.IsNaN(f) || f < 0 || f > 1 {
			return f, &fieldError{n.Line, n.Column, fmt.Sprintf("%v is not a probability in [0, 1]", f)}
		}
		return f, nil
	case k == enum.Duration || k == enum.Latency && n.Kind == yaml.ScalarNode:
		var d duration
		err := n.Decode(&d)
		if k == enum.Latency {
			return provider.Latency{Median: d.v}, err
		}
		return d.v, err
	case k == enum.Whole:
		var w whole
		err := n.Decode(&w)
		return w.v, err
	case k == enum.Latency && n.Kind != yaml.MappingNode:
		return nil, &fieldError{n.Line, n.Column, "want a duration (20ms) or {median: 20ms, p99: 200ms}"}
	case k == enum.Latency:
		var median, p99 duration
		if err := decodeKeys(n, "median and p99", map[string]any{"median": &median, "p99": &p99}); err != nil {
			return nil, err
		}
		v := provider.Latency{Median: median.v, P99: p99.v}
		if err := scenariocheck.Latency(v); err != nil { // as the flags check theirs
			return nil, &fieldError{n.Line, n.Column, err.Error()}
		}
		return v, nil
	}
	var name string
	err := n.Decode(&name)
	return name, err
}

type file struct {
	Name         string     `yaml:"name"`
	Noun         string     `yaml:"noun"`
	Watched      watchList  `yaml:"watched"`
	WatchedLabel string     `yaml:"watched_label"`
	Steps        []stepFile `yaml:"steps"`
	Queue        *queueFile `yaml:"queue"`
	Fleet        yaml.Node  `yaml:"fleet"`
	Graph        yaml.Node  `yaml:"graph"`
}

// Loaded is what a scenario file describes: a job, a fleet, a graph.
type Loaded struct {
	// Scenario is the job; it has no steps when the file describes none.
	Scenario provider.Scenario
	// Queue is the delivery model, nil when the file has no queue section
	// and no step takes time: then the Part 5 model runs.
	Queue *delivery.Config
	Fleet *Fleet // nil when the file has no fleet section
	Graph *Graph // nil when the file has no graph section

	file            string
	queueKeys       []givenValue // the queue section's, in file order
	stepPolicyLines [][2]int     // each step's attempts and backoff keys' lines, 0 for none
	jobKey          string       // the file's first key that describes a job, if any
	jobLine         int
	fleetLine       int
	graphLine       int
}

// CheckRead refuses the first key of the queue section whose setting unread
// gives a reason for (queue.lease), as the command refuses a flag.
func (l Loaded) CheckRead(unread func(setting string) string) error {
	for _, g := range l.queueKeys {
		if why := unread("queue." + g.setting.Name); why != "" {
			return &Error{File: l.file, Line: g.line, Field: "queue." + g.setting.Key, Msg: why}
		}
	}
	return nil
}

// CheckStepsRead refuses the first step's own attempts or backoff that
// unread gives a reason for.
func (l Loaded) CheckStepsRead(unread func(i int) (attempts, backoff string)) error {
	for i, lines := range l.stepPolicyLines {
		whys := [2]string{}
		whys[0], whys[1] = unread(i)
		for j, key := range []string{"attempts", "backoff"} {
			if lines[j] != 0 && whys[j] != "" {
				return &Error{File: l.file, Line: lines[j], Field: fmt.Sprintf("steps[%d].%s", i, key), Msg: whys[j]}
			}
		}
	}
	return nil
}

// jobKeys describe a job: a file with any of them needs steps and watched.
var jobKeys = []string{"name", "noun", "steps", "watched", "watched_label", "queue"}

// CheckJob refuses, for a command that runs a job, a file that describes
// none or has a fleet or graph section.
func (l Loaded) CheckJob() error {
	return l.refuse(
		refusal{l.jobKey == "" && l.Graph != nil, l.graphLine, "graph", "the file describes a call graph, which retrysim graph runs; this command runs a job (steps and watched)"},
		refusal{l.jobKey == "", 1, "steps", "missing; the file describes only a fleet, whose fleet section only a fleet reads"},
		refusal{l.Fleet != nil, l.fleetLine, "fleet", "only retrysim fleet reads it; give this command a file without it"},
		refusal{l.Graph != nil, l.graphLine, "graph", "only retrysim graph reads it; give this command a file without it"})
}

// LoadJob is Load, then CheckJob.
func LoadJob(path string) (Loaded, error) { return loadFor(path, Loaded.CheckJob) }

// LoadFleet is Load, then CheckFleet.
func LoadFleet(path string) (Loaded, error) { return loadFor(path, Loaded.CheckFleet) }

// LoadGraph is Load, then CheckGraph.
func LoadGraph(path string) (Loaded, error) { return loadFor(path, Loaded.CheckGraph) }

// loadFor is Load, then check.
func loadFor(path string, check func(Loaded) error) (Loaded, error) {
	l, err := Load(path)
	if err == nil {
		err = check(l)
	}
	return l, err
}

// CheckFleet refuses, for retrysim fleet, a file with no fleet section or
// with a job or graph.
func (l Loaded) CheckFleet() error {
	return l.refuse(
		refusal{l.Fleet == nil && l.Graph != nil, l.graphLine, "graph", "the file describes a call graph, which retrysim graph runs; retrysim fleet reads a fleet section"},
		refusal{l.Fleet == nil, 1, "fleet", "missing; retrysim fleet reads its settings from the fleet section"},
		refusal{l.jobKey != "", l.jobLine, l.jobKey, "describes a job, which retrysim fleet does not read; give it a file with only a fleet section"},
		refusal{l.Graph != nil, l.graphLine, "graph", "only retrysim graph reads it; give retrysim fleet a file with only a fleet section"})
}

// CheckGraph refuses, for retrysim graph, a file with no graph section or
// with a job or fleet section.
func (l Loaded) CheckGraph() error {
	return l.refuse(
		refusal{l.Graph == nil, 1, "graph", "missing; retrysim graph reads the services and their calls from the graph section"},
		refusal{l.jobKey != "", l.jobLine, l.jobKey, "describes a job, which retrysim graph does not read; give it a file with only a graph section"},
		refusal{l.Fleet != nil, l.fleetLine, "fleet", "retrysim graph reads each call's client from the graph section, not the fleet section; give it a file with only a graph section"})
}

// refusal is a case of a check of what a file describes: the Error at
// line and field when it holds.
type refusal struct {
	holds      bool
	line       int
	field, msg string
}

// refuse is the Error of the first of rs that holds, or nil.
func (l Loaded) refuse(rs ...refusal) error {
	for _, r := range rs {
		if r.holds {
			return &Error{File: l.file, Line: r.line, Field: r.field, Msg: r.msg}
		}
	}
	return nil
}

// MaxFileSize bounds a scenario file, so that a mistaken path (a log,
// /dev/zero) is not read into memory.
const MaxFileSize = 1 << 20 // the command's help and the README say 1 MiB

// Load reads and checks the scenario file at path, a regular file of at
// most MaxFileSize bytes: a FIFO is refused before opening blocks on it.
func Load(path string) (Loaded, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Loaded{}, fileError(path, err)
	}
	if err := checkFile(path, st); err != nil {
		return Loaded{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return Loaded{}, fileError(path, err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil { // the file opened, if path changed since
		return Loaded{}, fileError(path, err)
	}
	if err := checkFile(path, st); err != nil {
		return Loaded{}, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1)) // a file that grew is caught below
	if err != nil {
		return Loaded{}, fileError(path, err)
	}
	if len(data) > MaxFileSize {
		return Loaded{}, &Error{File: path, Msg: fmt.Sprintf("more than the %d bytes a scenario file may hold", MaxFileSize)}
	}
	return Parse(path, data)
}

// fileError is err, from the file system, as an Error about the file.
func fileError(path string, err error) error {
	return &Error{File: path, Msg: outfile.UnwrapPath(err).Error()}
}

// checkFile refuses anything but a regular file of at most MaxFileSize.
func checkFile(path string, st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		kind := "not a regular file"
		if k := outfile.Kind(st.Mode()); k != "" {
			kind = k + ", " + kind
		}
		return &Error{File: path, Msg: kind}
	}
	if st.Size() > MaxFileSize {
		return &Error{File: path, Msg: fmt.Sprintf("%d bytes is more than the %d a scenario file may hold", st.Size(), MaxFileSize)}
	}
	return nil
}

// stepBackoffDepth is how deep the deepest setting, steps[i].backoff.policy, nests.
const stepBackoffDepth = 4

// maxDepth is how deep Parse lets mappings and lists nest, so that a file
// nested thousands deep gets a short error.
const maxDepth = 16

// Parse reads a scenario file's bytes; name labels errors.
func Parse(name string, data []byte) (Loaded, error) {
	var root yaml.Node
	docs := yaml.NewDecoder(bytes.NewReader(data))
	if err := docs.Decode(&root); err != nil && err != io.EOF {
		return Loaded{}, located(name, nil, err)
	}
	if len(root.Content) == 0 {
		return Loaded{}, &Error{File: name, Line: 1, Msg: "the file is empty; a scenario file describes a job (steps and watched), a fleet (a fleet section), or both"}
	}
	var second yaml.Node
	if err := docs.Decode(&second); err != io.EOF {
		line := second.Line
		if err != nil || line == 0 {
			line = 1
		}
		return Loaded{}, &Error{File: name, Line: line, Msg: "a second YAML document; a scenario file holds one"}
	}
	top := root.Content[0]
	if err := checkKeys(name, top, "", 0); err != nil {
		return Loaded{}, err
	}
	var f file
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	if err := d.Decode(&f); err != nil {
		return Loaded{}, located(name, top, err)
	}
	if f.Queue == nil && valueOf(top, "queue") != top {
		f.Queue = &queueFile{} // an empty queue: section turns the model on, with its defaults
	}
	out := Loaded{file: name, fleetLine: lineOf(top, "fleet"), graphLine: lineOf(top, "graph")} // read only when the file has the section
	for i := 0; top.Kind == yaml.MappingNode && i+1 < len(top.Content); i += 2 {
		if k := top.Content[i]; out.jobKey == "" && slices.Contains(jobKeys, k.Value) {
			out.jobKey, out.jobLine = k.Value, k.Line
		}
	}
	if f.Fleet.Kind != 0 {
		fl, err := fleetSection(name, &f.Fleet)
		if err != nil {
			return Loaded{}, err
		}
		out.Fleet = fl
	}
	if f.Graph.Kind != 0 {
		g, err := graphSection(name, &f.Graph, out.graphLine)
		if err != nil {
			return Loaded{}, err
		}
		out.Graph = g
	}
	if out.jobKey == "" {
		if out.Fleet == nil && out.Graph == nil {
			return Loaded{}, &Error{File: name, Line: top.Line, Msg: "describes neither a job (steps and watched), a fleet (a fleet section) nor a graph (a graph section)"}
		}
		return out, nil // a fleet or a graph alone
	}
	if valueOf(top, "steps") == top {
		return Loaded{}, &Error{File: name, Line: top.Line, Field: "steps",
			Msg: fmt.Sprintf("missing; %s describes a job, which needs at least one step", out.jobKey)}
	}
	if len(f.Steps) == 0 {
		return Loaded{}, &Error{File: name, Line: lineOf(top, "steps"), Field: "steps", Msg: "a scenario needs at least one step"}
	}
	if len(f.Steps) > stats.MaxSteps {
		return Loaded{}, &Error{File: name, Line: lineOf(top, "steps"), Field: "steps", Msg: fmt.Sprintf("%d steps is more than the %d allowed", len(f.Steps), stats.MaxSteps)}
	}
	for _, t := range []struct{ key, v string }{{"name", f.Name}, {"noun", f.Noun}, {"watched_label", f.WatchedLabel}} {
		if err := stats.CheckName(t.v); err != nil {
			return Loaded{}, &Error{File: name, Line: lineOf(top, t.key), Field: t.key, Msg: err.Error()}
		}
	}
	sc := provider.Scenario{Name: cmp.Or(f.Name, "custom"), Noun: cmp.Or(f.Noun, "jobs")}
	timed := false
	named := map[string]int{}
	stepNodes := valueOf(top, "steps").Content
	for i, s := range f.Steps {
		if err := stats.CheckName(s.Name); err != nil {
			return Loaded{}, &Error{File: name, Line: lineOf(stepNodes[i], "name"), Field: fmt.Sprintf("steps[%d].name", i), Msg: err.Error()}
		}
		st := provider.Step{Name: cmp.Or(s.Name, fmt.Sprintf("step %d", i+1))}
		if j, ok := named[st.Name]; ok { // watched and the by-step table name steps
			return Loaded{}, &Error{File: name, Line: lineOf(stepNodes[i], "name"), Field: fmt.Sprintf("steps[%d].name", i),
				Msg: fmt.Sprintf("%q is also the name of steps[%d]", st.Name, j)}
		}
		named[st.Name] = i
		given, err := s.set(&st, name, stepNodes[i], i)
		if err != nil {
			return Loaded{}, err
		}
		out.stepPolicyLines = append(out.stepPolicyLines, [2]int{s.given["attempts"].line, s.given["backoff"].line})
		timed = timed || given
		sc.Steps = append(sc.Steps, st)
	}
	if f.Queue != nil || timed {
		q, err := f.Queue.config(name, valueOf(top, "queue"), "queue")
		if err != nil {
			return Loaded{}, err
		}
		out.Queue = &q
		if f.Queue != nil {
			out.queueKeys = f.Queue.given
		}
	}
	var err error
	if sc.Watched, err = f.watches(name, top, named); err != nil {
		return Loaded{}, err
	}
	out.Scenario = sc
	return out, nil
}

// watches resolves the watched steps by name (named maps a name to its
// step); no step is watched by default, so watched is required.
func (f *file) watches(name string, top *yaml.Node, named map[string]int) ([]provider.Watch, error) {
	if len(f.Watched) == 0 {
		return nil, &Error{File: name, Line: top.Line, Field: "watched", Msg: "missing; name the step (or list the steps) whose repeated side effect is counted"}
	}
	node := valueOf(top, "watched")
	if f.WatchedLabel != "" && node.Kind == yaml.SequenceNode {
		return nil, &Error{File: name, Line: lineOf(top, "watched_label"), Field: "watched_label",
			Msg: "goes with a single watched step; give each listed step its own {step: NAME, label: TEXT}"}
	}
	var ws []provider.Watch
	seen := map[int]int{}
	for k, w := range f.Watched {
		field := "watched"
		if node.Kind == yaml.SequenceNode {
			field = fmt.Sprintf("watched[%d]", k)
		}
		i, ok := named[w.step]
		if !ok {
			return nil, &Error{File: name, Line: w.line, Field: field, Msg: fmt.Sprintf("no step is called %q", w.step)}
		}
		if j, ok := seen[i]; ok {
			return nil, &Error{File: name, Line: w.line, Field: field, Msg: fmt.Sprintf("%q is also watched[%d]", w.step, j)}
		}
		seen[i] = k
		label := w.label
		if err := stats.CheckName(label); err != nil {
			return nil, &Error{File: name, Line: w.line, Field: field + ".label", Msg: err.Error()}
		}
		if len(f.Watched) == 1 && f.WatchedLabel != "" {
			if label != "" {
				return nil, &Error{File: name, Line: lineOf(top, "watched_label"), Field: "watched_label", Msg: "the watched step has its label already"}
			}
			label = f.WatchedLabel
		}
		ws = append(ws, provider.Watch{Step: i, Label: label})
	}
	return ws, nil
}

// set sets in st each setting the step gives (n its node, i its index),
// checked as the flags check theirs; timed reports a setting only the
// delivery model reads given at other than its zero.
func (s stepFile) set(st *provider.Step, name string, n *yaml.Node, i int) (timed bool, err error) {
	field := func(key string) string { return fmt.Sprintf("steps[%d].%s", i, key) }
	for _, set := range decl.StepSettings() {
		if _, ok := s.given[set.SetBy]; set.SetBy != "" && ok {
			set.Set(st, true)
			continue
		}
		g, ok := s.given[set.ShardKey]
		if set.SetBy != "" || !ok {
			continue
		}
		v := g.v
		switch x := g.v.(type) {
		case int:
			if x < set.Min || x > set.Max {
				return false, &Error{File: name, Line: g.line, Field: field(set.ShardKey),
					Msg: fmt.Sprintf("%d is not a whole number from %d to %d", x, set.Min, set.Max)}
			}
		case string: // a key mode's name; none given keeps the run's
			if x == "" {
				continue
			}
			k, err := enum.Parse[schema.KeyMode](x)
			if err != nil {
				return false, &Error{File: name, Line: g.line, Field: field(set.ShardKey), Msg: err.Error()}
			}
			v = &k
		case *queueFile: // a backoff's keys, over the queue's default
			c, err := x.config(name, n, fmt.Sprintf("steps[%d]", i))
			if err != nil {
				return false, err
			}
			if st.Retry.Attempts == 1 {
				return false, &Error{File: name, Line: g.line, Field: field(set.ShardKey),
					Msg: "with attempts 1 the step's calls are not retried, so its backoff is never waited"}
			}
			v = &c.Backoff
		}
		set.Set(st, v) // of the setting's type: decodeStep read it by its zero
		timed = timed || set.Timed && !reflect.DeepEqual(v, set.Get(provider.Step{}))
	}
	return timed, nil
}

// config is the queue section (nil: the defaults), or a step's backoff, as
// a checked delivery.Config; m is the mapping holding its keys, at path
// (queue, steps[0]). An empty name (store: ”) keeps its default.
func (q *queueFile) config(name string, m *yaml.Node, path string) (delivery.Config, error) {
	c := delivery.Defaults()
	if q == nil {
		return c, nil
	}
	for _, g := range q.given {
		text, isName := g.v.(string)
		switch {
		case isName && text == "":
		case isName:
			if err := g.setting.SetText(&c, text); err != nil {
				return c, &Error{File: name, Line: g.line, Field: path + "." + g.setting.Key, Msg: err.Error()}
			}
		default:
			g.setting.Set(&c, g.v)
		}
	}
	baseWhy, capWhy := backoffkind.Unread(c.Backoff.Kind.String())
	for _, u := range []struct{ key, why string }{{"backoff.base", baseWhy}, {"backoff.cap", capWhy}} {
		i := slices.IndexFunc(q.given, func(g givenValue) bool { return g.setting.Key == u.key })
		if i >= 0 && u.why != "" {
			return c, &Error{File: name, Line: q.given[i].line, Field: path + "." + u.key, Msg: u.why}
		}
	}
	if err := c.Check(); err != nil {
		var fe *schema.FieldError
		if !errors.As(err, &fe) {
			return c, &Error{File: name, Line: m.Line, Field: path, Msg: err.Error()}
		}
		key := fe.Field
		if parent, child, ok := strings.Cut(fe.Field, "."); ok { // backoff.base
			m, key = valueOf(m, parent), child
		}
		return c, &Error{File: name, Line: lineOf(m, key), Field: path + "." + fe.Field, Msg: fe.Msg}
	}
	return c, nil
}

// checkKeys refuses, in any mapping under n (at path and depth), a key
// given twice in any spelling (budget_ratio, budget-ratio), a YAML merge
// key, and a key with no value but the sections; and mappings and lists
// nested past maxDepth.
func checkKeys(name string, n *yaml.Node, path string, depth int) error {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		if depth++; depth > maxDepth {
			return &Error{File: name, Line: n.Line, Msg: fmt.Sprintf("mappings and lists nested more than %d deep; a scenario file's deepest key, steps[i].backoff.policy, is %d", maxDepth, stepBackoffDepth)}
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		type first struct {
			line     int
			spelling string
		}
		seen := map[string]first{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if k.ShortTag() == "!!merge" {
				return &Error{File: name, Line: k.Line, Field: p, Msg: "a YAML merge key is refused, since it gives keys a second time; write each key out once"}
			}
			key := strings.ReplaceAll(k.Value, "-", "_")
			if f, ok := seen[key]; ok {
				as := ""
				if f.spelling != k.Value {
					as = ", as " + f.spelling
				}
				return &Error{File: name, Line: k.Line, Field: p, Msg: fmt.Sprintf("the key is given twice (first at line %d%s)", f.line, as)}
			}
			seen[key] = first{k.Line, k.Value}
			if v := n.Content[i+1]; v.Kind == yaml.ScalarNode && v.Tag == "!!null" && p != "queue" && p != "fleet" && p != "graph" {
				return &Error{File: name, Line: k.Line, Field: p, Msg: "no value; give one or leave the key out"}
			}
			for _, c := range n.Content[i : i+2] { // a key may be a mapping too
				if err := checkKeys(name, c, p, depth); err != nil {
					return err
				}
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := checkKeys(name, c, fmt.Sprintf("%s[%d]", path, i), depth); err != nil {
				return err
			}
		}
	}
	return nil
}

// valueOf is the value node of key in mapping m, or m itself.
func valueOf(m *yaml.Node, key string) *yaml.Node {
	if i := keyAt(m, key); i >= 0 {
		return m.Content[i+1]
	}
	return m
}

// lineOf is the line of key in mapping m, or m's own line.
func lineOf(m *yaml.Node, key string) int {
	if i := keyAt(m, key); i >= 0 {
		return m.Content[i].Line
	}
	return m.Line
}

// keyAt is the index in m's Content of key, if m is a mapping holding it, or -1.
func keyAt(m *yaml.Node, key string) int {
	for i := 0; m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

var (
	lineRE    = regexp.MustCompile(`(?s)^line (\d+): (.*)$`) // a quoted value may span lines
	unknownRE = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// located turns a yaml error into an Error that names the file, the line
// and, found from the line in the document whose top node is top, the field.
func located(name string, top *yaml.Node, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return &Error{File: name, Line: fe.line, Field: fieldAt(top, fe.line, fe.col, "", "", false), Msg: fe.msg}
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return &Error{File: name, Line: 1, Msg: msg}
	}
	var line int
	fmt.Sscan(m[1], &line)
	text := m[2]
	if u := unknownRE.FindStringSubmatch(text); u != nil { // the key, not the line's first field
		return &Error{File: name, Line: line, Field: fieldAt(top, line, 0, u[1], "", true), Msg: "unknown key"}
	}
	// A type error quotes the value: find it, not the first value on the
	// line, and say in words what it should be.
	hint, msg := "", text
	if t := typeRE.FindStringSubmatch(text); t != nil {
		hint, msg = t[1], fmt.Sprintf("%q is not %s", t[1], cmp.Or(typeWords[strings.TrimPrefix(t[2], "*")], "the right type"))
	}
	return &Error{File: name, Line: line, Field: fieldAt(top, line, 0, hint, "", false), Msg: msg}
}

// fieldAt is the path of the value at line and column in n (column 0: any;
// value, if not empty, must match), or of a key there; with key, of a key
// called value only.
func fieldAt(n *yaml.Node, line, col int, value, path string, key bool) string {
	if n == nil {
		return ""
	}
	at := func(m *yaml.Node) bool {
		return m.Line == line && (col == 0 || m.Column == col) && (value == "" || m.Value == value)
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if key && at(k) || !key && (v.Kind == yaml.ScalarNode || col != 0) && at(v) { // a mapping's own error has its column
				return p
			}
			if sub := fieldAt(v, line, col, value, p, key); sub != "" {
				return sub
			}
			if at(k) {
				return p
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if col != 0 && c.Kind != yaml.ScalarNode && at(c) { // an item's own error
				return p
			}
			if sub := fieldAt(c, line, col, value, p, key); sub != "" {
				return sub
			}
		}
	}
	return ""
}

var (
	typeRE = regexp.MustCompile("(?s)^cannot unmarshal !!\\w+ `(.*)` into (\\S+)$")
	// typeWords say what a Go type is in a scenario file.
	typeWords = map[string]string{
		"float64": "a number", "int": "a whole number", "bool": "true or false", "string": "text",
		"[]scenario.stepFile": "a list of steps", "scenario.file": "a mapping of settings",
		"scenario.backoffFile": "a mapping with policy, base and cap",
		"scenario.stepFile":    "a mapping of step settings", "scenario.watchFile": "a step's name or {step: NAME, label: TEXT}",
	}
)

// oneLine keeps an error on one line of at most maxErrorBytes (and "...").
func oneLine(msg string) string {
	msg = strings.ReplaceAll(msg, "\n", `\n`)
	if len(msg) <= maxErrorBytes {
		return msg
	}
	n := maxErrorBytes
	for !utf8.RuneStart(msg[n]) {
		n--
	}
	return msg[:n] + "..."
}

// maxErrorBytes bounds an error's line, which may quote a key or value.
const maxErrorBytes = 400
