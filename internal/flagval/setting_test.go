package flagval

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
	"github.com/retrysim/retrysim/strategy"
)

// The settings given on the command line come back as the library's, in
// Settings' order whatever the order given, each with the value Override
// takes, and as the text a report shows of what overrides a file.
func TestGivenSettings(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	RegisterSettings(fs)
	if err := fs.Parse([]string{"-ttl", "2h", "-store", "lease", "-p-fail", "0.05"}); err != nil {
		t.Fatal(err)
	}
	settings, text := GivenSettings(fs, true), Overrides(fs, true, nil)
	want := []api.Setting{{Name: "p_fail", Value: 0.05}, {Name: "queue.store", Value: delivery.Lease}, {Name: "queue.ttl", Value: 2 * time.Hour}}
	if !reflect.DeepEqual(settings, want) || text != "-p-fail 0.05, -store lease, -ttl 2h" {
		t.Errorf("GivenSettings(delivery) = %v, %q; want %v, -p-fail 0.05, -store lease, -ttl 2h", settings, text, want)
	}
	// The job model reads no queue: its settings are left for Unread.
	settings, text = GivenSettings(fs, false), Overrides(fs, false, nil)
	if want := want[:1]; !reflect.DeepEqual(settings, want) || text != "-p-fail 0.05" {
		t.Errorf("GivenSettings(job) = %v, %q; want %v, -p-fail 0.05", settings, text, want)
	}
	// A flag the run does not read (let through only at its default) is no override.
	if text := Overrides(fs, true, map[string]string{"ttl": "no key is written"}); text != "-p-fail 0.05, -store lease" {
		t.Errorf("Overrides with -ttl unread = %q; want -p-fail 0.05, -store lease", text)
	}
}

// The library's refusals name the flag a user gave: a setting by its flag,
// the generator as -rng, sweep axes (Fields) joined by " x ", a parameter by name
// with -set, and a field of the queue by its flag; other errors pass as
// they are.
func TestLibraryError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&schema.FieldError{Field: "replicates", Msg: "bad"}, "-replicates: bad"},
		{&schema.FieldError{Field: "generator", Msg: "bad"}, "-rng: bad"},
		{&schema.FieldError{Field: "p_fail x steps[charge the card].p_fail x axes", Fields: []string{"p_fail", "steps[charge the card].p_fail", "axes"}, Msg: "bad"}, "-p-fail x -set steps[charge the card].p_fail x -set: bad"},
		{&schema.FieldError{Field: "queue.backoff.base", Msg: "bad"}, "-backoff-base: bad"},
		{&schema.FieldError{Field: "queue.backoff.policy", Msg: "bad"}, "-backoff: bad"},
		{&schema.FieldError{Field: "queue.max_deliveries", Msg: "bad"}, "-max-deliveries: bad"},
		{&schema.FieldError{Field: "queue.lease", Msg: "bad"}, "-set queue.lease: bad"}, // given by name
		{&schema.FieldError{Field: "scenario.steps[2].p_fail", Msg: "bad"}, "-scenario: steps[2].p_fail: bad"},
		{fmt.Errorf("point 3: %w", &schema.FieldError{Field: "jobs", Msg: "bad"}), "-jobs: bad"},
		// The settings a message names as schema.Paths are named by their
		// flags, and only those: the words engine and generator stay.
		{pathtext.Errorf("engine", "engine skip cannot; use %s plain, or %s pcg", pathtext.Path("engine"), pathtext.Path("generator")), "-engine: engine skip cannot; use -engine plain, or -rng pcg"},
		{pathtext.Errorf("shard", "generator x cannot; use %s pcg", pathtext.Path("generator")), "-shard: generator x cannot; use -rng pcg"},
		{pathtext.Errorf("queue.lease", "needs %s lease and %s", pathtext.Path("queue.store"), pathtext.Path("queue.backoff.policy")), "-set queue.lease: needs -store lease and -backoff"},
		{&schema.FieldError{Field: "engine", Msg: "no; use engine plain or auto"}, "-engine: no; use engine plain or auto"},
	} {
		err := LibraryError(tt.err, "queue.lease")
		if _, usage := err.(UsageError); !usage || err.Error() != tt.want {
			t.Errorf("LibraryError(%v) = %v; want the usage error %s", tt.err, err, tt.want)
		}
	}
	// A grid too large names each swept parameter, whatever its name holds:
	// a step called "a x b" is one parameter, not two.
	sc := provider.Scenario{Name: "t", Steps: []provider.Step{{Name: "a x b"}, {Name: "c"}}}
	sw := api.Sweep{Experiment: api.Experiment{Scenario: sc, Strategies: []strategy.Strategy{strategy.Retry{Attempts: 3}}}, Axes: []api.Axis{
		{Name: "steps[a x b].p_fail", Values: make([]float64, 101)}, {Name: "steps[c].p_fail", Values: make([]float64, 100)}}}
	_, err := sw.Check()
	const want = "-set steps[a x b].p_fail x -set steps[c].p_fail: 101 x 100 = 10100 points is more than the 10000 a sweep allows"
	if err = LibraryError(err); err == nil || err.Error() != want {
		t.Errorf("LibraryError(Check of a grid too large) = %v; want %s", err, want)
	}
	if err := io.EOF; LibraryError(err) != err {
		t.Errorf("LibraryError(io.EOF) = %v; want it unchanged", LibraryError(err))
	}
}

// FlagWords names a setting the library's text names by its path as the
// flag that gives it: a dotted or underscored name wherever it stands as a
// word, a bare one only as "the setting NAME"; a longer path holding a
// setting's name (steps[].p_fail, queue.backoff.policy, queue.repeat_delay
// for queue.repeat) and a bare word stay as they are.
func TestFlagWords(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"(more than 0; queue.store lease only)", "(more than 0; -store lease only)"},
		{"dies at queue.crash_at, each time", "dies at -crash-at, each time"},
		{"needs queue.crash", "needs -crash"},
		{"needs queue.crash.", "needs -crash."},
		{"queue.repeat_delay after queue.repeat", "-repeat-delay after -repeat"},
		{"queue.backoff.base, queue.backoff and queue.backoff.policy", "-backoff-base, -backoff and queue.backoff.policy"},
		{"the setting p_fail sets it; lost_reply too", "-p-fail sets it; -lost-reply too"},
		{"the setting latency sets it on every step", "-latency sets it on every step"},
		{"a latency of steps[].p_fail, steps[NAME].latency or client.backoff.base", "a latency of steps[].p_fail, steps[NAME].latency or client.backoff.base"},
		{"p_fails and queue.stores", "p_fails and queue.stores"},
	} {
		if got := FlagWords(tt.in); got != tt.want {
			t.Errorf("FlagWords(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	// Every queue setting a setting's help names is named as a flag.
	for _, s := range jobapi.Settings() {
		if got := FlagWords(s.Usage); strings.Contains(got, "queue.") {
			t.Errorf("%s: %q names a queue setting by its path", s.Name, got)
		}
	}
}

// BenchmarkRegisterSettings is the flags' share of every command's start-up:
// declaring a flag a setting, its usage in the command's words (FlagWords).
func BenchmarkRegisterSettings(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		RegisterSettings(flag.NewFlagSet("bench", flag.ContinueOnError))
	}
}
