package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/race"
	"github.com/retrysim/retrysim/internal/render"
)

// workerCommand is the hidden subcommand that race starts copies of itself
// with: the workers run this executable, retrysim-race.
const workerCommand = "__race-worker"

const raceIntro = `retrysim race runs the SQLite idempotency check for real: worker processes,
released together by a start gate, race on one SQLite file (WAL, busy timeout)
and charge keyed jobs in each -mode. It counts jobs charged twice, jobs whose
key says handled but were never charged, and SQLITE_BUSY retries. -compare
runs the simulator's matching store at the overlap and crash rates measured.
Ctrl-C, SIGTERM or SIGHUP stops it at any point; its workers are killed and
its databases removed. The databases of a harness killed by SIGKILL are
removed by the next one.

Usage: retrysim race [flags]
       retrysim-race [flags]    (the same: retrysim race runs it)

Renamed so that a flag means one thing in every command (each old spelling
is refused with a line naming the new one):
  -workers n      is  -procs n
  -keys n         is  -jobs n
  -repeat n       is  -rounds n
  -crash point    is  -crash-at point (and after-charge is after-work)
  -crash-p p      is  -crash p

Flags:
`

// raceRenamed gives each of race's old flag names what replaced it.
var raceRenamed = map[string]string{
	"workers": "race's worker processes are -procs (-workers is the simulator's goroutines)",
	"repeat":  "race's rounds are -rounds (-repeat is the probability of a repeated request)",
	"keys":    "race's jobs are -jobs, as in the table command (-keys is fleet's key mode)",
	"crash-p": "the probability that a worker is killed is -crash, its point -crash-at",
}

// raceCommand runs the harness for each mode and prints what it measured.
func raceCommand(ctx context.Context, args []string, stdout, _ io.Writer) error {
	base := race.Config{Procs: 2, Deliveries: 2, Rounds: 20, Lease: time.Second, Args: []string{workerCommand}}
	modes := race.Modes()
	jobs, simJobs, seed := flagval.Count(1), flagval.Count(200_000), flagval.Seed(1)
	crashAtFlag, crashAt := flagval.CrashPoint()
	var crashP flagval.CrashProbability
	var compare bool
	var o flagval.Output
	fs := flagval.NewFlagSet("retrysim race")
	fs.Var(flagval.ListVar(&modes, race.ParseMode, func(m race.Mode) string { return string(m) }), "mode", "comma-separated `modes`: loose (check, charge, insert), claim (UNIQUE insert first), after (charge, then claim), lease (status, expiry, takeover)")
	fs.Var(flagval.IntVar(&base.Procs, 1, 256), "procs", "concurrent worker `processes` (1 to 256)")
	fs.Var(&jobs, "jobs", fmt.Sprintf("distinct jobs, each with its key, a round (`n` from 1 to %d)", race.MaxJobs))
	fs.Var(flagval.IntVar(&base.Deliveries, 1, 100), "deliveries", fmt.Sprintf("`copies` of each job delivered (1 to 100; -jobs x -deliveries at most %d)", race.MaxDeliveries))
	fs.Var(flagval.IntVar(&base.Rounds, 1, 100_000), "rounds", "run the whole `n` times (1 to 100000)")
	fs.Var(&crashP, "crash", "`probability` that a first delivery's worker is killed with SIGKILL at -crash-at")
	fs.Var(crashAtFlag, "crash-at", "the `point` where workers are killed: before-key, after-key (between the key and the charge), after-work (between the charge and the key record) or before-ack")
	fs.Var(flagval.DurationVar(&base.TTL), "ttl", "purge keys older than this `duration` before each later wave of deliveries (needs -gap)")
	fs.Var(flagval.DurationVar(&base.Gap), "gap", "deliver each job's copies in waves this `duration` apart instead of all at once")
	fs.Var(flagval.DurationVar(&base.Lease), "lease", "the lease mode's lease `duration`, and how long before a killed worker's deliveries come back")
	fs.BoolVar(&compare, "compare", false, "also run the simulator's matching store at the measured overlap and crash rates (needs -deliveries 2)")
	fs.Var(&simJobs, "sim-jobs", "the simulator runs `n` jobs for -compare (only with it)")
	fs.Var(&seed, "seed", "random `seed` for choosing which deliveries crash, and for the simulator")
	fs.BoolVar(&base.Keep, "keep", false, "keep the database files of a run that finishes (their paths are printed) instead of removing them")
	o.Register(fs, render.RaceDoc, "", "")
	for old, why := range raceRenamed {
		fs.Var(flagval.NotHere("renamed: "+why), old, "")
	}
	if err := flagval.Parse(fs, args, raceIntro, stdout); err != nil {
		return err
	}
	if err := outfile.Check(o.Out); err != nil {
		return flagval.Usage(err)
	}
	base.Jobs, base.Seed, base.CrashP = int(jobs), uint64(seed), float64(crashP.P)
	if crashP.P > 0 || *crashAt != delivery.Defaults().CrashAt {
		base.CrashAt = race.CrashPoint(crashAt.String())
	}
	if err := flagval.Refuse(fs, func(name string) string {
		if name == "sim-jobs" && !compare {
			return "only -compare runs the simulator; give -compare too, or leave -sim-jobs out"
		}
		return ""
	}); err != nil {
		return err
	}
	if !compare {
		simJobs = 0
	}
	if err := race.CheckStudy(base, int64(simJobs)); err != nil {
		return flagval.Usage(err)
	}
	rows, err := race.Study(ctx, modes, &base, int64(simJobs))
	if err != nil {
		return err
	}
	return o.Out.Render(ctx, stdout, func(w io.Writer) error { return o.Renderer(stdout).Race(w, raceTitle(base, compare), rows) })
}
