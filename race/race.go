// Package race runs the SQLite idempotency check for real: worker processes
// released together by a start gate race on one SQLite file (WAL mode, a
// busy timeout), each handling deliveries of keyed jobs in one of the ways the
// check compares, with crashes by SIGKILL at named points and keys purged by
// a TTL between deliveries. It measures what the simulator's key-store modes
// claim: double charges and lost keys.
//
// It is the one part of retrysim that reads the wall clock and starts
// processes; the simulation packages do neither.
package race

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
)

// Mode is where a worker writes the key.
type Mode string

const (
	// Loose checks a plain key table, charges, then inserts the key.
	Loose Mode = "loose"
	// Claim inserts into a UNIQUE key column first; the loser's constraint
	// error (2067, or 1555 on a PRIMARY KEY) means "already handled".
	Claim Mode = "claim"
	// After charges, then claims the key.
	After Mode = "after"
	// Lease takes a key row with a status and an expiry in an IMMEDIATE
	// transaction, takes over an expired one, and marks it done with the charge.
	Lease Mode = "lease"
)

// Modes lists the modes in the order outputs show them.
var Modes = []Mode{Loose, Claim, After, Lease}

// CrashPoint is where a worker kills itself.
type CrashPoint string

const (
	NoCrash     CrashPoint = ""
	AfterKey    CrashPoint = "after-key"    // between the key and the charge
	AfterCharge CrashPoint = "after-charge" // between the charge and the key
)

// Config is one run of the harness.
type Config struct {
	Mode Mode
	// Workers is how many processes run at once; Keys how many jobs; each job
	// is delivered Deliveries times; the whole is repeated Repeat times.
	Workers, Keys, Deliveries, Repeat int
	// CrashP is the probability that a delivery's worker is killed at Crash
	// (first deliveries only: a redelivery does not crash again).
	Crash  CrashPoint
	CrashP float64
	// Gap, when positive, runs the deliveries of every job in waves Gap
	// apart, purging keys older than TTL before each wave (TTL 0: no purge).
	Gap, TTL time.Duration
	// Lease is the lease mode's lease; it is also how long the harness waits
	// before bringing back the deliveries of a killed or refused worker, as a
	// queue's visibility timeout would.
	Lease time.Duration
	Seed  uint64
	// Exe and Args start a worker process: Exe Args... then the worker flags.
	Exe  string
	Args []string
	Env  []string
	// Keep leaves the database file in Dir (a temporary directory if empty).
	Keep bool
	Dir  string
}

// Result is what a run measured.
type Result struct {
	Mode          Mode
	Races         int64 // jobs whose deliveries competed: Keys x Repeat
	DoubleCharged int64 // jobs charged more than once
	Lost          int64 // jobs marked handled and never charged
	BusyRetries   int64 // SQLITE_BUSY answers retried by the workers
	Deliveries    int64 // deliveries handled or killed
	Crashes       int64 // workers killed
	// Reached counts first deliveries that passed the crash point, or died
	// there: the denominator of the crash rate.
	Reached        int64
	Refused        int64 // claims refused by the constraint
	RefusedCodes   []int // the distinct extended codes of those refusals
	Overlaps       int64 // jobs whose deliveries' key windows overlapped
	Wall           time.Duration
	DatabasePath   string // when Keep
	ChargesPerRace float64
}

// task is one delivery of one job.
type task struct {
	key   string
	copy  int
	crash CrashPoint
	// again marks a redelivery, which never crashes.
	again bool
}

