package race

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrysim/retrysim/delivery"
)

// TestMain lets the test binary be the worker process, as the retrysim
// binary is for retrysim race.
func TestMain(m *testing.M) {
	if os.Getenv("RETRYSIM_RACE_WORKER") == "1" {
		var out io.Writer = os.Stdout
		// RETRYSIM_RACE_KILLED="W1 FILE": worker W1 is killed once, the
		// first to make FILE.
		if name, once, ok := strings.Cut(os.Getenv("RETRYSIM_RACE_KILLED"), " "); ok && slices.Contains(os.Args, name) {
			if f, err := os.OpenFile(once, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
				f.Close()
				out = killedAt{out, "done "}
			}
		}
		if err := Worker(os.Args[1:], os.Stdin, out); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// killedAt is a worker's output that SIGKILLs the worker as it is about to
// write its first line starting with prefix, as a kill from outside would:
// the worker had no crash planned there, and says nothing.
type killedAt struct {
	w      io.Writer
	prefix string
}

func (k killedAt) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte(k.prefix)) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return k.w.Write(p)
}

func config(mode Mode) Config {
	return Config{
		Mode: mode, Procs: 2, Jobs: 1, Deliveries: 2, Rounds: 1,
		Lease: 300 * time.Millisecond, Seed: 1,
		Exe: os.Args[0], Env: []string{"RETRYSIM_RACE_WORKER=1"},
	}
}

func run(t *testing.T, cfg Config) Result {
	t.Helper()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Twenty two-worker races, as in the check: check-then-insert charges twice
// nearly every time (20 of 20 on an idle machine); a UNIQUE key never does,
// its loser refused with 2067. The races are real, so how often the two
// workers overlap depends on the scheduler: on two cores shared with other
// work as few as 15 of 20 have overlapped, so the loose bound is half,
// which still tells a race from none (a store that never charged twice
// gives 0).
func TestTwentyRaces(t *testing.T) {
	loose := config(Loose)
	loose.Rounds = 20
	if res := run(t, loose); res.DoubleCharged < 10 {
		t.Errorf("loose: %d of 20 races charged twice; want at least 10 (%+v)", res.DoubleCharged, res)
	}
	claim := config(Claim)
	claim.Rounds = 20
	res := run(t, claim)
	if res.DoubleCharged != 0 || res.Refused != 20 || len(res.RefusedCodes) != 1 || res.RefusedCodes[0] != codeConstraintUnique {
		t.Errorf("claim: %d of 20 charged twice, %d refusals with codes %v; want 0, 20 and [2067]", res.DoubleCharged, res.Refused, res.RefusedCodes)
	}
}

// A worker killed between the key and the charge, then the redelivery.
func TestCrashes(t *testing.T) {
	for _, tt := range []struct {
		mode          Mode
		crash         CrashPoint
		charges, lost int64
	}{
		{Claim, AfterKey, 0, 1},  // the key says handled, nothing was charged
		{Lease, AfterKey, 1, 0},  // the lease runs out and the redelivery charges once
		{After, AfterWork, 2, 0}, // charged, no key, charged again
		{Claim, BeforeKey, 1, 0}, // nothing happened; the redelivery charges
		{Loose, BeforeAck, 1, 0}, // all done but the ack; the redelivery finds the key
		{After, BeforeAck, 2, 0}, // after never reads its key: the redelivery charges again
		{Lease, BeforeAck, 1, 0}, // the lease row says done
	} {
		t.Run(string(tt.mode)+"/"+string(tt.crash), func(t *testing.T) {
			cfg := config(tt.mode)
			cfg.Procs, cfg.Deliveries, cfg.CrashAt, cfg.CrashP = 1, 1, tt.crash, 1
			res := run(t, cfg)
			if got := int64(res.ChargesPerRace); got != tt.charges || res.Lost != tt.lost || res.Crashes != 1 {
				t.Errorf("%v charges, %d lost, %d crashes; want %d, %d, 1", res.ChargesPerRace, res.Lost, res.Crashes, tt.charges, tt.lost)
			}
		})
	}
}

// A key purged before the second delivery comes is no key.
func TestTTL(t *testing.T) {
	for _, tt := range []struct {
		ttl     time.Duration
		charges float64
	}{{100 * time.Millisecond, 2}, {time.Minute, 1}} {
		cfg := config(Claim)
		cfg.Procs, cfg.Gap, cfg.TTL = 1, 300*time.Millisecond, tt.ttl
		if res := run(t, cfg); res.ChargesPerRace != tt.charges {
			t.Errorf("TTL %v with deliveries 300ms apart: %v charges; want %v", tt.ttl, res.ChargesPerRace, tt.charges)
		}
	}
}

// Sixteen workers, a thousand jobs, four deliveries each: the UNIQUE claim and
// the lease never charge twice, and the lease loses nothing even with 5% of
// deliveries' workers killed mid-job; no SQLITE_BUSY escapes (it would fail
// the run).
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("16 x 1,000 x 4 deliveries: run without -short")
	}
	for _, tt := range []struct {
		mode  Mode
		crash CrashPoint
		p     float64
	}{{Claim, NoCrash, 0}, {Lease, NoCrash, 0}, {Lease, AfterKey, 0.05}} {
		cfg := config(tt.mode)
		cfg.Procs, cfg.Jobs, cfg.Deliveries, cfg.CrashAt, cfg.CrashP = 16, 1000, 4, tt.crash, tt.p
		res := run(t, cfg)
		t.Logf("%s, crash %v at %q: %+v", tt.mode, tt.p, tt.crash, res)
		if res.DoubleCharged != 0 {
			t.Errorf("%s: %d jobs charged twice; want 0", tt.mode, res.DoubleCharged)
		}
		if tt.mode == Lease && (res.Lost != 0 || res.ChargesPerRace != 1) {
			t.Errorf("lease, %v killed: %d jobs lost, %v charges a job; want 0 and 1", tt.p, res.Lost, res.ChargesPerRace)
		}
		if tt.p > 0 && res.Crashes == 0 {
			t.Errorf("lease: no worker was killed; want about 5%% of 4,000 deliveries")
		}
	}
}

