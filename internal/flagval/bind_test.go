package flagval

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/jobapi"
)

// Each Var writes an accepted value into its field, prints the field, and
// refuses what the value type it parses through refuses, with the same
// words, leaving the field as it was.
func TestVarsWriteTheirField(t *testing.T) {
	var (
		n = 3
		x = 0.5
		d = time.Second
	)
	for _, tc := range []struct {
		name          string
		set, good     string
		after, before string // String after good, and the field as String before
		bad, badErr   string
	}{
		{"int", "7", "7", "7", "3", "101", "want a whole number from 1 to 100"},
		{"float", "0.25", "0.25", "0.25", "0.5", "2", "want a number from 0 to 1"},
		{"duration", "250ms", "250ms", "250ms", "1s", "-1s", "-1s is negative"},
	} {
		v := map[string]interface {
			String() string
			Set(string) error
		}{
			"int": IntVar(&n, 1, 100), "float": FloatVar(&x, 0, 1), "duration": DurationVar(&d),
		}[tc.name]
		if got := v.String(); got != tc.before {
			t.Errorf("%s: String() = %q; want %q", tc.name, got, tc.before)
		}
		if err := v.Set(tc.bad); err == nil || err.Error() != tc.badErr || v.String() != tc.before {
			t.Errorf("%s: Set(%q) = %v, leaving %s; want %q, leaving %s", tc.name, tc.bad, err, v, tc.badErr, tc.before)
		}
		if err := v.Set(tc.good); err != nil || v.String() != tc.after {
			t.Errorf("%s: Set(%q) = %v, then String() = %q; want nil, %q", tc.name, tc.good, err, v, tc.after)
		}
	}
	if n != 7 || x != 0.25 || d != 250*time.Millisecond {
		t.Errorf("fields %d, %g, %v; want 7, 0.25, 250ms", n, x, d)
	}
}

// ListVar keeps the names in the order given and refuses the whole list for
// one bad name or one given twice (race -mode loose,loose ran loose twice),
// leaving the field alone.
func TestListVar(t *testing.T) {
	l := []string{"a"}
	parse := func(s string) (string, error) {
		if s != "a" && s != "b" {
			return "", fmt.Errorf("unknown %q", s)
		}
		return s, nil
	}
	v := ListVar(&l, parse, func(s string) string { return s })
	if err := v.Set("b,a"); err != nil || v.String() != "b,a" || len(l) != 2 {
		t.Errorf(`Set("b,a") = %v, leaving %q; want nil, [b a]`, err, l)
	}
	for in, want := range map[string]string{"a,c": `unknown "c"`, "b,a,b": `"b" is listed twice`} {
		if err := v.Set(in); err == nil || err.Error() != want || v.String() != "b,a" {
			t.Errorf(`Set(%q) = %v, leaving %q; want %s, [b a]`, in, err, l, want)
		}
	}
}

