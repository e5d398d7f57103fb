package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/shardrun"
)

// subcommand is one command: its name, the arguments and the line the
// top-level usage shows for it, and what runs it: run, or for a kind of
// run its Kind (its shards merged with merge's own flags), and, with
// sweeps, retrysim sweep NAME its sweep.
type subcommand struct {
	name, args, summary string
	run                 func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	shardrun.Kind
	sweeps bool
}

// commandList is every subcommand in the order the top-level usage lists
// them; it is set in init because tableCommand prints it.
var commandList []subcommand

// commands finds a subcommand by name; with none named, retrysim runs "table".
var commands map[string]subcommand

// shardKinds are the kinds of run whose shards are envelopes (shardfile),
// by kind, the sweeps of kinds as "sweep KIND"; the table's are the job
// model's own.
var shardKinds map[string]shardrun.Kind

// outputs are merge's own flags of a kind with a series and a picture.
var outputs = []string{"o", "format", "width", "series", "plot"}

func init() {
	commandList = []subcommand{
		{name: "table", args: "[flags]", run: tableCommand},
		{name: "sweep", args: "[KIND] [flags]", summary: "a grid of points, of any kind", run: sweepCommand, Kind: shardrun.Kind{Parse: parseSweep, MergeFlags: []string{"o", "format", "width", "plot", "metric", "log-y", "linear-y", "own-scales", "ci"}}},
		{name: "tune", args: "[KIND] [flags]", summary: "the best settings that meet -require", run: tuneCommand},
		{name: "merge", args: "[flags] FILES...", summary: "add up -shard outputs", run: mergeCommand},
		{name: "race", args: "[flags]", summary: "the SQLite check for real", run: raceCommand},
		{name: "fleet", args: "[flags]", summary: "retry storms: many clients, one server", Kind: shardrun.Kind{Parse: parseKind(cli.Fleet), MergeFlags: outputs}, sweeps: true},
		{name: "graph", args: "[flags]", summary: "a call graph: retries amplified by depth", Kind: shardrun.Kind{Parse: parseKind(cli.Graph), MergeFlags: outputs}, sweeps: true},
		{name: "workers", args: "[flags]", summary: "jobs on a queue, a worker fleet, drain", Kind: shardrun.Kind{Parse: parseKind(cli.Graph), MergeFlags: []string{"o", "format", "width", "plot"}}, sweeps: true},
		{name: "chain", args: "[flags]", summary: "the fleet's exact Markov chain, and splitting", Kind: shardrun.Kind{Parse: parseKind(cli.Chain), MergeFlags: []string{"o"}}},
		{name: "fleet-map", args: "[flags]", summary: "where a fleet recovers, over trigger and load", Kind: shardrun.Kind{Parse: parseKind(cli.FleetMap), MergeFlags: []string{"o", "format", "width", "plot"}}},
		{name: "incident", args: "[NAME] [flags]", summary: "public incidents replayed, with sources and fixes", Kind: shardrun.Kind{Parse: parseKind(cli.Incident), MergeFlags: []string{"o", "format", "plot"}}},
		{name: "version", summary: "the version, from the build info (also -version)", run: versionCommand},
	}
	commands = make(map[string]subcommand, len(commandList))
	shardKinds = make(map[string]shardrun.Kind)
	for _, c := range commandList {
		if c.run == nil {
			c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
				return c.Do(ctx, c.name, args, stdout, stderr)
			}
		}
		commands[c.name] = c
		if c.Parse != nil {
			shardKinds[c.name] = c.Kind
		}
		if c.sweeps {
			shardKinds["sweep "+c.name] = shardrun.Kind{Parse: c.Parse, MergeFlags: []string{"o", "format", "width"}}
		}
	}
	addTuneKinds()
}

// parseKind is the Parse of a kind whose command body is parse, given the
// kind's -help text (a sweep's, its kind's).
func parseKind(parse func(kind string, args []string, help string, stdout, stderr io.Writer) (*shardrun.Work, error)) func(string, []string, io.Writer, io.Writer) (*shardrun.Work, error) {
	return func(kind string, args []string, stdout, stderr io.Writer) (*shardrun.Work, error) {
		return parse(kind, args, helpText(strings.TrimPrefix(kind, "sweep ")), stdout, stderr)
	}
}

// commandUsage is the top-level usage: a line a command of commandList, a
// line for help and a line a help topic.
func commandUsage() string {
	var b strings.Builder
	line := func(use, summary string) {
		prefix := "Usage: "
		if b.Len() > 0 {
			prefix = "       "
		}
		fmt.Fprintln(&b, strings.TrimRight(fmt.Sprintf("%s%-33s %s", prefix, use, summary), " "))
	}
	for _, c := range commandList {
		name := c.name
		if name == "table" {
			name = "[table]"
		}
		summary := c.summary
		if c.args != "" && summary != "" {
			summary += " (retrysim " + c.name + " -help)"
		}
		line(strings.TrimSpace("retrysim "+name+" "+c.args), summary)
	}
	line("retrysim help [command]", "a command's -help")
	for _, name := range slices.Sorted(maps.Keys(helpTopics)) {
		line("retrysim help "+name, helpTopics[name].summary)
	}
	return b.String()
}

// versionCommand prints the module version the binary was built from
// ("(devel)" for a build inside a checkout) and the Go toolchain.
func versionCommand(_ context.Context, args []string, stdout, _ io.Writer) error {
	if err := flagval.ParseFlags(flagval.NewFlagSet("retrysim version"), args, helpText("version"), stdout); err != nil {
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
	return cmp.Or(info.Main.Version, "(devel)") + " " + info.GoVersion
}

// run is the whole program: it picks the subcommand, runs it, and turns its
// error into one line on stderr and an exit status.
func run(args []string, stdout, stderr io.Writer) int {
	// A closed terminal (SIGHUP) stops a run as Ctrl-C does, so that race
	// still removes its databases. The first signal cancels ctx, and the
	// run stops within a second, writing nothing; stop then hands the
	// signals back to their default action, so a second one ends the
	// process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	context.AfterFunc(ctx, stop)
	name := "table"
	var topic func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	switch {
	case len(args) == 1 && (args[0] == "-version" || args[0] == "--version"):
		name, args = "version", nil
	case len(args) > 1 && args[0] == "help" && helpTopics[args[1]].run != nil: // help scenario [flags]
		topic, args = helpTopics[args[1]].run, args[2:]
	case len(args) > 0 && args[0] == "help":
		if len(args) > 1 { // help COMMAND
			name = args[1]
		}
		args = []string{"-help"}
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	}
	c, ok := commands[name]
	cmd := c.run
	if topic != nil {
		cmd, ok = topic, true
	}
	var err error
	if ok {
		err = cmd(ctx, args, stdout, stderr)
	} else {
		err = flagval.Usage(fmt.Errorf("unknown command %q (want one of %s, or flags alone for table)", name, strings.Join(slices.Sorted(maps.Keys(commands)), ", ")))
	}
	return flagval.ExitStatus(ctx, err, stderr)
}
