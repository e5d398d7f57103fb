package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	api "github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/delivery"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/race"
	"github.com/retrysim/retrysim/internal/render"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/strategy"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// commands are the subcommands; with none named, retrysim runs "table".
var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) error{
	"table":   tableCommand,
	"sweep":   sweepCommand,
	"merge":   mergeCommand,
	"race":    raceCommand,
	"fleet":   fleetCommand,
	"version": versionCommand,
}

const versionIntro = `retrysim version prints the module version retrysim was built from
("(devel)" for a build inside a checkout) and the Go toolchain; retrysim
-version does the same. It takes no flags.

Usage: retrysim version
`

// versionCommand prints the module version the binary was built from
// ("(devel)" for a build inside a checkout) and the Go toolchain.
func versionCommand(_ context.Context, args []string, stdout, _ io.Writer) error {
	if err := flagval.ParseFlags(flagval.NewFlagSet("retrysim version"), args, versionIntro, stdout); err != nil {
		return err
	}
	if len(args) > 0 {
		return flagval.Usage(fmt.Errorf("version: unexpected argument %q", args[0]))
	}
	fmt.Fprintf(stdout, "retrysim %s\n", version())
	return nil
}

// version is the main module's version from the build info.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	return v + " " + info.GoVersion
}

// run is the whole program: it picks the subcommand, runs it, and turns its
// error into one line on stderr and an exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == workerCommand {
		// A race worker process: it keeps the default signal actions, so
		// that SIGINT, SIGTERM and SIGHUP end it; the harness handles them.
		if err := race.Worker(args[1:], os.Stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "retrysim: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	// A closed terminal (SIGHUP) stops a run as Ctrl-C does, so that race
	// still removes its databases.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	name := "table"
	switch {
	case len(args) == 1 && (args[0] == "-version" || args[0] == "--version"):
		name, args = "version", nil
	case len(args) > 0 && args[0] == "help":
		if len(args) > 1 { // help COMMAND
			name = args[1]
		}
		args = []string{"-help"}
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	}
	cmd, ok := commands[name]
	var err error
	if ok {
		err = cmd(ctx, args, stdout, stderr)
	} else {
		err = flagval.Usage(fmt.Errorf("unknown command %q (want one of %s, or flags alone for table)", name, strings.Join(slices.Sorted(maps.Keys(commands)), ", ")))
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "retrysim: interrupted; nothing was written")
		return exitFailure
	case errors.As(err, new(flagval.UsageError)):
		fmt.Fprintf(stderr, "retrysim: %v\n", err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "retrysim: %v\n", err)
		return exitFailure
	}
}

// common are the flags every simulating command shares.
type common struct {
	seed       flagval.Seed
	rng        flagval.Choice
	strategies flagval.Strategies
	format     flagval.Format
	workers    flagval.Bounded
	engine     flagval.Engine
	out        outfile.File
}

// register declares the shared flags on fs with their defaults, -format
// taking the formats that write doc.
func (c *common) register(fs *flag.FlagSet, doc render.Doc) {
	*c = common{
		seed:       1,
		rng:        flagval.Choice{V: rng.Generators()[0].Name, Valid: flagval.ValidRNG},
		strategies: flagval.Strategies(strategy.DefaultIDs()),
		format:     flagval.NewFormat(doc),
		workers:    flagval.Bounded{V: runtime.GOMAXPROCS(0), Lo: 1, Hi: 4096},
	}
	fs.Var(&c.seed, "seed", "random `seed`; the same flags and seed print the same bytes")
	gens := make([]string, len(rng.Generators()))
	for i, g := range rng.Generators() {
		gens[i] = fmt.Sprintf("%s: %s", g.Name, g.Doc)
	}
	fs.Var(&c.rng, "rng", "random `generator`: "+strings.Join(gens, "; "))
	fs.Var(&c.strategies, "strategies", "comma-separated strategy `names`, each once, each scope-keys[-skip] with scope step or job and keys nokey, newkey or samekey")
	fs.Var(&c.format, "format", c.format.Usage())
	fs.Var(&c.workers, "workers", fmt.Sprintf("parallel `workers`, %d to %d; the output does not depend on it", c.workers.Lo, c.workers.Hi))
	fs.Lookup("workers").DefValue = "GOMAXPROCS" // not this machine's count
	fs.Var(&c.engine, "engine", "the `engine` that draws the jobs: auto (skip where allowed), plain (every draw of every job), or skip (only the jobs where something happens; not with mulberry32)")
	c.out.Flag = "o"
	fs.StringVar(&c.out.Path, "o", "", outUsage)
}

// outUsage is every command's -o usage.
const outUsage = "write the output to `file` instead of stdout: a regular file is replaced atomically (keeping its mode), a symbolic link's target likewise, a device or FIFO is written in place"

// usage turns the library's refusal of a setting into the flag's: a
// api.FieldError names the setting (sweep's axes joined by " x ", a
// parameter by name given with -set), a delivery.FieldError a field of the
// queue.
func usage(err error) error {
	var fe *api.FieldError
	var de *delivery.FieldError
	switch {
	case errors.As(err, &fe):
		flags := strings.Split(fe.Field, " x ")
		for i, f := range flags {
			switch {
			case f == "generator":
				flags[i] = "-rng"
			case f == "axes":
				flags[i] = "-set"
			case strings.ContainsAny(f, "[."): // steps[STEP].FIELD, queue.FIELD
				flags[i] = "-set " + f
			default:
				flags[i] = "-" + flagOf(f)
			}
		}
		return flagval.Usage(fmt.Errorf("%s: %s", strings.Join(flags, " x "), fe.Msg))
	case errors.As(err, &de):
		return flagval.Usage(fmt.Errorf("-%s: %s", flagOf("queue."+de.Field), de.Msg))
	}
	return err
}

// flagOf is the flag that gives the library's setting called name:
// queue.backoff.base is -backoff-base, p_fail -p-fail.
func flagOf(name string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(strings.TrimPrefix(name, "queue."))
}