// An old name is refused with or without a value, naming the new one, and
// -help lists only the flags of today; Given names what was set.
func TestRenamedAndGiven(t *testing.T) {
	for _, args := range [][]string{{"-old", "3"}, {"-old"}, {"-old=3"}, {"-new", "1", "-old"}} {
		fs := NewFlagSet("t")
		fs.Int("new", 0, "the new `n`")
		fs.Var(NotHere("renamed: it is -new"), "old", "")
		err := Parse(fs, args, "", io.Discard)
		if err == nil || err.Error() != "-old: renamed: it is -new" {
			t.Errorf("%q: %v; want -old: renamed: it is -new", args, err)
		}
	}
	fs := NewFlagSet("t")
	fs.Int("new", 0, "the new `n`")
	fs.Int("other", 0, "another `n`")
	fs.Var(NotHere("renamed: it is -new"), "old", "")
	var help strings.Builder
	if err := Parse(fs, []string{"-help"}, "", &help); !errors.Is(err, flag.ErrHelp) || strings.Contains(help.String(), "-old") {
		t.Errorf("-help = %v:\n%s\nwant it without -old", err, help.String())
	}
	if err := Parse(fs, []string{"-other", "2"}, "", io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := Given(fs); len(got) != 1 || !got["other"] {
		t.Errorf("Given = %v; want only other", got)
	}
}

// Every fleet setting gets a flag that prints its default, reads that back,
// and writes what it accepts into the configuration: a name, a probability
// with its own refusal, a count, a time in seconds.
func TestParamVar(t *testing.T) {
	c := fleet.DefaultConfig()
	for _, p := range decl.Params[fleet.Config]() {
		v := ParamVar(p, &c)
		if err := v.Set(v.String()); err != nil {
			t.Errorf("-%s: its default %q is refused: %v", p.Key, v.String(), err)
		}
	}
	set := func(name, s string) error {
		p, _ := decl.LookupKey[fleet.Config](name)
		return ParamVar(p, &c).Set(s)
	}
	for _, tc := range []struct{ name, value, err string }{
		{"shape", "ramp", ""},
		{"shape", "square", `unknown shape "square" (want one of constant, ramp, spike)`},
		{"p-fail", "0.25", ""},
		{"p-fail", "2", "2 is not a probability in [0, 1]"},
		{"cb-window", "0", "want a whole number from 1 to 1000000"},
		{"cb-window", "7", ""},
		{"budget-ttl", "20s", ""},
		{"backoff-cap", "3s", ""},
		{"policy-scope", "fleet", ""},
	} {
		if err := set(tc.name, tc.value); fmt.Sprint(err) != tc.err && !(err == nil && tc.err == "") {
			t.Errorf("-%s %s: %v; want %q", tc.name, tc.value, err, tc.err)
		}
	}
	pol := c.Client.Policy
	if c.Load.Kind != fleet.RampLoad || c.Server.PFail != 0.25 || pol.Window != 7 || pol.TTL != 20*time.Second || c.Client.Backoff.Cap != 3*time.Second || !pol.Shared {
		t.Errorf("the flags wrote %v, %g, %d, %v, %v, %v; want ramp, 0.25, 7, 20s, 3s, true",
			c.Load.Kind, c.Server.PFail, pol.Window, pol.TTL, c.Client.Backoff.Cap, pol.Shared)
	}
}

// Each setting's flag prints its default as the value Override takes, reads
// a value Override takes (Get), and refuses one with its own words: -crash a
// crash point, a count one out of its bounds.
func TestSettingVar(t *testing.T) {
	want := map[string]string{"p_fail": "0.01", "lost_reply": "0.005", "latency": "0s", "queue.backoff": "full-jitter",
		"queue.ttl": "24h", "queue.max_deliveries": "10", "queue.crash": "0", "queue.store": "none"}
	for _, s := range jobapi.Settings() {
		v := SettingVar(s)
		if w, ok := want[s.Name]; ok && v.String() != w {
			t.Errorf("%s: default %s; want %s", s.Name, v.String(), w)
		}
		if g := v.(flag.Getter).Get(); fmt.Sprintf("%T %v", g, g) != fmt.Sprintf("%T %v", s.Default, s.Default) {
			t.Errorf("%s: Get() = %T %v; want %T %v", s.Name, g, g, s.Default, s.Default)
		}
	}
	for name, tc := range map[string]struct{ bad, err string }{
		"queue.crash":          {"after-work", `"after-work" is a crash point: give it with -crash-at; -crash is the probability that a worker dies there`},
		"queue.max_deliveries": {"0", "want a whole number from 1 to 1000"},
		"queue.max_crashes":    {"1001", "want a whole number from 0 to 1000"},
		"p_fail":               {"1.5", "1.5 is not a probability in [0, 1]"},
	} {
		i := slices.IndexFunc(jobapi.Settings(), func(s jobapi.SettingDef) bool { return s.Name == name })
		if err := SettingVar(jobapi.Settings()[i]).Set(tc.bad); err == nil || err.Error() != tc.err {
			t.Errorf("%s.Set(%s) = %v; want %s", name, tc.bad, err, tc.err)
		}
	}
}

// A Choice with OneOf takes its names and refuses any other with the
// noun and what it wants, keeping its value.
func TestOneOf(t *testing.T) {
	c := Choice{V: "text", Valid: OneOf("format", "text or markdown", "text", "markdown")}
	if err := c.Set("markdown"); err != nil || c.V != "markdown" {
		t.Errorf("Set(markdown) = %v, V %q; want nil, markdown", err, c.V)
	}
	err := c.Set("html")
	if want := `unknown format "html" (want text or markdown)`; err == nil || err.Error() != want || c.V != "markdown" {
		t.Errorf("Set(html) = %v, V %q; want %q, markdown", err, c.V, want)
	}
}
