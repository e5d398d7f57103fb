package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/race"
	"github.com/retrysim/retrysim/internal/render"
)

// workerCommand is the hidden subcommand that race starts copies of itself with.
const workerCommand = "__race-worker"

const raceIntro = `retrysim race runs the SQLite idempotency check for real: worker processes,
released together by a start gate, race on one SQLite file (WAL, busy timeout)
and charge keyed jobs in each -mode. It counts jobs charged twice, jobs whose
key says handled but were never charged, and SQLITE_BUSY retries. -compare
runs the simulator's matching store at the overlap and crash rates measured.
Ctrl-C, SIGTERM or SIGHUP stops it at any point; its workers are killed and
its databases removed.

Usage: retrysim race [flags]

Renamed so that a flag means one thing in every command (each old spelling
is refused with a line naming the new one):
  -workers n      is  -procs n
  -keys n         is  -jobs n
  -repeat n       is  -rounds n
  -crash point    is  -crash-at point (and after-charge is after-work)
  -crash-p p      is  -crash p

Flags:
`

// raceRenamed points each of race's old flag names at its new one.
func raceRenamed(old string) (string, bool) {
	switch old {
	case "workers":
		return "race's worker processes are -procs (-workers is the simulator's goroutines)", true
	case "repeat":
		return "race's rounds are -rounds (-repeat is the probability of a repeated request)", true
	case "keys":
		return "race's jobs are -jobs, as in the table command (-keys is fleet's key mode)", true
	case "crash-p":
		return "the probability that a worker is killed is -crash, its point -crash-at", true
	}
	return "", false
}

// modeList is a flag.Value for comma-separated race modes.
type modeList []race.Mode

func (l *modeList) String() string {
	if l == nil {
		return ""
	}
	s := make([]string, len(*l))
	for i, m := range *l {
		s[i] = string(m)
	}
	return strings.Join(s, ",")
}

func (l *modeList) Set(v string) error {
	var out []race.Mode
	for m := range strings.SplitSeq(v, ",") {
		mode := race.Mode(strings.TrimSpace(m))
		ok := false
		for _, known := range race.Modes() {
			ok = ok || mode == known
		}
		if !ok {
			return fmt.Errorf("unknown mode %q (want loose, claim, after or lease)", m)
		}
		out = append(out, mode)
	}
	*l = out
	return nil
}

