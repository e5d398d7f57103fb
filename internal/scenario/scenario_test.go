package scenario

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrysim/retrysim/backoff"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/scenariocheck"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// The shipped sign-up file is the built-in scenario, field for field.
func TestSignupFileEqualsBuiltIn(t *testing.T) {
	got, err := Load("../../examples/signup.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := provider.Signup(0.01, 0.005); !reflect.DeepEqual(got.Scenario, want) {
		t.Errorf("examples/signup.yaml = %+v\nwant %+v", got.Scenario, want)
	}
	if got.Queue != nil {
		t.Errorf("examples/signup.yaml turns the delivery model on: %+v", got.Queue)
	}
}

func TestQueueFile(t *testing.T) {
	got, err := Load("../../examples/signup-queue.yaml")
	if err != nil {
		t.Fatal(err)
	}
	q := got.Queue
	if q == nil || q.Store != delivery.Claim || q.RepeatP != 0.01 || q.CrashAt != delivery.AfterKey ||
		q.RepeatDelay != (provider.Latency{Median: 2 * time.Second, P99: time.Minute}) ||
		q.Backoff != (backoff.Schedule{Kind: backoff.FullJitter, Base: 100 * time.Millisecond, Cap: 2 * time.Second}) {
		t.Errorf("queue = %+v", q)
	}
	if l := got.Scenario.Steps[1].Latency; l != (provider.Latency{Median: 120 * time.Millisecond, P99: 900 * time.Millisecond}) {
		t.Errorf("steps[1].latency = %+v", l)
	}
}

// A backoff section keeps the run's default for what it leaves out, as the
// flags do: full jitter, base 100ms, cap 2s (the README's flags table).
func TestBackoffDefaultsKept(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want backoff.Schedule
	}{
		{"  backoff: {policy: exponential}\n", backoff.Schedule{Kind: backoff.Exponential, Base: 100 * time.Millisecond, Cap: 2 * time.Second}},
		{"  backoff: {base: 1s}\n", backoff.Schedule{Kind: backoff.FullJitter, Base: time.Second, Cap: 2 * time.Second}},
		{"  backoff: {cap: 5s}\n", backoff.Schedule{Kind: backoff.FullJitter, Base: 100 * time.Millisecond, Cap: 5 * time.Second}},
	} {
		got, err := Parse("s.yaml", []byte(steps+"queue:\n"+tt.src+"watched: a\n"))
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if got.Queue.Backoff != tt.want {
			t.Errorf("%q: backoff = %+v; want %+v", tt.src, got.Queue.Backoff, tt.want)
		}
	}
}

const steps = "steps:\n  - {name: a, p_fail: 0.1}\n"