// The harness's crash points are the delivery model's, name for name.
func TestCrashPointsAreTheDeliveryModels(t *testing.T) {
	var want []CrashPoint
	for p := delivery.BeforeKey; p <= delivery.BeforeAck; p++ {
		want = append(want, CrashPoint(p.String()))
	}
	if !slices.Equal(CrashPoints(), want) {
		t.Errorf("race.CrashPoints() = %v; want the delivery model's %v", CrashPoints(), want)
	}
}

// A cancelled run returns at once, even from a gap of an hour between
// waves, and leaves no database and no temporary directory behind.
func TestCancelledRunCleansUp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where Run makes its directory
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cfg := config(Claim)
	cfg.Gap = time.Hour
	go func() {
		_, err := Run(ctx, cfg)
		done <- err
	}()
	// Cancel once the first wave has charged and its worker has exited: Run
	// is then in the gap.
	deadline := time.Now().Add(60 * time.Second)
	for charges(t, tmp) < 1 || len(children(t)) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first wave did not charge within 60s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v; want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run still waiting 30s after its context was cancelled")
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}

// children lists the live child processes of the test, from /proc.
func children(t *testing.T) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Skip("no /proc to list processes from")
	}
	var pids []int
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after its ')'.
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(s, "/proc/"), "/stat"))
			pids = append(pids, pid)
		}
	}
	return pids
}

// charges counts the charges in the database a run keeps under tmp, 0 while
// there is none yet.
func charges(t *testing.T, tmp string) int {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(tmp, "retrysim-race-*", "race-*.db"))
	if len(paths) == 0 {
		return 0
	}
	db, err := sql.Open("sqlite", dsn(paths[0]))
	if err != nil {
		return 0
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM charges").Scan(&n); err != nil {
		return 0 // not created yet
	}
	return n
}

