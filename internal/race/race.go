// Package race runs the SQLite idempotency check for real: worker processes,
// released together, race on one SQLite file in one of the key-store modes,
// with crashes by SIGKILL and keys purged by a TTL, and it counts double
// charges and lost keys. It is the one part of retrysim that reads the wall
// clock and starts processes.
package race

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
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

	"github.com/retrysim/retrysim/internal/limits"
	"github.com/retrysim/retrysim/internal/raceresult"
)

// Mode is where a worker writes the key, in SQL doing what a delivery.Store
// models; After never reads the key first, so Study compares it with delivery.NoStore.
type Mode string

const (
	// Loose checks a plain key table, charges, then inserts the key.
	Loose Mode = "loose"
	// Claim inserts into a UNIQUE key column first; a constraint error means "already handled".
	Claim Mode = "claim"
	// After charges, then claims the key.
	After Mode = "after"
	// Lease takes a key row with a status and an expiry, takes over an expired one,
	// and marks it done with the charge.
	Lease Mode = "lease"
)

// Modes lists the modes in the order outputs show them.
func Modes() []Mode { return []Mode{Loose, Claim, After, Lease} }

// ParseMode reads a mode's name, spaces around it allowed.
func ParseMode(s string) (Mode, error) {
	if m := Mode(strings.TrimSpace(s)); slices.Contains(Modes(), m) {
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want loose, claim, after or lease)", s)
}

// CrashPoint is where a worker kills itself, named as delivery.CrashPoint.
type CrashPoint string

const (
	NoCrash   CrashPoint = ""
	BeforeKey CrashPoint = "before-key" // before the delivery touches the key
	AfterKey  CrashPoint = "after-key"  // between the key and the charge
	AfterWork CrashPoint = "after-work" // between the charge and the key
	BeforeAck CrashPoint = "before-ack" // after the delivery's end, before it reports done
)

// CrashPoints lists the points a worker can die at.
func CrashPoints() []CrashPoint { return []CrashPoint{BeforeKey, AfterKey, AfterWork, BeforeAck} }

// MaxJobs bounds Config.Jobs, and MaxDeliveries Jobs x Deliveries: every
// delivery of a round is held in memory, about 0.4 KB each.
const (
	MaxJobs       = 10_000
	MaxDeliveries = 100_000
)

// Config is one run of the harness.
type Config struct {
	Mode Mode
	// Procs worker processes run Rounds rounds of Jobs jobs, each delivered Deliveries times.
	Procs, Jobs, Deliveries, Rounds int
	// CrashP is the probability that a first delivery's worker is killed at CrashAt.
	CrashAt CrashPoint
	CrashP  float64
	// Gap, when positive, runs each job's deliveries in waves Gap apart, purging
	// keys older than TTL (0: none) before each wave.
	Gap, TTL time.Duration
	// Lease is the lease mode's lease, and how long a killed or refused worker's
	// deliveries wait to come back.
	Lease time.Duration
	Seed  uint64
	// Exe Args... start a worker process; Exe is this executable when empty.
	Exe  string
	Args []string
	Env  []string
	// Keep leaves a finished run's database in Dir (a temporary directory if
	// empty); a failed or cancelled run removes it.
	Keep bool
	Dir  string
}

// CheckStudy refuses, naming the race command's flag, a base configuration
// whose settings Study cannot all honour.
func CheckStudy(base Config, simJobs int64) error {
	if err := limits.Lease(base.Lease); err != nil {
		return fmt.Errorf("-lease: %w", err)
	}
	switch {
	case simJobs > 0 && base.Deliveries != 2:
		return errors.New("-compare: the simulator pairs two deliveries of a job; use -deliveries 2")
	case base.TTL > 0 && base.Gap == 0:
		return errors.New("-ttl: keys are purged between waves of deliveries; give -gap too")
	case base.Jobs > MaxJobs:
		return fmt.Errorf("-jobs: want a whole number from 1 to %d: every delivery of a round is held in memory", MaxJobs)
	case base.Jobs*base.Deliveries > MaxDeliveries:
		return fmt.Errorf("-deliveries: %d jobs x %d deliveries is more than %d deliveries a round, which are held in memory",
			base.Jobs, base.Deliveries, MaxDeliveries)
	case base.CrashAt != NoCrash && base.CrashP == 0:
		return errors.New("-crash-at: no worker is killed unless -crash gives a probability above 0")
	}
	return nil
}

