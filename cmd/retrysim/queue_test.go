package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/jobapi"
	"github.com/retrysim/retrysim/provider"
	"github.com/retrysim/retrysim/schema"
)

// The shipped sign-up file gives the default run's numbers.
func TestSignupScenarioFileEqualsDefault(t *testing.T) {
	strip := func(out string) string {
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"scenario_file", "step_params", "p_fail", "lost_reply", "watched"} {
			delete(rep, k)
		}
		b, _ := json.Marshal(rep)
		return string(b)
	}
	def, _, _ := retrysim(t, "-jobs", "200000", "-format", "json")
	file, errOut, code := retrysim(t, "-jobs", "200000", "-format", "json", "-scenario", "../../examples/signup.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var steps struct {
		Steps []struct {
			PFail     float64 `json:"p_fail"`
			LostReply float64 `json:"lost_reply"`
		} `json:"step_params"`
	}
	if err := json.Unmarshal([]byte(file), &steps); err != nil || len(steps.Steps) != 10 {
		t.Fatalf("step_params: %v, %d steps; want 10", err, len(steps.Steps))
	}
	for i, st := range steps.Steps {
		if want := map[bool]float64{true: 0.005}[i == 6]; st.PFail != 0.01 || st.LostReply != want {
			t.Errorf("step %d: p_fail %v, lost_reply %v; want 0.01, %v", i+1, st.PFail, st.LostReply, want)
		}
	}
	if strip(def) != strip(file) {
		t.Errorf("-scenario examples/signup.yaml differs from the built-in sign-up:\n%s\nwant\n%s", file, def)
	}
}

func TestQueueGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"queue.table", []string{"-scenario", "../../examples/signup-queue.yaml", "-jobs", "20000"}},
		{"queue.json", []string{"-scenario", "../../examples/signup-queue.yaml", "-jobs", "20000", "-format", "json", "-strategies", "step-samekey"}},
		{"preset.table", []string{"-preset", "sqlite-check", "-jobs", "1000"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := retrysim(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

// The preset's json rows: the check's outcomes per job, from its text.
func TestPresetSQLiteCheck(t *testing.T) {
	out, errOut, code := retrysim(t, "-preset", "sqlite-check", "-jobs", "5000", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Rows []struct {
			Case          string  `json:"case"`
			ChargesPerJob float64 `json:"charges_per_job"`
			LostWork      int64   `json:"lost_work"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		charges float64
		lost    int64
	}{{1, 0}, {2, 0}, {1, 0}, {2, 0}, {0, 5000}, {2, 0}, {1, 0}, {1, 0}}
	if len(rep.Rows) != len(want) {
		t.Fatalf("%d rows; want %d", len(rep.Rows), len(want))
	}
	for i, w := range want {
		if r := rep.Rows[i]; r.ChargesPerJob != w.charges || r.LostWork != w.lost {
			t.Errorf("%s: %v charges a job, %d jobs lost; want %v, %d", r.Case, r.ChargesPerJob, r.LostWork, w.charges, w.lost)
		}
	}
}

func TestQueueBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(src), 0o644)
		return p
	}
	steps := "steps:\n  - {name: charge, p_fail: 0.1}\n"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", write("a.yaml", steps+"queue:\n  stor: claim\n")}, "a.yaml:4: queue.stor: unknown key"},
		{[]string{"-scenario", write("b.yaml", "steps:\n  - {name: charge, p_fail: high}\n")}, `b.yaml:2: steps[0].p_fail: "high" is not a number`},
		{[]string{"-scenario", write("c.yaml", "steps:\n  - {name: charge, p_fail: 1.5}\n")}, "c.yaml:2: steps[0].p_fail: 1.5 is not a probability in [0, 1]"},
		{[]string{"-scenario", write("d.yaml", steps+"queue:\n  ttl: -1s\n")}, "d.yaml:4: queue.ttl: -1s is negative"},
		{[]string{"-scenario", write("e.yaml", "steps: []\n")}, "e.yaml:1: steps: a scenario needs at least one step"},
		{[]string{"-scenario", write("g.yaml", steps)}, "g.yaml:1: watched: missing; name the step (or list the steps) whose repeated side effect is counted"},
		{[]string{"-scenario", write("f.yaml", steps+"watched: refund\n")}, `f.yaml:3: watched: no step is called "refund"`},
		{[]string{"-scenario", filepath.Join(dir, "missing.yaml")}, "missing.yaml: no such file or directory"},
		// A file with a fleet alone describes no job; a fleet section only
		// retrysim fleet reads.
		{[]string{"-scenario", write("h.yaml", "fleet:\n  policy: aws\n")}, "h.yaml:1: steps: missing; the file describes only a fleet"},
		{[]string{"-shard", "0/2", "-scenario", filepath.Join(dir, "h.yaml")}, "h.yaml:1: steps: missing; the file describes only a fleet"},
		{[]string{"-scenario", write("i.yaml", steps+"watched: charge\nfleet: {policy: aws}\n")}, "i.yaml:4: fleet: only retrysim fleet reads it"},
		{[]string{"-store", "unique"}, `-store: unknown store "unique" (want one of none, after, loose, claim, lease)`},
		{[]string{"-ttl", "-1s"}, "-ttl: -1s is negative"},
		{[]string{"-latency", "50ms:10ms"}, "-latency: p99 10ms is below the median 50ms"},
		{[]string{"-crash", "2"}, "-crash: 2 is not a probability in [0, 1]"},
		{[]string{"-crash-at", "lunch"}, `-crash-at: unknown crash point "lunch"`},
		{[]string{"-backoff", "linear"}, `-backoff: unknown backoff "linear"`},
		{[]string{"-model", "delivery", "-visibility", "0s"}, "-visibility: the visibility timeout must be longer than 0s"},
		{[]string{"-model", "delivery", "-lease", "0s"}, "-lease: a lease must be longer than 0s"},
		{[]string{"-max-deliveries", "1001"}, "-max-deliveries: want a whole number from 1 to 1000"},
		{[]string{"-max-crashes", "1001"}, "-max-crashes: want a whole number from 0 to 1000"},
		{[]string{"-preset", "mysql"}, `-preset: unknown preset "mysql" (want sqlite-check)`},
		{[]string{"-model", "delivery", "-expect"}, "-expect: the closed forms cover the Part 5 model"},
		// No flag chooses the model: one only the delivery model reads,
		// given another value than its default in the job model, is
		// refused, however it is given.
		{[]string{"-ttl", "1h"}, "-ttl: only the delivery model reads it; add -model delivery"},
		{[]string{"-backoff", "constant"}, "-backoff: only the delivery model reads it; add -model delivery"},
		{[]string{"-latency", "20ms"}, "-latency: only the delivery model reads it; add -model delivery"},
		{[]string{"-scenario", "../../examples/signup-queue.yaml", "-model", "job", "-store", "lease"}, "-store: only the delivery model reads it; add -model delivery"},
		{[]string{"sweep", "-set", "queue.ttl=1h,2h"}, "-set: queue.ttl: only the delivery model reads it, and the run is of the job model (no queue); add -model delivery"},
		{[]string{"-model", "part5"}, "-model: want auto, job or delivery"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := retrysim(t, append(tt.args, "-jobs", "100")...)
			if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line containing %q", code, out, errOut, tt.want)
			}
		})
	}
}

// The run: one attempt, every call 20 ms, so no job lasts more than
// ten calls, 0.2 s, and every succeeded job exactly that. Quantiles are
// reported as their histogram bucket's geometric middle, 128 buckets an
// octave: 0.2 s falls in the octave [1/8 s, 1/4 s), whose buckets are 1/1024 s
// wide, in the bucket from 1/8 + 76/1024 s (76 = floor((0.2 - 1/8) x 1024))
// to 1/8 + 77/1024 s, whose middle is the square root of their product. Failed jobs end at their failing call,
// by 0.2 s too (a failure at the tenth call is 8.7% of them, so p95 and p99
// are there), and are kept out of the succeeded jobs' quantiles.
func TestCompletionQuantilesSplitByOutcome(t *testing.T) {
	out, errOut, code := retrysim(t, "-model", "delivery", "-strategies", "step-nokey", "-p-fail", "0.03", "-attempts", "1", "-latency", "20ms",
		"-jobs", "20000", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := math.Sqrt((0.125 + 76.0/1024) * (0.125 + 77.0/1024))
	for _, k := range []string{"completion_p50", "completion_p95", "completion_p99", "failed_completion_p95", "failed_completion_p99"} {
		if got, _ := rep.Rows[0][k].(float64); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v; want %v (the bucket of 0.2 s)", k, rep.Rows[0][k], want)
		}
	}
	table, _, _ := retrysim(t, "-model", "delivery", "-strategies", "step-nokey", "-p-fail", "0.03", "-attempts", "1", "-latency", "20ms", "-jobs", "1000", "-width", "0")
	for _, h := range []string{"Time p50 / p95 / p99, succeeded jobs", "Time p50 / p95 / p99, failed jobs"} {
		if !strings.Contains(table, h) {
			t.Errorf("the table has no column %q", h)
		}
	}
}

// The livelock: every call that starts counts (19 a job, worked out
// in delivery's TestOvertakenLeaseCallsCount), and one warning line on stderr
// says why, while the run goes on.
func TestLeaseLivelockWarnsAndCountsCalls(t *testing.T) {
	out, errOut, code := retrysim(t, "-model", "delivery", "-strategies", "step-nokey", "-p-fail", "0", "-lost-reply", "0", "-store", "lease",
		"-lease", "20ms", "-visibility", "30ms", "-latency", "50ms", "-jobs", "1000", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(errOut, "retrysim: warning: lease 20ms is shorter than a step can hold it (50ms)") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("stderr %q; want one warning line about the lease", errOut)
	}
	var rep struct {
		Rows []struct {
			Calls int64 `json:"calls"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Rows[0].Calls != 19*1000 {
		t.Errorf("%d calls; want 19 a job, 19000", rep.Rows[0].Calls)
	}
	_, errOut, _ = retrysim(t, "-scenario", "../../examples/signup-queue.yaml", "-jobs", "100")
	if errOut != "" {
		t.Errorf("the example warns: %q", errOut)
	}
}

// Outputs echo the parameters a -scenario run used: each step's, from the
// file or from the flags set over it, never the flags' defaults, and the
// title names the flags that override the file.
func TestScenarioParamsEchoed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "half.yaml")
	os.WriteFile(path, []byte("steps:\n  - {name: charge, p_fail: 0.5, latency: 10ms}\n"+
		"  - {name: email, p_fail: 0.1, lost_reply: 0.2, keyed: true, latency: {median: 20ms, p99: 200ms}}\nwatched: email\n"), 0o644)
	type step struct {
		Name      string  `json:"name"`
		PFail     float64 `json:"p_fail"`
		LostReply float64 `json:"lost_reply"`
		Latency   string  `json:"latency"`
		Keys      bool    `json:"keys"`
	}
	for _, tt := range []struct {
		flags     []string
		want      []step
		overrides string
	}{
		{nil, []step{{"charge", 0.5, 0, "fixed 10ms", false}, {"email", 0.1, 0.2, "lognormal median 20ms p99 200ms", true}}, ""},
		{[]string{"-p-fail", "0.25", "-lost-reply", "0.75", "-latency", "5ms"},
			[]step{{"charge", 0.25, 0, "fixed 5ms", false}, {"email", 0.25, 0.75, "fixed 5ms", true}}, "-p-fail 0.25, -lost-reply 0.75, -latency 5ms"},
	} {
		args := append([]string{"-scenario", path, "-jobs", "100", "-strategies", "step-nokey"}, tt.flags...)
		out, errOut, code := retrysim(t, append(args, "-format", "json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var steps []step
		json.Unmarshal(rep["step_params"], &steps)
		if !slices.Equal(steps, tt.want) {
			t.Errorf("%v: step_params %+v; want %+v", tt.flags, steps, tt.want)
		}
		if _, ok := rep["p_fail"]; ok {
			t.Errorf("%v: json has a top-level p_fail, which no step used as such", tt.flags)
		}
		if got := string(rep["overrides"]); got != map[bool]string{true: `"` + tt.overrides + `"`}[tt.overrides != ""] {
			t.Errorf("%v: overrides %s; want %q", tt.flags, got, tt.overrides)
		}
		table, _, _ := retrysim(t, append(args, "-width", "0")...) // the title on one line
		title, _, _ := strings.Cut(table, "\n")
		if over := "(" + tt.overrides + " over the file's)"; strings.Contains(title, over) != (tt.overrides != "") {
			t.Errorf("%v: title %q; want it to say %q only when a flag overrides the file", tt.flags, title, over)
		}
		text, _, _ := retrysim(t, append(args, "-format", "csv")...)
		lines, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		if err != nil || len(lines) != 2 {
			t.Fatalf("%v: csv %v, %d lines; want a header and a row", tt.flags, err, len(lines))
		}
		for i, st := range tt.want {
			k := slices.Index(lines[0], fmt.Sprintf("step_%d_p_fail", i+1))
			if k < 0 || lines[1][k] != strconv.FormatFloat(st.PFail, 'g', -1, 64) {
				t.Errorf("%v: csv step_%d_p_fail missing or not %v:\n%s", tt.flags, i+1, st.PFail, text)
			}
		}
	}
}

// Every setting the library takes by name over a scenario (api.Settings) is
// a flag of the table command, spelled by flagOf (queue.backoff.base is
// -backoff-base), whose value api.Override takes: the flags and -set cannot
// drift apart, and usage() names the same flag for the setting's errors.
func TestEverySettingIsAFlag(t *testing.T) {
	out, _, _ := retrysim(t, "-help")
	out = unwrapHelp(out)
	_, help, _ := strings.Cut(out, "\nFlags:\n")
	fs := flagval.NewFlagSet("t")
	flagval.RegisterSettings(fs)
	for _, s := range jobapi.Settings() {
		name := s.Name
		f := fs.Lookup(flagval.FlagOf(name))
		if f == nil || !strings.Contains(help, "\n  -"+f.Name+" ") {
			t.Errorf("%s: no table flag -%s", name, flagval.FlagOf(name))
			continue
		}
		q := delivery.Defaults()
		if _, _, err := api.Override(provider.Signup(0.01, 0.005), &q, api.Setting{Name: name, Value: f.Value.(flag.Getter).Get()}); err != nil {
			t.Errorf("-%s: %v", f.Name, err)
		}
	}
	for field, want := range map[string]string{"backoff.base": "-backoff-base", "max_deliveries": "-max-deliveries", "repeat_delay": "-repeat-delay"} {
		err := flagval.LibraryError(&schema.FieldError{Field: "queue." + field, Msg: "bad"})
		if err == nil || err.Error() != want+": bad" {
			t.Errorf("usage(%s) = %v; want %s: bad", field, err, want)
		}
	}
}

// -expect is refused for the delivery model in the same words whether the
// table is about to run it or merge is adding up its shards.
func TestExpectRefusedForDeliveryAlike(t *testing.T) {
	const want = "retrysim: -expect: the closed forms cover the Part 5 model, not the delivery model\n"
	shard := filepath.Join(t.TempDir(), "shard.json")
	if _, errOut, code := retrysim(t, "-model", "delivery", "-jobs", "1000", "-latency", "1ms", "-shard", "0/1", "-o", shard); code != 0 {
		t.Fatalf("-shard: exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{{"-model", "delivery", "-jobs", "1000", "-latency", "1ms", "-expect"}, {"merge", shard, "-expect"}} {
		if _, errOut, code := retrysim(t, args...); code != 2 || errOut != want {
			t.Errorf("retrysim %v: exit %d, %q; want 2, %q", args, code, errOut, want)
		}
	}
}

// The model is -model's, and the output says which ran: auto takes it from
// the file (signup-queue.yaml's queue: section: the delivery model, the
// same bytes as -model delivery); -model delivery over the sign-up runs the
// queue's defaults, as the sign-up's own file with an empty queue: section
// does (the same rows, independently of -model); -model job over the queue
// file runs the job model, whose outputs name no model and echo no queue
// or latency; the delivery model's title and json name it.
func TestModelIsChosenExplicitly(t *testing.T) {
	const queueFile = "../../examples/signup-queue.yaml"
	base := []string{"-jobs", "3000", "-strategies", "step-nokey,job-samekey-skip"}
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := retrysim(t, append(slices.Clone(base), args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	if auto, delivery := run("-scenario", queueFile), run("-scenario", queueFile, "-model", "delivery"); auto != delivery {
		t.Errorf("-scenario %s prints\n%s\nbut with -model delivery\n%s", queueFile, auto, delivery)
	}
	signup, err := os.ReadFile("../../examples/signup.yaml")
	if err != nil {
		t.Fatal(err)
	}
	emptyQueue := filepath.Join(t.TempDir(), "signup-empty-queue.yaml")
	if err := os.WriteFile(emptyQueue, append(signup, "queue:\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	type report struct {
		Model    *string          `json:"model"`
		Delivery *json.RawMessage `json:"delivery"`
		Rows     []map[string]any `json:"rows"`
	}
	decode := func(out string) report {
		t.Helper()
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		return r
	}
	flagged, filed := decode(run("-model", "delivery", "-format", "json")), decode(run("-scenario", emptyQueue, "-format", "json"))
	if flagged.Model == nil || *flagged.Model != "delivery" || filed.Model == nil || *filed.Model != "delivery" {
		t.Errorf("json model = %v (-model delivery), %v (a file with an empty queue: section); want delivery in both", flagged.Model, filed.Model)
	}
	if len(flagged.Rows) != 2 || !reflect.DeepEqual(flagged.Rows, filed.Rows) {
		t.Errorf("-model delivery rows\n%v\ndiffer from the sign-up file's with an empty queue: section\n%v", flagged.Rows, filed.Rows)
	}
	if title, _, _ := strings.Cut(run("-model", "delivery"), "┌"); !strings.Contains(title, "\ndelivery model; queue: store none,") {
		t.Errorf("-model delivery: title %q; want a line starting \"delivery model; queue: store none,\"", title)
	}
	job := run("-scenario", queueFile, "-model", "job", "-format", "json")
	if r := decode(job); r.Model != nil || r.Delivery != nil || strings.Contains(job, "lognormal") || len(r.Rows) != 2 {
		t.Errorf("-scenario %s -model job: json model %v, delivery %v; want neither, and no latency echoed:\n%s", queueFile, r.Model, r.Delivery, job)
	}
	if title, _, _ := strings.Cut(run("-scenario", queueFile, "-model", "job"), "┌"); strings.Contains(title, "queue:") || strings.Contains(title, "model") {
		t.Errorf("-scenario %s -model job: title %q names a queue or a model", queueFile, title)
	}
}
