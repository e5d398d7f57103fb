package flagval

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// RegisterSettings declares a flag (FlagOf) for each of the library's
// settings but those named in except, at its default.
func RegisterSettings(fs *flag.FlagSet, except ...string) {
	for _, s := range jobapi.Settings() {
		if !slices.Contains(except, s.Name) {
			fs.Var(SettingVar(s), FlagOf(s.Name), FlagWords(s.Usage))
		}
	}
}

// Model is -model: which model runs, auto leaving it to the scenario.
type Model struct{ Choice }

// modelUsage is -model's help.
const modelUsage = "the `model` that runs: job (the Part 5 model: each job's attempts in a loop, no time, no queue), delivery (each job as messages on an at-least-once queue in virtual time, which reads -latency and the queue's flags: -store, -ttl, -lease, -visibility, -max-deliveries, -backoff, -repeat, -crash...), or auto: delivery for a -scenario file with a queue: section or a step that takes time or waits its own backoff, job otherwise; the model is never chosen by which flags are given"

// RegisterModel declares -model on fs, auto by default.
func (m *Model) RegisterModel(fs *flag.FlagSet) {
	m.Choice = Choice{V: "auto", Valid: func(s string) error {
		if s != "auto" && s != "job" && s != "delivery" {
			return fmt.Errorf("want auto, job or delivery")
		}
		return nil
	}}
	fs.Var(&m.Choice, "model", modelUsage)
}

// Apply is the scenario and queue of the run -model chooses, given the
// file's queue (nil for none): the job model's steps lose their latencies,
// which no output then echoes.
func (m *Model) Apply(sc provider.Scenario, file *delivery.Config) (provider.Scenario, *delivery.Config) {
	switch m.V {
	case "job":
		sc.Steps = slices.Clone(sc.Steps)
		for i := range sc.Steps {
			sc.Steps[i].Latency = provider.Latency{}
		}
		return sc, nil
	case "delivery":
		if file == nil {
			q := delivery.Defaults()
			return sc, &q
		}
	}
	return sc, file
}

// GivenSettings are the flags set on fs that give one of the library's
// settings, as settings; the job model's (not delivery) leave out those
// only the delivery model reads, which Refuse refuses.
func GivenSettings(fs *flag.FlagSet, delivery bool) []api.Setting {
	var settings []api.Setting
	eachGivenSetting(fs, delivery, func(f *flag.Flag, setting string) {
		settings = append(settings, api.Setting{Name: setting, Value: f.Value.(flag.Getter).Get()})
	})
	return settings
}

// Overrides names the setting flags set on fs, "-p-fail 0.05, -store
// lease", but those unread (by flag name).
func Overrides(fs *flag.FlagSet, delivery bool, unread map[string]string) string {
	var text []string
	eachGivenSetting(fs, delivery, func(f *flag.Flag, _ string) {
		if unread[f.Name] == "" {
			text = append(text, "-"+f.Name+" "+f.Value.String())
		}
	})
	return strings.Join(text, ", ")
}

// eachGivenSetting calls do with GivenSettings' flags and their settings,
// in api.Settings' order.
func eachGivenSetting(fs *flag.FlagSet, delivery bool, do func(f *flag.Flag, setting string)) {
	set := Given(fs)
	for _, s := range jobapi.Settings() {
		if f := FlagOf(s.Name); set[f] && (delivery || !s.Delivery) {
			do(fs.Lookup(f), s.Name)
		}
	}
}

// LibraryError turns the library's refusal of a setting, a
// *schema.FieldError, into the flag's: by its flag, as "-set PATH" (byName
// or a step's or the queue's), or as "-scenario: PATH"; the settings its
// message names are named as flags too.
func LibraryError(err error, byName ...string) error {
	var fe *schema.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	fields := fe.Fields
	if fields == nil {
		fields = []string{fe.Field}
	}
	msg := pathtext.FieldWords(fe, func(path string) string { f, _ := flagOfSetting(path); return "-" + f })
	flags := make([]string, len(fields))
	for i, f := range fields {
		name, flagged := flagOfSetting(f)
		switch inner, inScenario := strings.CutPrefix(f, "scenario."); {
		case f == "axes":
			flags[i] = "-set"
		case strings.HasPrefix(f, "strategies["): // strategies[1].attempts: one of -strategies
			flags[i] = "-strategies"
		case slices.Contains(byName, f):
			flags[i] = "-set " + f
		case inScenario && len(fields) == 1:
			flags[i], msg = "-scenario", inner+": "+msg
		case !flagged && strings.ContainsAny(f, "[."): // steps[STEP].FIELD, queue.FIELD
			flags[i] = "-set " + f
		default: // a setting's flag, or a field of the Experiment's (jobs, engine, generator)
			flags[i] = "-" + name
		}
	}
	return Usage(fmt.Errorf("%s: %s", strings.Join(flags, " x "), msg))
}

