package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/retrysim/retrysim/internal/flagval"
	"github.com/retrysim/retrysim/internal/render"
)

// TestMain lets this test binary serve as the race's worker processes, which
// the harness starts from its own executable.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workerCommand {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// wallTime is the Wall column, the one figure of a run that is not a
// function of its flags.
var wallTime = regexp.MustCompile(`[0-9.]+ s │`)

// Naming a flag of race at its default changes nothing (issue 23): every
// flag of its FlagSet, as -help lists it, given at its default over a small
// run, prints what the run without it prints (cmd/retrysim walks the other
// commands' flags the same way).
func TestEveryFlagAtItsDefault(t *testing.T) {
	var help flagval.HelpError
	if err := raceCommand(context.Background(), []string{"-help"}, io.Discard, io.Discard); !errors.As(err, &help) {
		t.Fatalf("-help returned %v; want a flagval.HelpError", err)
	}
	race := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := run(args, &out, &errOut)
		return wallTime.ReplaceAllString(out.String(), "wall │"), errOut.String(), code
	}
	base := []string{"-jobs", "4", "-procs", "1", "-rounds", "1"}
	wantOut, wantErr, wantCode := race(base...)
	if wantCode != 0 {
		t.Fatalf("%q: exit %d, %s", base, wantCode, wantErr)
	}
	help.Flags.VisitAll(func(f *flag.Flag) {
		if f.Name == "o" || slices.Contains(base, "-"+f.Name) || !flagval.Listed(f) {
			return // an output location, the run's own, or an old name refused whatever its value
		}
		value := f.DefValue
		if f.Name == "width" { // -help's default: the terminal's, and stdout here is none
			value = strconv.Itoa(render.DefaultWidth)
		}
		with := append(slices.Clone(base), "-"+f.Name+"="+value)
		t.Run(f.Name+"="+value, func(t *testing.T) {
			out, errOut, code := race(with...)
			if code != wantCode || errOut != wantErr || out != wantOut {
				t.Errorf("%q: exit %d, stderr %q, stdout\n%s\nwant the run without -%s: exit %d, stderr %q, stdout\n%s",
					with, code, errOut, out, f.Name, wantCode, wantErr, wantOut)
			}
		})
	})
}
