package main

import (
	"encoding"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/flagval"
)

// One strictness for files and flags (issue 21, items 7 and 8): a scenario
// file that gives a key twice, in two spellings or through a YAML merge key,
// or a backoff setting its policy never reads, is refused with its line and
// field and exit 2, as the flags for the same settings are.
func TestScenarioFileAsStrictAsFlags(t *testing.T) {
	dir := t.TempDir()
	file := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const job = "steps:\n  - {name: a, p_fail: 0.1}\nwatched: a\n"
	tests := []struct {
		name string
		args []string
		want string // the whole of stderr
	}{
		{"fleet key in two spellings", []string{"fleet", "-duration", "1s", "-scenario",
			file("twice.yaml", "fleet:\n  policy: finagle-budget\n  budget_ratio: 0.1\n  budget-ratio: 0.5\n")},
			"retrysim: -scenario DIR/twice.yaml:4: fleet.budget-ratio: the key is given twice (first at line 3, as budget_ratio)\n"},
		{"merge key", []string{"-jobs", "10", "-scenario",
			file("merge.yaml", "steps:\n  - &a {name: a, p_fail: 0.1}\n  - <<: *a\n    name: b\n    p_fail: 0.2\nwatched: b\n")},
			"retrysim: -scenario DIR/merge.yaml:3: steps[1].<<: a YAML merge key is refused, since it gives keys a second time; write each key out once\n"},
		{"step sidekiq base", []string{"-jobs", "10", "-scenario",
			file("sidekiq.yaml", "steps:\n  - {name: a, p_fail: 0.1, backoff: {policy: sidekiq, base: 1s}}\nwatched: a\n")},
			"retrysim: -scenario DIR/sidekiq.yaml:2: steps[0].backoff.base: the sidekiq schedule sets its own waits, in seconds by attempt\n"},
		{"flag sidekiq base", []string{"-jobs", "10", "-model", "delivery", "-backoff", "sidekiq", "-backoff-base", "1s", "-latency", "1ms"},
			"retrysim: -backoff-base: the sidekiq schedule sets its own waits, in seconds by attempt\n"},
		{"step none base", []string{"-jobs", "10", "-scenario",
			file("none.yaml", "steps:\n  - {name: a, p_fail: 0.1, backoff: {policy: none, base: 5s}}\nwatched: a\n")},
			"retrysim: -scenario DIR/none.yaml:2: steps[0].backoff.base: the backoff policy none never waits\n"},
		{"queue none base", []string{"-jobs", "10", "-scenario", file("queue.yaml", job+"queue: {backoff: {policy: none, base: 5s}}\n")},
			"retrysim: -scenario DIR/queue.yaml:4: queue.backoff.base: the backoff policy none never waits\n"},
		{"flag none base", []string{"-jobs", "10", "-model", "delivery", "-backoff", "none", "-backoff-base", "5s", "-latency", "1ms"},
			"retrysim: -backoff-base: the backoff policy none never waits\n"},
		// A queue key the run never reads, as its flag is refused.
		{"queue lease with claim", []string{"-jobs", "10", "-scenario", file("lease.yaml", job+"queue:\n  store: claim\n  lease: 5s\n")},
			"retrysim: -scenario DIR/lease.yaml:6: queue.lease: only the lease store takes a lease; the store is claim\n"},
		{"flag lease with claim", []string{"-jobs", "10", "-model", "delivery", "-store", "claim", "-lease", "5s"},
			"retrysim: -lease: only the lease store takes a lease; the store is claim\n"},
		{"queue crash_at without crash", []string{"-jobs", "10", "-scenario", file("crash.yaml", job+"queue: {crash_at: after-key}\n")},
			"retrysim: -scenario DIR/crash.yaml:4: queue.crash_at: no worker crashes: the crash probability is 0\n"},
		{"queue ttl with no key", []string{"-jobs", "10", "-strategies", "step-nokey", "-scenario", file("ttl.yaml", job+"queue: {ttl: 1h}\n")},
			"retrysim: -scenario DIR/ttl.yaml:4: queue.ttl: no key is written: the store is none and no strategy skips finished steps\n"},
		{"queue backoff with attempts 1", []string{"-jobs", "10", "-attempts", "1", "-scenario", file("once-queue.yaml", job+"queue:\n  backoff:\n    policy: constant\n")},
			"retrysim: -scenario DIR/once-queue.yaml:6: queue.backoff.policy: with attempts 1 no call is retried, so no backoff is waited (a step's own attempts wait its own backoff)\n"},
		// A step's own attempts or backoff that no strategy reads.
		{"step attempts, whole-job strategies", []string{"-jobs", "10", "-strategies", "job-samekey,job-samekey-skip", "-scenario",
			file("whole.yaml", "steps:\n  - {name: a, p_fail: 0.1}\n  - name: b\n    attempts: 4\nwatched: a\n")},
			"retrysim: -scenario DIR/whole.yaml:4: steps[1].attempts: every strategy retries the whole job, which reads the run's attempts and backoff, not a step's own\n"},
		{"step backoff, -attempts 1", []string{"-jobs", "10", "-attempts", "1", "-scenario",
			file("run-once.yaml", "steps:\n  - {name: a, p_fail: 0.1, backoff: {policy: constant}}\nwatched: a\n")},
			"retrysim: -scenario DIR/run-once.yaml:2: steps[0].backoff: with attempts 1 the step's calls are not retried, so its own backoff is never waited\n"},
		{"step attempts 1", []string{"-jobs", "10", "-scenario",
			file("once.yaml", "steps:\n  - {name: a, p_fail: 0.1, attempts: 1, backoff: {policy: full-jitter, base: 1s}}\nwatched: a\n")},
			"retrysim: -scenario DIR/once.yaml:2: steps[0].backoff: with attempts 1 the step's calls are not retried, so its backoff is never waited\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := retrysim(t, tt.args...)
			if want := strings.ReplaceAll(tt.want, "DIR", dir); code != 2 || out != "" || errOut != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr %q", code, out, errOut, want)
			}
		})
	}
	// A flag that makes the run read the key: the lease store takes a lease.
	if _, errOut, code := retrysim(t, "-jobs", "10", "-store", "lease", "-scenario", filepath.Join(dir, "lease.yaml")); code != 0 {
		t.Errorf("-store lease over a file's lease: exit %d, %s", code, errOut)
	}
}

