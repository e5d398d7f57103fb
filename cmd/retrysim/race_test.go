package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/race"
)

// asRetrysim makes this test binary run as retrysim itself, for tests that
// signal or kill a harness process.
const asRetrysim = "RETRYSIM_TEST_AS_RETRYSIM"

// workerCommand is the hidden command retrysim-race starts its workers with.
const workerCommand = "__race-worker"

// raceBin is where the tests build retrysim-race, put first on PATH, so that
// retrysim race finds it as it finds an installed one.
var raceBin struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain lets this test binary serve as retrysim when asRetrysim is set.
func TestMain(m *testing.M) {
	if os.Getenv(asRetrysim) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if raceBin.dir != "" {
		os.RemoveAll(raceBin.dir)
	}
	if docRuns.dir != "" {
		os.RemoveAll(docRuns.dir)
	}
	os.Exit(code)
}

// buildRace builds retrysim-race once and puts its directory first on PATH,
// for retrysim race run by this process and the processes it starts.
func buildRace(t *testing.T) {
	t.Helper()
	raceBin.once.Do(func() {
		if raceBin.dir, raceBin.err = os.MkdirTemp("", "retrysim-race-bin"); raceBin.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", raceBin.dir, "github.com/retrysim/retrysim/cmd/retrysim-race").CombinedOutput()
		if err != nil {
			raceBin.err = fmt.Errorf("go build ./cmd/retrysim-race: %v\n%s", err, out)
			return
		}
		raceBin.err = os.Setenv("PATH", raceBin.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	if raceBin.err != nil {
		t.Fatal(raceBin.err)
	}
}

// runsRace reports whether retrysim given args runs race, which replaces the
// process with retrysim-race and so cannot run inside this test binary.
func runsRace(args []string) bool {
	return len(args) > 0 && args[0] == "race" || len(args) > 1 && args[0] == "help" && args[1] == "race"
}

// retrysimProcess runs retrysim with args as a process of its own (this test
// binary, as TestMain lets it) and returns its stdout, stderr and status.
func retrysimProcess(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	buildRace(t)
	var out, errOut bytes.Buffer
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asRetrysim+"=1")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

type raceRow struct {
	Mode          string `json:"mode"`
	Races         int64  `json:"races"`
	DoubleCharged int64  `json:"double_charged"`
	Lost          int64  `json:"lost"`
	BusyRetries   int64  `json:"busy_retries"`
	Agree         bool   `json:"agree"`
}

func raceJSON(t *testing.T, args ...string) []raceRow {
	t.Helper()
	out, errOut, code := retrysim(t, append([]string{"race", "-format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Rows []raceRow `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return rep.Rows
}

// The simulator and the real harness agree, mode by mode, on a small
// configuration: twenty two-worker races, then twenty with half the first
// deliveries killed between the key and the charge.
func TestRaceCompareAgrees(t *testing.T) {
	for _, args := range [][]string{
		{"-mode", "loose,claim,after,lease", "-rounds", "20", "-compare"},
		{"-mode", "claim,lease", "-rounds", "20", "-crash-at", "after-key", "-crash", "0.5", "-lease", "200ms", "-compare"},
	} {
		for _, r := range raceJSON(t, args...) {
			if !r.Agree {
				t.Errorf("race %s, %s: the simulator disagrees with the harness: %+v", strings.Join(args, " "), r.Mode, r)
			}
			if r.Races != 20 {
				t.Errorf("%s: %d races; want 20", r.Mode, r.Races)
			}
		}
	}
}

func TestRaceBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "optimistic"}, `-mode: unknown mode "optimistic"`},
		{[]string{"-compare", "-deliveries", "3"}, "-compare: the simulator pairs two deliveries of a job"},
		{[]string{"-ttl", "1s"}, "-ttl: keys are purged between waves of deliveries; give -gap too"},
		{[]string{"-crash-at", "before-lunch", "-crash", "1"}, `-crash-at: unknown crash point "before-lunch"`},
		{[]string{"-procs", "0"}, "-procs: want a whole number from 1 to 256"},
		{[]string{"-jobs", "10001"}, "-jobs: want a whole number from 1 to 10000"},
		{[]string{"-keys", "1000"}, "-keys: renamed: race's jobs are -jobs"},
		{[]string{"-jobs", "10000", "-deliveries", "11"}, "-deliveries: 10000 jobs x 11 deliveries is more than 100000 deliveries a round"},
		{[]string{"-crash-at", "after-key"}, "-crash-at: no worker is killed unless -crash gives a probability above 0"},
		// The spellings from before one vocabulary, each pointed at its new name.
		{[]string{"-workers", "16"}, "-workers: renamed: race's worker processes are -procs"},
		{[]string{"-repeat", "1"}, "-repeat: renamed: race's rounds are -rounds"},
		{[]string{"-crash-p", "0.5"}, "-crash-p: renamed: the probability that a worker is killed is -crash"},
		{[]string{"-crash", "after-key"}, `-crash: "after-key" is a crash point: give it with -crash-at`},
		{[]string{"-crash-at", "after-charge", "-crash", "1"}, "it is after-work now"},
	} {
		out, errOut, code := retrysim(t, append([]string{"race"}, tt.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("race %v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// harness is a retrysim race process started by a test, in a TMPDIR of its
// own, so that its workers (which inherit the environment) can be found.
type harness struct {
	cmd            *exec.Cmd
	tmp            string
	stdout, stderr bytes.Buffer
	done           chan struct{}
}

func startHarness(t *testing.T, args ...string) *harness {
	t.Helper()
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc to find worker processes in")
	}
	buildRace(t)
	h := &harness{tmp: t.TempDir(), done: make(chan struct{})}
	h.cmd = exec.Command(os.Args[0], append([]string{"race"}, args...)...)
	h.cmd.Env = append(os.Environ(), asRetrysim+"=1", "TMPDIR="+h.tmp)
	h.cmd.Stdout, h.cmd.Stderr = &h.stdout, &h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		h.cmd.Wait()
		close(h.done)
	}()
	t.Cleanup(func() { // whatever the test did, nothing outlives it
		h.cmd.Process.Kill()
		<-h.done
		for _, pid := range h.workers() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return h
}

// workers lists the live worker processes of h, from /proc: the processes
// with h's TMPDIR in their environment that run the worker command.
func (h *harness) workers() []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err1 := os.ReadFile(d + "/environ")
		args, err2 := os.ReadFile(d + "/cmdline")
		if err1 != nil || err2 != nil { // exited meanwhile, or not ours
			continue
		}
		if slices.Contains(strings.Split(string(env), "\x00"), "TMPDIR="+h.tmp) &&
			slices.Contains(strings.Split(string(args), "\x00"), workerCommand) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			pids = append(pids, pid)
		}
	}
	return pids
}

// charges counts the charges in h's database, 0 while it has none.
func (h *harness) charges() int {
	paths, _ := filepath.Glob(filepath.Join(h.tmp, "retrysim-race-*", "race-*.db"))
	if len(paths) == 0 {
		return 0
	}
	db, err := sql.Open("sqlite", "file:"+paths[0]+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return 0
	}
	defer db.Close()
	var n int
	if db.QueryRow("SELECT COUNT(*) FROM charges").Scan(&n) != nil {
		return 0 // not created yet
	}
	return n
}

// waitFor polls cond until it holds, failing the test after limit: every
// wait of these tests is bounded, and the bounds are generous.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exited waits for h to exit, at most limit.
func (h *harness) exited(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case <-h.done:
	case <-time.After(limit):
		t.Fatalf("retrysim race still running %v after the signal", limit)
	}
}

// SIGINT in the gap between waves (an hour long), and SIGTERM or SIGHUP in
// the middle of a wave, all stop race within seconds, with the interrupted line and
// exit 1, no worker left and the temporary directory gone.
func TestRaceStopsOnSignal(t *testing.T) {
	for _, tt := range []struct {
		name string
		sig  syscall.Signal
		args []string
		// ready says when the run is where the signal should find it.
		ready func(h *harness) bool
	}{
		{"SIGINT in the gap", syscall.SIGINT, []string{"-mode", "claim", "-gap", "1h", "-rounds", "1"},
			func(h *harness) bool { return h.charges() == 1 && len(h.workers()) == 0 }},
		{"SIGTERM mid-wave", syscall.SIGTERM, []string{"-mode", "claim,lease", "-procs", "8", "-jobs", "1000", "-deliveries", "4"},
			func(h *harness) bool { return len(h.workers()) > 0 }},
		{"SIGHUP mid-wave", syscall.SIGHUP, []string{"-mode", "lease", "-procs", "4", "-jobs", "1000"},
			func(h *harness) bool { return len(h.workers()) > 0 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := startHarness(t, tt.args...)
			waitFor(t, time.Minute, "the run to start", func() bool { return tt.ready(h) })
			h.cmd.Process.Signal(tt.sig)
			h.exited(t, 30*time.Second)
			if code := h.cmd.ProcessState.ExitCode(); code != flagval.ExitFailure || !strings.Contains(h.stderr.String(), "interrupted") || h.stdout.Len() > 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing and the interrupted line", code, h.stdout.String(), h.stderr.String())
			}
			if w := h.workers(); len(w) > 0 {
				t.Errorf("workers %v still running after the harness exited", w)
			}
			if left, _ := os.ReadDir(h.tmp); len(left) > 0 {
				t.Errorf("left behind in TMPDIR: %v", left)
			}
		})
	}
}

// A harness killed with SIGKILL, which it cannot handle, takes its workers
// with it: the kernel kills them (a parent-death signal).
func TestRaceWorkersDieWithHarness(t *testing.T) {
	h := startHarness(t, "-mode", "claim", "-procs", "4", "-jobs", "10000", "-deliveries", "2", "-rounds", "1")
	waitFor(t, time.Minute, "four workers to start", func() bool { return len(h.workers()) == 4 })
	h.cmd.Process.Kill()
	h.exited(t, 30*time.Second)
	waitFor(t, 10*time.Second, "the workers to die with their harness", func() bool { return len(h.workers()) == 0 })
}

// -jobs (which was -keys) at the top of its range: each worker gets its
// deliveries on its standard input, not on its command line, which the
// kernel bounds (10,000 keys failed with "argument list too long").
func TestRaceJobsAtTheTop(t *testing.T) {
	if dir, err := os.MkdirTemp("/dev/shm", "retrysim-test-"); err == nil { // 20,000 commits, off the disk
		t.Cleanup(func() { os.RemoveAll(dir) })
		t.Setenv("TMPDIR", dir)
	}
	top := strconv.Itoa(race.MaxJobs)
	for _, r := range raceJSON(t, "-mode", "claim", "-jobs", top, "-rounds", "1") {
		if r.Races != race.MaxJobs || r.DoubleCharged != 0 || r.Lost != 0 {
			t.Errorf("-jobs %s: %+v; want %s races, none charged twice or lost", top, r, top)
		}
	}
}

// Built as the README installs them, side by side (go install ./cmd/...),
// retrysim race runs the retrysim-race beside it with nothing on PATH: the
// harness, its workers (copies of retrysim-race) and retrysim help race.
func TestRaceRunsTheCommandBesideIt(t *testing.T) {
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/retrysim/retrysim/cmd/retrysim",
		"github.com/retrysim/retrysim/cmd/retrysim-race").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	retrysim := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		cmd := exec.Command(filepath.Join(bin, "retrysim"), args...)
		cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
	}
	out, errOut, code := retrysim("race", "-mode", "loose,claim", "-rounds", "3", "-format", "json")
	var rep struct{ Rows []raceRow }
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("retrysim race: exit %d, %v, stderr %q", code, err, errOut)
	}
	if len(rep.Rows) != 2 || rep.Rows[1].Mode != "claim" || rep.Rows[1].Races != 3 || rep.Rows[1].DoubleCharged != 0 {
		t.Errorf("retrysim race: rows %+v; want loose and claim, 3 races each, claim charging none twice", rep.Rows)
	}
	for _, args := range [][]string{{"help", "race"}, {"race", "-help"}} {
		if out, errOut, code := retrysim(args...); code != 0 || !strings.Contains(out, "Usage: retrysim race [flags]") || !strings.Contains(out, "-procs processes") {
			t.Errorf("retrysim %s: exit %d, stdout %q, stderr %q; want race's usage and flags", strings.Join(args, " "), code, out, errOut)
		}
	}
	if _, errOut, code := retrysim("race", "-procs", "0"); code != 2 || errOut != "retrysim: -procs: want a whole number from 1 to 256\n" {
		t.Errorf("retrysim race -procs 0: exit %d, stderr %q; want retrysim-race's exit 2 and its line", code, errOut)
	}
}

// Without retrysim-race beside it or on PATH, retrysim race says in one line
// how to install it, and exits 1: the command line is right, the install is not.
func TestRaceMissingSaysHowToInstall(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"race", "-compare"}, {"help", "race"}} {
		var out, errOut bytes.Buffer
		code := run(args, &out, &errOut)
		want := "retrysim: race runs the retrysim-race command, found neither in " + filepath.Dir(self) +
			" beside retrysim nor on PATH: install it from a clone of the repository with go install ./cmd/...," +
			" which installs both commands (the module is not published, so go install ...@latest fails)\n"
		if code != 1 || out.Len() > 0 || errOut.String() != want {
			t.Errorf("retrysim %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", strings.Join(args, " "), code, out.String(), errOut.String(), want)
		}
	}
}