// malformed are files Parse refuses, with the start of its error; FuzzParse
// starts from them.
var malformed = []struct {
	name, src, want string
}{
	{"unknown key", "steps:\n  - name: a\n    p_fail: 0.1\n    retries: 3\n", "s.yaml:4: steps[0].retries: unknown key"},
	{"unknown top key", steps + "colour: red\n", "s.yaml:3: colour: unknown key"},
	{"wrong type", "steps:\n  - name: a\n    p_fail: often\n", `s.yaml:3: steps[0].p_fail: "often" is not a number`},
	{"probability", "steps:\n  - name: a\n  - name: b\n    lost_reply: 1.5\n", "s.yaml:4: steps[1].lost_reply: 1.5 is not a probability in [0, 1]"},
	{"flow probability", "steps:\n  - {name: a, p_fail: -0.2}\n", "s.yaml:2: steps[0].p_fail: -0.2 is not a probability in [0, 1]"},
	{"negative duration", steps + "queue:\n  ttl: -5s\n", "s.yaml:4: queue.ttl: -5s is negative"},
	{"bad duration", steps + "queue:\n  lease: soon\n", `s.yaml:4: queue.lease: "soon" is not a duration such as 250ms or 2s`},
	{"latency key", "steps:\n  - name: a\n    latency: {median: 1s, p95: 2s}\n", `s.yaml:3: steps[0].latency.p95: unknown key "p95" (want median and p99)`},
	{"no steps", "name: x\nsteps: []\n", "s.yaml:2: steps: a scenario needs at least one step"},
	{"empty", "", "s.yaml:1: the file is empty"},
	// Names and labels are held to stats.CheckName, with the line, where
	// they were written to a shard that merge then refused (issue 21).
	{"tab in a step name", "steps:\n  - {name: \"a\\tb\"}\nwatched: \"a\\tb\"\n", `s.yaml:2: steps[0].name: "a\tb" holds a control character`},
	{"escape in a step name", "steps:\n  - name: x\n  - name: \"\\e[31mred\"\nwatched: x\n", `s.yaml:3: steps[1].name: "\x1b[31mred" holds a control character`},
	{"NUL in the name", "name: \"a\\0\"\n" + steps, `s.yaml:1: name: "a\x00" holds a control character`},
	{"newline in the noun", steps + "noun: \"sign\\nups\"\n", `s.yaml:3: noun: "sign\nups" holds a control character`},
	{"line separator in a label", steps + "watched_label: \"a\\Lb\"\n", `s.yaml:3: watched_label: "a\u2028b" holds a control character`},
	{"C1 in a listed label", "steps:\n  - name: a\nwatched:\n  - {step: a, label: \"x\\x9by\"}\n", `s.yaml:4: watched[0].label: "x\u009by" holds a control character`},
	// A file nested 5,000 deep gave an error naming 5,000 keys, 10 KB on
	// one line (issue 21).
	{"deep mapping", "name: " + strings.Repeat("{a: ", 5000) + "1" + strings.Repeat("}", 5000) + "\n", "s.yaml:1: mappings and lists nested more than 16 deep; a scenario file's deepest key, steps[i].backoff.policy, is 4"},
	{"deep list", "steps: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n", "s.yaml:1: mappings and lists nested more than 16 deep"},
	{"long key", "steps:\n  - name: a\n    " + strings.Repeat("k", 1000) + ": 1\n", "s.yaml:3: steps[0].kkkkkkkkkk"},
	{"long step name", "steps:\n  - name: " + strings.Repeat("x", 201) + "\n", `s.yaml:2: steps[0].name: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... is 201 bytes, more than the 200 a name may be`},
	{"watched missing", steps + "watched: send the email\n", `s.yaml:3: watched: no step is called "send the email"`},
	{"nothing watched", steps, `s.yaml:1: watched: missing; name the step`},
	{"empty watched list", steps + "watched: []\n", `s.yaml:3: watched: an empty list; name at least one step`},
	{"watched list unknown", steps + "watched: [a, b]\n", `s.yaml:3: watched[1]: no step is called "b"`},
	{"watched twice", steps + "watched:\n  - a\n  - {step: a, label: again}\n", `s.yaml:5: watched[1]: "a" is also watched[0]`},
	{"watched unknown key", steps + "watched:\n  - {step: a, lable: x}\n", `s.yaml:4: watched[0].lable: unknown key "lable" (want step and label)`},
	{"watched without step", steps + "watched:\n  - {label: x}\n", `s.yaml:4: watched[0]: a watched step needs its step`},
	{"watched label with a list", steps + "watched: [a]\nwatched_label: x\n", `s.yaml:4: watched_label: goes with a single watched step`},
	{"watched label twice", steps + "watched: {step: a, label: y}\nwatched_label: x\n", `s.yaml:4: watched_label: the watched step has its label already`},
	{"watched not a name", steps + "watched: [[a]]\n", `s.yaml:3: watched[0]: want a step's name or {step: NAME, label: TEXT}`},
	{"store", steps + "queue:\n  store: unique\n", `s.yaml:4: queue.store: unknown store "unique"`},
	{"crash point", steps + "queue:\n  crash_at: lunch\n", `s.yaml:4: queue.crash_at: unknown crash point "lunch"`},
	{"backoff", steps + "queue:\n  backoff: {policy: linear}\n", `s.yaml:4: queue.backoff.policy: unknown backoff "linear"`},
	// The queue section is read by decl.Settings[delivery.Config]: a section or a
	// mapping of settings that is not a mapping says what it should be, and
	// of two unknown names the first in the file is refused.
	{"queue not a mapping", steps + "queue: 5\n", `s.yaml:3: queue: "5" is not a mapping of queue settings`},
	{"queue a list", steps + "queue: [store]\n", "s.yaml:3: queue: a list is not a mapping of queue settings"},
	{"queue backoff a list", steps + "queue:\n  backoff: [none]\n", "s.yaml:4: queue.backoff: a list is not a mapping with policy, base and cap"},
	{"queue names in file order", steps + "queue:\n  crash_at: lunch\n  store: unique\n", `s.yaml:4: queue.crash_at: unknown crash point "lunch"`},
	{"steps not a list", "steps: 3\n", `s.yaml:1: steps: "3" is not a list of steps`},
	{"syntax", "steps: [\n", "s.yaml:"},
	// Flow style names the key at fault, not the line's first field.
	{"flow unknown key", "steps:\n  - {name: a, p_fial: 0.1}\n", "s.yaml:2: steps[0].p_fial: unknown key"},
	{"flow backoff key", steps + "queue:\n  backoff: {policy: none, bsae: 1s}\n", "s.yaml:4: queue.backoff.bsae: unknown key"},
	{"p99 without median", "steps:\n  - name: a\n    latency: {p99: 200ms}\n", "s.yaml:3: steps[0].latency: a p99 (200ms) needs a median above 0"},
	{"p99 below median", "steps:\n  - name: a\n    latency: {median: 1s, p99: 10ms}\n", "s.yaml:3: steps[0].latency: p99 10ms is below the median 1s"},
	{"duplicate top key", steps + "name: x\nname: y\n", "s.yaml:4: name: the key is given twice (first at line 3)"},
	{"duplicate flow key", "steps:\n  - {name: a, p_fail: 0.1, p_fail: 0.2}\n", "s.yaml:2: steps[0].p_fail: the key is given twice (first at line 2)"},
	{"duplicate latency key", "steps:\n  - name: a\n    latency: {median: 1s,\n      median: 2s}\n", "s.yaml:4: steps[0].latency.median: the key is given twice (first at line 3)"},
	{"second document", steps + "---\n" + steps, "s.yaml:3: a second YAML document; a scenario file holds one"},
	{"duplicate step name", "steps:\n  - {name: a}\n  - {name: b}\n  - {name: a}\n", `s.yaml:4: steps[2].name: "a" is also the name of steps[0]`},
	{"default step name taken", "steps:\n  - {name: step 2}\n  - {p_fail: 0}\n", `s.yaml:3: steps[1].name: "step 2" is also the name of steps[0]`},
	// The flags' bounds, through the validator the flags go through.
	{"max_deliveries", steps + "queue:\n  max_deliveries: 100000\n", "s.yaml:4: queue.max_deliveries: 100000 is not a whole number from 1 to 1000"},
	{"max_crashes", steps + "queue:\n  max_crashes: 1001\n", "s.yaml:4: queue.max_crashes: 1001 is not a whole number from 0 to 1000"},
	{"visibility 0", steps + "queue:\n  visibility: 0s\n", "s.yaml:4: queue.visibility: the visibility timeout must be longer than 0s"},
	{"long duration", steps + "queue:\n  visibility: 8761h\n", "s.yaml:4: queue.visibility: 8761h is longer than the 8760h (365 days) a duration may be"},
	{"long backoff cap", steps + "queue:\n  backoff:\n    policy: constant\n    cap: 9000h\n", "s.yaml:6: queue.backoff.cap: 9000h is longer than"},
	{"long latency", "steps:\n  - name: a\n    latency: 256205h\n", "s.yaml:3: steps[0].latency: 256205h is longer than"},
	{"lease zero", steps + "queue:\n  lease: 0s\n", "s.yaml:4: queue.lease: a lease must be longer than 0s"},
	{"deliveries limit", steps + "queue:\n  max_deliveries: 1001\n", "s.yaml:4: queue.max_deliveries: 1001 is not a whole number from 1 to 1000"},
	// The fleet section: the fleet command's flags, checked as they are.
	{"fleet not a mapping", steps + "fleet: 3\n", "s.yaml:3: fleet: want a mapping of fleet settings"},
	{"fleet policy", steps + "fleet:\n  policy: hystrix\n", `s.yaml:4: fleet.policy: unknown policy "hystrix"`},
	{"fleet scope", steps + "fleet:\n  policy: aws\n  policy_scope: team\n", `s.yaml:5: fleet.policy_scope: unknown scope "team"`},
	{"fleet unknown key", steps + "fleet:\n  policy: aws\n  quota_kost: 5\n", "s.yaml:5: fleet.quota_kost: unknown key"},
	{"fleet unread key", steps + "fleet:\n  policy: aws\n  cb_open: 5s\n", "s.yaml:5: fleet.cb_open: policy aws does not read it"},
	{"fleet unread key unlimited", steps + "fleet:\n  bucket_size: 5\n", "s.yaml:4: fleet.bucket_size: policy unlimited does not read it"},
	{"fleet scope unlimited", steps + "fleet:\n  policy_scope: fleet\n", "s.yaml:4: fleet.policy_scope: policy unlimited keeps no state"},
	{"fleet ttl", steps + "fleet:\n  policy: finagle-budget\n  budget_ttl: 2m\n", "s.yaml:5: fleet.budget_ttl: 120 s is not from 1 s to 60 s"},
	{"fleet ttl type", steps + "fleet:\n  policy: finagle-budget\n  budget_ttl: 10\n", `s.yaml:5: fleet.budget_ttl: "10" is not a duration such as 250ms or 2s`},
	{"fleet ratio", steps + "fleet:\n  policy: envoy-budget\n  budget_ratio: 20\n", "s.yaml:5: fleet.budget_ratio: 20 is not from 0 to 1"},
	{"fleet number", steps + "fleet:\n  policy: sre-throttle\n  sre_k: two\n", `s.yaml:5: fleet.sre_k: "two" is not a number`},
	{"fleet nan", steps + "fleet:\n  policy: sre-throttle\n  sre_k: .nan\n", `s.yaml:5: fleet.sre_k: ".nan" is not a number`},
	{"fleet count", steps + "fleet:\n  policy: sliding-breaker\n  cb_window: 2.5\n", `s.yaml:5: fleet.cb_window: want a whole number, not "2.5"`},
	{"fleet hedges", steps + "fleet:\n  hedges: 16\n", `s.yaml:4: fleet.hedges: "16" is not a whole number from 0 to 15`},
	{"fleet hedge delay alone", steps + "fleet:\n  hedge_delay: 10ms\n", "s.yaml:4: fleet.hedge_delay: there are no hedges"},
	// The section reads keys by Config.Unread, the flags' rule: a window of
	// time leaves the window of attempts unread (it was accepted before).
	{"fleet window of attempts and time", steps + "fleet:\n  policy: sliding-breaker\n  cb_window: 50\n  cb_window_time: 10s\n", "s.yaml:5: fleet.cb_window: cb_window_time makes the window one of time, not of attempts"},
	{"fleet hedge delay 0", steps + "fleet:\n  hedges: 1\n  hedge_delay: 0s\n", "s.yaml:5: fleet.hedge_delay: 0 s is not above 0 to 86400 s"},
	{"fleet duplicate key", steps + "fleet:\n  hedges: 1\n  hedges: 2\n", "s.yaml:5: fleet.hedges: the key is given twice (first at line 4)"},
	// A key in its two spellings is one key given twice, in any section
	// (issue 21, item 7: the later budget-ratio won silently).
	{"fleet key in two spellings", steps + "fleet:\n  policy: finagle-budget\n  budget_ratio: 0.1\n  budget-ratio: 0.5\n",
		"s.yaml:6: fleet.budget-ratio: the key is given twice (first at line 5, as budget_ratio)"},
	{"step key in two spellings", "steps:\n  - {name: a, p_fail: 0.1, p-fail: 0.2}\n", "s.yaml:2: steps[0].p-fail: the key is given twice (first at line 2, as p_fail)"},
	// A merge key gives the keys it merges a second time, the later winning.
	{"merge key in a step", "steps:\n  - &a {name: a, p_fail: 0.1}\n  - <<: *a\n    name: b\n", "s.yaml:3: steps[1].<<: a YAML merge key"},
	{"merge key in the queue", steps + "queue:\n  <<: {store: claim}\n  store: lease\n", "s.yaml:4: queue.<<: a YAML merge key"},
	{"merge key in the fleet", steps + "fleet:\n  <<: {policy: aws}\n  policy: grpc\n", "s.yaml:4: fleet.<<: a YAML merge key"},
	{"merge key at the top", "defaults: &d {name: x}\n<<: *d\n" + steps, "s.yaml:2: <<: a YAML merge key"},
	// A step's own policy.
	{"step attempts 0", "steps:\n  - name: a\n    attempts: 0\n", "s.yaml:3: steps[0].attempts: 0 is not a whole number from 1 to 1000"},
	{"step attempts", "steps:\n  - {name: a}\n  - {name: b, attempts: 1001}\n", "s.yaml:3: steps[1].attempts: 1001 is not a whole number from 1 to 1000"},
	// Every integer is written as one: yaml.v3 alone would truncate 2.5 to 2.
	{"step attempts type", "steps:\n  - {name: a, attempts: 2.5}\n", `s.yaml:2: steps[0].attempts: want a whole number, not "2.5"`},
	{"max_deliveries fraction", steps + "queue:\n  max_deliveries: 2.5\n", `s.yaml:4: queue.max_deliveries: want a whole number, not "2.5"`},
	{"max_crashes fraction", steps + "queue:\n  max_crashes: 1.5\n", `s.yaml:4: queue.max_crashes: want a whole number, not "1.5"`},
	{"max_crashes exponent", steps + "queue:\n  max_crashes: 1e2\n", `s.yaml:4: queue.max_crashes: want a whole number, not "1e2"`},
	{"max_crashes text", steps + "queue:\n  max_crashes: many\n", `s.yaml:4: queue.max_crashes: want a whole number, not "many"`},
	{"max_deliveries huge", steps + "queue:\n  max_deliveries: 99999999999999999999\n", `s.yaml:4: queue.max_deliveries: want a whole number, not "99999999999999999999"`},
	{"fleet hedges fraction", steps + "fleet:\n  hedges: 2.5\n", `s.yaml:4: fleet.hedges: want a whole number, not "2.5"`},
	// A key with no value was read as the field's zero (hedges: ~ as 0
	// hedges, p_fail: as 0); only an empty queue section means something.
	{"fleet hedges null", steps + "fleet:\n  policy: aws\n  hedges: ~\n", "s.yaml:5: fleet.hedges: no value; give one or leave the key out"},
	{"step p_fail empty", "steps:\n  - name: a\n    p_fail:\n", "s.yaml:3: steps[0].p_fail: no value; give one or leave the key out"},
	{"queue ttl null", steps + "queue: {ttl: null}\n", "s.yaml:3: queue.ttl: no value; give one or leave the key out"},
	{"step keys", "steps:\n  - name: a\n    keys: same\n  - name: b\n    keys: some\n", `s.yaml:5: steps[1].keys: unknown key mode "some" (want one of none, fresh, same)`},
	{"step backoff", "steps:\n  - name: a\n    backoff:\n      policy: linear\n", `s.yaml:4: steps[0].backoff.policy: unknown backoff "linear"`},
	{"step backoff key", "steps:\n  - {name: a, backoff: {base: 1s, cpa: 2s}}\n", "s.yaml:2: steps[0].backoff.cpa: unknown key"},
	{"step backoff cap", "steps:\n  - {name: a, backoff: {cap: 9000h}}\n", "s.yaml:2: steps[0].backoff.cap: 9000h is longer than"},
	// A base or a cap the backoff never reads is refused, as -backoff-base
	// and -backoff-cap are (issue 21, item 8), and so is a backoff a step
	// that is never retried never waits.
	{"step schedule base", "steps:\n  - {name: a, backoff: {policy: sidekiq, base: 1s}}\n",
		"s.yaml:2: steps[0].backoff.base: the sidekiq schedule sets its own waits, in seconds by attempt"},
	{"step schedule cap", "steps:\n  - name: a\n    backoff:\n      policy: river\n      cap: 1m\n",
		"s.yaml:5: steps[0].backoff.cap: the river schedule sets its own waits, in seconds by attempt"},
	{"step none base", "steps:\n  - {name: a, backoff: {policy: none, base: 5s}}\n", "s.yaml:2: steps[0].backoff.base: the backoff policy none never waits"},
	{"step constant cap", "steps:\n  - {name: a, backoff: {policy: constant, base: 1s, cap: 5s}}\n",
		"s.yaml:2: steps[0].backoff.cap: the constant backoff waits its base, with no cap"},
	{"step attempts 1 backoff", "steps:\n  - name: a\n    attempts: 1\n    backoff: {policy: constant}\n",
		"s.yaml:4: steps[0].backoff: with attempts 1 the step's calls are not retried, so its backoff is never waited"},
	{"queue none base", steps + "queue:\n  backoff: {policy: none, base: 5s}\n", "s.yaml:4: queue.backoff.base: the backoff policy none never waits"},
	{"queue schedule cap", steps + "queue:\n  backoff:\n    policy: sidekiq\n    cap: 5s\n", "s.yaml:6: queue.backoff.cap: the sidekiq schedule sets its own waits"},
	{"queue constant cap", steps + "queue:\n  backoff: {policy: constant, cap: 5s}\n", "s.yaml:4: queue.backoff.cap: the constant backoff waits its base, with no cap"},
	// A file describes a job, a fleet or both; a job needs its steps.
	{"nothing", "{}\n", "s.yaml:1: describes neither a job (steps and watched), a fleet (a fleet section) nor a graph (a graph section)"},
	{"null document", "~\n", "s.yaml:1: describes neither a job"},
	{"watched without steps", "watched: a\nfleet: {policy: aws}\n", "s.yaml:1: steps: missing; watched describes a job, which needs at least one step"},
	{"name without steps", "name: x\nfleet: {policy: aws}\n", "s.yaml:1: steps: missing; name describes a job"},
	{"queue without steps", "fleet: {policy: aws}\nqueue:\n", "s.yaml:1: steps: missing; queue describes a job"},
	{"fleet alone not a mapping", "fleet: 3\n", "s.yaml:1: fleet: want a mapping of fleet settings"},
	{"fleet alone empty", "fleet:\n", "s.yaml:1: fleet: want a mapping of fleet settings"},
}