// A run that fails removes its database as a cancelled one does, even with
// Keep, and so does a finished run without Keep.
func TestRunRemovesItsFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cfg := config(Claim)
	run(t, cfg)
	bad := config(Claim)
	bad.Keep, bad.Exe = true, filepath.Join(tmp, "no-such-worker")
	if _, err := Run(context.Background(), bad); err == nil {
		t.Error("a run whose workers cannot start succeeded")
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
	kept := config(Claim)
	kept.Keep = true
	run(t, kept)
	if dbs, _ := filepath.Glob(filepath.Join(tmp, tempPattern+"*", "race-claim.db")); len(dbs) != 1 {
		t.Errorf("Keep: databases %v in TMPDIR; want one race-claim.db", dbs)
	}
}

// taskCases are worker inputs, good and bad, for the table test and the fuzz seeds.
var taskCases = []struct {
	in   string
	want []task // nil: refused
}{
	{"end\n", []task{}},
	{"charge-0-1\nend\n", []task{{key: "charge-0-1"}}},
	{"a!after-key\nb\nc!before-ack\nend\ngo 1\n", []task{{key: "a", crash: AfterKey}, {key: "b"}, {key: "c", crash: BeforeAck}}},
	{"", nil},
	{"a\n", nil},
	{"a\nend", nil},
	{"a!after-charge\nend\n", nil},
	{"a!\nend\n", nil},
	{"!after-key\nend\n", nil},
	{"a b\nend\n", nil},
	{"\nend\n", nil},
	{"a\r\nend\n", nil},
	{strings.Repeat("k", 300) + "\nend\n", nil},
	{strings.Repeat("k", 5000) + "\nend\n", nil},
}