// raceCommand runs the harness for each mode and prints what it measured.
func raceCommand(ctx context.Context, args []string, stdout, _ io.Writer) (err error) {
	modes := modeList(race.Modes())
	procs := flagval.Bounded{V: 2, Lo: 1, Hi: 256}
	jobs := flagval.Count(1)
	deliveries := flagval.Bounded{V: 2, Lo: 1, Hi: 100}
	rounds := flagval.Bounded{V: 20, Lo: 1, Hi: 100_000}
	crashAt := flagval.CrashPoint()
	var crashP flagval.CrashProbability
	ttl, gap := flagval.Duration{}, flagval.Duration{}
	lease := flagval.Duration{V: time.Second}
	simJobs := flagval.Count(200_000)
	seedV := flagval.Seed(1)
	format := flagval.NewFormat(render.RaceDoc)
	var keep, compare bool
	out := outfile.File{Flag: "o"}
	fs := flagval.NewFlagSet("retrysim race")
	fs.Var(&modes, "mode", "comma-separated `modes`: loose (check, charge, insert), claim (UNIQUE insert first), after (charge, then claim), lease (status, expiry, takeover)")
	fs.Var(&procs, "procs", "concurrent worker `processes` (1 to 256)")
	fs.Var(&jobs, "jobs", fmt.Sprintf("distinct jobs, each with its key, a round (`n` from 1 to %d)", race.MaxJobs))
	fs.Var(&deliveries, "deliveries", fmt.Sprintf("`copies` of each job delivered (1 to 100; -jobs x -deliveries at most %d)", race.MaxDeliveries))
	fs.Var(&rounds, "rounds", "run the whole `n` times (1 to 100000)")
	fs.Var(&crashP, "crash", "`probability` that a first delivery's worker is killed with SIGKILL at -crash-at")
	fs.Var(&crashAt, "crash-at", "the `point` where workers are killed: before-key, after-key (between the key and the charge), after-work (between the charge and the key record) or before-ack")
	fs.Var(&ttl, "ttl", "purge keys older than this `duration` before each later wave of deliveries (needs -gap)")
	fs.Var(&gap, "gap", "deliver each job's copies in waves this `duration` apart instead of all at once")
	fs.Var(&lease, "lease", "the lease mode's lease `duration`, and how long before a killed worker's deliveries come back")
	fs.BoolVar(&compare, "compare", false, "also run the simulator's matching store at the measured overlap and crash rates (needs -deliveries 2)")
	fs.Var(&simJobs, "sim-jobs", "the simulator runs `n` jobs for -compare")
	fs.Var(&seedV, "seed", "random `seed` for choosing which deliveries crash, and for the simulator")
	fs.BoolVar(&keep, "keep", false, "keep the database files of a run that finishes (their paths are printed) instead of removing them")
	fs.Var(&format, "format", format.Usage())
	fs.StringVar(&out.Path, "o", "", outUsage)
	if err := flagval.Parse(fs, args, raceIntro, stdout); err != nil {
		if _, name, ok := strings.Cut(err.Error(), "flag provided but not defined: -"); ok {
			if msg, ok := raceRenamed(strings.TrimPrefix(name, "-")); ok {
				return flagval.Usage(fmt.Errorf("-%s: renamed: %s", strings.TrimPrefix(name, "-"), msg))
			}
		}
		return err
	}
	if err := outfile.Check(out); err != nil {
		return flagval.Usage(err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case compare && deliveries.V != 2:
		return flagval.Usage(fmt.Errorf("-compare: the simulator pairs two deliveries of a job; use -deliveries 2"))
	case ttl.V > 0 && gap.V == 0:
		return flagval.Usage(fmt.Errorf("-ttl: keys are purged between waves of deliveries; give -gap too"))
	case jobs > race.MaxJobs:
		return flagval.Usage(fmt.Errorf("-jobs: want a whole number from 1 to %d: every delivery of a round is held in memory", race.MaxJobs))
	case int(jobs)*deliveries.V > race.MaxDeliveries:
		return flagval.Usage(fmt.Errorf("-deliveries: %d jobs x %d deliveries is more than %d deliveries a round, which are held in memory", jobs, deliveries.V, race.MaxDeliveries))
	case set["crash-at"] && crashP.P == 0:
		return flagval.Usage(fmt.Errorf("-crash-at: no worker is killed unless -crash gives a probability above 0"))
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var dir string
	if keep {
		if dir, err = os.MkdirTemp("", "retrysim-race-"); err != nil {
			return err
		}
		defer func() {
			if err != nil { // nothing of a failed or interrupted run is kept
				os.RemoveAll(dir)
			}
		}()
	}
	base := race.Config{
		Procs: procs.V, Jobs: int(jobs), Deliveries: deliveries.V, Rounds: rounds.V, Gap: gap.V, TTL: ttl.V, Lease: lease.V,
		Seed: uint64(seedV), Exe: exe, Args: []string{workerCommand}, Keep: keep, Dir: dir,
	}
	if crashP.P > 0 {
		base.CrashAt, base.CrashP = race.CrashPoint(crashAt.V.String()), float64(crashP.P)
	}
	if !compare {
		simJobs = 0
	}
	rows, err := race.Study(ctx, modes, base, int64(simJobs))
	if err != nil {
		return err
	}
	title := fmt.Sprintf("The SQLite check, for real: %d worker processes, %s jobs x %d deliveries, %d rounds; lease %v",
		procs.V, render.Group(int64(jobs)), deliveries.V, rounds.V, lease.V)
	if crashP.P > 0 {
		title += fmt.Sprintf("; %s%% of first deliveries killed at %s", shortPct(float64(crashP.P)), crashAt.V)
	}
	if gap.V > 0 {
		title += fmt.Sprintf("; deliveries %v apart, keys purged after %v", gap.V, ttl.V)
	}
	if keep {
		title += "; databases kept in " + dir
	}
	var buf bytes.Buffer
	if err := format.R.Race(&buf, title, rows); err != nil {
		return err
	}
	return out.Write(ctx, stdout, buf.Bytes())
}

func shortPct(p float64) string { return fmt.Sprint(math.Round(p*1e6) / 1e4) }