// A file may describe a job, a fleet, or both; a command checks that the
// file describes what it reads and nothing it does not: the job commands
// refuse a file with no steps and a fleet section, retrysim fleet a file
// with no fleet section and a job.
func TestJobAndFleet(t *testing.T) {
	const (
		jobSrc   = "name: x\nsteps:\n  - {name: a}\nwatched: a\n"
		fleetSrc = "fleet:\n  policy: aws\n"
	)
	for _, tt := range []struct {
		name, src        string
		jobErr, fleetErr string // "" when the check passes
	}{
		{"job", jobSrc, "", "s.yaml:1: fleet: missing; retrysim fleet reads its settings from the fleet section"},
		{"fleet", fleetSrc, "s.yaml:1: steps: missing; the file describes only a fleet, whose fleet section only a fleet reads", ""},
		{"both", jobSrc + fleetSrc, "s.yaml:5: fleet: only retrysim fleet reads it; give this command a file without it",
			"s.yaml:1: name: describes a job, which retrysim fleet does not read; give it a file with only a fleet section"},
		{"fleet then queue", fleetSrc + "watched: a\nsteps: [{name: a}]\nqueue: {store: claim}\n", "s.yaml:1: fleet: only retrysim fleet reads it",
			"s.yaml:3: watched: describes a job, which retrysim fleet does not read"},
	} {
		got, err := Parse("s.yaml", []byte(tt.src))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, c := range []struct {
			what string
			err  error
			want string
		}{{"CheckJob", got.CheckJob(), tt.jobErr}, {"CheckFleet", got.CheckFleet(), tt.fleetErr}} {
			switch {
			case c.want == "" && c.err != nil:
				t.Errorf("%s: %s: %v; want none", tt.name, c.what, c.err)
			case c.want != "" && (c.err == nil || !strings.HasPrefix(c.err.Error(), c.want)):
				t.Errorf("%s: %s: %v; want %q", tt.name, c.what, c.err, c.want)
			}
		}
	}
	got, err := Parse("s.yaml", []byte(fleetSrc))
	if err != nil || len(got.Scenario.Steps) != 0 || got.Queue != nil || got.Fleet == nil || got.Fleet.Config().Client.Policy.Kind != fleet.AWSQuota {
		t.Errorf("a fleet alone: %+v, %v; want no steps, no queue, the aws policy", got, err)
	}
}