// Result is what a run measured.
type Result struct {
	raceresult.Row
	// Reached counts first deliveries that reached the crash point: the crash rate's denominator.
	Reached        int64
	ChargesPerRace float64
}

// task is one delivery of one job.
type task struct {
	key   string
	copy  int
	crash CrashPoint
	again bool
}

// Run runs cfg, as the race command's flags and CheckStudy accept it, and
// measures it. It returns when every worker it started has exited, and
// removes the database (but a kept, finished run's); a cancelled ctx kills
// the workers and Run returns ctx's error.
func Run(ctx context.Context, cfg Config) (res Result, err error) {
	res.Mode = string(cfg.Mode)
	if cfg.Exe == "" {
		if cfg.Exe, err = os.Executable(); err != nil {
			return res, err
		}
	}
	err = inDir(&cfg.Dir, cfg.Keep, func() error { return measure(ctx, cfg, &res) })
	return res, err
}

// measure runs cfg in cfg.Dir into res, removing the database unless cfg.Keep
// and it finishes.
func measure(ctx context.Context, cfg Config, res *Result) (err error) {
	path := filepath.Join(cfg.Dir, fmt.Sprintf("race-%s.db", cfg.Mode))
	files := []string{path, path + "-wal", path + "-shm"}
	var db *sql.DB
	defer func() {
		if db != nil {
			db.Close()
		}
		for _, f := range files {
			if !cfg.Keep || err != nil {
				os.Remove(f)
			}
		}
	}()
	for _, f := range files { // a kept database of an earlier run in cfg.Dir
		os.Remove(f)
	}
	if db, err = sql.Open("sqlite", dsn(path)); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, tables); err != nil {
		return err
	}
	sp := newSpawner()
	defer sp.close() // after every worker has been reaped: see spawner
	r := rand.New(rand.NewPCG(cfg.Seed, 0x7ace))
	start := time.Now()
	windows := map[string][][2]int64{}
	codes := map[int]bool{}
	for round := range cfg.Rounds {
		all := make([]task, 0, cfg.Jobs*cfg.Deliveries)
		for k := range cfg.Jobs {
			for c := range cfg.Deliveries {
				t := task{key: fmt.Sprintf("charge-%d-%d", round, k), copy: c}
				if cfg.CrashP > 0 && r.Float64() < cfg.CrashP {
					t.crash = cfg.CrashAt
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
				if err := sleep(ctx, cfg.Gap); err != nil {
					return err
				}
				if cfg.TTL > 0 {
					cut := time.Now().Add(-cfg.TTL).UnixMilli()
					for _, table := range []string{"keys_unique", "keys_plain"} {
						if _, err := db.ExecContext(ctx, "DELETE FROM "+table+" WHERE at < ?", cut); err != nil {
							return err
						}
					}
				}
			}
			if err := runWave(ctx, cfg, sp, path, wave, res, windows, codes); err != nil {
				return err
			}
		}
	}
	res.WallSeconds = time.Since(start).Seconds()
	res.Races = int64(cfg.Jobs * cfg.Rounds)
	res.RefusedCodes = slices.Sorted(maps.Keys(codes))
	for _, w := range windows {
		if overlapping(w) {
			res.Overlaps++
		}
	}
	return count(db, cfg.Mode, res)
}

// sleep waits d, or until ctx is done, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
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