func TestReadTasks(t *testing.T) {
	for _, tt := range taskCases {
		got, err := readTasks(bufio.NewReader(strings.NewReader(tt.in)))
		switch {
		case tt.want == nil && err == nil:
			t.Errorf("readTasks(%.40q) = %v; want an error", tt.in, got)
		case tt.want != nil && err != nil:
			t.Errorf("readTasks(%.40q): %v", tt.in, err)
		case tt.want != nil && !slices.Equal(got, tt.want):
			t.Errorf("readTasks(%.40q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

// Whatever comes in, readTasks returns tasks that writeTasks writes back as
// the same tasks, or an error; it never panics.
func FuzzReadTasks(f *testing.F) {
	for _, tt := range taskCases {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := readTasks(bufio.NewReader(bytes.NewReader(in)))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := writeTasks(&buf, got); err != nil {
			t.Fatal(err)
		}
		again, err := readTasks(bufio.NewReader(&buf))
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("round trip of %v: %v, %v", got, again, err)
		}
	})
}

// ParseMode reads every mode's name, with spaces around it, and refuses
// another naming the four.
func TestParseMode(t *testing.T) {
	for _, m := range Modes() {
		if got, err := ParseMode(" " + string(m) + " "); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := ParseMode("strict"); err == nil || err.Error() != `unknown mode "strict" (want loose, claim, after or lease)` {
		t.Errorf("ParseMode(strict) = %v", err)
	}
}

// CheckStudy names the flag of each setting it refuses, and passes the
// bounds themselves: MaxJobs jobs, MaxDeliveries deliveries a round.
func TestCheckStudy(t *testing.T) {
	ok := Config{Procs: 2, Jobs: 1, Deliveries: 2, Rounds: 1, Lease: time.Second}
	for _, tc := range []struct {
		name    string
		edit    func(*Config)
		simJobs int64
		want    string // the flag the error starts with; "" for none
	}{
		{"defaults", func(*Config) {}, 0, ""},
		{"compare with two deliveries", func(*Config) {}, 1000, ""},
		{"compare with three", func(c *Config) { c.Deliveries = 3 }, 1000, "-compare: "},
		{"ttl without gap", func(c *Config) { c.TTL = time.Second }, 0, "-ttl: "},
		{"ttl with gap", func(c *Config) { c.TTL, c.Gap = time.Second, time.Second }, 0, ""},
		{"MaxJobs", func(c *Config) { c.Jobs, c.Deliveries = MaxJobs, MaxDeliveries/MaxJobs }, 0, ""},
		{"MaxJobs + 1", func(c *Config) { c.Jobs = MaxJobs + 1 }, 0, "-jobs: "},
		{"a delivery too many", func(c *Config) { c.Jobs, c.Deliveries = MaxJobs, MaxDeliveries/MaxJobs+1 }, 0, "-deliveries: "},
		{"crash point alone", func(c *Config) { c.CrashAt = BeforeAck }, 0, "-crash-at: "},
		{"crash point and probability", func(c *Config) { c.CrashAt, c.CrashP = BeforeAck, 0.1 }, 0, ""},
		{"lease 0", func(c *Config) { c.Lease = 0 }, 0, "-lease: a lease must be longer than 0s"},
		{"lease 1ns", func(c *Config) { c.Lease = 1 }, 0, ""},
	} {
		c := ok
		tc.edit(&c)
		err := CheckStudy(c, tc.simJobs)
		if (tc.want == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: CheckStudy = %v; want an error starting %q", tc.name, err, tc.want)
		}
	}
}

// With no Exe, Run starts its workers from this executable, as the retrysim
// command's race does.
func TestRunDefaultsToThisExecutable(t *testing.T) {
	cfg := config(Claim)
	cfg.Exe = ""
	if res := run(t, cfg); res.Races != 1 || res.DoubleCharged != 0 {
		t.Errorf("claim, one job: %d races, %d charged twice; want 1, 0", res.Races, res.DoubleCharged)
	}
}

// A study with Keep and no Dir keeps every mode's database in one temporary
// directory it names in Dir; a study that fails or is cancelled leaves
// nothing behind.
func TestStudyKeepsItsDirectory(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	base := config("")
	base.Keep = true
	if _, err := Study(context.Background(), []Mode{Claim, Lease}, &base, 0); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(base.Dir) != tmp {
		t.Fatalf("Dir %q is not a new directory in TMPDIR %s", base.Dir, tmp)
	}
	for _, m := range []Mode{Claim, Lease} {
		if _, err := os.Stat(filepath.Join(base.Dir, "race-"+string(m)+".db")); err != nil {
			t.Errorf("%s not kept: %v", m, err)
		}
	}
	os.RemoveAll(base.Dir)
	bad := config("")
	bad.Keep = true
	bad.Exe = filepath.Join(tmp, "no-such-worker")
	if _, err := Study(context.Background(), []Mode{Claim}, &bad, 0); err == nil {
		t.Error("a study whose workers cannot start succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cancelled := config("")
	cancelled.Keep = true
	if _, err := Study(ctx, []Mode{Claim}, &cancelled, 0); err == nil {
		t.Error("a cancelled study succeeded")
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}

// A worker killed from outside, at no crash point of the run's (here as it
// was about to report its first delivery done), is said, and the run
// fails: its delivery came back as one the run never planned, and was
// counted (exit 0, crashes 0, lost 1, "refused 4,001 of 4,000").
func TestUnplannedDeathIsSaid(t *testing.T) {
	cfg := config(Claim)
	cfg.Rounds = 2
	cfg.Env = append(cfg.Env, "RETRYSIM_RACE_KILLED=W1 "+filepath.Join(t.TempDir(), "killed"))
	res, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "worker 1 died unplanned (signal: killed) in round 1, not at a crash point of the run's") {
		t.Errorf("Run with worker 1 killed from outside = %+v, %v; want an error saying so", res, err)
	}
}