// A step's own attempts, key mode and backoff are read into its policy;
// left out, the run's apply. A backoff of its own is time, so it turns the
// delivery model on.
func TestStepPolicy(t *testing.T) {
	got, err := Parse("s.yaml", []byte("watched: c\nsteps:\n  - {name: a, attempts: 1}\n  - {name: b, keys: fresh}\n"+
		"  - name: c\n    keyed: true\n    keys: same\n    attempts: 5\n    backoff: {policy: constant, base: 1s}\n  - {name: d}\n"))
	if err != nil {
		t.Fatal(err)
	}
	fresh, same := schema.FreshKeys, schema.SameKey
	pol := delivery.Defaults().Backoff
	pol.Kind, pol.Base = backoff.Constant, time.Second
	want := []provider.StepRetry{{Attempts: 1}, {Keys: &fresh}, {Attempts: 5, Keys: &same, Backoff: &pol}, {}}
	for i, w := range want {
		if p := got.Scenario.Steps[i].Retry; !reflect.DeepEqual(p, w) {
			t.Errorf("steps[%d] policy %+v; want %+v", i, p, w)
		}
	}
	if got.Queue == nil {
		t.Error("a step's own backoff left the Part 5 model on")
	}
}

func TestMalformedFiles(t *testing.T) {
	for _, tt := range malformed {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tt.src))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Parse error = %.500v; want it to start %q", err, tt.want)
			}
			if err != nil && len(err.Error()) > 403 {
				t.Errorf("Parse error is %d bytes; want at most 400 and ...", len(err.Error()))
			}
		})
	}
}

