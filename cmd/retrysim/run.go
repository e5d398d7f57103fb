package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"

	"retrysim/provider"
	"retrysim/results"
	"retrysim/rng"
	"retrysim/sim"
	"retrysim/strategy"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// run is the whole command: it parses args, simulates, and writes the report to
// stdout or one line of error to stderr. It returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := simulate(ctx, args, stdout, stderr)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, new(usageError)):
		fmt.Fprintf(stderr, "retrysim: %v\n", err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "retrysim: %v\n", err)
		return exitFailure
	}
}

// usageError is bad input: exit status 2.
type usageError struct{ error }

// options are the parsed flags of a simulation run.
type options struct {
	jobs       count
	pFail      probability
	lostReply  probability
	attempts   bounded
	seed       seed
	rng        choice
	strategies strategyList
	format     choice
	workers    bounded
}

// newFlagSet declares every flag with its default on o.
func newFlagSet(o *options) *flag.FlagSet {
	*o = options{
		jobs:       1_000_000,
		pFail:      0.01,
		lostReply:  0.005,
		attempts:   bounded{v: 3, lo: 1, hi: sim.MaxAttempts},
		seed:       1,
		rng:        choice{v: rng.Generators[0].Name, valid: validRNG},
		strategies: strategyList(strategy.DefaultIDs),
		format:     choice{v: results.Formats[0], valid: results.CheckFormat},
		workers:    bounded{v: runtime.GOMAXPROCS(0), lo: 1, hi: 4096},
	}
	fs := flag.NewFlagSet("retrysim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&o.jobs, "jobs", "simulate `n` jobs (1e6 and 1_000_000 work too)")
	fs.Var(&o.pFail, "p-fail", "`probability` that a call fails before doing anything")
	fs.Var(&o.lostReply, "lost-reply", "`probability` that the welcome email's reply is lost after the email went out")
	fs.Var(&o.attempts, "attempts", "calls a retry allows, the first included (`n` from 1 to 1000)")
	fs.Var(&o.seed, "seed", "random `seed`; the same flags and seed print the same bytes")
	gens := make([]string, len(rng.Generators))
	for i, g := range rng.Generators {
		gens[i] = fmt.Sprintf("%s: %s", g.Name, g.Doc)
	}
	fs.Var(&o.rng, "rng", "random `generator`: "+strings.Join(gens, "; "))
	fs.Var(&o.strategies, "strategies", "comma-separated strategy `names`, each scope-keys[-skip] with scope step or job and keys nokey, newkey or samekey")
	fs.Var(&o.format, "format", "output `format`: "+strings.Join(results.Formats, ", "))
	fs.Var(&o.workers, "workers", "parallel `workers`, GOMAXPROCS by default; the output does not depend on it")
	// flag calls Usage on every parse error; errors get one line, so only an
	// explicit -help prints it (see simulate).
	fs.Usage = func() {}
	return fs
}

// printUsage writes the help text of fs to w.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `retrysim simulates multi-step background jobs under retry and idempotency-key
strategies and prints, for each strategy, the jobs that failed, the calls paid,
the side effects repeated and the users who got the watched step twice.

Usage: retrysim [flags]

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// simulate parses args, runs the engine and writes the report.
func simulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlagSet(&o)
	var setErr error
	nameErrors(fs, &setErr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stdout)
			return err
		}
		if setErr != nil {
			err = setErr
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (all settings are flags; see -help)", fs.Arg(0))}
	}
	gen, _ := rng.Lookup(o.rng.v)
	sc := provider.Signup(float64(o.pFail), float64(o.lostReply))
	strats := make([]strategy.Strategy, len(o.strategies))
	rows := make([]results.Row, len(o.strategies))
	for i, id := range o.strategies {
		s, err := strategy.Parse(id, o.attempts.v)
		if err != nil {
			return usageError{err}
		}
		strats[i] = s
		rows[i] = results.Row{ID: id, Label: s.Name()}
	}
	counters, err := sim.Run(ctx, sim.Config{
		Scenario:   sc,
		Strategies: strats,
		Jobs:       int64(o.jobs),
		Seed:       uint64(o.seed),
		Generator:  gen,
		Workers:    o.workers.v,
	})
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("interrupted; nothing was written")
		}
		return err
	}
	for i := range rows {
		rows[i].Counters = counters[i]
	}
	rep := results.Report{
		Params: results.Params{
			Scenario:     sc.Name,
			Noun:         sc.Noun,
			Steps:        len(sc.Steps),
			LossyStep:    sc.Steps[sc.Watched].Name,
			Jobs:         int64(o.jobs),
			PFail:        float64(o.pFail),
			LostReply:    float64(o.lostReply),
			Attempts:     o.attempts.v,
			RNG:          gen.Name,
			Seed:         uint64(o.seed),
			WatchedLabel: sc.WatchedLabel,
		},
		Rows: rows,
	}
	var buf bytes.Buffer
	if err := results.Write(&buf, rep, o.format.v); err != nil {
		return err
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}