// flagOfSetting is the flag, without its dash, that gives the setting at
// path, by its name or key (queue.backoff.policy is backoff), and whether
// one does; FlagOf(path) when none does.
func flagOfSetting(path string) (string, bool) {
	for _, s := range jobapi.Settings() {
		if s.Name == path || s.Key == path {
			return FlagOf(s.Name), true
		}
	}
	return FlagOf(path), false
}

// UnreadFlags is jobapi.Unread's reasons keyed by flag, with ModelHint.
func UnreadFlags(unread map[string]string) map[string]string {
	out := make(map[string]string, len(unread))
	for setting, why := range unread {
		out[FlagOf(setting)] = ModelHint(why)
	}
	return out
}

// ModelHint is why, the library's reason for refusing a setting, with
// -model delivery added when only that model reads it.
func ModelHint(why string) string {
	if strings.HasPrefix(why, jobapi.UnreadInJobModel) {
		return why + "; add -model delivery"
	}
	return why
}

// SetError is the command's error for a -set argument the library refused.
func SetError(err error) error {
	var fe *schema.FieldError
	if errors.As(err, &fe) {
		return Usage(fmt.Errorf("-set: %s: %s", fe.Field, ModelHint(fe.Msg)))
	}
	return Usage(fmt.Errorf("-set: %w", err))
}

// FlagWords is a library text with each setting it names by its flag: a
// name with a dot or an underscore (queue.store) as a word of its own, any
// as "the setting NAME" ("the setting latency" is -latency).
func FlagWords(text string) string {
	names := settingNames()
	if !slices.ContainsFunc(names.words, func(w string) bool { return strings.Contains(text, w) }) {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range names.re.FindAllStringSubmatchIndex(text, -1) {
		lo, hi := m[2], m[3]
		if rest := text[hi:]; rest != "" && !wordEnd(rest) {
			continue // part of a longer word or path
		}
		b.WriteString(text[last:lo])
		b.WriteString("-" + FlagOf(strings.TrimPrefix(text[lo:hi], "the setting ")))
		last = hi
	}
	b.WriteString(text[last:])
	return b.String()
}

// settingNames is what FlagWords looks for: re matches a setting's name,
// the longest first, and words are literals one of which every match holds.
var settingNames = sync.OnceValue(func() (n struct {
	re    *regexp.Regexp
	words []string
}) {
	var names []string
	for _, s := range jobapi.Settings() {
		names = append(names, s.Name)
	}
	slices.SortStableFunc(names, func(a, b string) int { return len(b) - len(a) }) // the longest first
	var alts []string
	n.words = []string{"the setting "}
	for _, name := range names {
		if strings.ContainsAny(name, "._") {
			alts = append(alts, `(?:the setting )?`+regexp.QuoteMeta(name))
			n.words = append(n.words, name)
		} else {
			alts = append(alts, `the setting `+regexp.QuoteMeta(name))
		}
	}
	n.re = regexp.MustCompile(`(?:^|[^\w.\[\]-])(` + strings.Join(alts, "|") + `)`)
	return n
})

// wordEnd reports whether rest, the text after a setting's name, ends the
// name: not a letter, digit or path mark, or a full stop ending a sentence.
func wordEnd(rest string) bool {
	c := rest[0]
	switch {
	case c == '.':
		return len(rest) == 1 || rest[1] == ' '
	case c == '_' || c == '-' || c == '[' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		return false
	}
	return true
}

// FlagOf is the flag of the setting called name: queue.backoff.base is
// backoff-base, generator rng.
func FlagOf(name string) string {
	if name == "generator" {
		return "rng"
	}
	return strings.NewReplacer(".", "-", "_", "-").Replace(strings.TrimPrefix(name, "queue."))
}