// A report echoes a backoff without what its policy never reads (issue 21,
// item 8: step_params said "sidekiq base 100ms cap 2s" for a schedule that
// reads neither): the texts are the policy names alone.
func TestBackoffEchoLeavesOutWhatIsNotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	src := "steps:\n  - {name: a, p_fail: 0.1, backoff: {policy: sidekiq}}\n  - {name: b, p_fail: 0.1, backoff: {policy: none}}\n" +
		"  - {name: c, p_fail: 0.1}\nwatched: a\nqueue: {backoff: {policy: river}}\n" // c waits the queue's backoff
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := retrysim(t, "-jobs", "10", "-strategies", "step-nokey", "-scenario", path, "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Queue struct {
			Backoff string `json:"backoff"`
		} `json:"delivery"`
		Steps []struct {
			Backoff string `json:"backoff"`
		} `json:"step_params"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 3 || rep.Steps[0].Backoff != "sidekiq" || rep.Steps[1].Backoff != "none" || rep.Queue.Backoff != "river" {
		t.Errorf("step_params %+v, delivery backoff %q; want sidekiq, none and river alone", rep.Steps, rep.Queue.Backoff)
	}
}

// A harness killed with SIGKILL leaves its database directory in TMPDIR (no
// handler runs; issue 21, item 13, measured 4.6 MB); the next harness removes
// it, since its owner holds its lock no more. A directory kept with -keep is
// left where it is.
func TestRaceKilledHarnessCleanedByTheNext(t *testing.T) {
	h := startHarness(t, "-mode", "claim", "-procs", "4", "-jobs", "10000", "-deliveries", "2", "-rounds", "1")
	waitFor(t, time.Minute, "four workers to start", func() bool { return len(h.workers()) == 4 })
	h.cmd.Process.Kill()
	h.exited(t, 30*time.Second)
	waitFor(t, 10*time.Second, "the workers to die with their harness", func() bool { return len(h.workers()) == 0 })
	left, _ := filepath.Glob(filepath.Join(h.tmp, "retrysim-race-*", "race-claim.db"))
	if len(left) != 1 {
		t.Fatalf("after SIGKILL TMPDIR holds databases %v; want the killed harness's one", left)
	}
	next := func(args ...string) string {
		cmd := exec.Command(os.Args[0], append([]string{"race", "-mode", "claim", "-rounds", "1"}, args...)...)
		cmd.Env = append(os.Environ(), asRetrysim+"=1", "TMPDIR="+h.tmp)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the next harness: %v: %s", err, out)
		}
		return string(out)
	}
	next("-keep")
	kept, _ := filepath.Glob(filepath.Join(h.tmp, "retrysim-race-*", "race-claim.db"))
	if len(kept) != 1 || kept[0] == left[0] {
		t.Fatalf("after a -keep run TMPDIR holds databases %v; want only the kept one, not %s", kept, left[0])
	}
	next()
	if again, _ := filepath.Glob(filepath.Join(h.tmp, "*", "*")); !slices.Equal(again, kept) {
		t.Errorf("after a third run TMPDIR holds %v; want only the kept %v", again, kept)
	}
}

// race refuses a flag it would not read, and a lease its lease mode could
// not hold, with the table's message for -lease 0 (issue 21, item 13).
func TestRaceRefusesUnreadAndZero(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // the whole of stderr
	}{
		{[]string{"race", "-sim-jobs", "1000"}, "retrysim: -sim-jobs: only -compare runs the simulator; give -compare too, or leave -sim-jobs out\n"},
		{[]string{"race", "-lease", "0s"}, "retrysim: -lease: a lease must be longer than 0s (one that ran out at once would hold nothing)\n"},
		{[]string{"-model", "delivery", "-store", "lease", "-lease", "0s"}, "retrysim: -lease: a lease must be longer than 0s (one that ran out at once would hold nothing)\n"},
	} {
		out, errOut, code := retrysim(t, tt.args...)
		if code != 2 || out != "" || errOut != tt.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

// Every time fleet reads is bounded as -help says, up to a day (render.FleetLimitList:
// "times ... up to 86400 s"): 25h is refused for each, naming its flag. The
// backoff's base and cap were only kept from being negative (issue 21, item
// 13: -backoff-base 8760h ran). Every time setting of decl.Params[fleet.Config] is
// tried, each with flags that make the run read it (readingFlags).
func TestFleetTimesUpToADay(t *testing.T) {
	for _, p := range decl.Params[fleet.Config]() {
		var c fleet.Config
		if _, ok := p.Field(&c).(*time.Duration); !ok {
			continue
		}
		flags, ok := readingFlags(p)
		if !ok {
			t.Errorf("-%s: no flags make a run read it", p.Key)
			continue
		}
		args := append([]string{"fleet", "-duration", "1s", "-replicates", "1"}, flags...)
		out, errOut, code := retrysim(t, append(args, "-"+p.Key, "25h")...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "retrysim: -"+p.Key+": 90000 s is not ") {
			t.Errorf("-%s 25h (with %v): exit %d, stderr %q; want exit 2 and an error naming -%s", p.Key, flags, code, errOut, p.Key)
		}
	}
	_, errOut, code := retrysim(t, "fleet", "-attempts", "2", "-backoff", "exponential", "-backoff-base", "8760h")
	if want := "retrysim: -backoff-base: 3.1536e+07 s is not from 0 to 86400 s\n"; code != 2 || errOut != want {
		t.Errorf("-backoff-base 8760h: exit %d, stderr %q; want exit 2, %q", code, errOut, want)
	}
}

// readingFlags are flags of the fleet command under which a run reads the
// setting p (fleet.Config.Unread does not name it): a retry and a hedge, and one name of a setting read by name (a policy, a
// server kind, a shape), the first that does, from the declarations.
func readingFlags(p decl.Param[fleet.Config]) ([]string, bool) {
	base := []string{"-attempts", "2", "-hedges", "1"}
	candidates := [][]string{base}
	for _, q := range decl.Params[fleet.Config]() {
		c := fleet.DefaultConfig()
		text, ok := q.Field(&c).(encoding.TextUnmarshaler)
		if !ok {
			continue
		}
		_, list, _ := strings.Cut(text.UnmarshalText(nil).Error(), "(want ")
		list = strings.ReplaceAll(strings.TrimPrefix(strings.TrimSuffix(list, ")"), "one of "), " or ", ", ")
		for _, name := range strings.Split(list, ", ") {
			candidates = append(candidates, append(slices.Clip(base), "-"+q.Key, name))
		}
	}
	for _, flags := range candidates {
		fs := flag.NewFlagSet("fleet", flag.ContinueOnError)
		c := fleet.DefaultConfig()
		for _, q := range decl.Params[fleet.Config]() {
			fs.Var(flagval.ParamVar(q, &c), q.Key, "")
		}
		if fs.Parse(append(slices.Clip(flags), "-"+p.Key, "1s")) != nil {
			continue
		}
		if _, unread := c.Unread()[p.Path]; !unread {
			return flags, true
		}
	}
	return nil, false
}

// A flag given twice, in any spelling (-p-fail and --p-fail=), is refused,
// as a scenario file's key given twice is: the later one won silently.
// Only sweep's -set is given once for each parameter it varies.
func TestFlagGivenTwiceRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		flag string
	}{
		{[]string{"-jobs", "10", "-p-fail", "0.1", "-p-fail", "0.2"}, "p-fail"},
		{[]string{"-jobs", "10", "-p-fail", "0.1", "--p-fail=0.2"}, "p-fail"},
		{[]string{"sweep", "-jobs", "10", "-p-fail", "0:0.5:2", "-p-fail", "0:1:3"}, "p-fail"},
		{[]string{"fleet", "-policy", "finagle-budget", "-budget-ratio", "0.1", "-budget-ratio", "0.5"}, "budget-ratio"},
		{[]string{"race", "-procs", "2", "-procs", "4"}, "procs"},
		{[]string{"merge", "-ci", "-ci", "a.json"}, "ci"},
	} {
		want := "retrysim: -" + tt.flag + ": given twice; give it once\n"
		if out, errOut, code := retrysim(t, tt.args...); code != 2 || out != "" || errOut != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, %q", tt.args, code, out, errOut, want)
		}
	}
	if _, errOut, code := retrysim(t, "sweep", "-jobs", "10", "-set", "steps[save the user].p_fail=0,0.5",
		"-set", "steps[create the workspace].p_fail=0,1", "-format", "csv"); code != 0 {
		t.Errorf("sweep with two -set: exit %d, %s", code, errOut)
	}
}