// Only a regular file of at most MaxFileSize bytes is read: a device or a
// FIFO is refused before it is opened (opening a FIFO would block), and a
// larger file before it is read.
func TestLoadRefusesWhatIsNotAScenarioFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, bytes.Repeat([]byte("# padding\n"), MaxFileSize/10+1), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"/dev/zero", "/dev/zero: a device, not a regular file"},
		{fifo, fifo + ": a FIFO, not a regular file"},
		{dir, dir + ": a directory, not a regular file"},
		{big, big + ": 1048580 bytes is more than the 1048576 a scenario file may hold"},
		{filepath.Join(dir, "none.yaml"), filepath.Join(dir, "none.yaml") + ": no such file or directory"},
	}
	for _, tt := range tests {
		if _, err := Load(tt.path); err == nil || err.Error() != tt.want {
			t.Errorf("Load(%s) = %v; want %q", tt.path, err, tt.want)
		}
	}
}

// watched takes a step's name (the single watched step, as before), or a list
// of names and {step, label} mappings; each step gets its label or the
// default heading, in the file's order.
func TestSeveralWatchedSteps(t *testing.T) {
	src := "steps:\n  - {name: reserve}\n  - {name: charge, keyed: true}\n  - {name: receipt}\n" +
		"watched:\n  - {step: charge, label: Checkouts charged twice}\n  - receipt\n"
	got, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sc := got.Scenario
	want := []provider.Watch{{Step: 1, Label: "Checkouts charged twice"}, {Step: 2}}
	if !reflect.DeepEqual(sc.Watched, want) {
		t.Fatalf("watched = %+v; want %+v", sc.Watched, want)
	}
	one, err := Parse("s.yaml", []byte("steps:\n  - {name: a}\n  - {name: b}\nwatched: a\nwatched_label: As twice\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w := one.Scenario.Watched; !reflect.DeepEqual(w, []provider.Watch{{Step: 0, Label: "As twice"}}) {
		t.Errorf("single watched = %+v; want step 0 labelled As twice", w)
	}
}

// An empty queue: section turns the delivery model on with its defaults, as
// the README says.
func TestEmptyQueueTurnsTheModelOn(t *testing.T) {
	got, err := Parse("s.yaml", []byte("steps:\n  - {name: a}\nwatched: a\nqueue:\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Queue == nil || *got.Queue != delivery.Defaults() {
		t.Errorf("queue = %+v; want the defaults %+v", got.Queue, delivery.Defaults())
	}
}

// Parse never panics, its errors are one short line, and what it accepts passes the validators the engine
// and the flags use: the scenario's, the queue's, step names told apart, the
// watched step among the steps.
func FuzzParse(f *testing.F) {
	for _, path := range []string{"../../examples/signup.yaml", "../../examples/signup-queue.yaml", "../../examples/checkout.yaml",
		"../../examples/fleet-polly.yaml", "../../examples/fleet-budget.yaml", "../../examples/graph-checkout.yaml", "../../examples/workers-signup.yaml"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, tt := range malformed {
		f.Add([]byte(tt.src))
	}
	f.Add([]byte(steps + "queue:\n"))
	f.Add([]byte(steps + "fleet:\n  policy: sliding-breaker\n  cb_open: 5s\n  cb_window: 20\n  hedges: 2\n  hedge_delay: 1s\n"))
	f.Add([]byte(steps + "fleet: {policy: finagle-budget, budget_ttl: 10s, budget_min_rate: 10, policy_scope: fleet}\n"))
	f.Add([]byte("fleet: {policy: aws}\n"))
	f.Add([]byte("fleet: {policy: aws}\nwatched: a\nsteps: [{name: a}]\n"))
	f.Add([]byte("graph: {entries: [{to: a}], services: [{name: a}]}\n"))
	f.Add([]byte("graph: {entries: [{to: a}], services: [{name: a}]}\nwatched: a\nsteps: [{name: a}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Parse("f.yaml", data)
		if err != nil {
			if e := err.Error(); !strings.HasPrefix(e, "f.yaml:") || strings.Contains(e, "\n") || len(e) > maxErrorBytes+len("...") {
				t.Fatalf("error %q is not one line of at most %d bytes naming the file", e, maxErrorBytes)
			}
			return
		}
		if fl := got.Fleet; fl != nil {
			c := fleet.DefaultConfig() // as the command applies it: its flags' defaults, an outage
			c.Outage.To = c.Duration
			err := fl.Apply(&c)
			if err == nil {
				err = c.Check()
			}
			if err != nil {
				t.Fatalf("accepted a fleet section the flags refuse: %+v (%v)", fl, err)
			}
		}
		sc := got.Scenario
		if len(sc.Steps) == 0 { // a fleet or a graph alone
			if got.Fleet == nil && got.Graph == nil || got.Queue != nil || got.CheckJob() == nil ||
				got.CheckFleet() == nil && got.CheckGraph() == nil {
				t.Fatalf("accepted a file with no steps that is not a fleet or a graph alone: %+v", got)
			}
			return
		}
		if got.CheckJob() == nil && (got.CheckFleet() == nil || got.CheckGraph() == nil) {
			t.Fatalf("a file both commands take: %+v", got)
		}
		if err := scenariocheck.Scenario(sc); err != nil {
			t.Fatalf("accepted a scenario scenariocheck refuses: %v", err)
		}
		if len(sc.Watched) == 0 {
			t.Fatalf("accepted a file that watches no step")
		}
		seen := map[string]bool{}
		for _, st := range sc.Steps {
			if seen[st.Name] {
				t.Fatalf("two steps called %q", st.Name)
			}
			seen[st.Name] = true
		}
		if got.Queue != nil {
			if err := got.Queue.Check(); err != nil {
				t.Fatalf("accepted a queue Check refuses: %v", err)
			}
		}
	})
}

// A fleet section sets what the fleet command's flags would, from their
// defaults (fleet.DefaultPolicy) for what it leaves out.
func TestFleetSection(t *testing.T) {
	src := steps + `fleet:
  policy: sliding-breaker
  policy_scope: fleet
  cb_failure_rate: 0.1
  cb_window_time: 30s
  cb_open: 5s
  cb_half_open: 1
  hedges: 2
  hedge_delay: 20ms
watched: a
`
	got, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := fleet.DefaultPolicy()
	want.Kind, want.Shared = fleet.SlidingBreaker, true
	want.FailureRate, want.WindowTime, want.OpenTime, want.HalfOpenCalls = 0.1, 30*time.Second, 5*time.Second, 1
	f := got.Fleet
	if f == nil || f.Config().Client.Policy != want || f.Config().Client.Hedges != 2 || f.Config().Client.HedgeDelay != 20*time.Millisecond {
		t.Fatalf("fleet = %+v; want %+v, 2 hedges 20ms apart", f, want)
	}
	if f.Set["cb-open"] != 8 || f.Set["policy"] != 4 || len(f.Set) != 8 {
		t.Errorf("Set = %v; want the 8 flags with their lines", f.Set)
	}
	if got, err := Parse("s.yaml", []byte(steps+"watched: a\n")); err != nil || got.Fleet != nil {
		t.Errorf("no fleet section: %+v, %v; want a nil Fleet", got.Fleet, err)
	}
}

// LoadJob reads a job file as Load does and refuses, with CheckJob's words,
// one that describes no job or a fleet too; a file Load refuses it refuses
// with Load's error.
func TestLoadJob(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ name, src, err string }{
		{"job", "name: x\nsteps:\n  - {name: a}\nwatched: a\n", ""},
		{"fleet", "fleet:\n  policy: aws\n", "fleet.yaml:1: steps: missing; the file describes only a fleet"},
		{"both", "name: x\nsteps:\n  - {name: a}\nwatched: a\nfleet:\n  policy: aws\n", "both.yaml:5: fleet: only retrysim fleet reads it"},
		{"none", "", "none.yaml: no such file or directory"},
	} {
		path := filepath.Join(dir, tt.name+".yaml")
		if tt.src != "" {
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := LoadJob(path)
		switch {
		case tt.err == "" && (err != nil || len(got.Scenario.Steps) != 1 || got.Scenario.Steps[0].Name != "a"):
			t.Errorf("%s: LoadJob = %+v, %v; want the one step a", tt.name, got.Scenario, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: LoadJob = %v; want %q", tt.name, err, tt.err)
		}
	}
}

// TestFleetApply: a fleet section sets the client's policy and hedges, and
// refuses, naming its file and line, a policy that with one attempt and no
// hedges is never asked; a policy that guards first calls is asked.
func TestFleetApply(t *testing.T) {
	l, err := Parse("f.yaml", []byte("# budget\nfleet:\n  policy: finagle-budget\n  budget_ratio: 0.2\n"))
	if err != nil {
		t.Fatal(err)
	}
	cl := fleet.Client{Attempts: 3}
	if err := applyClient(l.Fleet, &cl); err != nil || cl.Policy.Kind != fleet.FinagleBudget || cl.Policy.BudgetRatio != 0.2 || cl.Hedges != 0 {
		t.Fatalf("attempts 3: %+v, %v", cl.Policy, err)
	}
	cl = fleet.Client{Attempts: 1}
	err = applyClient(l.Fleet, &cl)
	if want := "f.yaml:3 sets policy finagle-budget, which with client.attempts 1 and no hedges is never asked"; err == nil || err.Error() != want {
		t.Fatalf("attempts 1: %v, want %s", err, want)
	}
	l, err = Parse("f.yaml", []byte("fleet:\n  policy: finagle-budget\n  hedges: 1\n  hedge_delay: 2s\n"))
	if err != nil {
		t.Fatal(err)
	}
	cl = fleet.Client{Attempts: 1}
	if err := applyClient(l.Fleet, &cl); err != nil || cl.Hedges != 1 || cl.HedgeDelay != 2*time.Second {
		t.Fatalf("hedged: %+v, %v", cl, err)
	}
	l, err = Parse("f.yaml", []byte("fleet:\n  policy: sre-throttle\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := applyClient(l.Fleet, &fleet.Client{Attempts: 1}); err != nil {
		t.Fatalf("sre-throttle guards first calls: %v", err)
	}
	for _, tc := range []struct {
		yaml string
		kind fleet.PolicyKind
		cost float64
	}{
		{"fleet:\n  policy: aws-spec\n  quota_cost: 14\n", fleet.AWSSpecQuota, 14},
		// A kind given to a client with no policy parameters takes
		// DefaultPolicy's (TestPolicyKindSetTakesDefaults).
		{"fleet:\n  policy: grpc-adaptive\n", fleet.GRPCAdaptive, fleet.DefaultPolicy().Cost},
	} {
		l, err = Parse("f.yaml", []byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		cl = fleet.Client{Attempts: 3}
		if err := applyClient(l.Fleet, &cl); err != nil || cl.Policy.Kind != tc.kind || cl.Policy.Cost != tc.cost {
			t.Errorf("policy %s: %+v, %v", tc.kind, cl.Policy, err)
		}
	}
	// What the file does not set stays as the flags set it: a budget ratio,
	// hedges and a scope given by flags over a file that names only the
	// policy (they were replaced by the section's defaults, dropping the flags).
	l, err = Parse("f.yaml", []byte("fleet:\n  policy: finagle-budget\n"))
	if err != nil {
		t.Fatal(err)
	}
	cl = fleet.Client{Attempts: 3, Hedges: 2, HedgeDelay: 500 * time.Millisecond, Policy: fleet.PolicyConfig{BudgetRatio: 7, Shared: true}}
	if err := applyClient(l.Fleet, &cl); err != nil {
		t.Fatal(err)
	}
	want := fleet.Client{Attempts: 3, Hedges: 2, HedgeDelay: 500 * time.Millisecond, Policy: fleet.PolicyConfig{Kind: fleet.FinagleBudget, BudgetRatio: 7, Shared: true}}
	if cl != want {
		t.Errorf("flags under a file naming only the policy: %+v; want %+v", cl, want)
	}
}

// applyClient is f.Apply on a configuration of the client cl alone.
func applyClient(f *Fleet, cl *fleet.Client) error {
	c := fleet.Config{Client: *cl}
	err := f.Apply(&c)
	*cl = c.Client
	return err
}

// A fleet section sets any setting of decl.Params[fleet.Config], not the client's
// alone: the server, the load, the network and the outage's mode, each
// read as its flag reads it, and Apply sets them over the flags' values,
// leaving what it does not give; a key that the section's own settings
// leave unread, and a value out of its bounds, are refused with the line.
func TestFleetSectionSetsEverySetting(t *testing.T) {
	const src = "fleet:\n  server: queue\n  capacity: 4\n  service: 250ms\n  service_dist: exp\n  shape: spike\n  peak: 300\n  net: 5ms\n  outage_mode: stall\n  p_fail: 0.25\n  clients: 7\n"
	l, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c := fleet.DefaultConfig()
	c.Load.Rate, c.Client.Timeout = 12, time.Second // as flags set them
	c.Outage.From, c.Outage.To = 10*time.Second, 20*time.Second
	if err := l.Fleet.Apply(&c); err != nil {
		t.Fatal(err)
	}
	want := fleet.DefaultConfig()
	want.Load.Rate, want.Client.Timeout = 12, time.Second
	want.Outage.From, want.Outage.To = 10*time.Second, 20*time.Second
	want.Server.Kind, want.Server.Workers, want.Server.Service.Median, want.Server.Service.Dist = fleet.QueueServer, 4, 250*time.Millisecond, fleet.ExponentialService
	want.Load.Kind, want.Load.Peak, want.Net, want.Outage.Mode, want.Server.PFail, want.Client.Clients = fleet.SpikeLoad, 300, 5*time.Millisecond, fleet.Stall, 0.25, 7
	if c != want {
		t.Errorf("Apply = %+v\nwant %+v", c, want)
	}
	if l.Fleet.Set["capacity"] != 3 || l.Fleet.Set["clients"] != 11 || len(l.Fleet.Set) != 10 {
		t.Errorf("Set = %v; want the 10 keys by flag, with their lines", l.Fleet.Set)
	}
	c = fleet.DefaultConfig() // no outage: its mode is not read
	if err := l.Fleet.Apply(&c); err == nil || err.Error() != "f.yaml:9: fleet.outage_mode: there is no outage" {
		t.Errorf("Apply with no outage = %v; want f.yaml:9: fleet.outage_mode: there is no outage", err)
	}
	if _, err := Parse("f.yaml", []byte("fleet:\n  backoff: exponential\n  backoff_cap: 0s\n")); err != nil {
		t.Errorf("a backoff cap of 0s (no cap, as the flag's 0): %v", err)
	}
	for _, tt := range []struct{ src, want string }{
		{"fleet:\n  capacity: 4\n", "f.yaml:2: fleet.capacity: only server queue has workers; the server is latency"},
		{"fleet:\n  server: queue\n  capacity: 0\n", `f.yaml:3: fleet.capacity: "0" is not a whole number from 1 to 1e+06`},
		{"fleet:\n  rate: -3\n", "f.yaml:2: fleet.rate: -3 is not from 0 to 1e+06"},
		{"fleet:\n  p_fail: 1.5\n", "f.yaml:2: fleet.p_fail: 1.5 is not from 0 to 1"},
		{"fleet:\n  shape: wave\n", `f.yaml:2: fleet.shape: unknown shape "wave"`},
		{"fleet:\n  net: 5\n", `f.yaml:2: fleet.net: "5" is not a duration such as 250ms or 2s`},
		{"fleet:\n  shape: ramp\n  rate: 100\n  peak: 50\n", "f.yaml:4: fleet.peak: 50 is below rate 100"},
	} {
		if _, err := Parse("f.yaml", []byte(tt.src)); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: %v; want %s", tt.src, err, tt.want)
		}
	}
}

// CheckRead refuses the first queue key, in file order, whose setting the
// run does not read, naming the file's field (backoff.policy is the
// setting queue.backoff) and its line.
func TestCheckRead(t *testing.T) {
	got, err := Parse("s.yaml", []byte(steps+"watched: a\nqueue:\n  store: claim\n  backoff: {policy: exponential, base: 1s}\n  lease: 5s\n"))
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	err = got.CheckRead(func(setting string) string {
		asked = append(asked, setting)
		if setting == "queue.lease" {
			return "not read"
		}
		return ""
	})
	if want := "s.yaml:7: queue.lease: not read"; err == nil || err.Error() != want {
		t.Errorf("CheckRead = %v; want %q", err, want)
	}
	if want := []string{"queue.store", "queue.backoff", "queue.backoff.base", "queue.lease"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("CheckRead asked of %q; want %q", asked, want)
	}
	err = got.CheckRead(func(setting string) string {
		if setting == "queue.backoff" {
			return "not read"
		}
		return ""
	})
	if want := "s.yaml:6: queue.backoff.policy: not read"; err == nil || err.Error() != want {
		t.Errorf("CheckRead = %v; want %q", err, want)
	}
}

// A file's error that names a field is a *schema.FieldError for its path,
// found with errors.As, as the library's own are; one that names none is not.
func TestErrorIsAFieldError(t *testing.T) {
	_, err := Parse("s.yaml", []byte("steps:\n  - name: a\nwatched: a\nqueue:\n  lease: 0s\n"))
	var fe *schema.FieldError
	if !errors.As(err, &fe) || fe.Field != "queue.lease" || !strings.HasPrefix(fe.Msg, "a lease must be longer than 0s") {
		t.Errorf("Parse(lease 0s) = %v; want a *schema.FieldError for queue.lease", err)
	}
	if err := (&Error{File: "s.yaml", Line: 1, Msg: "not YAML"}); errors.As(error(err), &fe) {
		t.Errorf("%v, which names no field, is a *schema.FieldError", err)
	}
}
