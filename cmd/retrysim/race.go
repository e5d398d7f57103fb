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

	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/race"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/sim"
	"github.com/retrysim/retrysim/stats"
	"github.com/retrysim/retrysim/strategy"
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
	procs := bounded{v: 2, lo: 1, hi: 256}
	jobs := count(1)
	deliveries := bounded{v: 2, lo: 1, hi: 100}
	rounds := bounded{v: 20, lo: 1, hi: 100_000}
	crashAt := crashPointFlag()
	var crashP crashProbability
	ttl, gap := durationFlag{}, durationFlag{}
	lease := durationFlag{time.Second}
	simJobs := count(200_000)
	seedV := seed(1)
	format := newFormatFlag(render.RaceDoc)
	var keep, compare bool
	out := outfile.File{Flag: "o"}
	fs := newFlagSet("retrysim race")
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
	fs.Var(&format, "format", format.usage())
	fs.StringVar(&out.Path, "o", "", outUsage)
	if err := parse(fs, args, raceIntro, stdout); err != nil {
		if _, name, ok := strings.Cut(err.Error(), "flag provided but not defined: -"); ok {
			if msg, ok := raceRenamed(strings.TrimPrefix(name, "-")); ok {
				return usageError{fmt.Errorf("-%s: renamed: %s", strings.TrimPrefix(name, "-"), msg)}
			}
		}
		return err
	}
	if err := outfile.Check(out); err != nil {
		return usageError{err}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case compare && deliveries.v != 2:
		return usageError{fmt.Errorf("-compare: the simulator pairs two deliveries of a job; use -deliveries 2")}
	case ttl.v > 0 && gap.v == 0:
		return usageError{fmt.Errorf("-ttl: keys are purged between waves of deliveries; give -gap too")}
	case jobs > race.MaxJobs:
		return usageError{fmt.Errorf("-jobs: want a whole number from 1 to %d: every delivery of a round is held in memory", race.MaxJobs)}
	case int(jobs)*deliveries.v > race.MaxDeliveries:
		return usageError{fmt.Errorf("-deliveries: %d jobs x %d deliveries is more than %d deliveries a round, which are held in memory", jobs, deliveries.v, race.MaxDeliveries)}
	case set["crash-at"] && crashP.p == 0:
		return usageError{fmt.Errorf("-crash-at: no worker is killed unless -crash gives a probability above 0")}
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
	var rows []stats.RaceRow
	for _, m := range modes {
		cfg := race.Config{
			Mode: m, Procs: procs.v, Jobs: int(jobs), Deliveries: deliveries.v, Rounds: rounds.v,
			Gap: gap.v, TTL: ttl.v, Lease: lease.v,
			Seed: uint64(seedV), Exe: exe, Args: []string{workerCommand}, Keep: keep, Dir: dir,
		}
		if crashP.p > 0 {
			cfg.CrashAt, cfg.CrashP = race.CrashPoint(crashAt.v.String()), float64(crashP.p)
		}
		res, err := race.Run(ctx, cfg)
		if err != nil {
			return fmt.Errorf("race %s: %w", m, err)
		}
		row := stats.RaceRow{
			Mode: string(m), Races: res.Races, DoubleCharged: res.DoubleCharged, Lost: res.Lost, BusyRetries: res.BusyRetries,
			Deliveries: res.Deliveries, Crashes: res.Crashes, Refused: res.Refused, RefusedCodes: res.RefusedCodes,
			Overlaps: res.Overlaps, WallSeconds: res.Wall.Seconds(),
		}
		if compare {
			s, err := simulateRace(ctx, res, cfg, int64(simJobs))
			if err != nil {
				return err
			}
			row.Sim = &s
		}
		rows = append(rows, row)
	}
	title := fmt.Sprintf("The SQLite check, for real: %d worker processes, %s jobs x %d deliveries, %d rounds; lease %v",
		procs.v, render.Group(int64(jobs)), deliveries.v, rounds.v, lease.v)
	if crashP.p > 0 {
		title += fmt.Sprintf("; %s%% of first deliveries killed at %s", shortPct(float64(crashP.p)), crashAt.v)
	}
	if gap.v > 0 {
		title += fmt.Sprintf("; deliveries %v apart, keys purged after %v", gap.v, ttl.v)
	}
	if keep {
		title += "; databases kept in " + dir
	}
	var buf bytes.Buffer
	if err := format.r.Race(&buf, title, rows); err != nil {
		return err
	}
	return out.Write(ctx, stdout, buf.Bytes())
}