// Run runs cfg and measures it.
func Run(ctx context.Context, cfg Config) (Result, error) {
	res := Result{Mode: cfg.Mode}
	if !slices.Contains(Modes, cfg.Mode) {
		return res, fmt.Errorf("mode %q is not one of loose, claim, after, lease", cfg.Mode)
	}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "retrysim-race-")
		if err != nil {
			return res, err
		}
		dir = d
		if !cfg.Keep {
			defer os.RemoveAll(d)
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("race-%s.db", cfg.Mode))
	os.Remove(path)
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return res, err
	}
	defer db.Close()
	if _, err := db.Exec(schema); err != nil {
		return res, err
	}
	if cfg.Keep {
		res.DatabasePath = path
	} else {
		defer os.Remove(path)
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x7ace))
	start := time.Now()
	windows := map[string][][2]int64{}
	codes := map[int]bool{}
	for rep := range cfg.Repeat {
		var all []task
		for k := range cfg.Keys {
			for c := range cfg.Deliveries {
				t := task{key: fmt.Sprintf("charge-%d-%d", rep, k), copy: c}
				if cfg.CrashP > 0 && r.Float64() < cfg.CrashP {
					t.crash = cfg.Crash
				}
				all = append(all, t)
			}
		}
		waves := [][]task{all}
		if cfg.Gap > 0 {
			waves = make([][]task, cfg.Deliveries)
			for _, t := range all {
				waves[t.copy] = append(waves[t.copy], t)
			}
		}
		for i, wave := range waves {
			if i > 0 {
				time.Sleep(cfg.Gap)
				if cfg.TTL > 0 {
					cut := time.Now().Add(-cfg.TTL).UnixMilli()
					for _, table := range []string{"keys_unique", "keys_plain"} {
						if _, err := db.Exec("DELETE FROM "+table+" WHERE at < ?", cut); err != nil {
							return res, err
						}
					}
				}
			}
			if err := runWave(ctx, cfg, path, wave, &res, windows, codes); err != nil {
				return res, err
			}
		}
	}
	res.Wall = time.Since(start)
	res.Races = int64(cfg.Keys * cfg.Repeat)
	for c := range codes {
		res.RefusedCodes = append(res.RefusedCodes, c)
	}
	slices.Sort(res.RefusedCodes)
	for _, w := range windows {
		if overlapping(w) {
			res.Overlaps++
		}
	}
	return res, count(db, cfg.Mode, &res)
}

// overlapping reports whether two of a job's key windows [check, write] meet.
func overlapping(w [][2]int64) bool {
	for i := range w {
		for j := i + 1; j < len(w); j++ {
			if w[i][0] <= w[j][1] && w[j][0] <= w[i][1] {
				return true
			}
		}
	}
	return false
}

// count reads the outcome from the database.
func count(db *sql.DB, mode Mode, res *Result) error {
	handled := map[Mode]string{
		Loose: "SELECT DISTINCT key FROM keys_plain",
		Claim: "SELECT key FROM keys_unique",
		After: "SELECT key FROM keys_unique",
		Lease: "SELECT key FROM leases WHERE status = 'done'",
	}[mode]
	var total int64
	err := db.QueryRow("SELECT COUNT(*) FROM (SELECT key FROM charges GROUP BY key HAVING COUNT(*) > 1)").Scan(&res.DoubleCharged)
	if err == nil {
		err = db.QueryRow("SELECT COUNT(*) FROM (" + handled + ") h WHERE h.key NOT IN (SELECT key FROM charges)").Scan(&res.Lost)
	}
	if err == nil {
		err = db.QueryRow("SELECT COUNT(*) FROM charges").Scan(&total)
	}
	if res.Races > 0 {
		res.ChargesPerRace = float64(total) / float64(res.Races)
	}
	return err
}

