package main

import (
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

	"github.com/retrysim/retrysim/internal/flagval"
)

// commands are the subcommands; with none named, retrysim runs "table".
var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) error{
	"table":     tableCommand,
	"sweep":     sweepCommand,
	"merge":     mergeCommand,
	"race":      raceCommand,
	"fleet":     fleetCommand,
	"fleet-map": fleetMapCommand,
	"graph":     graphCommand,
	"workers":   workersCommand,
	"chain":     chainCommand,
	"version":   versionCommand,
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
	case len(args) > 1 && args[0] == "help" && helpTopics[args[1]] != nil: // help scenario [flags]
		topic, args = helpTopics[args[1]], args[2:]
	case len(args) > 0 && args[0] == "help":
		if len(args) > 1 { // help COMMAND
			name = args[1]
		}
		args = []string{"-help"}
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	}
	cmd, ok := commands[name]
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