func shortPct(p float64) string { return fmt.Sprint(math.Round(p*1e6) / 1e4) }

// simulateRace runs the simulator's store that matches mode on the check's
// one-step job, two deliveries a job: the measured share of overlapping
// pairs at the same instant, the rest two seconds apart, with workers killed
// at the measured rate at the matching point. The harness's after mode never
// reads its key before charging, so outside crashes it is no key at all.
//
// The overlap and crash rates are measured on a few races, so the simulated
// rates also come at the ends of those rates' 95% intervals: that range is
// what the simulator predicts, given what the harness could measure.
func simulateRace(ctx context.Context, res race.Result, cfg race.Config, jobs int64) (stats.RaceSim, error) {
	overlap := stats.Wilson(res.Overlaps, res.Races)
	crash := stats.Interval{}
	if res.Reached > 0 && res.Crashes > 0 {
		crash = stats.Wilson(res.Crashes, res.Reached)
	}
	centre := func(x, n int64) float64 {
		if n == 0 {
			return 0
		}
		return float64(x) / float64(n)
	}
	out := stats.RaceSim{Jobs: jobs, DoubleLo: 1, LostLo: 1}
	for i, at := range [][2]float64{
		{centre(res.Overlaps, res.Races), centre(res.Crashes, res.Reached)},
		{overlap.Lo, crash.Lo}, {overlap.Lo, crash.Hi}, {overlap.Hi, crash.Lo}, {overlap.Hi, crash.Hi},
	} {
		double, lost, err := simulatePairs(ctx, cfg, at[0], at[1], jobs)
		if err != nil {
			return out, err
		}
		if i == 0 {
			out.DoubleCharged, out.Lost = double, lost
		}
		d, l := float64(double)/float64(jobs), float64(lost)/float64(jobs)
		out.DoubleLo, out.DoubleHi = min(out.DoubleLo, d), max(out.DoubleHi, d)
		out.LostLo, out.LostHi = min(out.LostLo, l), max(out.LostHi, l)
	}
	return out, nil
}

// simulatePairs runs jobs two-delivery jobs, a share overlap of them at the
// same instant, with workers dying at rate crash, and counts the jobs charged
// twice and the jobs lost.
func simulatePairs(ctx context.Context, cfg race.Config, overlap, crash float64, jobs int64) (double, lost int64, err error) {
	q := delivery.Defaults()
	q.Store = map[race.Mode]delivery.Store{race.Loose: delivery.Loose, race.Claim: delivery.Claim, race.After: delivery.NoStore, race.Lease: delivery.Lease}[cfg.Mode]
	q.RepeatP = 1
	if crash > 0 {
		// The harness kills first deliveries only, so at most one a job.
		point, err := delivery.ParseCrashPoint(string(cfg.CrashAt)) // the same names
		if err != nil {
			return 0, 0, err
		}
		q.CrashP, q.MaxCrashes, q.CrashAt = crash, 1, point
	}
	overlapJobs := int64(math.Round(overlap * float64(jobs)))
	var cfgs []sim.Config
	for _, part := range []struct {
		n     int64
		delay time.Duration
	}{{overlapJobs, 0}, {jobs - overlapJobs, 2 * time.Second}} {
		if part.n == 0 {
			continue
		}
		qq := q
		qq.RepeatDelay.Median = part.delay
		cfgs = append(cfgs, sim.Config{
			Scenario: delivery.Charge(), Jobs: part.n, Seed: uint64(cfg.Seed), Generator: rng.PCGGenerator(), Delivery: &qq,
			Strategies: []strategy.Strategy{strategy.Retry{Scope: strategy.EachStep, Attempts: 1}},
		})
	}
	counters, err := sim.RunAll(ctx, cfgs, 0, nil)
	if err != nil {
		return 0, 0, err
	}
	for _, c := range counters {
		double += c[0].DuplicateUsers
		lost += c[0].LostWork
	}
	return double, lost, nil
}