// runWave delivers tasks: workers take them in turns, copies of one job on
// different workers so that they meet; the deliveries of a killed worker that
// it did not finish, and those refused by a live lease, come back in another
// round once the lease has run out, without their crash.
func runWave(ctx context.Context, cfg Config, path string, tasks []task, res *Result, windows map[string][][2]int64, codes map[int]bool) error {
	pending := tasks
	for round := 0; len(pending) > 0; round++ {
		if round > 50 {
			return fmt.Errorf("deliveries still pending after %d rounds", round)
		}
		if round > 0 {
			time.Sleep(cfg.Lease + 50*time.Millisecond)
		}
		lists := make([][]task, min(cfg.Workers, len(pending)))
		for i, t := range pending {
			lists[i%len(lists)] = append(lists[i%len(lists)], t)
		}
		outs, err := startWorkers(ctx, cfg, path, lists)
		if err != nil {
			return err
		}
		pending = nil
		for w, out := range outs {
			done := map[string]bool{}
			crashed := map[string]bool{}
			again := map[string]bool{}
			for _, t := range lists[w] {
				again[t.key] = again[t.key] || t.again
			}
			for _, line := range out.lines {
				f := strings.Fields(line)
				switch {
				case len(f) >= 3 && f[0] == "done":
					res.Deliveries++
					if f[2] == "held" {
						continue
					}
					done[f[1]] = true
					if f[2] == "refused" || f[2] == "charged-refused" {
						res.Refused++
						c, _ := strconv.Atoi(f[3])
						codes[c] = true
					}
				case len(f) == 4 && f[0] == "t":
					a, _ := strconv.ParseInt(f[2], 10, 64)
					b, _ := strconv.ParseInt(f[3], 10, 64)
					windows[f[1]] = append(windows[f[1]], [2]int64{a, b})
				case len(f) == 3 && f[0] == "crash":
					res.Crashes++
					res.Deliveries++
					crashed[f[1]] = true
				case len(f) == 3 && f[0] == "reach" && f[2] == string(cfg.Crash) && !again[f[1]]:
					res.Reached++
				case len(f) == 2 && f[0] == "busy":
					n, _ := strconv.ParseInt(f[1], 10, 64)
					res.BusyRetries += n
				}
			}
			if out.err != nil && !out.killed {
				return fmt.Errorf("worker %d: %v: %s", w, out.err, strings.Join(out.stderr, " "))
			}
			for _, t := range lists[w] {
				if !done[t.key] {
					if crashed[t.key] {
						t.crash, t.again = NoCrash, true // a redelivery does not crash again
					}
					pending = append(pending, t)
				}
			}
		}
	}
	return nil
}

// output is what one worker process said.
type output struct {
	lines, stderr []string
	err           error
	killed        bool
}

// startWorkers starts one process a list, waits until every one is ready,
// releases them together through the start gate, and collects their reports.
func startWorkers(ctx context.Context, cfg Config, path string, lists [][]task) ([]output, error) {
	outs := make([]output, len(lists))
	gates := make([]io.WriteCloser, len(lists))
	cmds := make([]*exec.Cmd, len(lists))
	var wg sync.WaitGroup
	ready := make(chan error, len(lists))
	for i, list := range lists {
		var keys []string
		for _, t := range list {
			s := t.key
			if t.crash != NoCrash {
				s += "!" + string(t.crash)
			}
			keys = append(keys, s)
		}
		args := append(slices.Clone(cfg.Args), "-db", path, "-mode", string(cfg.Mode),
			"-name", fmt.Sprintf("W%d", i+1), "-lease", cfg.Lease.String(), "-tasks", strings.Join(keys, ","))
		cmd := exec.CommandContext(ctx, cfg.Exe, args...)
		cmd.Env = append(os.Environ(), cfg.Env...)
		gate, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		gates[i], cmds[i] = gate, cmd
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(stdout)
			first := true
			for sc.Scan() {
				if first && sc.Text() == "ready" {
					ready <- nil
					first = false
					continue
				}
				outs[i].lines = append(outs[i].lines, sc.Text())
			}
			if first {
				ready <- fmt.Errorf("worker %d exited before it was ready", i+1)
			}
			errs := bufio.NewScanner(stderr)
			for errs.Scan() {
				outs[i].stderr = append(outs[i].stderr, errs.Text())
			}
		}()
	}
	var startErr error
	for range lists {
		if err := <-ready; err != nil && startErr == nil {
			startErr = err
		}
	}
	// The start gate: every worker spins until the same instant, a little
	// after the last of them has heard of it.
	at := time.Now().Add(10*time.Millisecond + time.Duration(len(gates))*2*time.Millisecond).UnixNano()
	for _, g := range gates {
		fmt.Fprintf(g, "go %d\n", at)
		g.Close()
	}
	wg.Wait()
	for i, cmd := range cmds {
		err := cmd.Wait()
		outs[i].err = err
		if ee, ok := err.(*exec.ExitError); ok && !ee.Exited() {
			outs[i].killed = true // by its own SIGKILL at a crash point
		}
	}
	if startErr != nil {
		for _, o := range outs {
			if len(o.stderr) > 0 {
				return nil, fmt.Errorf("%v: %s", startErr, strings.Join(o.stderr, " "))
			}
		}
		return nil, startErr
	}
	return outs, nil
}