// runWave delivers tasks in turns across workers, so a job's copies meet; a
// killed worker's unfinished deliveries, and those a live lease refused,
// come back without their crash once the lease has run out.
func runWave(ctx context.Context, cfg Config, sp *spawner, path string, tasks []task, res *Result, windows map[string][][2]int64, codes map[int]bool) error {
	pending := tasks
	for round := 0; len(pending) > 0; round++ {
		if round > 50 {
			return fmt.Errorf("deliveries still pending after %d rounds", round)
		}
		if round > 0 {
			if err := sleep(ctx, cfg.Lease+50*time.Millisecond); err != nil {
				return err
			}
		}
		lists := make([][]task, min(cfg.Procs, len(pending)))
		for i, t := range pending {
			lists[i%len(lists)] = append(lists[i%len(lists)], t)
		}
		outs, err := startWorkers(ctx, cfg, sp, path, lists)
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
				case len(f) == 3 && f[0] == "reach" && f[2] == string(cfg.CrashAt) && !again[f[1]]:
					res.Reached++
				case len(f) == 2 && f[0] == "busy":
					n, _ := strconv.ParseInt(f[1], 10, 64)
					res.BusyRetries += n
				}
			}
			if out.err != nil && !out.killed {
				return fmt.Errorf("worker %d: %v: %s", w+1, out.err, out.stderr)
			}
			if out.killed && len(crashed) == 0 {
				// A kill at no planned crash point would make a redelivery the run never planned.
				return fmt.Errorf("worker %d died unplanned (%v) in round %d, not at a crash point of the run's: its deliveries would be counted as refused or lost; run it again", w+1, out.err, round+1)
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
	lines  []string
	stderr string
	err    error
	killed bool
}

// startWorkers starts a process a list, releases them together through the
// start gate once all are ready, and collects their reports; every worker
// has been reaped when it returns.
func startWorkers(ctx context.Context, cfg Config, sp *spawner, path string, lists [][]task) ([]output, error) {
	outs := make([]output, len(lists))
	stderrs := make([]strings.Builder, len(lists))
	var cmds []*exec.Cmd
	var gates []io.WriteCloser
	var wg sync.WaitGroup
	ready := make(chan error, len(lists))
	// reap kills the workers if asked, closes their start gates and waits for all.
	reap := func(kill bool) {
		for _, c := range cmds {
			if kill {
				c.Process.Kill()
			}
		}
		for _, g := range gates {
			g.Close()
		}
		wg.Wait() // the readers first: Wait closes the pipes they read
		for i, c := range cmds {
			err := c.Wait()
			outs[i].err, outs[i].stderr = err, stderrs[i].String()
			if ee, ok := err.(*exec.ExitError); ok && !ee.Exited() {
				outs[i].killed = true // by its own SIGKILL at a crash point
			}
		}
	}
	for i, list := range lists {
		args := append(slices.Clone(cfg.Args), "-db", path, "-mode", string(cfg.Mode),
			"-name", fmt.Sprintf("W%d", i+1), "-lease", cfg.Lease.String(), "-crash-at", string(cfg.CrashAt))
		cmd := exec.CommandContext(ctx, cfg.Exe, args...)
		cmd.Env = append(os.Environ(), cfg.Env...)
		cmd.Stderr = &stderrs[i]
		cmd.SysProcAttr = sysProcAttr()
		gate, err := cmd.StdinPipe()
		var stdout io.ReadCloser
		if err == nil {
			stdout, err = cmd.StdoutPipe()
		}
		if err == nil {
			err = sp.start(cmd)
		}
		if err != nil {
			reap(true)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		cmds, gates = append(cmds, cmd), append(gates, gate)
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The worker reads its whole list before writing, so this cannot block.
			writeTasks(gate, list)
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
		}()
	}
	var startErr error
	for range lists {
		if err := <-ready; err != nil && startErr == nil {
			startErr = err
		}
	}
	if startErr != nil {
		reap(true)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, o := range outs {
			if o.stderr != "" {
				return nil, fmt.Errorf("%v: %s", startErr, strings.TrimSpace(o.stderr))
			}
		}
		return nil, startErr
	}
	// The start gate: an instant a little after the last worker has heard of it.
	at := time.Now().Add(10*time.Millisecond + time.Duration(len(gates))*2*time.Millisecond).UnixNano()
	for _, g := range gates {
		fmt.Fprintf(g, "go %d\n", at)
	}
	reap(false)
	if ctx.Err() != nil {
		return nil, ctx.Err() // the workers were killed, not crashed
	}
	return outs, nil
}
